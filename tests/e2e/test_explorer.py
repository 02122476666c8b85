"""The merge explorer (issue 13) in Chromium, on seed 003's toy corpus (web/samples/seed003-low-lower.txt).

The page trains the sample itself from the link (#/explore?sample=...), with the sample's settings:
vocabulary 265, gpt2 pattern, the greater pair breaks ties; so the eight merges are seed 003's:
s+t (9), e+st (9), o+w (7), l+ow (7), w+est (6), n+e (6), ne+west (6), ␣+newest (5).
"""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from site_harness import ROOT, TRAIN_TIMEOUT_MS

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="module")
def explorer(site):
    """The site on the explorer, trained on the seed 003 sample, at step 0."""
    site.page.evaluate("() => { location.hash = '#/explore?sample=seed003-low-lower'; }")
    view = site.page.locator("bpe-explorer-view")
    expect(view).to_have_attribute("data-state", "ready", timeout=TRAIN_TIMEOUT_MS)
    expect(view).to_have_attribute("data-step", "0")
    # Every bpe-state and bpe-answer the view sends, for the protocol checks.
    site.page.evaluate("""() => {
        window.explorerEvents = [];
        document.addEventListener('bpe-state', (e) => window.explorerEvents.push({type: 'state', ...e.detail}));
        document.addEventListener('bpe-answer', (e) => window.explorerEvents.push({type: 'answer', ...e.detail}));
    }""")
    return site


def at_step(site, k):
    expect(site.page.locator("bpe-explorer-view")).to_have_attribute("data-step", str(k))


def summary(site):
    return site.page.locator(".explorer-summary")


def go(site, k):
    site.page.locator("#explorer-step").fill(str(k))
    at_step(site, k)


def test_step_forward_and_back(explorer):
    page = explorer.page
    expect(summary(explorer)).to_have_text("Step 0 of 8: the text as bytes, 95 tokens.")
    page.get_by_role("button", name="Step forward (right arrow)").click()
    at_step(explorer, 1)
    expect(summary(explorer)).to_have_text(
        "Step 1 of 8: merged s + t into st (id 256), count 9; the corpus is now 86 tokens, 1.10 bytes per token.")
    # Merge 1: the tie (e, s) / (s, t) at 9, decided by the greater pair; the three rows that changed.
    merge = page.locator(".explorer-merge")
    expect(merge.locator(".merge-reason")).to_have_text(
        "2 pairs tie at 9; the tie-break 'greater' picks (s, t), the greater pair of byte strings. "
        "'smaller-id' would pick (e, s); 'first-seen' would pick (e, s).")
    expect(merge.locator(".rows-table caption")).to_have_text("Rows (pre-tokens) whose tokens changed: 3")
    expect(merge.locator(".rows-table tbody tr")).to_have_count(3)
    expect(merge.locator(".rows-table tbody tr").first).to_contain_text("5")
    # (e, s) vanished and (e, st) appeared, both at 9 (the " and " between chips is for screen readers).
    expect(merge.locator(".pair-list").nth(0).locator("li")).to_have_text(["e+ and s 9"])
    expect(merge.locator(".pair-list").nth(1).locator("li")).to_have_text(["e+ and st 9"])
    # The pair table now: (e, st) alone at 9 is merged next.
    first_row = page.locator(".explorer-next .pair-table tbody tr").first
    expect(first_row).to_have_class(re.compile(r"\bchosen\b"))
    expect(first_row.locator("td").nth(3)).to_have_text("merged next")
    expect(first_row.locator("td").nth(2)).to_have_text("9")
    page.get_by_role("button", name="Step back (left arrow)").click()
    at_step(explorer, 0)
    expect(summary(explorer)).to_have_text("Step 0 of 8: the text as bytes, 95 tokens.")


