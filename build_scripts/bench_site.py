"""Benchmark the site in Chromium: start-up on each boot path, and training in the browser against CPython.

Usage: .venv/bin/python build_scripts/bench_site.py [--loads 5] [--chars 1000000] [--vocab 2000] [--boot-only]
       [--no-gzip] [--out bench_results/bench_site.json]

1. Builds the site into a temporary folder (with its memory snapshot) and
   serves it on 127.0.0.1 with `bpelab serve`'s handler, counting the bytes
   it sends (headers and bodies) for each load and each file. The server
   compresses as a static host that gzips would (issue 23): text types and
   application/wasm gzipped at level 6, zips and the gzipped snapshot as they
   are, no brotli. That is what GitHub Pages is reported to do (it gzips .wasm
   and serves no brotli, and has no way to serve a precompressed file with
   Content-Encoding); Netlify also gzips, and would send brotli to browsers
   over https. --no-gzip serves every file as it is. It also prints the files
   of a cold snapshot load, each as it is and as sent.
2. Start-up, --loads times each, interleaved, medians printed (issue 16):
   - cold load to ready, snapshot path: a fresh Chromium process with a new
     profile (no HTTP cache, no compiled wasm), from navigation to
     #app[data-state=ready];
   - the same with ?boot=fallback (a normal loadPyodide and import);
   - a bare loadPyodide() in a module worker of a blank page of the same
     site, same browser, same Pyodide files: the floor the site is measured against;
   - a warm reload of the snapshot path in the browser of the cold load (its
     disk cache: hashed files unasked, the rest answered 304 by `bpelab serve`);
   - the floor of a snapshot boot: from navigation to a worker's start, plus
     loadPyodide() restoring a snapshot already inflated in memory, with every
     file already downloaded (bench/floor.html). No ordering of downloads can
     beat it; only a faster Pyodide runtime start or a faster machine can.
   Times are the page's own performance.now() at ready (0 = navigation start),
   each load in a browser left idle for a second after its launch; bytes are
   counted from the navigation to ready. For the cold
   snapshot loads it also prints the CPU time the browser's processes spent (from
   /proc): divided by the CPUs, the least time any ordering of that work could take.
3. Training: the first --chars characters of the King James Bible (Debian's
   bible-kjv-text, printed by its `bible` program; see make_samples.py), to
   vocabulary --vocab with the default settings, in the browser's worker and
   in this CPython process, in the same run. The timed part is train() only;
   both sides must learn the same merges. The full in-page run (train,
   compression report, export and self-check, as a user sees it) is timed too.
4. Writes the figures to --out (bench_results/bench_site.json): `first_visit`
   (bytes of a cold snapshot load to ready, and per file), `ready_ratio`
   (snapshot / bare loadPyodide()), the medians of every start-up, the CPU line,
   and the training times. bench_all.py reads them into the combined table.
"""

import argparse
import hashlib
import importlib.util
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (build_scripts/chromium.py)


def _script(name):
    spec = importlib.util.spec_from_file_location(f"bpelab_{name}", ROOT / "build_scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kjv_text(chars):
    """The first `chars` characters of the KJV, one verse per line (make_samples.py's format)."""
    samples = _script("make_samples")
    root = samples.fetch_packages(ROOT / ".cache" / "samples")
    text = samples.kjv_text(root, limit=chars + 1000)
    if len(text) < chars:
        raise SystemExit(f"the KJV text has only {len(text):,} characters, fewer than --chars {chars:,}")
    return text[:chars]


def merges_digest(merges):
    return hashlib.sha256(json.dumps([list(m) for m in merges]).encode()).hexdigest()[:16]


def wait_ready(page, timeout=120_000):
    from playwright.sync_api import expect

    expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=timeout)


