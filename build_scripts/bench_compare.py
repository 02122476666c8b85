"""Benchmark the compare view in Chromium: from a keystroke to updated panes.

Usage: .venv/bin/python build_scripts/bench_compare.py [--sizes 1000,100000] [--keys 15] [--site DIR]

1. Builds the site into a temporary folder (or serves --site as built) on 127.0.0.1.
2. Opens #/compare with four panes (gpt2, cl100k, o200k, bytes) and, for each
   size, puts a text of that many characters in the box: the bundled aligned
   passages (web/samples/aligned/, 12 languages), repeated to length.
3. Types --keys characters at the end of the text, one at a time, with
   Playwright's keyboard (a real keydown/input). Each is timed in the page from
   the keydown to the moment every pane shows the new text's tokens (the
   view sends bpe-state after drawing them), then to the next animation frame
   (the panes on screen), all on the page's own clock. Prints the median and the
   range, and the medians of the worker's answer and of drawing.

A benchmark prints numbers; it does not fail on them.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (build_scripts/chromium.py)
PANES = "gpt2,cl100k,o200k,bytes"
ALIGNED = ROOT / "web" / "samples" / "aligned"

# In the page: wait until the view has drawn a text (renders moved past `before` and nothing is pending).
WAIT_RENDERED = """([before, timeout]) => new Promise((resolve, reject) => {
  const view = document.querySelector("bpe-compare-view");
  const started = performance.now();
  const check = () => {
    if (Number(view.dataset.renders || 0) > before && view.dataset.state === "done") {
      requestAnimationFrame(() => resolve(performance.now()));
      return;
    }
    if (performance.now() - started > timeout) { reject(new Error("the panes did not update")); return; }
    setTimeout(check, 1);
  };
  check();
})"""

# Record, on the page's own clock, the next keydown in the box and every bpe-state after it (the view sends
# one when all panes are drawn), each with the following animation frame: the panes on screen.
ARM_KEYDOWN = """() => {
  window.__keyAt = null;
  window.__drawn = [];
  document.querySelector("#compare-text").addEventListener("keydown", () => { window.__keyAt = performance.now(); }, { once: true });
  if (!window.__listening) {
    window.__listening = true;
    document.querySelector("bpe-compare-view").addEventListener("bpe-state", () => {
      requestAnimationFrame(() => window.__drawn.push(performance.now()));
    });
  }
}"""

def _script(name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bpelab_{name}", ROOT / "build_scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_text(chars):
    """`chars` characters of the aligned passages, all languages in turn, repeated."""
    index = json.loads((ALIGNED / "index.json").read_text("utf-8"))
    whole = "\n\n".join((ALIGNED / lang["file"]).read_text("utf-8") for lang in index["languages"])
    return (whole * (chars // len(whole) + 1))[:chars]


def renders(page):
    return int(page.locator("bpe-compare-view").get_attribute("data-renders") or 0)


def time_keystrokes(page, chars, keys):
    """Put a text of `chars` characters in the box, then time `keys` keystrokes at its end."""
    text = bench_text(chars)
    before = renders(page)
    page.locator("#compare-text").evaluate(
        "(node, text) => { node.value = text; node.dispatchEvent(new Event('input', {bubbles: true})); }", text)
    page.evaluate(WAIT_RENDERED, [before, 300_000])
    page.locator("#compare-text").evaluate("(node) => { node.focus(); node.setSelectionRange(node.value.length, node.value.length); }")
    times = []
    for i in range(keys):
        before = renders(page)
        page.evaluate(ARM_KEYDOWN)
        page.keyboard.type("abcdefghij"[i % 10])
        page.evaluate(WAIT_RENDERED, [before, 300_000])
        page.wait_for_function("() => window.__drawn.length > 0")
        key_at, done = page.evaluate("() => [window.__keyAt, window.__drawn[window.__drawn.length - 1]]")
        view = page.locator("bpe-compare-view")
        times.append(((done - key_at) / 1000, int(view.get_attribute("data-request-ms")) / 1000,
                      int(view.get_attribute("data-draw-ms")) / 1000))
    tokens = page.locator(".compare-pane").evaluate_all("(nodes) => nodes.map((n) => [n.dataset.spec, Number(n.dataset.tokens)])")
    return times, tokens


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,100000", help="comma list of text sizes in characters")
    parser.add_argument("--keys", type=int, default=15, help="keystrokes timed per size")
    parser.add_argument("--site", type=Path, default=None, help="serve this built site instead of building one")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM}: apt-get install chromium, or set BPELAB_CHROMIUM")

    from playwright.sync_api import expect, sync_playwright

    from bpelab.serve import serve_in_thread

    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "dist"
            with open(os.devnull, "w") as quiet:
                stdout, sys.stdout = sys.stdout, quiet
                try:
                    _script("build_site").build(site)
                finally:
                    sys.stdout = stdout
        server, url = serve_in_thread(site)
        results = {}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(f"{url}#/compare?panes={PANES}")
                expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=120_000)
                page.evaluate(WAIT_RENDERED, [0, 120_000])
                for chars in sizes:
                    results[chars] = time_keystrokes(page, chars, args.keys)
                browser.close()
        finally:
            server.shutdown()
            server.server_close()

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load average {load}; Chromium {CHROMIUM}; panes {PANES}")
    print("keystroke to updated panes (keydown -> every pane drawn with the new text, next frame):")
    for chars, (times, tokens) in results.items():
        ms = sorted(t[0] * 1000 for t in times)
        worker = statistics.median(t[1] * 1000 for t in times)
        draw = statistics.median(t[2] * 1000 for t in times)
        print(f"  {chars:>9,} characters: median {statistics.median(ms):7.1f} ms  "
              f"(min {ms[0]:.1f}, max {ms[-1]:.1f}, {len(ms)} keystrokes; medians: worker request {worker:.1f} ms, "
              f"drawing {draw:.1f} ms)  tokens: " + ", ".join(f"{spec} {n:,}" for spec, n in tokens))
    return 0


if __name__ == "__main__":
    sys.exit(main())
