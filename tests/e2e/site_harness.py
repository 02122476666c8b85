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
