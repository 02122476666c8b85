"""Training benchmark: bpelab (pure Python) against HF `tokenizers` and `rustbpe` (Rust), same run.

Usage:
  .venv/bin/python build_scripts/bench.py [--corpus kjv,pydocs,multilingual] [--vocab-size 5000]
      [--mixed-vocab-size 20000]
      [--repeat N] [--skip-slow] [--pyodide] [--json bench_results/bench.json]

What runs, each trainer in its own fresh subprocess (`--run-one`), N times, the
minimum reported:
  bpelab        bpelab.train(text, vocab_size, pretokenizer="gpt2", special_tokens=())
  bpelab w=2    the same with workers=2 (see "Equal input" below)
  hf            HF tokenizers: Split(GPT-2 pattern, isolated) + ByteLevel(use_regex=False),
                BpeTrainer(vocab_size, initial_alphabet=ByteLevel.alphabet())
  rustbpe       rustbpe.Tokenizer().train_from_iterator(..., vocab_size, pattern=GPT-2)
  reference     bpelab.reference.reference_train (recounts everything; small corpus only)
  naive         seed 003's loop, written below in `naive_train` (small corpus only)

The big corpora (kjv 4.1 MB, pydocs 11 MB, multilingual ar en hi ja ko ru vi zh)
come from build_scripts/corpora.py, which fetches Debian packages; nothing else
is downloaded. The slow trainers run on a small corpus: the first 200 KB of KJV
(whole lines) at vocab 500, next to bpelab, HF and rustbpe on the same text.

Measured per trainer, inside its subprocess, after the imports:
  wall s   from opening the file to the trained merges (reading, pre-tokenizing, merging)
  cpu s    user + system time of the process and its waited-for children (threads included)
  peak MiB VmHWM of the process (Rust threads included); worker processes reported apart

Equal input. HF and rustbpe train faster, and in parallel, from many strings
than from one, but a string boundary is also a pre-token boundary. So their
input is the text cut into ~16K-character chunks, each cut made just before a
"\\n" that follows a printable non-space character. No GPT-2 pre-token can
cross such a point (the only pieces holding "\\n" are all whitespace, and the
pattern has no look-behind), so the pre-tokens are exactly the whole text's.
bpelab's workers=2 row gets the same chunks as documents: with one string it
has nothing to split, and the chunks give the same merges (checked below).

Merges checked: bpelab w=2, reference and naive must equal bpelab's merges
exactly (exit status 1 if not, after the report). HF and rustbpe break ties
differently, so for them the report gives how many leading merged tokens equal
bpelab's, and how many of all the merged tokens are shared.

--pyodide builds the site (build_scripts/build_site.py) into a temporary folder,
serves it on 127.0.0.1, and in headless Chromium trains the same bpelab on the
first 1,000,000 characters of KJV (the site's character limit) inside a module
worker; CPython trains on the same text, and both train times are printed.

It is a benchmark, not a test: timings never fail it; the ratios printed are
measured in the same run on the same machine. Results go to stdout (markdown)
and to bench_results/bench.json.
"""

import argparse
import contextlib
import datetime
import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "bench_results" / "bench.json"
from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (build_scripts/chromium.py)

# GPT-2's pre-tokenizer with the contractions grouped; bpelab's "gpt2" is the same source.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

BIG_CORPORA = ("kjv", "pydocs", "multilingual")
FAST_TRAINERS = ("bpelab", "bpelab-w2", "hf", "rustbpe")
SLOW_TRAINERS = ("reference", "naive")
LABELS = {"bpelab": "bpelab", "bpelab-w2": "bpelab w=2", "hf": "HF tokenizers", "rustbpe": "rustbpe",
          "reference": "reference", "naive": "naive (seed 003)", "pyodide": "bpelab in Pyodide"}
SMALL_BYTES = 200_000
SMALL_VOCAB = 500
CHUNK_CHARS = 1 << 14
CHILD_TIMEOUT = 3600  # seconds; the naive trainer on a big corpus would need hours


# ------------------------------------------------------------------ equal input

