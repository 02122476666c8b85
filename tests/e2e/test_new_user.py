"""What a first-time visitor tripped on (issue 20, "From the same new-user run"), one test each.

Seed 003's corpus trains eight merges: s+t, e+st, o+w, l+ow, w+est, n+e, ne+west, ␣+newest
(counts 9, 9, 7, 7, 6, 6, 6, 5), with vocabulary 265, the gpt2 pattern and the greater pair
breaking ties. A larger text is used where more merges are needed.
"""

import base64
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError, expect

from site_harness import TRAIN_TIMEOUT_MS

SEED003_CORPUS = ("low low low low low\n"
                  "lower lower widest widest widest\n"
                  "newest newest newest newest newest newest\n")
# Enough repeated words for more than ten merges.
LONGER = "the quick brown fox jumps over the lazy dog, then the dog sleeps and the fox runs home again. " * 6


def train(site, text, size=265):
    # Through the bare view first: the same address as before would not be a change the page sees.
    site.set_hash("#/train")
    expect(site.page.locator("#text")).to_be_visible()
    site.wait_ready()
    site.set_hash(f"#/train?size={size}&pre=gpt2&tie=greater&mode=vocab")
    expect(site.page.locator("#size")).to_have_value(str(size), timeout=20_000)
    site.set_text(text)
    site.train_and_wait()


def open_explorer_at(site, step):
    site.set_hash("#/explore?sample=seed003-low-lower")
    view = site.page.locator("bpe-explorer-view")
    expect(view).to_have_attribute("data-state", "ready", timeout=TRAIN_TIMEOUT_MS)
    site.page.locator("#explorer-step").fill(str(step))
    expect(view).to_have_attribute("data-step", str(step))
    return view


def in_viewport(page, locator):
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def comes_into_view(page, locator, timeout_ms=3000):
    """True once the element lies wholly in the viewport, as the reader sees it
    when the layout has settled (a frame may still be drawing the results)."""
    handle = locator.element_handle()
    try:
        page.wait_for_function(
            """(node) => { const r = node.getBoundingClientRect();
                           return r.top >= 0 && r.bottom <= innerHeight; }""",
            arg=handle, timeout=timeout_ms)
    except PlaywrightTimeoutError:
        return False
    return True


def test_a_wrong_guess_is_explained_where_the_reader_clicked_and_the_table_stays(site):
    page = site.page
    view = open_explorer_at(site, 5)
    page.locator("#explorer-predict").check()
    table = page.locator(".explorer-next .pair-table")
    guess = table.get_by_role("button", name="This one: e + west, count 6")
    guess.scroll_into_view_if_needed()
    rows_before = table.locator("tbody tr").all_inner_texts()
    guess_box = guess.bounding_box()
    guess.click()
    answer = page.locator(".predict-answer")
    expect(answer).to_have_attribute("data-correct", "false")
    expect(answer).to_contain_text("Close: (e, west) also occurs 6 times")
    # Still step 5, the same pairs (now with the winner shown), the verdict under them and in view.
    expect(view).to_have_attribute("data-step", "5")
    assert len(table.locator("tbody tr").all()) == len(rows_before)
    expect(table.locator("tr.chosen")).to_have_count(1)
    assert in_viewport(page, answer), answer.bounding_box()
    answer_box = answer.bounding_box()
    table_box = table.bounding_box()
    assert table_box["y"] < answer_box["y"] <= table_box["y"] + table_box["height"] + 40
    assert abs(answer_box["y"] - guess_box["y"]) < page.viewport_size["height"]
    # The keyboard is on the way on, and it goes on only when asked.
    next_button = answer.get_by_role("button", name="Next step (6)")
    expect(next_button).to_be_focused()
    next_button.click()
    expect(view).to_have_attribute("data-step", "6")
    expect(answer).to_be_hidden()
    page.locator("#explorer-predict").uncheck()


def test_compare_it_with_gpt2_and_gpt4_includes_the_trained_tokenizer(site):
    page = site.page
    train(site, SEED003_CORPUS)
    page.locator("#results-summary").get_by_role("link", name="compare it with GPT-2 and GPT-4").click()
    expect(page.locator(".compare-pane")).to_have_count(3, timeout=30_000)
    specs = [node.get_attribute("data-spec") for node in page.locator(".compare-pane").all()]
    assert specs == ["trained", "gpt2", "cl100k"]
    expect(page.locator(".compare-pane[data-spec='trained']")).not_to_contain_text("No trained tokenizer", timeout=30_000)


