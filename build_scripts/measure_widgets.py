"""The height each widget reports (its `resize` message: the #embed root's height, rounded up) at
375 and 800 px wide, with its default parts and with parts=all, as a Markdown table for the README.

    .venv/bin/python build_scripts/measure_widgets.py [--site dist]

It serves the built site, opens each widget in headless Chromium (Debian's, as the tests do) inside
a frame of a page on another origin, waits until it has drawn and its height has stopped changing,
and prints what the widget said. tests/e2e/test_widget_parts.py checks the bounds of issue 20 with
the same function.
"""

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
XIN_CHAO = "Xin chào thế giới"

# (view, what it shows, the widget's parameters)
CASES = [
    ("explorer", "seed 003 at step 5", {"view": "explorer", "step": "5"}),
    ("compare", f"three panes on “{XIN_CHAO}”", {"view": "compare", "panes": "gpt2,cl100k,o200k", "text": XIN_CHAO}),
    ("train", "seed 003, before training", {"view": "train"}),
    ("encode", f"GPT-2 on “{XIN_CHAO}”", {"view": "encode", "tok": "gpt2", "text": XIN_CHAO}),
]

FRAME_PAGE = """<!doctype html><html lang="en"><title>heights</title>
<body style="margin:0"><iframe id="w" title="widget" style="display:block;border:0;width:100%;height:300px"></iframe>
<script>
window.__heights = [];
addEventListener("message", (e) => {
  const d = e.data;
  if (d && d.source === "bpe-lab") {
    if (d.type === "resize") window.__heights.push(d.height);
    if (d.type === "ready") window.__ready = true;
    if (d.type === "error") (window.__errors ||= []).push(d.message);
  }
});
document.getElementById("w").src = new URLSearchParams(location.search).get("src");
</script></body></html>"""


def widget_url(site_url, params):
    """embed.html with `params`: the text after "#" (as embed codes put it), the rest in the query."""
    from urllib.parse import urlencode, quote

    query = {k: v for k, v in params.items() if k != "text"}
    url = site_url.rstrip("/") + "/embed.html?" + urlencode(query)
    if "text" in params:
        url += "#text=" + quote(params["text"], safe="")
    return url


def reported_height(page, host_url, src, width, quiet_ms=1500, timeout_s=120):
    """The widget's last reported height, once it is ready and no resize has come for quiet_ms."""
    from urllib.parse import quote

    page.set_viewport_size({"width": width, "height": 900})
    page.goto(host_url.rstrip("/") + "/heights.html?src=" + quote(src, safe=""))
    deadline = time.monotonic() + timeout_s
    while not page.evaluate("window.__ready === true"):
        errors = page.evaluate("window.__errors || []")
        if errors:
            raise AssertionError(f"the widget posted an error: {errors[0]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"the widget at {src} was not ready in {timeout_s} s")
        time.sleep(0.1)
    count = -1
    while True:
        heights = page.evaluate("window.__heights")
        if len(heights) == count:
            return heights[-1]
        count = len(heights)
        page.wait_for_timeout(quiet_ms)


def write_frame_page(folder):
    (Path(folder) / "heights.html").write_text(FRAME_PAGE, "utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default=str(ROOT / "dist"), help="the built site (default: dist/)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests" / "e2e"))
    import tempfile

    from playwright.sync_api import sync_playwright
    from site_harness import CHROMIUM, CHROMIUM_ARGS
    from bpelab.serve import serve_in_thread

    site, site_url = serve_in_thread(args.site)
    with tempfile.TemporaryDirectory() as folder:
        write_frame_page(folder)
        host, host_url = serve_in_thread(folder, host="localhost")
        rows = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page()
            for view, what, params in CASES:
                cells = []
                for parts in (None, "all"):
                    for width in (375, 800):
                        src = widget_url(site_url, {**params, **({"parts": parts} if parts else {})})
                        cells.append(reported_height(page, host_url, src, width))
                rows.append((view, what, cells))
            browser.close()
        host.shutdown()
    site.shutdown()
    print("| widget | showing | default parts, 375 px | default parts, 800 px | parts=all, 375 px | parts=all, 800 px |")
    print("|---|---|---:|---:|---:|---:|")
    for view, what, cells in rows:
        print(f"| {view} | {what} | " + " | ".join(f"{c:,} px" for c in cells) + " |")
    print(json.dumps({view: cells for view, _, cells in rows}), file=sys.stderr)


if __name__ == "__main__":
    main()
