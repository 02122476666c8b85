"""Benchmark the merge explorer (issue 13) on 1,000,000 characters of real text at vocabulary 2,000.

Usage: .venv/bin/python build_scripts/bench_explorer.py [--chars N] [--vocab V] [--jumps J] [--no-browser]

Prints, as a report (nothing is asserted; this is a benchmark, not a test):
1. CPython: training time without and with record=True (median of 3), the peak
   memory of each (tracemalloc, one run each, in a fresh process) and the memory
   the records keep after training;
2. CPython: the explorer's own work per jump (step_view + a 1,500-character window);
3. Chromium (the built site, Pyodide in a worker): training with and without
   records, then J jumps to random steps with the explorer's slider, each timed
   from the input event to the frame after the view shows the new step:
   median and worst;
4. Pyodide in a bare worker: training time and tracemalloc memory with and
   without records.

The text is the King James Bible from build_scripts/corpora.py (Debian's
package, cached in .cache/corpora), cut to --chars characters; without it,
web/samples/kjv-genesis.txt repeated.
"""

import argparse
import contextlib
import gc
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

WINDOW = 1500  # as web/js/views/explorer/explorer-view.js


def corpus(chars):
    """The first `chars` characters of the KJV (or of Genesis repeated), and where it came from."""
    try:
        spec = importlib.util.spec_from_file_location("bpelab_corpora", ROOT / "build_scripts" / "corpora.py")
        corpora = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(corpora)
        with contextlib.redirect_stdout(sys.stderr):
            path = corpora.build()["kjv"]
        text = Path(path).read_text(encoding="utf-8")
        source = "KJV (corpora.py)"
    except Exception as error:  # no Debian archive: the bundled sample, repeated
        print(f"[bench] KJV corpus unavailable ({error}); using kjv-genesis.txt repeated", file=sys.stderr)
        text = (ROOT / "web" / "samples" / "kjv-genesis.txt").read_text(encoding="utf-8")
        source = "kjv-genesis.txt repeated"
    while len(text) < chars:
        text += "\n" + text
    return text[:chars], source


_CHILD = """
import json, sys, time, tracemalloc
sys.path.insert(0, {py!r})
from bpelab import train
text = open({path!r}, encoding="utf-8").read()
record = {record!r}
tracemalloc.start()
before = tracemalloc.get_traced_memory()[0]
result = train(text, vocab_size={vocab}, record=record)
kept = tracemalloc.get_traced_memory()[0] - before
peak = tracemalloc.get_traced_memory()[1] - before
tracemalloc.stop()
del result
print(json.dumps({{"peak": peak, "kept": kept}}))
"""


def cpython(text, vocab, log):
    from bpelab import train
    from bpelab.explore import Explorer

    times = {False: [], True: []}
    cpu = {False: [], True: []}  # process CPU seconds: steadier than wall time on a busy machine
    for _ in range(3):
        for record in (False, True):
            started, started_cpu = time.perf_counter(), time.process_time()
            result = train(text, vocab_size=vocab, record=record)
            times[record].append(time.perf_counter() - started)
            cpu[record].append(time.process_time() - started_cpu)
    log(f"[bench] CPython training: {[round(t, 2) for t in times[False]]} s plain, {[round(t, 2) for t in times[True]]} s recorded")
    memory = {}
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as file:
        file.write(text)
    for record in (False, True):
        code = _CHILD.format(py=str(ROOT / "py"), path=file.name, record=record, vocab=vocab)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        memory[record] = json.loads(out.strip().splitlines()[-1])
    Path(file.name).unlink()

    explorer = Explorer.of(result)
    explorer.window(0, 0, WINDOW)  # the first window builds the pre-token index of the whole text
    gc.unfreeze()  # as the worker does after its first explore_step (worker_api._explore_step)
    gc.collect()
    gc.freeze()
    rng = random.Random(13)
    jumps = []
    for k in [rng.randrange(explorer.steps + 1) for _ in range(200)]:
        started = time.process_time()
        json.dumps({"view": explorer.step_view(k), "window": explorer.window(k, 0, WINDOW)})
        jumps.append(time.process_time() - started)
    plain, recorded = statistics.median(times[False]), statistics.median(times[True])
    return {
        "train_plain_s": plain, "train_record_s": recorded, "record_time_ratio": recorded / plain,
        "train_plain_cpu_s": statistics.median(cpu[False]), "train_record_cpu_s": statistics.median(cpu[True]),
        "record_cpu_ratio": statistics.median(cpu[True]) / statistics.median(cpu[False]),
        "peak_plain_mib": memory[False]["peak"] / 2**20, "peak_record_mib": memory[True]["peak"] / 2**20,
        "kept_plain_mib": memory[False]["kept"] / 2**20, "kept_record_mib": memory[True]["kept"] / 2**20,
        "merges": len(result.merges),
        "jump_median_ms": statistics.median(jumps) * 1000, "jump_worst_ms": max(jumps) * 1000,
    }


