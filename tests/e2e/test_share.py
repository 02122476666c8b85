"""What you make travels (issue 20): a state made through the UI, copied as a link and as embed code,
reopened in a fresh browser context, is the same state.

Each test makes a state in the app, copies the link and the embed code, opens the link in a fresh
context (the app) and the embed code on a course page of another origin (the widget), and compares
what each shows: the explorer's step, pair, merged id, count and tokens; compare's panes and ids;
encode's ids. The texts are pasted texts of our own; the settings are not the defaults.
"""

import json

import pytest
from playwright.sync_api import expect

from share_harness import (copy_link_and_embed, last_message, last_state, long_text, new_context, open_embed,
                           serve_course, train_pasted, wait_for)
from site_harness import BOOT_TIMEOUT_MS, TRAIN_TIMEOUT_MS

PARAGRAPH = ("Our own paragraph, about a river town: the lower lanes flood, the lowest lanes flood first, "
             "and the newest houses stand on the widest stilts. Lower, lowest, newer, newest, wider, widest.")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """(folder, url): course pages written by the tests, on another origin than the widget's."""
    yield from serve_course(tmp_path_factory)


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


def test_a_text_over_the_link_limit_travels_as_a_lesson_file(browser, site_url, course, tmp_path):
    """Copy link offers the lesson file; the app opens it by the file picker and by drag and drop, and the
    embed code reads it with <bpe-lab src> from the course page's folder: each shows the same step."""
    text = long_text(16_000)
    context = new_context(browser, site_url)
    try:
        page = context.new_page()
        page.goto(site_url + "#/train")
        expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
        train_pasted(page, text, 280, {"#tie_break": "first-seen"})
        page.get_by_role("link", name="Explore").click()
        explorer = page.locator("bpe-explorer-view")
        expect(explorer).to_have_attribute("data-step", "0", timeout=TRAIN_TIMEOUT_MS)
        for step in range(1, 4):
            page.keyboard.press("ArrowRight")
            expect(explorer).to_have_attribute("data-step", str(step))
        made = last_state(page, "explorer", "s.step === 3")
        share = page.locator("#app-share")
        share.get_by_role("button", name="Copy link").click()
        status = share.get_by_role("status")
        expect(status).to_contain_text("a link holds at most 6,000")
        expect(status).to_contain_text("download it as a lesson file")
        with page.expect_download() as info:
            share.get_by_role("button", name="Download the lesson file").click()
        download = info.value
        assert download.suggested_filename == "bpe-lab-explorer.bpelab.json"
        lesson_path = tmp_path / download.suggested_filename
        download.save_as(lesson_path)
        lesson = json.loads(lesson_path.read_text("utf-8"))
        assert lesson["text"] == text and lesson["settings"]["tie_break"] == "first-seen" and lesson["state"]["step"] == 3
        share.get_by_role("button", name="Copy embed code").click()
        expect(status).to_contain_text("it reads the lesson file bpe-lab-explorer.bpelab.json")
        code = page.evaluate("navigator.clipboard.readText()")
        assert '<bpe-lab src="bpe-lab-explorer.bpelab.json"' in code and "<iframe" not in code
    finally:
        context.close()

    # The app, by the file picker.
    context = new_context(browser, site_url)
    try:
        page = context.new_page()
        page.goto(site_url)
        expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
        with page.expect_file_chooser() as chooser:
            page.locator("#open-lesson").click()
        chooser.value.set_files(str(lesson_path))
        assert last_state(page, "explorer", "s.step === 3") == made
        expect(page.locator("#lesson-status")).to_contain_text("Opened the lesson bpe-lab-explorer.bpelab.json")
    finally:
        context.close()

    # The app, by drag and drop onto the page.
    context = new_context(browser, site_url)
    try:
        page = context.new_page()
        page.goto(site_url + "#/compare")
        expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
        transfer = page.evaluate_handle(
            "(text) => { const t = new DataTransfer(); t.items.add(new File([text], 'bpe-lab-explorer.bpelab.json', {type: 'application/json'})); return t; }",
            lesson_path.read_text("utf-8"))
        page.locator("main").dispatch_event("dragover", {"dataTransfer": transfer})
        page.locator("main").dispatch_event("drop", {"dataTransfer": transfer})
        assert last_state(page, "explorer", "s.step === 3") == made
    finally:
        context.close()

    # A course page of another origin, with the lesson file next to it.
    (course[0] / "bpe-lab-explorer.bpelab.json").write_bytes(lesson_path.read_bytes())
    context, page = open_embed(browser, site_url, course, code, "explorer-lesson")
    try:
        heard = last_message(page, "explorer", "m.step === 3")
        assert {k: heard[k] for k in made} == made
    finally:
        context.close()