def test_compares_address_follows_k_as_it_is_typed(site):
    page = site.page
    train(site, LONGER, size=300)
    site.set_hash("#/compare?panes=trained@0,gpt2&policy=raise&ws=1&text=the%20quick%20brown%20fox")
    expect(page.locator("bpe-compare-view")).to_have_attribute("data-state", "done", timeout=60_000)
    k_pane = page.locator(".compare-pane").first
    expect(k_pane).to_have_attribute("data-spec", "trained@0")
    k_box = k_pane.locator("input[type='number']").first
    k_box.click()
    k_box.press("Control+a")
    k_box.press_sequentially("10")  # typed, not yet left: no change event
    expect(k_pane).to_have_attribute("data-spec", "trained@10")
    expect(page).to_have_url(re.compile(r"panes=trained(%40|@)10(%2C|,)gpt2"))
    expect(k_box).to_be_focused()


def test_the_vocabulary_size_error_is_at_the_field_which_takes_focus(site):
    page = site.page
    page.set_viewport_size({"width": 1280, "height": 700})
    try:
        site.set_hash("#/train?size=265&pre=gpt2&tie=greater&mode=vocab")
        site.set_text(SEED003_CORPUS)
        page.locator("#size").fill("12")
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.locator("#train").click()
        error = page.locator("#size-error")
        expect(error).to_be_visible()
        expect(error).to_contain_text("The vocabulary size must be a whole number of at least 256 + 1 special token = 257, got 12.")
        expect(page.locator("#size")).to_be_focused()
        expect(page.locator("#size")).to_have_attribute("aria-invalid", "true")
        # In view, and not under the sticky Train bar.
        assert in_viewport(page, error)
        bar = page.locator("#settings .actions").bounding_box()
        box = error.bounding_box()
        assert box["y"] + box["height"] <= bar["y"] or box["y"] >= bar["y"] + bar["height"], (box, bar)
        expect(page.locator("#settings-error")).to_be_hidden()  # said once, at the field
        page.locator("#size").fill("265")
        expect(error).to_be_hidden()
        expect(page.locator("#size")).not_to_have_attribute("aria-invalid", "true")
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_try_a_worked_example_moves_focus_to_the_results(fresh_site):
    page = fresh_site.page
    fresh_site.open()
    page.locator("#worked-example").click()
    summary = page.locator("#results-summary")
    expect(summary).to_contain_text("Learned 8 merges", timeout=TRAIN_TIMEOUT_MS)
    expect(summary).to_be_focused()
    assert comes_into_view(page, summary), summary.bounding_box()


def test_explore_the_worked_example_moves_focus_to_the_step(fresh_site):
    page = fresh_site.page
    fresh_site.open("#/explore")
    button = page.get_by_role("button", name="Explore the worked example (seed 003)")
    button.click()
    view = page.locator("bpe-explorer-view")
    expect(view).to_have_attribute("data-state", "ready", timeout=TRAIN_TIMEOUT_MS)
    summary = page.locator(".explorer-summary")
    expect(summary).to_be_focused()
    expect(summary).to_contain_text("Step 0 of 8")


def test_the_text_window_draws_one_box_per_token(site):
    page = site.page
    open_explorer_at(site, 8)
    window = page.locator(".text-window")
    tokens = window.locator(":scope > span.s")
    expect(tokens).to_have_count(40)  # 95 characters less the 55 merged away
    first = tokens.first
    assert first.inner_text() == "low"  # one element holds the whole token
    assert first.locator("span[data-i]").count() == 3
    # One rectangle per token on one line: "low" is one box, not l|o|w.
    assert first.evaluate("(node) => node.getClientRects().length") == 1
    first.evaluate("(node) => node.closest('.text-window').focus()")
    expect(window.locator(".cur")).to_have_count(1)
    expect(window.locator(".cur")).to_have_text("low")
    page.keyboard.press("ArrowRight")
    expect(window.locator(".cur")).to_have_text("␣")
    expect(page.locator(".window-said")).to_contain_text("Token 2 of 40")


