"""What the end-to-end tests share besides fixtures: paths, timeouts and the Site page wrapper."""

import os
from pathlib import Path

from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("BPELAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
BOOT_TIMEOUT_MS = 60_000  # a cold Pyodide boot is ~3 s; a loaded CI machine may be far slower
TRAIN_TIMEOUT_MS = 120_000
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # npm axe-core (a devDependency), pinned in package-lock.json



class Site:
    """One browser page on the site, with what it logged and what it tried to fetch elsewhere."""

    def __init__(self, page, url):
        self.page = page
        self.url = url
        self.console = []  # "type: text" lines, page errors included
        self.outside = []  # URLs of requests to other origins (all aborted)
        self.requests = []  # every URL the page asked for

    def open(self, hash_=""):
        """Load the page (with an optional #hash) and wait until Python is ready."""
        self.page.goto(self.url + hash_)
        self.wait_ready()

    def wait_ready(self, timeout=BOOT_TIMEOUT_MS):
        expect(self.page.locator("#app")).to_have_attribute("data-state", "ready", timeout=timeout)

    def set_text(self, text):
        """Put text into the training box as a paste would (input event included)."""
        self.page.locator("#text").evaluate(
            "(node, text) => { node.value = text; node.dispatchEvent(new Event('input', {bubbles: true})); }", text)

    def runs(self):
        """How many runs (training or import) the page has finished."""
        return int(self.page.locator("#app").get_attribute("data-runs") or 0)

    def wait_run(self, before):
        """Wait until the run after `before` has finished and Python is idle again."""
        expect(self.page.locator("#app")).to_have_attribute("data-runs", str(before + 1), timeout=TRAIN_TIMEOUT_MS)
        self.wait_ready()

    def train_and_wait(self):
        before = self.runs()
        self.page.locator("#train").click()
        self.wait_run(before)
        expect(self.page.locator("#self-check")).to_be_visible()

    def set_hash(self, hash_):
        self.page.evaluate("(h) => { location.hash = h; }", hash_)

    def axe(self, selector=None, scheme=None):
        """axe-core's serious and critical violations on the page (or inside `selector`), as readable lines.

        `scheme` ("light" or "dark") emulates prefers-color-scheme for the audit and restores light after.
        The page's Content-Security-Policy refuses inline scripts, so axe's source is evaluated through
        the DevTools protocol (page.evaluate), which the policy does not govern.
        """
        page = self.page
        if not page.evaluate("() => typeof window.axe === 'object'"):
            if not AXE_JS.exists():
                raise AssertionError(f"no {AXE_JS}: run npm ci (axe-core is in package.json's devDependencies)")
            page.evaluate(AXE_JS.read_text("utf-8") + "\n;undefined")
        if scheme:
            page.emulate_media(color_scheme=scheme)
        try:
            return page.evaluate(
                """async (selector) => {
                    const context = selector ? document.querySelector(selector) : document;
                    if (!context) throw new Error(`axe: nothing matches ${selector}`);
                    // A row that just flashed in (opacity 0.35 -> 1 over 450 ms) is audited as the reader sees it at rest.
                    for (const a of document.getAnimations()) if (a.effect?.getTiming().iterations !== Infinity) a.finish();
                    const result = await axe.run(context, { resultTypes: ["violations"] });
                    return result.violations
                        .filter((v) => v.impact === "serious" || v.impact === "critical")
                        .flatMap((v) => v.nodes.slice(0, 8).map((n) =>
                            `${v.impact} ${v.id}: ${v.help} at ${n.target.join(" ")}: ${n.failureSummary.replace(/\\s+/g, " ")}`));
                }""", selector)
        finally:
            if scheme:
                page.emulate_media(color_scheme="light")