def test_jump_with_the_slider_and_the_keyboard(explorer):
    page = explorer.page
    go(explorer, 5)
    expect(summary(explorer)).to_contain_text("Step 5 of 8: merged w + est into west (id 260), count 6")
    rows = page.locator(".explorer-next .pair-table tbody tr")
    expect(rows.nth(0)).to_have_class(re.compile(r"\bchosen\b.*\btied\b|\btied\b.*\bchosen\b"))
    expect(rows.nth(0).locator("td").nth(3)).to_have_text("merged next, tie")  # (n, e) at 6, tied with (e, west)
    # The keys listed on the page: → ← Home End.
    page.get_by_role("button", name="Step forward (right arrow)").focus()
    page.keyboard.press("ArrowRight")
    at_step(explorer, 6)
    expect(summary(explorer)).to_contain_text("merged n + e into ne (id 261), count 6")
    page.keyboard.press("End")
    at_step(explorer, 8)
    expect(summary(explorer)).to_contain_text("merged ␣ + newest into ␣newest (id 263), count 5")
    expect(page.locator(".explorer-next")).to_contain_text("This is the last step")
    page.keyboard.press("ArrowLeft")
    at_step(explorer, 7)
    page.keyboard.press("Home")
    at_step(explorer, 0)
    # A click on the page focuses the shell's <main>: the keys still step.
    page.locator("#view").focus()
    page.keyboard.press("ArrowRight")
    at_step(explorer, 1)
    page.keyboard.press("ArrowLeft")
    at_step(explorer, 0)
    expect(page.locator(".shortcuts")).to_contain_text("Space plays or pauses")


def test_play_runs_to_the_last_step(explorer):
    page = explorer.page
    page.locator("#explorer-speed").select_option("16")
    page.get_by_role("button", name="▶ Play").click()
    expect(page.locator("bpe-explorer-view")).to_have_attribute("data-playing", "")
    at_step(explorer, 8)
    expect(page.locator("bpe-explorer-view")).not_to_have_attribute("data-playing", "")
    expect(page.get_by_role("button", name="▶ Play")).to_have_attribute("aria-pressed", "false")
    states = [e for e in page.evaluate("window.explorerEvents") if e["type"] == "state"]
    assert [e["step"] for e in states][-8:] == list(range(1, 9))
    # The embed protocol's fields (issue 15): merge 5 is (w, est) -> 260, count 6, 57 tokens after it.
    fifth = next(e for e in states if e["step"] == 5)
    assert fifth == {"type": "state", "view": "explorer", "step": 5, "steps": 8, "pair": [119, 257], "merged": 260,
                     "count": 6, "tokens": 57}


def test_the_window_fuses_tokens(explorer):
    page = explorer.page
    go(explorer, 0)
    window = page.locator(".text-window")
    expect(page.locator(".window-info")).to_have_text("Characters 1 to 95 of 95: 95 tokens at step 0.")
    go(explorer, 8)
    expect(page.locator(".window-info")).to_have_text("Characters 1 to 95 of 95: 40 tokens at step 8.")
    assert window.locator("span.s").count() == 40  # one token start per token: 95 - (9+9+7+7+6+6+6+5)


def test_encode_trace_of_lowest(explorer):
    page = explorer.page
    page.locator("#explorer-trace-text").fill("lowest")
    result = page.locator(".trace-result")
    expect(result.locator(".token-button")).to_have_count(2)
    expect(result.locator(".token-button").nth(0)).to_have_text("low 259, where it came from")
    expect(result.locator(".token-button").nth(1)).to_have_text("est 257, where it came from")
    steps = page.locator(".trace-steps li")
    expect(steps).to_have_count(5)
    expect(steps.nth(0)).to_contain_text("→ apply merge 1")
    expect(steps.nth(2)).to_contain_text("→ apply merge 3")  # (o, w), merge 3, before (w, est), merge 5
    expect(steps.nth(3)).to_contain_text("→ apply merge 4")
    expect(page.locator(".trace-cut")).to_contain_text("letters, with at most one space before them")


def test_predict_mode_marks_right_and_wrong(explorer):
    page = explorer.page
    go(explorer, 4)
    page.locator("#explorer-predict").check()
    table = page.locator(".explorer-next .pair-table")
    expect(table.locator("caption")).to_have_text("Which pair does merge 5 merge? Pick one.")
    expect(table.locator("tr.chosen")).to_have_count(0)  # the winner is hidden
    table.get_by_role("button", name="This one: w + est, count 6").click()
    answer = page.locator(".predict-answer")
    expect(answer).to_have_attribute("data-correct", "true")
    expect(answer).to_contain_text("Right. 3 pairs tie at 6")
    at_step(explorer, 4)  # the verdict is read at the step it judged; the reader goes on
    answer.get_by_role("button", name="Next step (5)").click()
    at_step(explorer, 5)
    table.get_by_role("button", name="This one: e + west, count 6").click()
    expect(answer).to_have_attribute("data-correct", "false")
    expect(answer).to_contain_text("Close: (e, west) also occurs 6 times, a tie, and the tie-break 'greater'")
    page.keyboard.press("ArrowRight")  # → goes on too (focus is on the Next step button, not in a field)
    at_step(explorer, 6)
    answers = [e for e in page.evaluate("window.explorerEvents") if e["type"] == "answer"]
    assert answers[-2:] == [{"type": "answer", "step": 5, "correct": True}, {"type": "answer", "step": 6, "correct": False}]
    page.get_by_role("button", name="Step forward (right arrow)").click()  # no guess: the old verdict goes
    at_step(explorer, 7)
    expect(answer).to_be_hidden()
    page.locator("#explorer-predict").uncheck()