def safe_chunks(text, target=CHUNK_CHARS):
    """The text cut into chunks of about `target` characters, only where no GPT-2 pre-token can cross.

    A cut goes just before a "\\n" whose previous character is printable and
    not a space, so each chunk but the last ends in non-whitespace and the next
    starts with "\\n".

    >>> safe_chunks("ab\\n\\ncd \\nef\\ngh", target=2)
    ['ab', '\\n\\ncd \\nef', '\\ngh']
    """
    chunks, start, n = [], 0, len(text)
    while start < n:
        cut = start + target
        while True:
            cut = text.find("\n", cut)
            if cut == -1:
                chunks.append(text[start:])
                return chunks
            before = text[cut - 1]
            if before.isprintable() and not before.isspace():
                break
            cut += 1
        chunks.append(text[start:cut])
        start = cut
    return chunks


# ------------------------------------------------------------------ the naive trainer

def naive_train(text, vocab_size):
    """NAIVE TRAINER, seed 003 style, for this benchmark only: recount every pair on every merge.

    Pre-tokens from the GPT-2 pattern (the `regex` module, as the seed does),
    then: count all adjacent pairs, take the most frequent (ties: the greater
    pair of byte strings), rewrite every row, repeat. Returns [(bytes, bytes)].

    >>> naive_train("low low lower", 258)
    [(b'o', b'w'), (b'l', b'ow')]
    """
    import regex

    rows = Counter()  # tuple of byte strings -> count
    for match in regex.finditer(GPT2_PATTERN, text):
        rows[tuple(bytes([b]) for b in match.group().encode("utf-8"))] += 1
    merges = []
    while 256 + len(merges) < vocab_size:
        pairs = Counter()
        for row, count in rows.items():
            for pair in zip(row, row[1:]):
                pairs[pair] += count
        if not pairs:
            break
        best = max(pairs, key=lambda pair: (pairs[pair], pair))
        joined = best[0] + best[1]
        rewritten = Counter()
        for row, count in rows.items():
            out, i = [], 0
            while i < len(row):
                if i + 1 < len(row) and row[i] == best[0] and row[i + 1] == best[1]:
                    out.append(joined)
                    i += 2
                else:
                    out.append(row[i])
                    i += 1
            rewritten[tuple(out)] += count
        rows = rewritten
        merges.append(best)
    return merges


# ------------------------------------------------------------------ trainers (run in the child)
# Each returns (run, describe): run(text, vocab_size) -> result, timed;
# describe(result) -> {"tokens": [hex of each merged token], "pairs": [[hex, hex]] | None,
# "ids": [[id, id]] | None}, not timed.

def _describe_pairs(pairs, ids=None):
    return {"tokens": [(a + b).hex() for a, b in pairs], "pairs": [[a.hex(), b.hex()] for a, b in pairs],
            "ids": [list(pair) for pair in ids] if ids is not None else None}


def _bpelab(workers):
    from bpelab import train

    def run(text, vocab_size):
        documents = text if workers == 1 else safe_chunks(text)
        return train(documents, vocab_size=vocab_size, pretokenizer="gpt2", special_tokens=(), workers=workers)

    def describe(result):
        vocab = result.tokenizer.vocab
        return _describe_pairs([(vocab[a], vocab[b]) for a, b in result.merges], result.merges)

    return run, describe


def _reference():
    from bpelab.reference import reference_train

    def run(text, vocab_size):
        return reference_train(text, vocab_size=vocab_size, pretokenizer="gpt2", special_tokens=())

    def describe(result):
        merges, _counts, vocab = result
        return _describe_pairs([(vocab[a], vocab[b]) for a, b in merges], merges)

    return run, describe


def _naive():
    import regex  # noqa: F401  (imported before the clock starts)

    return naive_train, _describe_pairs


