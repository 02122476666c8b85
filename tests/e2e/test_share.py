"""What you make travels (issue 20): a state made through the UI, copied as a link and as embed code,
reopened in a fresh browser context, is the same state.

Each test makes a state in the app, copies the link and the embed code, opens the link in a fresh
context (the app) and the embed code on a course page of another origin (the widget), and compares
what each shows: the explorer's step, pair, merged id, count and tokens; compare's panes and ids;
encode's ids. The texts are pasted texts of our own; the settings are not the defaults.
"""

import html
import json
import re

import pytest
from playwright.sync_api import expect

from site_harness import BOOT_TIMEOUT_MS, TRAIN_TIMEOUT_MS

PARAGRAPH = ("Our own paragraph, about a river town: the lower lanes flood, the lowest lanes flood first, "
             "and the newest houses stand on the widest stilts. Lower, lowest, newer, newest, wider, widest.")

RECORD = """
window.__states = [];
window.__bpe = [];
document.addEventListener("bpe-state", (e) => window.__states.push(JSON.parse(JSON.stringify(e.detail))));
addEventListener("message", (event) => {
  const data = event.data;
  if (data && typeof data === "object" && data.source === "bpe-lab") window.__bpe.push(JSON.parse(JSON.stringify(data)));
});
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """(folder, url): course pages written by the tests, on another origin than the widget's."""
    from bpelab.serve import serve_in_thread

    folder = tmp_path_factory.mktemp("course")
    server, url = serve_in_thread(folder, host="localhost")
    yield folder, url.rstrip("/")
    server.shutdown()
    server.server_close()


def new_context(browser, site_url, width=1280):
    context = browser.new_context(viewport={"width": width, "height": 900}, accept_downloads=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    context.add_init_script(RECORD)
    return context


def wait_for(page, expression, timeout=TRAIN_TIMEOUT_MS):
    """The value of a JS expression once it is truthy."""
    page.wait_for_function(f"() => {expression}", timeout=timeout)
    return page.evaluate(f"() => {expression}")


def last_state(page, view, condition="true"):
    return wait_for(page, f"window.__states.filter((s) => s.view === {json.dumps(view)} && ({condition})).pop()")


def last_message(page, view, condition="true"):
    return wait_for(page, f"window.__bpe.filter((m) => m.type === 'state' && m.view === {json.dumps(view)} && ({condition})).pop()")


def copy_link_and_embed(page, share):
    """(link, iframe src) from the share control `share` (a locator)."""
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
    page.locator("iframe").scroll_into_view_if_needed()
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


def test_explorer_link_and_embed_reopen_a_tokenizer_trained_on_pasted_text(browser, site_url, course):
    """The issue's first finding: the link was #/explore?step=5 and a fresh browser showed nothing; the embed
    code showed seed 003's eight merges instead of the paragraph's."""
    context = new_context(browser, site_url)
    try:
        page = context.new_page()
        page.goto(site_url + "#/train")
        expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
        train_pasted(page, PARAGRAPH, 300, {"#tie_break": "smaller-id"})
        page.get_by_role("link", name="Explore").click()
        explorer = page.locator("bpe-explorer-view")
        expect(explorer).to_have_attribute("data-step", "0", timeout=TRAIN_TIMEOUT_MS)
        for step in range(1, 6):
            page.keyboard.press("ArrowRight")
            expect(explorer).to_have_attribute("data-step", str(step))
        made = last_state(page, "explorer", "s.step === 5")
        assert made["steps"] > 5 and made["pair"] and made["tokens"]
        link, src, code = copy_link_and_embed(page, page.locator("#app-share"))
        assert "step=5" in link and "tie=smaller-id" in link and "size=300" in link
    finally:
        context.close()

    context = new_context(browser, site_url)
    try:
        page = context.new_page()
        page.goto(link)
        again = last_state(page, "explorer", "s.step === 5")
        assert again == made
    finally:
        context.close()

    context, page = open_embed(browser, site_url, course, code, "explorer-pasted")
    try:
        heard = last_message(page, "explorer", "m.step === 5")
        assert {k: heard[k] for k in made} == made
    finally:
        context.close()
