"""Benchmark the site in Chromium: cold load to ready, and training in the browser against CPython.

Usage: .venv/bin/python build_scripts/bench_site.py [--chars 1000000] [--vocab 2000] [--loads 3]

1. Builds the site into a temporary folder and serves it on 127.0.0.1.
2. Cold load: a fresh Chromium process per load (no HTTP cache, no compiled
   wasm cache), timed from navigation to data-state=ready. Then one warm
   reload in the last browser, for comparison.
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
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
CHROMIUM = os.environ.get("BPELAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


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


def cold_loads(playwright, url, loads):
    times = []
    warm = None
    for i in range(loads):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page()
        started = time.perf_counter()
        page.goto(url)
        wait_ready(page)
        times.append(time.perf_counter() - started)
        if i == loads - 1:
            started = time.perf_counter()
            page.reload()
            wait_ready(page)
            warm = time.perf_counter() - started
        browser.close()
    return times, warm


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
    parser.add_argument("--loads", type=int, default=3, help="cold loads to time")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM}: apt-get install chromium, or set BPELAB_CHROMIUM")

    from playwright.sync_api import sync_playwright

    from bpelab.serve import serve_in_thread

    text = kjv_text(args.chars)
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "dist"
        with open(os.devnull, "w") as quiet:
            stdout, sys.stdout = sys.stdout, quiet
            try:
                _script("build_site").build(site)
            finally:
                sys.stdout = stdout
        server, url = serve_in_thread(site)
        try:
            with sync_playwright() as playwright:
                loads, warm = cold_loads(playwright, url, args.loads)
                browser, ui_seconds = browser_training(playwright, url, text, args.vocab)
        finally:
            server.shutdown()
            server.server_close()
    cpython_seconds, cpython_merges = cpython_training(text, args.vocab)

    same = merges_digest(browser["merges"]) == merges_digest(cpython_merges)
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs; CPython {platform.python_version()}; "
          f"Chromium {CHROMIUM}")
    print(f"cold load to ready: {', '.join(f'{t:.2f}' for t in loads)} s "
          f"(median {sorted(loads)[len(loads) // 2]:.2f} s); warm reload {warm:.2f} s")
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