def _hf():
    from tokenizers import Regex, Tokenizer
    from tokenizers import pre_tokenizers
    from tokenizers.models import BPE
    from tokenizers.trainers import BpeTrainer

    def run(text, vocab_size):
        tokenizer = Tokenizer(BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(GPT2_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
        trainer = BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                             show_progress=False, special_tokens=[])
        tokenizer.train_from_iterator(safe_chunks(text), trainer=trainer)
        return tokenizer

    def describe(tokenizer):
        from bpelab.byte_unicode import visible_to_bytes

        merges = json.loads(tokenizer.to_str())["model"]["merges"]
        pairs = [m.split(" ") if isinstance(m, str) else m for m in merges]  # "a b" in older versions
        return _describe_pairs([(visible_to_bytes(a), visible_to_bytes(b)) for a, b in pairs])

    return run, describe


def _rustbpe():
    import rustbpe

    def run(text, vocab_size):
        tokenizer = rustbpe.Tokenizer()
        tokenizer.train_from_iterator(iter(safe_chunks(text)), vocab_size, pattern=GPT2_PATTERN)
        return tokenizer

    def describe(tokenizer):
        # rustbpe shows ranks, not pairs: compare the merged tokens in rank order.
        ranked = sorted(tokenizer.get_mergeable_ranks(), key=lambda item: item[1])
        return {"tokens": [token.hex() for token, rank in ranked if rank >= 256], "pairs": None, "ids": None}

    return run, describe


TRAINER_SETUP = {
    "bpelab": lambda: _bpelab(1),
    "bpelab-w2": lambda: _bpelab(2),
    "hf": _hf,
    "rustbpe": _rustbpe,
    "reference": _reference,
    "naive": _naive,
}


def _status(field):
    """A VmXXX line of /proc/self/status, in KiB."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _cpu_seconds():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_one(name, path, vocab_size, out):
    """Child process: train once, write timings, memory and merges as JSON to `out`."""
    run, describe = TRAINER_SETUP[name]()
    baseline_kib = _status("VmRSS")
    cpu0 = _cpu_seconds()
    t0 = time.perf_counter()
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    t1 = time.perf_counter()
    result = run(text, vocab_size)
    t2 = time.perf_counter()
    cpu = _cpu_seconds() - cpu0
    record = {
        "trainer": name,
        "wall_s": t2 - t0,
        "read_s": t1 - t0,
        "train_s": t2 - t1,
        "cpu_s": cpu,
        "peak_mib": _status("VmHWM") / 1024,
        "baseline_mib": baseline_kib / 1024,
        # ru_maxrss of the largest waited-for child: bpelab's worker processes.
        "children_peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }
    record.update(describe(result))
    Path(out).write_text(json.dumps(record), encoding="utf-8")


# ------------------------------------------------------------------ parent

def _load_corpora_module():
    spec = importlib.util.spec_from_file_location("bpelab_corpora", ROOT / "build_scripts" / "corpora.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def spawn(name, path, vocab_size, timeout=CHILD_TIMEOUT):
    """Run one trainer in a fresh interpreter; its record, or {"error": ...}."""
    with tempfile.TemporaryDirectory(prefix="bpelab-bench-") as scratch:
        out = Path(scratch) / "result.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--run-one", name,
                   "--file", str(path), "--vocab-size", str(vocab_size), "--out", str(out)]
        started = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        except subprocess.TimeoutExpired:
            return {"trainer": name, "error": f"timed out after {timeout} s"}
        process_s = time.perf_counter() - started
        if done.returncode != 0 or not out.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            return {"trainer": name, "error": f"exit {done.returncode}: {' | '.join(tail)}"}
        record = json.loads(out.read_text(encoding="utf-8"))
        record["process_s"] = process_s  # interpreter start and imports included
        return record


def leading_equal(a, b):
    """How many items from the start of a and b are equal.

    >>> leading_equal([1, 2, 3], [1, 2, 4, 5])
    2
    """
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def compare_merges(base, other, exact):
    """Agreement of another trainer's merges with bpelab's (`base`)."""
    info = {"merges": len(other["tokens"]), "bpelab_merges": len(base["tokens"]),
            "leading_equal": leading_equal(base["tokens"], other["tokens"]),
            "shared_tokens": len(set(base["tokens"]) & set(other["tokens"]))}
    if exact:
        key = "ids" if other.get("ids") is not None else "pairs"
        info["identical"] = base[key] == other[key]
        info["compared"] = key
    return info


def corpus_info(path):
    text = path.read_text(encoding="utf-8")
    return {"path": str(path), "bytes": len(text.encode("utf-8")), "chars": len(text),
            "lines": text.count("\n"), "chunks": len(safe_chunks(text))}


def run_corpus(label, path, vocab_size, trainers, repeat, log):
    """Every trainer on one corpus, `repeat` rounds (trainers interleaved), the min of each."""
    runs = {name: [] for name in trainers}
    for round_ in range(repeat):
        for name in trainers:
            record = spawn(name, path, vocab_size)
            runs[name].append(record)
            if "error" in record:
                log(f"[bench] {label} {name}: ERROR {record['error']}")
            else:
                log(f"[bench] {label} {name} (run {round_ + 1}/{repeat}): {record['wall_s']:.2f} s, "
                    f"{record['peak_mib']:.0f} MiB")
    rows = {}
    for name, records in runs.items():
        good = [r for r in records if "error" not in r]
        if not good:
            rows[name] = {"trainer": name, "error": records[-1]["error"]}
            continue
        best = min(good, key=lambda r: r["wall_s"])
        row = {key: value for key, value in best.items() if key not in ("tokens", "pairs", "ids")}
        row["runs_wall_s"] = [r["wall_s"] for r in good]
        row["peak_mib"] = max(r["peak_mib"] for r in good)
        row["_merges"] = {key: best[key] for key in ("tokens", "pairs", "ids")}
        rows[name] = row
    base = rows.get("bpelab", {}).get("_merges")
    for name, row in rows.items():
        if base is not None and name != "bpelab" and "_merges" in row:
            row["agreement"] = compare_merges(base, row["_merges"], exact=name in ("bpelab-w2", "reference", "naive"))
    for name, reference in (("hf", "vs_hf"), ("rustbpe", "vs_rustbpe")):
        ref = rows.get(name, {}).get("wall_s")
        for row in rows.values():
            if ref and "wall_s" in row:
                row[reference] = row["wall_s"] / ref
    return rows


# ------------------------------------------------------------------ Pyodide in Chromium

_PAGE_JS = """
async ({ text, vocabSize, repeat, code, timeoutMs }) => {
  const origin = location.origin;
  const source = `
    import { loadPyodide } from "${origin}/pyodide/pyodide.mjs";
    self.onmessage = async (event) => {
      const { text, vocabSize, repeat, code } = event.data;
      try {
        const pyodide = await loadPyodide({ indexURL: "${origin}/pyodide/", packageBaseUrl: "${origin}/pyodide/",
                                            fullStdLib: false });
        const build = await (await fetch("${origin}/build.json")).json();  // the package's name holds its hash
        const zip = await (await fetch("${origin}/" + build.package_file)).arrayBuffer();
        pyodide.unpackArchive(zip, "zip", { extractDir: "/home/pyodide/site" });
        pyodide.runPython(code);
        self.postMessage({ type: "ready", version: pyodide.version });
        const bench = pyodide.globals.get("_bench");
        const runs = [];
        for (let i = 0; i < repeat; i++) {
          runs.push(JSON.parse(bench(text, vocabSize)));
          self.postMessage({ type: "run", index: i });
        }
        let heap = null;
        try { heap = pyodide._module.HEAP8.buffer.byteLength; } catch (error) {}
        self.postMessage({ type: "done", runs, heap });
      } catch (error) {
        self.postMessage({ type: "error", message: String(error && error.message || error) });
      }
    };`;
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const started = performance.now();
  const worker = new Worker(url, { type: "module" });
  return await new Promise((resolve) => {
    const timer = setTimeout(() => { worker.terminate(); resolve({ error: `timed out after ${timeoutMs} ms` }); },
                             timeoutMs);
    let bootMs = null, version = null;
    worker.onerror = (event) => { clearTimeout(timer); resolve({ error: event.message || "worker error" }); };
    worker.onmessage = (event) => {
      const m = event.data;
      if (m.type === "ready") { bootMs = performance.now() - started; version = m.version; }
      else if (m.type === "done") {
        clearTimeout(timer); worker.terminate();
        resolve({ bootMs, version, runs: m.runs, heap: m.heap, userAgent: navigator.userAgent });
      } else if (m.type === "error") { clearTimeout(timer); worker.terminate(); resolve({ error: m.message }); }
    };
    worker.postMessage({ text, vocabSize, repeat, code });
  });
}
"""

# The timed call is the CPython child's bpelab call, on a string already in memory.
_PYODIDE_PY = """
import sys, json, time
sys.path.insert(0, "/home/pyodide/site")
from bpelab import train

def _bench(text, vocab_size):
    started = time.perf_counter()
    result = train(text, vocab_size=vocab_size, pretokenizer="gpt2", special_tokens=())
    seconds = time.perf_counter() - started
    vocab = result.tokenizer.vocab
    return json.dumps({"train_s": seconds, "python": sys.version.split()[0],
                       "ids": [list(pair) for pair in result.merges],
                       "tokens": [(vocab[a] + vocab[b]).hex() for a, b in result.merges]})
"""


def run_pyodide(text, vocab_size, repeat, log, timeout=1800):
    """bpelab trained inside Pyodide in headless Chromium: boot and train times, merges."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"error": "playwright is not installed in this Python (.venv/bin/pip install playwright)"}
    if not Path(CHROMIUM).exists():
        return {"error": f"no Chromium at {CHROMIUM}: apt-get install chromium, or set BPELAB_CHROMIUM"}
    spec = importlib.util.spec_from_file_location("bpelab_build_site", ROOT / "build_scripts" / "build_site.py")
    build_site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_site)
    from bpelab.serve import serve_in_thread

    with tempfile.TemporaryDirectory(prefix="bpelab-bench-site-") as scratch:
        site = Path(scratch) / "dist"
        with contextlib.redirect_stdout(sys.stderr):  # stdout is the report
            build_site.build(site)  # fresh from web/ and py/, so never a stale dist/
        server, url = serve_in_thread(site)
        outside = []
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                context = browser.new_context()

                def route(route_):
                    request_url = route_.request.url
                    if request_url == url + "__bench__.html":
                        route_.fulfill(status=200, content_type="text/html; charset=utf-8",
                                       body="<!doctype html><meta charset=utf-8><title>bench</title>")
                    elif request_url.startswith(url) or request_url.startswith(("blob:", "data:")):
                        route_.continue_()
                    else:  # nothing may leave the machine
                        outside.append(request_url)
                        route_.abort()

                context.route("**/*", route)
                page = context.new_page()
                page.goto(url + "__bench__.html")
                log(f"[bench] Pyodide: training {len(text):,} characters in Chromium ({repeat} run(s))")
                result = page.evaluate(_PAGE_JS, {"text": text, "vocabSize": vocab_size, "repeat": repeat,
                                                  "code": _PYODIDE_PY, "timeoutMs": timeout * 1000})
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
    if outside:
        result["outside_requests"] = outside
    if "error" in result:
        return result
    runs = result.pop("runs")
    best = min(runs, key=lambda r: r["train_s"])
    return {"boot_s": result["bootMs"] / 1000, "train_s": best["train_s"], "pyodide_version": result["version"],
            "runs_train_s": [r["train_s"] for r in runs], "python": best["python"],
            "wasm_heap_mib": result["heap"] / 2**20 if result.get("heap") else None,
            "user_agent": result["userAgent"], "_merges": {"tokens": best["tokens"], "ids": best["ids"],
                                                           "pairs": None},
            **({"outside_requests": outside} if outside else {})}