_JUMPS_JS = """
async ({ks}) => {
  const view = document.querySelector("bpe-explorer-view");
  const slider = document.getElementById("explorer-step");
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  // Split each jump: the worker round trip (Python's step view and window, JSON, messages) and the draw.
  let ask = 0, draw = 0;
  const fetchStep = view.fetchStep.bind(view), drawStep = view.draw.bind(view);
  let python = 0;
  view.fetchStep = async (...args) => { const t = performance.now(); const r = await fetchStep(...args); ask += performance.now() - t; python += r.python_ms || 0; return r; };
  view.draw = (...args) => { const t = performance.now(); drawStep(...args); draw += performance.now() - t; };
  const times = [], asks = [], draws = [], pythons = [];
  for (const k of ks) {
    const shown = new Promise((resolve) => {
      if (view.dataset.step === String(k)) return resolve();
      const watch = new MutationObserver(() => { if (view.dataset.step === String(k)) { watch.disconnect(); resolve(); } });
      watch.observe(view, { attributes: true, attributeFilter: ["data-step"] });
    });
    ask = 0; draw = 0; python = 0;
    const started = performance.now();
    slider.value = String(k);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    await shown;
    await frame();  // the frame that paints the new step
    times.push(performance.now() - started);
    asks.push(ask);
    pythons.push(python);
    draws.push(draw);
  }
  view.fetchStep = fetchStep;
  view.draw = drawStep;
  return { times, asks, draws, pythons };
}
"""

_TRAIN_JS = """
async ({text, vocab, record}) => {
  const store = window.bpelab.store;
  await store.ready;
  const started = performance.now();
  await store.request("train", { documents: [text], settings: { vocab_size: vocab }, record, report: false });
  return performance.now() - started;
}
"""

_EXPLORE_JS = """
async ({text, vocab}) => {
  const view = window.bpelab.view;
  const started = performance.now();
  await view.applyParams({ text, size: String(vocab) });
  return { ms: performance.now() - started, steps: Number(view.steps), step: view.dataset.step, state: view.dataset.state };
}
"""


# Runs in a bare Pyodide worker (bench.py's page script): record's time and memory inside Pyodide.
_PYODIDE_PY = """
import sys, json, time, tracemalloc
sys.path.insert(0, "/home/pyodide/site")
from bpelab import train

def _bench(text, vocab_size):
    out = {}
    for record in (False, True):
        started = time.perf_counter()
        train(text, vocab_size=vocab_size, record=record)
        out[str(record)] = {"s": time.perf_counter() - started}
    for record in (False, True):  # memory in a second pass: tracemalloc slows Python down
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        result = train(text, vocab_size=vocab_size, record=record)
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out[str(record)] |= {"kept": current - before, "peak": peak - before}
        del result
    return json.dumps(out)
"""