# A blank page of the site whose module worker only calls loadPyodide(), with the worker's options.
BARE_FILES = {
    "bench/bare.html": '<!doctype html><meta charset="utf-8"><title>bare loadPyodide</title>'
                       '<body data-state="booting"><script type="module" src="bare.js"></script>\n',
    "bench/bare.js": """const worker = new Worker(new URL("./bare-worker.js", import.meta.url), { type: "module" });
worker.onmessage = () => { document.body.dataset.readyAt = String(performance.now()); document.body.dataset.state = "ready"; };
""",
    "bench/bare-worker.js": """import { loadPyodide } from "../pyodide/pyodide.mjs";
const indexURL = new URL("../pyodide/", import.meta.url).href;
await loadPyodide({ indexURL, packageBaseUrl: indexURL, fullStdLib: false });
self.postMessage("ready");
""",
    # The floor of a snapshot boot: every file is downloaded and the snapshot inflated
    # first, untimed; then only loadPyodide() restoring it is timed. What is left is
    # Pyodide's own runtime start (parse pyodide.asm.mjs, instantiate, restore) plus
    # the time the page takes to start a worker, which no download order can remove.
    "bench/floor.html": '<!doctype html><meta charset="utf-8"><title>snapshot floor</title>'
                        '<body data-state="booting"><script type="module" src="floor.js"></script>\n',
    "bench/floor.js": """const worker = new Worker(new URL("./floor-worker.js", import.meta.url), { type: "module" });
worker.onmessage = ({ data }) => {
  // The worker's clock starts when the worker does: its origin, on the page's clock, is the start-up's first part.
  const workerStart = data.origin - performance.timeOrigin;
  document.body.dataset.readyAt = String(workerStart + data.restore);
  document.body.dataset.state = "ready";
};
""",
    "bench/floor-worker.js": """import { loadPyodide } from "../pyodide/pyodide.mjs";
import { dataImage, snapshotHeaderLength, xorImage } from "../js/snapshot-delta.js";
const site = new URL("../", import.meta.url);
const build = await (await fetch(new URL("build.json", site))).json();
const inflated = new Response((await fetch(new URL(build.snapshot.file, site))).body
  .pipeThrough(new DecompressionStream("gzip")));
const memory = new Uint8Array(await inflated.arrayBuffer());
const wasm = new Uint8Array(await (await fetch(new URL("pyodide/pyodide.asm.wasm", site))).arrayBuffer());
// Builds before issue 23 stored the memory as it is; since, XOR-ed with the wasm's data segments.
if (build.snapshot.format) xorImage(memory.subarray(snapshotHeaderLength(memory)), dataImage(wasm));
const stdlib = build.snapshot.stdlib_file ? new URL(build.snapshot.stdlib_file, site).href : undefined;
for (const url of ["pyodide/pyodide.asm.mjs", stdlib || "pyodide/python_stdlib.zip", "pyodide/pyodide-lock.json"]) {
  await (await fetch(new URL(url, site))).arrayBuffer();  // into the HTTP cache: no download is timed below
}
const indexURL = new URL("pyodide/", site).href;
const started = performance.now();
await loadPyodide({ indexURL, packageBaseUrl: indexURL, fullStdLib: false, stdLibURL: stdlib, _loadSnapshot: memory });
self.postMessage({ origin: performance.timeOrigin, restore: performance.now() - started });
""",
}

# Ready on the site: #app[data-state=ready]; the time is the page's performance.now() when it got there.
SITE_READY = """() => {
  const app = document.querySelector("#app");
  if (!app || app.dataset.state !== "ready") return false;
  const times = (window.bpelab && bpelab.state && bpelab.state.bootTimes) || [];
  const ready = times.filter((t) => t[0] === "ready").pop();
  return { ms: ready ? ready[1] : performance.now(), boot: bpelab.client && bpelab.client.versions && bpelab.client.versions.boot };
}"""
BARE_READY = """() => document.body && document.body.dataset.state === "ready" && { ms: Number(document.body.dataset.readyAt) }"""


class Counter:
    """What the server sent since the last take(): (path, status, bytes with headers, body bytes, encoding)."""

    def __init__(self):
        self.sent = []
        self.lock = threading.Lock()

    def add(self, entry):
        with self.lock:
            self.sent.append(entry)

    def take(self):
        with self.lock:
            sent, self.sent = self.sent, []
        return sent


def total(sent):
    return sum(entry[2] for entry in sent)