# ------------------------------------------------------------------ report

def _fmt(value, digits=2):
    return "—" if value is None else f"{value:.{digits}f}"


def _agreement_text(info):
    if not info:
        return "—"
    text = f"{info['leading_equal']}/{info['bpelab_merges']} leading"
    if "identical" in info:
        return ("identical" if info["identical"] else "DIFFERENT") + f" ({info['compared']})"
    return text + f", {info['shared_tokens']} shared"


def markdown_table(results):
    lines = ["| corpus | trainer | wall s | cpu s | peak MiB | × HF | × rustbpe | merges vs bpelab |",
             "|---|---|--:|--:|--:|--:|--:|---|"]
    for corpus in results["corpora"]:
        info = corpus["info"]
        label = f"{corpus['name']} ({info['bytes'] / 1e6:.2f} MB, V={corpus['vocab_size']})"
        for name, row in corpus["rows"].items():
            if "error" in row:
                lines.append(f"| {label} | {LABELS[name]} | error: {row['error']} | | | | | |")
                continue
            peak = f"{row['peak_mib']:.0f}"
            if name == "bpelab-w2" and row.get("children_peak_mib"):
                peak += f" (+ workers ≤{row['children_peak_mib']:.0f} each)"
            lines.append(f"| {label} | {LABELS[name]} | {row['wall_s']:.2f} | {row['cpu_s']:.2f} | {peak} | "
                         f"{_fmt(row.get('vs_hf'))} | {_fmt(row.get('vs_rustbpe'))} | "
                         f"{_agreement_text(row.get('agreement'))} |")
    return "\n".join(lines)