def test_the_language_table_says_it_scrolls_when_wider_than_its_pane(site):
    page = site.page
    site.set_hash("#/compare?panes=gpt2,cl100k,o200k&policy=raise&ws=1&text=hello")
    table = page.locator("#compare-lang-table")
    expect(table.locator("tbody th").first).to_be_visible(timeout=60_000)
    note = page.locator("#compare-languages .scroll-note")
    wrap = page.locator("#compare-languages .table-wrap")
    try:
        expect(note).to_be_hidden()  # 1280 px: the table fits
        assert wrap.evaluate("(n) => n.scrollWidth <= n.clientWidth + 1")
        page.set_viewport_size({"width": 375, "height": 800})
        expect(note).to_be_visible()
        expect(note).to_contain_text("scroll it sideways")
        assert wrap.evaluate("(n) => n.scrollWidth > n.clientWidth")
        assert wrap.evaluate("(n) => getComputedStyle(n).overflowX") == "auto"
        assert wrap.get_attribute("tabindex") == "0"
        page.set_viewport_size({"width": 1280, "height": 900})
        expect(note).to_be_hidden()
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


@pytest.mark.parametrize("change", ["text", "size", "tie-break"])
def test_results_are_marked_stale_once_the_text_or_a_setting_changes(site, change):
    page = site.page
    train(site, SEED003_CORPUS)
    stale = page.locator("#results-stale")
    expect(stale).to_be_hidden()
    if change == "text":
        site.set_text(SEED003_CORPUS + "slowest\n")
    elif change == "size":
        page.locator("#size").fill("264")
    else:
        page.locator("#tie_break").select_option("smaller-id")
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("These results are from an earlier run")
    expect(page.locator("#results")).to_have_attribute("data-stale", "")
    # Changed back: the results are the form's again.
    if change == "text":
        site.set_text(SEED003_CORPUS)
    elif change == "size":
        page.locator("#size").fill("265")
    else:
        page.locator("#tie_break").select_option("greater")
    expect(stale).to_be_hidden()
    # A new run clears it too.
    page.locator("#size").fill("264")
    expect(stale).to_be_visible()
    site.train_and_wait()
    expect(stale).to_be_hidden()


def test_one_numbering_for_merges_in_the_table_the_explorer_and_the_trace(site):
    page = site.page
    train(site, SEED003_CORPUS)
    first = page.locator("#merge-body tr").first.locator("td")
    last = page.locator("#merge-body tr").last.locator("td")
    assert first.all_inner_texts()[0] == "1"  # s + t, the explorer's merge 1
    assert last.all_inner_texts()[0] == "8"
    expect(page.locator("#merge-range")).to_contain_text("Merges 1–8 of 8")
    expect(page.locator("#merge-table thead th").first).to_have_text("Merge")
    open_explorer_at(site, 1)
    expect(page.locator("#explorer-merge-title")).to_have_text("Merge 1, which made step 1")
    page.locator("#explorer-trace-text").fill("lowest")
    steps = page.locator(".trace-steps li")
    expect(steps.first).to_contain_text("→ apply merge 1")  # s + t, merge 1 as above
    expect(page.locator(".trace-result")).not_to_contain_text("rank")
    expect(steps.first.locator(".rank").first).to_have_text(re.compile(r"^merge \d+$"))  # candidates numbered as merges, not #rank
    open_explorer_at(site, 8)
    page.locator(".text-window span[data-i='62']").click()  # in ␣newest, merge 8
    dialog = page.locator("dialog.provenance-dialog")
    expect(dialog.locator(".provenance-made")).to_contain_text("Made by merge 8: (␣, newest)")
    expect(dialog).not_to_contain_text("rank")
    page.keyboard.press("Escape")


def _tiktoken_file():
    """A .tiktoken file that is not OpenAI's: the 256 bytes and one merge, a + b."""
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'ab').decode()} 256")
    return ("\n".join(lines) + "\n").encode()


def test_the_tiktoken_question_speaks_of_the_web_control(site):
    page = site.page
    site.set_hash("#/train")
    page.locator("#import-input").set_input_files(files=[
        {"name": "mine.tiktoken", "mimeType": "text/plain", "buffer": _tiktoken_file()}])
    question = page.locator("[data-role=pretokenizer-question]")
    expect(question).to_be_visible(timeout=TRAIN_TIMEOUT_MS)
    text = page.locator("#import-ask-text")
    expect(text).to_contain_text("mine.tiktoken holds ranks only")
    expect(text).to_contain_text("in the menu below")
    expect(text).to_contain_text("Import with this pre-tokenizer")
    expect(text).not_to_contain_text("--pretokenizer")
    expect(text).not_to_contain_text("CLI")
    site.wait_ready()
    page.locator("[data-action=import-with-pretokenizer]").click()
    message = page.locator("#import-message")
    expect(message).to_have_class(re.compile("ok"), timeout=TRAIN_TIMEOUT_MS)
    site.wait_ready()