def bpe_lab_page(browser, site_url, course, name, body):
    """A course page (another origin) loading bpe-lab.js from the widget's site, with `body`; (context, page)."""
    code = f'<script src="{site_url.rstrip("/")}/bpe-lab.js" defer></script>\n{body}'
    return open_embed(browser, site_url, course, code, name)


def test_bpe_lab_src_with_parts_and_a_load_command_from_the_host(browser, site_url, course, tiktoken_encoding):
    lesson = {"format": "bpelab-lesson", "version": 1, "view": "compare",
              "state": {"text": "Xin chào\r\nthế giới", "panes": ["gpt2", "o200k"]}}
    (course[0] / "xin.bpelab.json").write_text(json.dumps(lesson), "utf-8")
    context, page = bpe_lab_page(browser, site_url, course, "src-parts",
                                 '<bpe-lab id="x" src="xin.bpelab.json" parts="panes,ids"></bpe-lab>')
    try:
        heard = last_message(page, "compare", "m.panes && m.panes.length === 2 && m.panes.every((p) => p.ids)")
        assert heard["id"] == "x"
        # The text is kept exactly (CR LF), and the ids are tiktoken's for it.
        assert [p["ids"] for p in heard["panes"]] == [tiktoken_encoding(name).encode("Xin chào\r\nthế giới")
                                                      for name in ("gpt2", "o200k_base")]
        frame = page.frame_locator("bpe-lab iframe")
        expect(frame.locator(".compare-pane token-display").first).to_be_visible(timeout=TRAIN_TIMEOUT_MS)
        expect(frame.locator(".pane-ids").first).to_be_visible()
        expect(frame.locator(".pane-counts").first).to_be_hidden()
        assert frame.locator("#compare-text").input_value() == "Xin chào\nthế giới"
        # The host sends another lesson as an object (the load command).
        other = {"format": "bpelab-lesson", "version": 1, "view": "explorer", "sample": "seed003-low-lower",
                 "state": {"tok": "trained", "step": 4}}
        page.evaluate("(lesson) => document.querySelector('bpe-lab').command('load', {lesson})", other)
        moved = last_message(page, "explorer", "m.step === 4")
        assert moved["merged"] == 259 and moved["steps"] == 8
    finally:
        context.close()


def test_a_lesson_file_that_cannot_be_read_is_named_under_the_widget(browser, site_url, course):
    bad = {"format": "bpelab-lesson", "version": 1, "view": "explorer", "state": {"step": "5"}}
    (course[0] / "bad.bpelab.json").write_text(json.dumps(bad), "utf-8")
    context, page = bpe_lab_page(browser, site_url, course, "src-bad",
                                 '<bpe-lab id="bad" src="bad.bpelab.json"></bpe-lab><bpe-lab id="gone" src="missing.bpelab.json"></bpe-lab>')
    try:
        expect(page.locator("bpe-lab#gone [role=alert]")).to_have_text(
            "The lesson file missing.bpelab.json could not be fetched: HTTP 404.", timeout=BOOT_TIMEOUT_MS)
        error = wait_for(page, "window.__bpe.filter((m) => m.type === 'error' && m.id === 'bad').pop()")
        assert "bad.bpelab.json: state.step must be a number, got string" in error["message"]
        frame = page.frame_locator("bpe-lab#bad iframe")
        expect(frame.locator("#embed-errors")).to_contain_text("state.step must be a number, got string", timeout=BOOT_TIMEOUT_MS)
    finally:
        context.close()