def goal_lines(results):
    """The issue's goals, on the big corpora: faster than HF, within 3× of rustbpe."""
    lines = []
    for corpus in results["corpora"]:
        row = corpus["rows"].get("bpelab", {})
        if "vs_hf" not in row or "vs_rustbpe" not in row:
            continue
        hf, rust = row["vs_hf"], row["vs_rustbpe"]
        if corpus["name"] in BIG_CORPORA:
            lines.append(f"- {corpus['name']} V={corpus['vocab_size']}: bpelab / HF = {hf:.2f} (goal < 1: {'met' if hf < 1 else 'NOT met'}); "
                         f"bpelab / rustbpe = {rust:.2f} (goal ≤ 3: {'met' if rust <= 3 else 'NOT met'})")
        else:
            lines.append(f"- {corpus['name']} (for information): bpelab / HF = {hf:.2f}; bpelab / rustbpe = {rust:.2f}")
    return lines


def pyodide_lines(results):
    py = results.get("pyodide")
    if not py:
        return []
    if "error" in py:
        return [f"Pyodide: error: {py['error']}"]
    cpython = py.get("cpython_train_s")
    ratio = f"{py['train_s'] / cpython:.2f}× CPython" if cpython else "no CPython time"
    same = py.get("agreement", {}).get("identical")
    lines = [
        f"Pyodide {py.get('pyodide_version', '')} (Python {py['python']}) in headless Chromium, "
        f"{py['chars']:,} characters of KJV, vocab {py['vocab_size']}:",
        "",
        "| where | train s | boot s | memory MiB |",
        "|---|--:|--:|--:|",
        f"| CPython {platform.python_version()} | {_fmt(cpython)} | — | {_fmt(py.get('cpython_peak_mib'), 0)} (VmHWM) |",
        f"| Pyodide (Chromium worker) | {py['train_s']:.2f} | {py['boot_s']:.2f} | "
        f"{_fmt(py.get('wasm_heap_mib'), 0)} (wasm heap) |",
        "",
        f"Pyodide / CPython: {ratio}; merges {'identical' if same else 'DIFFERENT' if same is False else 'not compared'}.",
    ]
    return lines