def pyodide_record(page, site, text, vocab):
    """Training with and without records in a bare Pyodide worker: seconds, peak and kept memory."""
    spec = importlib.util.spec_from_file_location("bpelab_bench", ROOT / "build_scripts" / "bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = page.evaluate(bench._PAGE_JS, {"text": text, "vocabSize": vocab, "repeat": 1, "code": _PYODIDE_PY, "timeoutMs": 900_000})
    if "error" in result:
        return {"error": result["error"]}
    run = result["runs"][0]
    plain, recorded = run["False"], run["True"]
    return {"train_plain_s": plain["s"], "train_record_s": recorded["s"], "record_time_ratio": recorded["s"] / plain["s"],
            "peak_plain_mib": plain["peak"] / 2**20, "peak_record_mib": recorded["peak"] / 2**20,
            "kept_plain_mib": plain["kept"] / 2**20, "kept_record_mib": recorded["kept"] / 2**20}


def chromium(text, vocab, jumps, log):
    from playwright.sync_api import expect, sync_playwright
    from site_harness import CHROMIUM, CHROMIUM_ARGS

    spec = importlib.util.spec_from_file_location("bpelab_build_site", ROOT / "build_scripts" / "build_site.py")
    build_site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_site)
    from bpelab.serve import serve_in_thread

    with tempfile.TemporaryDirectory(prefix="bpelab-bench-explorer-") as scratch:
        site = Path(scratch) / "dist"
        with contextlib.redirect_stdout(sys.stderr):
            build_site.build(site)
        server, url = serve_in_thread(site)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                def route(route_):
                    if route_.request.url == url + "__bench__.html":  # a page without the site's CSP, for a blob: worker
                        route_.fulfill(status=200, content_type="text/html; charset=utf-8",
                                       body="<!doctype html><meta charset=utf-8><title>bench</title>")
                    elif route_.request.url.startswith(url):
                        route_.continue_()
                    else:
                        route_.abort()

                page.route("**/*", route)
                page.goto(url + "#/explore")
                expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=120_000)
                expect(page.locator("bpe-explorer-view")).to_have_attribute("data-state", "empty", timeout=60_000)
                log(f"[bench] Chromium: training {len(text):,} characters at vocabulary {vocab}, plain and recorded")
                plain = page.evaluate(_TRAIN_JS, {"text": text, "vocab": vocab, "record": False})
                recorded = page.evaluate(_TRAIN_JS, {"text": text, "vocab": vocab, "record": True})
                log("[bench] Chromium: the explorer trains its own run and shows step 0")
                opened = page.evaluate(_EXPLORE_JS, {"text": text, "vocab": vocab})
                rng = random.Random(15)
                ks = [rng.randrange(opened["steps"] + 1) for _ in range(jumps)]
                log(f"[bench] Chromium: {jumps} jumps to random steps")
                measured = page.evaluate(_JUMPS_JS, {"ks": ks})
                times = measured["times"]
                log("[bench] Pyodide: training with and without records, time and memory (tracemalloc)")
                page.goto(url + "__bench__.html")
                inside = pyodide_record(page, site, text, vocab)
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
    return {
        "train_plain_s": plain / 1000, "train_record_s": recorded / 1000, "record_time_ratio": recorded / plain,
        "explorer_open_s": opened["ms"] / 1000, "steps": opened["steps"],
        "jump_median_ms": statistics.median(times), "jump_worst_ms": max(times),
        "jump_p90_ms": sorted(times)[int(0.9 * (len(times) - 1))], "jumps": len(times),
        "jump_ms": [round(t) for t in times], "jump_steps": ks, "pyodide": inside,
        "round_trip_ms": [round(t) for t in measured["asks"]], "draw_ms": [round(t) for t in measured["draws"]],
        "worker_round_trip_median_ms": statistics.median(measured["asks"]),
        "draw_median_ms": statistics.median(measured["draws"]),
        "python_median_ms": statistics.median(measured["pythons"]), "python_ms": measured["pythons"],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=1_000_000)
    parser.add_argument("--vocab", type=int, default=2000)
    parser.add_argument("--jumps", type=int, default=60)
    parser.add_argument("--no-browser", action="store_true", help="CPython only")
    args = parser.parse_args(argv)

    def log(message):
        print(message, file=sys.stderr, flush=True)

    text, source = corpus(args.chars)
    log(f"[bench] load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (timings stretch with it)")
    log(f"[bench] {len(text):,} characters of {source}, vocabulary {args.vocab}")
    report = {"text": source, "characters": len(text), "vocab_size": args.vocab, "cpython": cpython(text, args.vocab, log)}
    if not args.no_browser:
        report["chromium"] = chromium(text, args.vocab, args.jumps, log)
    c = report["cpython"]
    print(f"Merge explorer, {len(text):,} characters of {source}, vocabulary {args.vocab} ({c['merges']} merges); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"CPython  training  {c['train_plain_s']:.2f} s plain, {c['train_record_s']:.2f} s with record=True "
          f"(x{c['record_time_ratio']:.2f}; CPU {c['train_plain_cpu_s']:.2f} s vs {c['train_record_cpu_s']:.2f} s, x{c['record_cpu_ratio']:.2f}); peak memory {c['peak_plain_mib']:.1f} MiB plain, {c['peak_record_mib']:.1f} MiB recorded; "
          f"kept after training {c['kept_plain_mib']:.1f} MiB plain, {c['kept_record_mib']:.1f} MiB recorded")
    print(f"CPython  explorer  step view + window + JSON per jump (CPU time): median {c['jump_median_ms']:.1f} ms, worst {c['jump_worst_ms']:.1f} ms")
    if "chromium" in report:
        b = report["chromium"]
        print(f"Chromium training  {b['train_plain_s']:.2f} s plain, {b['train_record_s']:.2f} s recorded (x{b['record_time_ratio']:.2f}); "
              f"the explorer's own run to step 0: {b['explorer_open_s']:.2f} s")
        print(f"Chromium jumps     {b['jumps']} random steps of {b['steps']}: median {b['jump_median_ms']:.0f} ms, "
              f"90th percentile {b['jump_p90_ms']:.0f} ms, worst {b['jump_worst_ms']:.0f} ms (input to painted frame); "
              f"medians: worker round trip {b['worker_round_trip_median_ms']:.0f} ms (Python in it {b['python_median_ms']:.0f} ms), "
              f"drawing {b['draw_median_ms']:.0f} ms")
        y = b["pyodide"]
        if "error" in y:
            print(f"Pyodide  record    not measured: {y['error']}")
        else:
            print(f"Pyodide  training  {y['train_plain_s']:.2f} s plain, {y['train_record_s']:.2f} s recorded (x{y['record_time_ratio']:.2f}); "
                  f"peak memory {y['peak_plain_mib']:.1f} MiB plain, {y['peak_record_mib']:.1f} MiB recorded; "
                  f"kept {y['kept_plain_mib']:.1f} MiB plain, {y['kept_record_mib']:.1f} MiB recorded")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
