"""What the sharing tests share (test_share.py, test_share_views.py): a recording browser context, the
share control's two buttons, and a course page on another origin that holds an embed code."""

import html
import json
import re
from contextlib import contextmanager

from playwright.sync_api import expect

from site_harness import BOOT_TIMEOUT_MS, TRAIN_TIMEOUT_MS

# Every bpe-state event of the app and every bpe-lab message a host page hears, in order.
RECORD = """
window.__states = [];
window.__bpe = [];
document.addEventListener("bpe-state", (e) => window.__states.push(JSON.parse(JSON.stringify(e.detail))));
addEventListener("message", (event) => {
  const data = event.data;
  if (data && typeof data === "object" && data.source === "bpe-lab") window.__bpe.push(JSON.parse(JSON.stringify(data)));
});
"""


def serve_course(tmp_path_factory, name="course"):
    """Yield (folder, url): a folder of course pages served on another origin than the widget's (localhost)."""
    from bpelab.serve import serve_in_thread

    folder = tmp_path_factory.mktemp(name)
    server, url = serve_in_thread(folder, host="localhost")
    yield folder, url.rstrip("/")
    server.shutdown()
    server.server_close()


@contextmanager
def page_at(browser, site_url, url):
    """A page on `url` in a fresh browser context (a reader who has never been here), closed after."""
    context = new_context(browser, site_url)
    try:
        page = context.new_page()
        page.goto(url)
        yield page
    finally:
        context.close()


def new_context(browser, site_url, width=1280):
    context = browser.new_context(viewport={"width": width, "height": 900}, accept_downloads=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    context.add_init_script(RECORD)
    return context


def open_app(context, url):
    """A page of `context` on `url`, once Python is ready."""
    page = context.new_page()
    page.goto(url)
    expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
    return page


def wait_for(page, expression, timeout=TRAIN_TIMEOUT_MS):
    """The value of a JS expression once it is truthy."""
    page.wait_for_function(f"() => {expression}", timeout=timeout)
    return page.evaluate(f"() => {expression}")


def last_state(page, view, condition="true"):
    return wait_for(page, f"window.__states.filter((s) => s.view === {json.dumps(view)} && ({condition})).pop()")


def last_message(page, view, condition="true"):
    return wait_for(page, f"window.__bpe.filter((m) => m.type === 'state' && m.view === {json.dumps(view)} && ({condition})).pop()")


def copy_link_and_embed(page, share):
    """(link, iframe src, embed code) from the share control `share` (a locator), read from the clipboard."""
    share.get_by_role("button", name="Copy link").click()
    expect(share.get_by_role("status")).to_contain_text("Link copied.")
    link = page.evaluate("navigator.clipboard.readText()")
    share.get_by_role("button", name="Copy embed code").click()
    expect(share.get_by_role("status")).to_contain_text("Embed code copied")
    code = page.evaluate("navigator.clipboard.readText()")
    src = html.unescape(re.search(r'<iframe src="([^"]+)"', code).group(1))
    return link, src, code


def open_embed(browser, site_url, course, code, name):
    """A fresh context on a course page (another origin) holding the embed code; returns (context, page)."""
    folder, url = course
    (folder / f"{name}.html").write_text(f"<!doctype html><html lang=en><title>{name}</title><body>{code}</body></html>", "utf-8")
    context = new_context(browser, site_url)
    page = context.new_page()
    page.goto(f"{url}/{name}.html")
    page.locator("iframe").first.scroll_into_view_if_needed()
    return context, page




def train_pasted(page, text, size, extra=None):
    """Paste a text in the Train view, set the size (and other settings), train, wait for the results."""
    page.locator("#clear-text").click()
    page.locator("#text").fill(text)
    page.locator("#size").fill(str(size))
    for selector, value in (extra or {}).items():
        page.locator(selector).select_option(value)
    runs = int(page.locator("#app").get_attribute("data-runs"))
    page.locator("#train").click()
    expect(page.locator("#app")).to_have_attribute("data-runs", str(runs + 1), timeout=TRAIN_TIMEOUT_MS)


def long_text(n_chars, seed=20):
    """A pasted text of our own that no link holds, even compressed: words of random syllables (a fixed seed)."""
    import random

    rng = random.Random(seed)
    syllables = [a + b for a in "bdfgklmnprstvz" for b in "aeiouy"] + ["low", "est", "er", "new", "wid"]
    words = []
    while sum(len(w) + 1 for w in words) < n_chars:
        words.append("".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))))
    lines = [" ".join(words[i:i + 12]) for i in range(0, len(words), 12)]
    return "\n".join(lines)