def python_build():
    """This CPython and how its executable was linked: with libpython linked in, pure Python runs ~12% faster."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:  # Linux: the libraries this process mapped
            linking = "shared libpython" if "libpython" in maps.read() else "libpython linked in"
    except OSError:
        linking = "libpython linking unknown"
    return f"{platform.python_implementation()} {platform.python_version()} ({os.path.realpath(sys.executable)}, {linking})"


def environment():
    def version(module):
        try:
            from importlib.metadata import version as dist_version

            return dist_version(module)
        except Exception:  # noqa: BLE001 - a missing package is reported, not fatal
            return None

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None

    return {"load_average": os.getloadavg(), "python": sys.version.split()[0], "python_build": python_build(),
            "platform": platform.platform(), "cpus": os.cpu_count(),
            "bpelab": version("bpelab"), "tokenizers": version("tokenizers"), "rustbpe": version("rustbpe"),
            "commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--", "py")),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=",".join(BIG_CORPORA),
                        help="comma-separated corpora from build_scripts/corpora.py (default kjv,pydocs,multilingual)")
    parser.add_argument("--vocab-size", type=int, default=5000, help="vocab size on the big corpora (default 5000)")
    parser.add_argument("--mixed-vocab-size", type=int, default=20000,
                        help="also train the multilingual corpus to this size (issue 23's second mixed-script "
                             "figure; default 20000, 0: not)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per trainer; the minimum is reported")
    parser.add_argument("--skip-slow", action="store_true",
                        help="skip the small corpus with the reference and naive trainers")
    parser.add_argument("--small-bytes", type=int, default=SMALL_BYTES,
                        help=f"size of the small KJV corpus (default {SMALL_BYTES:,} bytes)")
    parser.add_argument("--small-vocab-size", type=int, default=SMALL_VOCAB,
                        help=f"vocab size on the small corpus (default {SMALL_VOCAB})")
    parser.add_argument("--pyodide", action="store_true",
                        help="also train in Pyodide in headless Chromium on the 1,000,000-character KJV text")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"JSON output (default {DEFAULT_JSON})")
    # Internal: one trainer in this fresh process.
    parser.add_argument("--run-one", choices=sorted(TRAINER_SETUP), help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.run_one:
        run_one(args.run_one, args.file, args.vocab_size, args.out)
        return 0
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")

    def log(message):
        print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    corpora = _load_corpora_module()
    paths = corpora.build(log=log)
    names = [name.strip() for name in args.corpus.split(",") if name.strip()]
    unknown = [name for name in names if name not in paths]
    if unknown:
        parser.error(f"unknown corpus {unknown[0]!r}; known: {', '.join(paths)}")

    results = {"environment": environment(), "settings": vars(args) | {"json": str(args.json)}, "corpora": []}
    with tempfile.TemporaryDirectory(prefix="bpelab-bench-corpora-") as scratch:
        plan = [(name, paths[name], args.vocab_size, FAST_TRAINERS) for name in names]
        if "multilingual" in names and args.mixed_vocab_size and args.mixed_vocab_size != args.vocab_size:
            plan.append(("multilingual", paths["multilingual"], args.mixed_vocab_size, FAST_TRAINERS))
        kjv = paths["kjv"].read_text(encoding="utf-8")
        if not args.skip_slow:
            small = Path(scratch) / "kjv-small.txt"
            small.write_text(corpora.head_bytes(kjv, args.small_bytes), encoding="utf-8")
            plan.append(("kjv-small", small, args.small_vocab_size, FAST_TRAINERS + SLOW_TRAINERS))
        if args.pyodide:
            from bpelab import CHAR_LIMIT

            limit_text = kjv[:CHAR_LIMIT]
            limited = Path(scratch) / "kjv-1M.txt"
            limited.write_text(limit_text, encoding="utf-8")
            plan.append(("kjv-1M", limited, args.vocab_size, ("bpelab", "hf", "rustbpe")))

        for name, path, vocab_size, trainers in plan:
            path.read_bytes()  # warm the file cache before any timing
            info = corpus_info(path)
            log(f"[bench] {name}: {info['bytes']:,} bytes, {info['chars']:,} characters, vocab {vocab_size}")
            rows = run_corpus(name, path, vocab_size, trainers, args.repeat, log)
            results["corpora"].append({"name": name, "vocab_size": vocab_size, "info": info, "rows": rows})

        if args.pyodide:
            py = run_pyodide(limit_text, args.vocab_size, args.repeat, log)
            py.update({"chars": len(limit_text), "vocab_size": args.vocab_size})
            cpython = next(c for c in results["corpora"] if c["name"] == "kjv-1M")["rows"].get("bpelab", {})
            if "train_s" in cpython:
                py["cpython_train_s"] = cpython["train_s"]
                py["cpython_peak_mib"] = cpython["peak_mib"]
                py["ratio_vs_cpython"] = py["train_s"] / cpython["train_s"] if "train_s" in py else None
            if "_merges" in py and "_merges" in cpython:
                py["agreement"] = compare_merges(cpython["_merges"], py.pop("_merges"), exact=True)
            results["pyodide"] = py
            if "user_agent" in py:
                results["environment"]["chromium"] = py["user_agent"]

    # Correctness: these must learn exactly bpelab's merges.
    failures = [f"{corpus['name']} {name}" for corpus in results["corpora"] for name, row in corpus["rows"].items()
                if row.get("agreement", {}).get("identical") is False]
    if results.get("pyodide", {}).get("agreement", {}).get("identical") is False:
        failures.append("kjv-1M pyodide")
    for corpus in results["corpora"]:
        for row in corpus["rows"].values():
            row.pop("_merges", None)
    results["failures"] = failures
    results["seconds"] = time.perf_counter() - started
    results["environment"]["load_average_after"] = os.getloadavg()

    env = results["environment"]
    print(f"## Training benchmark ({env['date']}, {env['cpus']} CPUs, {env['python_build']}, "
          f"tokenizers {env['tokenizers']}, rustbpe {env['rustbpe']}, bpelab {env['bpelab']} at "
          f"{(env['commit'] or '?')[:7]}{' + uncommitted changes in py/' if env['dirty'] else ''})")
    print()
    # Other work on the machine inflates wall times (cpu s far below wall s is the sign).
    print(f"Load average before {env['load_average'][0]:.2f}, after {env['load_average_after'][0]:.2f}; "
          f"min of {args.repeat} run(s) per trainer; × = wall time / the reference's wall time on that corpus.")
    print()
    print(markdown_table(results))
    print()
    print("Goals (ratios of wall times measured in this run):")
    print("\n".join(goal_lines(results)) or "- (HF or rustbpe did not run)")
    if results.get("pyodide"):
        print()
        print("\n".join(pyodide_lines(results)))
    if failures:
        print()
        print(f"MERGES DIFFER from bpelab's: {', '.join(failures)}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print()
    print(f"JSON: {args.json} ({results['seconds']:.0f} s in all)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