def test_one_word_for_the_size_of_a_vocabulary(site):
    page = site.page
    train(site, SEED003_CORPUS)
    expect(page.locator("#results-summary")).to_contain_text("Vocabulary: 265 entries = 256 bytes + 8 merges + 1 special token")
    site.set_hash("#/encode?tok=trained&text=lowest")
    option = page.locator("bpe-encode-view option[value='trained']")
    expect(option).to_have_text("Trained here (265 entries)", timeout=30_000)
    # OpenAI's sizes are entries too; ids are a range beside them.
    site.set_hash("#/encode?tok=o200k&text=lowest")
    info = page.locator("bpe-encode-view")
    expect(info).to_contain_text("200,000 entries, ids 0–200,018", timeout=60_000)
    body = page.locator("#view").inner_text()
    assert not re.search(r"\d tokens\)", body), body[:400]


@pytest.mark.parametrize("width", [1280, 375])
def test_the_page_does_not_jump_when_python_becomes_ready(browser, site_url, width):
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        # The view's top at every status change, from when the view is drawn (while Python starts) to ready.
        page.add_init_script("""
            window.__tops = [];
            document.addEventListener('DOMContentLoaded', () => {
              const view = document.getElementById('view'), status = document.getElementById('status');
              const note = () => {
                const box = view.getBoundingClientRect();
                if (box.height > 0) window.__tops.push([document.getElementById('app').dataset.state, Math.round(box.top)]);
              };
              note();
              new MutationObserver(note).observe(status, { childList: true, characterData: true, subtree: true });
              new MutationObserver(note).observe(document.getElementById('app'), { attributes: true, attributeFilter: ['data-state'] });
            });
        """)
        page.goto(site_url)
        expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=60_000)
        page.wait_for_timeout(200)
        page.evaluate("() => new Promise(requestAnimationFrame)")
        tops = page.evaluate("window.__tops") + [["after", round(page.locator("#view").bounding_box()["y"])]]
        assert tops[0][0] == "booting" and len({top for _, top in tops}) == 1, tops
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 800, 375])
def test_the_train_view_does_not_shift_while_its_samples_load(browser, site_url, width):
    """The sample menu widened to its longest option once the samples were listed, and wrapped the row under
    it: the Train view moved 69 px down at 1280 px wide. Every layout shift of a node inside the view is
    recorded (PerformanceObserver), from the view's first frame until the samples are listed and Python is ready."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        page.add_init_script("""
            window.__shifts = [];
            new PerformanceObserver((list) => {
              const view = document.getElementById('view');
              for (const entry of list.getEntries()) for (const s of entry.sources) {
                // A node that moves, not one that appears or leaves the viewport (an empty rectangle).
                const drawn = (r) => r.width > 0 && r.height > 0;
                if (s.node && view && view.contains(s.node) && drawn(s.previousRect) && drawn(s.currentRect)
                    && Math.abs(s.currentRect.top - s.previousRect.top) > 0.5)
                  window.__shifts.push([s.node.id || s.node.className || s.node.nodeName, Math.round(s.previousRect.top), Math.round(s.currentRect.top)]);
              }
            }).observe({ type: 'layout-shift', buffered: true });
        """)
        # The samples' list comes after the view is drawn, as on a slow network (here it often came first).
        drawn = []

        def slow_index(route):
            if not drawn:
                page.locator("#text-drop").wait_for(state="visible")
                drawn.append(page.locator("#text-drop").bounding_box()["y"])
            route.continue_()

        page.route("**/samples/index.json", slow_index)
        page.goto(site_url + "#/train")
        expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=60_000)
        expect(page.locator("#sample optgroup").first).to_be_attached()
        top = page.locator("#text-drop").bounding_box()["y"]
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert page.evaluate("window.__shifts") == []
        assert drawn and page.locator("#text-drop").bounding_box()["y"] == top
    finally:
        context.close()


@pytest.mark.parametrize("width", [375, 320])
def test_the_ready_line_is_whole_at_phone_width(browser, site_url, width):
    """At 375 px the line read "Python is ready from a snapshot …": the hidden progress bar kept its room."""
    context = browser.new_context(viewport={"width": width, "height": 700})
    try:
        page = context.new_page()
        page.goto(site_url)
        expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=60_000)
        status = page.locator("#status")
        expect(status).to_contain_text("Python is ready")
        fits = status.evaluate("(node) => node.scrollWidth <= node.clientWidth")
        assert fits, status.evaluate("(node) => [node.textContent, node.scrollWidth, node.clientWidth]")
    finally:
        context.close()