def counting_server(site, counter, compress):
    from bpelab.serve import SiteRequestHandler, make_server

    class CountingWriter:
        def __init__(self, raw, handler):
            self.raw, self.handler = raw, handler

        def write(self, data):
            self.handler.bench_sent += len(data)
            return self.raw.write(data)

        def __getattr__(self, name):
            return getattr(self.raw, name)

    class CountingHandler(SiteRequestHandler):
        def setup(self):
            super().setup()
            self.wfile = CountingWriter(self.wfile, self)

        def handle_one_request(self):
            self.bench_sent, self.bench_status, self.bench_headers = 0, None, {}
            super().handle_one_request()
            if self.bench_status is not None:
                headers = self.bench_headers
                body = int(headers.get("content-length", 0)) if self.command != "HEAD" else 0
                counter.add((self.path.split("?")[0], self.bench_status, self.bench_sent, body,
                             headers.get("content-encoding", "")))

        def send_response(self, code, message=None):
            self.bench_status = int(code)
            super().send_response(code, message)

        def send_header(self, keyword, value):
            self.bench_headers[keyword.lower()] = value
            super().send_header(keyword, value)

        def log_request(self, code="-", size="-"):
            pass

        def log_message(self, *args):
            pass

    server = make_server(site, port=0, handler_class=CountingHandler, compress=compress)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def warm_the_gzip_cache(url, build):
    """Ask once for every file the site ships, as a browser would: the server compresses each
    file on its first request and keeps it, as a host's cache does; no load should wait for that."""
    import urllib.request

    for name in build["files"]:
        request = urllib.request.Request(url + name, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as response:
            response.read()


def timed_load(page, url, ready_js, counter, reload=False):
    """(seconds to ready by the page's clock, what the server sent, boot path) of one navigation."""
    counter.take()
    if reload:
        page.reload()
    else:
        page.goto(url)
    handle = page.wait_for_function(ready_js, polling=20, timeout=180_000)
    value = handle.json_value()
    return value["ms"] / 1000, counter.take(), value.get("boot")


def chromium_cpu_seconds(profile):
    """CPU time (user + system) used so far by the Chromium of `profile` and all its child processes (Linux /proc).

    Only this browser's: the machine may run other Chromiums, whose processes come and go.
    The browser is the process whose command line names the profile folder.
    """
    parents, times, root = {}, {}, None
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue  # ended meanwhile
        fields = stat.rsplit(")", 1)[1].split()
        parents[pid], times[pid] = fields[1], int(fields[11]) + int(fields[12])
        if root is None and f"--user-data-dir={profile}".encode() in cmdline:
            root = pid
    if root is None:
        raise SystemExit(f"no Chromium process runs with the profile {profile}: cannot count its CPU time")
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return sum(times.get(pid, 0) for pid in tree) / os.sysconf("SC_CLK_TCK")


def boot_loads(playwright, url, counter, loads):
    """{kind: [(seconds, sent)]} for the start-ups, interleaved so drift hits all alike (sent: Counter entries).

    results["cpu"] holds the CPU seconds Chromium spent on each cold snapshot load: on a
    machine of N CPUs no ordering of the work can bring that load under cpu / N seconds.
    """
    results = {"snapshot": [], "fallback": [], "bare": [], "warm": [], "floor": [], "cpu": []}
    for _ in range(loads):
        for kind in ("snapshot", "fallback", "bare", "floor"):
            # A fresh profile on disk: an empty cache, as a first visit; and a disk cache, as a
            # real browser keeps for the reload (an in-memory profile did not keep the 9.6 MB wasm).
            profile = tempfile.TemporaryDirectory()
            browser = playwright.chromium.launch_persistent_context(
                profile.name, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page()
            page.wait_for_timeout(1000)  # let the new browser settle: its own start is not the page's
            if kind in ("bare", "floor"):
                seconds, sent, _ = timed_load(page, url + f"bench/{kind}.html", BARE_READY, counter)
            else:
                query = "?boot=fallback" if kind == "fallback" else ""
                cpu_before = chromium_cpu_seconds(profile.name)
                seconds, sent, boot = timed_load(page, url + query, SITE_READY, counter)
                if kind == "snapshot":
                    results["cpu"].append(chromium_cpu_seconds(profile.name) - cpu_before)
                if boot != kind:
                    raise SystemExit(f"the {kind} load booted by {boot!r}: see the console of {url + query}")
            results[kind].append((seconds, sent))
            if kind == "snapshot":
                # Whatever the page fetched after ready (samples, lazy views) is not part of the reload.
                page.wait_for_timeout(500)
                counter.take()
                results["warm"].append(timed_load(page, url, SITE_READY, counter, reload=True)[:2])
            browser.close()
            profile.cleanup()
    return results


def median(values):
    return statistics.median(values)


def print_boot_table(results):
    labels = {
        "snapshot": "cold load to ready, snapshot",
        "fallback": "cold load to ready, fallback (?boot=fallback)",
        "bare": "bare loadPyodide() in a worker",
        "warm": "warm reload, snapshot",
        "floor": "floor: worker start + restore, nothing else",
    }
    print(f"start-up, median of {len(results['snapshot'])} (min-max), bytes the server sent (median):")
    for kind, label in labels.items():
        seconds = [s for s, _ in results[kind]]
        sent = median([total(b) for _, b in results[kind]])
        print(f"  {label:<48} {median(seconds):5.2f} s  ({min(seconds):.2f}-{max(seconds):.2f})  {sent / 1e6:7.2f} MB")
    snapshot = median([s for s, _ in results["snapshot"]])
    bare = median([s for s, _ in results["bare"]])
    fallback = median([s for s, _ in results["fallback"]])
    print(f"  snapshot / bare loadPyodide: {snapshot / bare:.2f}  (goal <= 0.50);  "
          f"snapshot / fallback: {snapshot / fallback:.2f};  snapshot under 1.0 s: {'yes' if snapshot < 1.0 else 'no'}")
    floor = median([s for s, _ in results["floor"]])
    print(f"  floor: the page's start of a worker, then loadPyodide() restoring a snapshot already in memory,\n"
          f"  every file already downloaded: {floor:.2f} s; the site's snapshot boot takes {snapshot - floor:.2f} s more")
    cpu = median(results["cpu"])
    cpus = os.cpu_count()
    print(f"  CPU time Chromium spends on a cold snapshot load (all the browser's processes, median): {cpu:.2f} s;\n"
          f"  on {cpus} CPUs no load can be ready in less than {cpu / cpus:.2f} s")


def first_visit_files(sent, site):
    """[(path, bytes of the file, bytes sent, encoding)] of one load's answers, largest first."""
    rows = []
    for path, status, _sent, body, encoding in sent:
        if status == 200:
            local = site / urllib.parse.unquote(path).lstrip("/")
            size = local.stat().st_size if local.is_file() else (site / "index.html").stat().st_size
            rows.append((path, size, body, encoding))
    return sorted(rows, key=lambda row: -row[2])


def print_first_visit(results, site, compress):
    """The files of the cold snapshot load that sent the median number of bytes, each as it is and as sent."""
    loads = sorted(results["snapshot"], key=lambda load: total(load[1]))
    sent = loads[len(loads) // 2][1]
    rows = first_visit_files(sent, site)
    how = "gzip for text and wasm, as a static host sends them" if compress else "every file as it is (--no-gzip)"
    print(f"first visit: the files of a cold snapshot load until ready ({len(rows)} answers; the server sent {how}):")
    shown = [row for row in rows if row[2] >= 50_000]
    for path, size, body, encoding in shown:
        print(f"  {path:<48} {size / 1e6:7.2f} MB as a file  {body / 1e6:7.2f} MB sent{' (gzip)' if encoding else ''}")
    rest = [row for row in rows if row[2] < 50_000]
    print(f"  {f'the other {len(rest)} files':<48} {sum(r[1] for r in rest) / 1e6:7.2f} MB as files  "
          f"{sum(r[2] for r in rest) / 1e6:7.2f} MB sent")
    files, bodies, with_headers = sum(r[1] for r in rows), sum(r[2] for r in rows), total(sent)
    print(f"  {'in all':<48} {files / 1e6:7.2f} MB as files  {bodies / 1e6:7.2f} MB sent "
          f"({with_headers / 1e6:.2f} MB with headers; goal <= 9.00 MB: {'met' if with_headers <= 9e6 else 'NOT met'})")
    return {"bytes": with_headers, "body_bytes": bodies, "file_bytes": files, "compression": how,
            "files": [{"path": p, "file_bytes": f, "sent_bytes": b, "encoding": e or "identity"}
                      for p, f, b, e in rows]}


def boot_figures(results):
    figures = {}
    for kind in ("snapshot", "fallback", "bare", "warm", "floor"):
        seconds = [s for s, _ in results[kind]]
        figures[kind] = {"median_s": median(seconds), "min_s": min(seconds), "max_s": max(seconds),
                         "bytes": median([total(b) for _, b in results[kind]]), "loads": len(seconds)}
    figures["cpu_seconds"] = median(results["cpu"])
    return figures


def browser_training(playwright, url, text, vocab):
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    page = browser.new_page()
    page.goto(url + f"#size={vocab}")
    wait_ready(page)
    # The worker's own timing of train(), as in CPython below; no report, no export.
    info = page.evaluate(
        """async ([text, vocab]) => {
            const started = performance.now();
            const info = await bpelab.client.request("train", {
                documents: [text], report: false,
                settings: {vocab_size: vocab, pretokenizer: "gpt2", tie_break: "greater", min_count: 1,
                           special_tokens: ["<|endoftext|>"]},
            });
            return {seconds: info.seconds, wall: (performance.now() - started) / 1000, merges: info.merges.map(m => [m[0], m[1]])};
        }""",
        [text, vocab],
    )
    # The same text through the page, as a user trains it: progress, report, export and self-check included.
    page.locator("#text").evaluate(
        "(node, text) => { node.value = text; node.dispatchEvent(new Event('input')); }", text)
    started = time.perf_counter()
    page.locator("#train").click()
    from playwright.sync_api import expect

    expect(page.locator("#app")).to_have_attribute("data-runs", "1", timeout=600_000)
    ui_seconds = time.perf_counter() - started
    browser.close()
    return info, ui_seconds


def cpython_training(text, vocab):
    from bpelab.train import train

    started = time.perf_counter()
    result = train([text], vocab_size=vocab, pretokenizer="gpt2", tie_break="greater", min_count=1,
                   special_tokens=["<|endoftext|>"])
    return time.perf_counter() - started, result.merges


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=1_000_000, help="characters of KJV to train on")
    parser.add_argument("--vocab", type=int, default=2000, help="target vocabulary size")
    parser.add_argument("--loads", type=int, default=5, help="cold loads to time on each path")
    parser.add_argument("--boot-only", action="store_true", help="time the start-up only, not training")
    parser.add_argument("--no-gzip", action="store_true", help="serve every file as it is (no Content-Encoding)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench_results" / "bench_site.json",
                        help="where to write the figures as JSON")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM}: apt-get install chromium, or set BPELAB_CHROMIUM")

    from playwright.sync_api import sync_playwright

    text = None if args.boot_only else kjv_text(args.chars)
    counter = Counter()
    compress = not args.no_gzip
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "dist"
        with open(os.devnull, "w") as quiet:
            stdout, sys.stdout = sys.stdout, quiet
            try:
                _script("build_site").build(site)
            finally:
                sys.stdout = stdout
        for name, content in BARE_FILES.items():
            (site / name).parent.mkdir(parents=True, exist_ok=True)
            (site / name).write_text(content, "utf-8")
        build = json.loads((site / "build.json").read_text("utf-8"))
        server, url = counting_server(site, counter, compress)
        try:
            if compress:
                warm_the_gzip_cache(url, build)
            with sync_playwright() as playwright:
                boots = boot_loads(playwright, url, counter, args.loads)
                if text is not None:
                    browser, ui_seconds = browser_training(playwright, url, text, args.vocab)
        finally:
            server.shutdown()
            server.server_close()
        load = os.getloadavg()
        print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average {load[0]:.1f}; "
              f"CPython {platform.python_version()}; Chromium {CHROMIUM}; Pyodide {build['pyodide']}; "
              f"snapshot {build['snapshot']['bytes'] / 1e6:.1f} MB, {build['snapshot']['gzip_bytes'] / 1e6:.1f} MB gzipped")
        print_boot_table(boots)
        first_visit = print_first_visit(boots, site, compress)
    figures = {
        "machine": {"arch": platform.machine(), "cpus": os.cpu_count(), "load_average": list(load),
                    "python": platform.python_version(), "chromium": CHROMIUM, "pyodide": build["pyodide"]},
        "first_visit": first_visit,
        "ready_ratio": boot_figures(boots)["snapshot"]["median_s"] / boot_figures(boots)["bare"]["median_s"],
        "startup": boot_figures(boots),
    }
    status = 0
    if text is not None:
        cpython_seconds, cpython_merges = cpython_training(text, args.vocab)
        same = merges_digest(browser["merges"]) == merges_digest(cpython_merges)
        print(f"training: {args.chars:,} characters of KJV to vocabulary {args.vocab:,} "
              f"({len(cpython_merges):,} merges, gpt2 pre-tokenizer, greater tie-break)")
        print(f"  browser (Pyodide worker) train(): {browser['seconds']:.2f} s "
              f"(request round trip {browser['wall']:.2f} s)")
        print(f"  CPython train():                  {cpython_seconds:.2f} s")
        print(f"  ratio browser / CPython:          {browser['seconds'] / cpython_seconds:.2f}x")
        print(f"  same merges in both:              {'yes' if same else 'NO'}")
        print(f"  whole run in the page (train, report, export, self-check): {ui_seconds:.2f} s")
        figures["training"] = {"chars": args.chars, "vocab": args.vocab, "browser_s": browser["seconds"],
                               "cpython_s": cpython_seconds, "ratio": browser["seconds"] / cpython_seconds,
                               "same_merges": same, "page_run_s": ui_seconds}
        status = 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1) + "\n", "utf-8")
    print(f"figures written to {args.out}")
    return status


if __name__ == "__main__":
    sys.exit(main())