def test_provenance_of_space_newest(explorer):
    page = explorer.page
    page.locator("#explorer-trace-text").fill(" newest")
    button = page.locator(".trace-result").get_by_role("button", name=re.compile(r"^␣newest 263 ?, where it came from$"))
    button.click()
    dialog = page.locator("dialog.provenance-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".provenance-made")).to_contain_text("Made by merge 8: (␣, newest), which occurred 5 times then.")
    expect(dialog.locator(".runners-up caption")).to_have_text("Runners-up at step 8 (a tie)")
    expect(dialog.locator(".runners-up tbody tr").first).to_have_class(re.compile(r"\btied\b"))
    tree = dialog.locator(".tree")
    expect(tree).to_contain_text("id 262 · merge 7 · count 6")
    expect(tree).to_contain_text("id 260 · merge 5 · count 6")
    expect(tree).to_contain_text("id 256 · merge 1 · count 9")
    expect(tree).to_contain_text("byte 115")
    # A tree node opens its own provenance; Escape closes the dialog and focus comes back.
    dialog.get_by_role("button", name=re.compile(r"^newest ?, open where it came from$")).click()
    expect(dialog.locator(".provenance-made")).to_contain_text("Made by merge 7: (ne, west), which occurred 6 times then.")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


def test_clicking_a_token_in_the_text(explorer):
    page = explorer.page
    go(explorer, 8)
    # Line 3 starts at character 53 with "newest newest": characters 59 to 65 are the second word, ␣newest.
    page.locator(".text-window span[data-i='62']").click()
    dialog = page.locator("dialog.provenance-dialog")
    expect(dialog).to_have_attribute("data-id", "263")
    page.keyboard.press("Escape")


def test_trace_under_cl100k_names_the_pattern_alternative(explorer):
    """A reference tokenizer (no counts): why 12345678 becomes 123 456 78 under cl100k_base."""
    page = explorer.page
    view = page.locator("bpe-explorer-view")
    trained = page.locator("#explorer-tokenizer option", has_text="(trained").first.get_attribute("value")
    page.locator("#explorer-tokenizer").select_option("ref:cl100k")
    expect(page.locator(".explorer-summary")).to_contain_text("Step 0 of 100,000", timeout=TRAIN_TIMEOUT_MS)
    expect(view).to_have_attribute("data-state", "ready")
    page.locator("#explorer-trace-text").fill("12345678")
    pieces = page.locator(".trace-piece")
    expect(pieces).to_have_count(3)
    for i, digits in enumerate(["123", "456", "78"]):
        expect(pieces.nth(i).locator(".trace-piece-head")).to_have_text(digits)
        expect(pieces.nth(i).locator(".trace-cut")).to_have_text(
            "cut by alternative 3: \\p{N}{1,3}+ — 1 to 3 digits: longer numbers are cut every three digits")
    expect(page.locator(".explorer-next")).to_contain_text("not trained here")
    page.locator("#explorer-tokenizer").select_option(trained)
    expect(page.locator(".explorer-summary")).to_contain_text("Step 0 of 8")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_audit(explorer, theme):
    """No serious or critical axe-core violations on the explorer, light and dark."""
    if not AXE.exists():
        pytest.fail(f"axe-core is missing at {AXE}: run npm install (package.json lists axe-core)")
    page = explorer.page
    go(explorer, 5)
    page.emulate_media(color_scheme=theme, reduced_motion="reduce")
    page.evaluate("(t) => { document.documentElement.dataset.theme = t; }", theme)
    page.locator("#explorer-trace-text").fill("lowest")
    expect(page.locator(".trace-result .token-button")).to_have_count(2)
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")
    result = page.evaluate("""async () => {
        const r = await axe.run(document.querySelector('bpe-explorer-view'), {resultTypes: ['violations']});
        return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => ({id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}));
    }""")
    page.emulate_media(color_scheme="light", reduced_motion="no-preference")
    page.evaluate("() => { delete document.documentElement.dataset.theme; }")
    assert result == [], json.dumps(result, indent=1)
