"""Benchmark the site in Chromium: start-up on each boot path, and training in the browser against CPython.

Usage: .venv/bin/python build_scripts/bench_site.py [--loads 5] [--chars 1000000] [--vocab 2000] [--boot-only]

1. Builds the site into a temporary folder (with its memory snapshot) and
   serves it on 127.0.0.1 with `bpelab serve`'s handler, counting the bytes
   it sends (headers and bodies) for each load.
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
   each load in a browser left idle for a second after its launch. For the cold
   snapshot loads it also prints the CPU time all Chromium processes spent (from
   /proc): divided by the CPUs, the least time any ordering of that work could take.
3. Training: the first --chars characters of the King James Bible (Debian's
   bible-kjv-text, printed by its `bible` program; see make_samples.py), to
   vocabulary --vocab with the default settings, in the browser's worker and
   in this CPython process, in the same run. The timed part is train() only;
   both sides must learn the same merges. The full in-page run (train,
   compression report, export and self-check, as a user sees it) is timed too.
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
const build = await (await fetch("../build.json")).json();
const inflated = new Response((await fetch(new URL(build.snapshot.file, new URL("../", import.meta.url)))).body
  .pipeThrough(new DecompressionStream("gzip")));
const memory = new Uint8Array(await inflated.arrayBuffer());
for (const name of ["pyodide.asm.wasm", "pyodide.asm.mjs", "python_stdlib.zip", "pyodide-lock.json"]) {
  await (await fetch(`../pyodide/${name}`)).arrayBuffer();  // into the HTTP cache: no download is timed below
}
const indexURL = new URL("../pyodide/", import.meta.url).href;
const started = performance.now();
await loadPyodide({ indexURL, packageBaseUrl: indexURL, fullStdLib: false, _loadSnapshot: memory });
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
    """Bytes the server wrote since the last reset (headers and bodies)."""

    def __init__(self):
        self.bytes = 0
        self.lock = threading.Lock()

    def add(self, n):
        with self.lock:
            self.bytes += n

    def take(self):
        with self.lock:
            n, self.bytes = self.bytes, 0
        return n


def counting_server(site, counter):
    from bpelab.serve import SiteRequestHandler, make_server

    class CountingWriter:
        def __init__(self, raw):
            self.raw = raw

        def write(self, data):
            counter.add(len(data))
            return self.raw.write(data)

        def __getattr__(self, name):
            return getattr(self.raw, name)

    class CountingHandler(SiteRequestHandler):
        def setup(self):
            super().setup()
            self.wfile = CountingWriter(self.wfile)

        def log_request(self, code="-", size="-"):
            pass

        def log_message(self, *args):
            pass

    server = make_server(site, port=0, handler_class=CountingHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def timed_load(page, url, ready_js, counter, reload=False):
    """(seconds to ready by the page's clock, bytes sent, boot path) of one navigation."""
    counter.take()
    if reload:
        page.reload()
    else:
        page.goto(url)
    handle = page.wait_for_function(ready_js, polling=20, timeout=180_000)
    value = handle.json_value()
    return value["ms"] / 1000, counter.take(), value.get("boot")


def chromium_cpu_seconds():
    """CPU time (user + system) used so far by every Chromium process on this machine (Linux /proc)."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue  # ended meanwhile
        name, fields = stat.split(")", 1)[0], stat.rsplit(")", 1)[1].split()
        if "chrom" in name:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def boot_loads(playwright, url, counter, loads):
    """{kind: [(seconds, bytes)]} for the start-ups, interleaved so drift hits all alike.

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
                cpu_before = chromium_cpu_seconds()
                seconds, sent, boot = timed_load(page, url + query, SITE_READY, counter)
                if kind == "snapshot":
                    results["cpu"].append(chromium_cpu_seconds() - cpu_before)
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
        sent = median([b for _, b in results[kind]])
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
    print(f"  CPU time Chromium spends on a cold snapshot load (all its processes, median): {cpu:.2f} s;\n"
          f"  on {cpus} CPUs no load can be ready in less than {cpu / cpus:.2f} s")


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
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM}: apt-get install chromium, or set BPELAB_CHROMIUM")

    from playwright.sync_api import sync_playwright

    text = None if args.boot_only else kjv_text(args.chars)
    counter = Counter()
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
        server, url = counting_server(site, counter)
        try:
            with sync_playwright() as playwright:
                boots = boot_loads(playwright, url, counter, args.loads)
                if text is not None:
                    browser, ui_seconds = browser_training(playwright, url, text, args.vocab)
        finally:
            server.shutdown()
            server.server_close()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
          f"CPython {platform.python_version()}; Chromium {CHROMIUM}; Pyodide {build['pyodide']}; "
          f"snapshot {build['snapshot']['bytes'] / 1e6:.1f} MB, {build['snapshot']['gzip_bytes'] / 1e6:.1f} MB gzipped")
    print_boot_table(boots)
    if text is None:
        return 0
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
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
