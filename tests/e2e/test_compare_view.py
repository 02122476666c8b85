"""The compare view in Chromium (issue 14): panes, seed 003's line, hover links, policies, k merges, languages.

Numbers are checked against bpelab itself in this process (OpenAI's
vocabularies through our encoder, which test_openai_vocab.py ties to
tiktoken), never typed in by hand, except seed 003's 15, 9 and 5.
"""

import json
import re

import pytest
from playwright.sync_api import expect

from seed003_vietnamese import SEED003_BLOCK, XIN_CHAO
from site_harness import ROOT

SEED003_CORPUS = ("low low low low low\n"
                  "lower lower widest widest widest\n"
                  "newest newest newest newest newest newest\n")


def settled(site):
    """Wait until the view has drawn the latest text (no refresh pending)."""
    expect(site.page.locator("bpe-compare-view")).to_have_attribute("data-state", "done", timeout=60_000)


def pane(site, spec):
    return site.page.locator(f".compare-pane[data-spec='{spec}']")


def open_compare(site, query):
    site.set_hash(f"#/compare?{query}")
    expect(site.page.locator("bpe-compare-view")).to_be_visible(timeout=30_000)
    settled(site)


def train_here(site, size, text, extra=""):
    """Train in the Train view with vocabulary `size` (gpt2 pre-tokenizer, greater tie-break) on `text`."""
    site.set_hash(f"#/train?size={size}&pre=gpt2&tie=greater&mode=vocab{extra}")
    expect(site.page.locator("#size")).to_have_value(str(size))  # the hash reached the form
    site.set_text(text)
    site.train_and_wait()


@pytest.fixture(scope="module")
def compare(site):
    open_compare(site, "panes=gpt2,cl100k,o200k&policy=raise&ws=1&text=hello")
    return site


def type_text(site, text):
    box = site.page.locator("#compare-text")
    box.fill("")
    box.press_sequentially(text)
    settled(site)


def test_typing_xin_chao_gives_15_9_5(compare):
    """Seed 003: GPT-2 15 tokens, cl100k_base 9, o200k_base 5."""
    open_compare(compare, "panes=gpt2,cl100k,o200k&policy=raise&ws=1&text=hello")
    type_text(compare, XIN_CHAO)
    for spec, n in (("gpt2", 15), ("cl100k", 9), ("o200k", 5)):
        expect(pane(compare, spec)).to_have_attribute("data-tokens", str(n))
        expect(pane(compare, spec).locator("[data-count='tokens'] dd")).to_have_text(str(n))
    # Counts of the text itself, the same in every pane.
    expect(pane(compare, "gpt2").locator("[data-count='bytes'] dd")).to_have_text("22")
    expect(pane(compare, "gpt2").locator("[data-count='characters'] dd")).to_have_text("17")


def test_gpt2_shows_the_bytes_of_e_circumflex_and_copy_gives_seed_lines(compare):
    """ế is three byte tokens in GPT-2: one group spelling ế with chips E1 BA BF; the copied block is seed 003's."""
    type_text(compare, XIN_CHAO)
    group = pane(compare, "gpt2").locator("token-display .grp").first
    expect(group.locator(".grp-text")).to_have_text("ế")
    assert group.locator(".grp-text").inner_text() == "\u1ebf"  # one precomposed character, not ê + U+0301
    # Review finding: it read "ê": DejaVu Sans Mono has no U+1EBF and Chromium stacked ê + an acute badly.
    # The whole characters are drawn in the page's font, which has it.
    font = group.locator(".grp-text").evaluate("(node) => getComputedStyle(node).fontFamily")
    assert "Mono" not in font and "monospace" not in font, font
    expect(group.locator(".chip")).to_have_text(["E1", "BA", "BF"])
    # cl100k has ế as one token: no byte chips at all there.
    expect(pane(compare, "cl100k").locator("token-display .chip")).to_have_count(0)
    compare.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    compare.page.locator("#compare-copy").click()
    expect(compare.page.locator("#compare-copy-text")).to_have_value(SEED003_BLOCK)
    assert compare.page.evaluate("() => navigator.clipboard.readText()") == SEED003_BLOCK


def test_differing_spans_are_marked(compare):
    """GPT-2's byte tokens of ế and ớ differ from cl100k's boundaries; 'X', 'in' do not."""
    type_text(compare, XIN_CHAO)
    gpt2 = pane(compare, "gpt2")
    marked = gpt2.locator("token-display .tk.differs")
    expect(marked).to_have_count(9)
    expect(gpt2.locator(".tk[data-index='0']")).not_to_have_class(re.compile(r"\bdiffers\b"))
    expect(pane(compare, "cl100k").locator("token-display .tk.differs")).to_have_count(3)


def test_hover_links_spans_and_ids_both_ways(compare):
    type_text(compare, XIN_CHAO)
    gpt2 = pane(compare, "gpt2")
    highlighted = re.compile(r"\bhl\b")
    gpt2.locator("token-display .tk[data-index='2']").hover()
    expect(gpt2.locator("token-ids .tid[data-index='2']")).to_have_class(highlighted)
    gpt2.locator("token-ids .tid[data-index='4']").hover()
    expect(gpt2.locator("token-display .tk[data-index='4']")).to_have_class(highlighted)
    expect(gpt2.locator("token-ids .tid.hl")).to_have_count(1)
    expect(gpt2.locator("token-display .tk.hl")).to_have_count(1)


def test_focused_token_detail(compare):
    """Clicking a token shows its id, bytes in hex, rank and merge parents."""
    type_text(compare, XIN_CHAO)
    gpt2 = pane(compare, "gpt2")
    gpt2.locator("token-display .tk[data-index='2']").click()  # ␣ch
    detail = gpt2.locator(".pane-detail")
    expect(detail).to_contain_text("20 63 68")
    expect(detail).to_contain_text("made by merging")
    gpt2.locator("token-display .tk[data-index='0']").click()  # X: one byte, no parents
    expect(detail).to_contain_text("a single byte (no merge)")
    expect(detail).not_to_contain_text("null")


def test_whitespace_toggle(compare):
    type_text(compare, XIN_CHAO)
    span = pane(compare, "gpt2").locator("token-display .tk[data-index='2']")
    expect(span).to_have_text("␣ch")
    compare.page.locator("#compare-ws").uncheck()
    expect(span).to_have_text(" ch")
    expect(pane(compare, "gpt2").locator("token-display .ws")).to_have_count(0)
    compare.page.locator("#compare-ws").check()
    expect(span).to_have_text("␣ch")


def test_three_policies_give_three_counts(compare, reference_ranks):
    from bpelab.openai_vocab import load_reference

    text = "Hello<|endoftext|>world"
    gpt2 = load_reference("gpt2")
    allow, plain = len(gpt2.encode(text, allowed_special="all")), len(gpt2.encode_ordinary(text))
    assert allow != plain
    type_text(compare, text)
    page = compare.page
    page.locator("#compare-policy-raise").check()
    settled(compare)
    expect(pane(compare, "gpt2").locator(".pane-status")).to_contain_text("<|endoftext|>")
    expect(pane(compare, "gpt2")).to_have_attribute("data-tokens", "")
    counts = pane(compare, "gpt2").locator(".pane-policies")
    expect(counts.locator("[data-policy='raise'] strong")).to_have_text("error")
    expect(counts.locator("[data-policy='allow'] strong")).to_have_text(str(allow))
    expect(counts.locator("[data-policy='text'] strong")).to_have_text(str(plain))
    expect(page.locator("#compare-policy-allow-counts")).to_contain_text(f"gpt2 {allow}")
    page.locator("#compare-policy-allow").check()
    settled(compare)
    expect(pane(compare, "gpt2")).to_have_attribute("data-tokens", str(allow))
    page.locator("#compare-policy-text").check()
    settled(compare)
    expect(pane(compare, "gpt2")).to_have_attribute("data-tokens", str(plain))
    page.locator("#compare-policy-raise").check()
    settled(compare)


def test_state_event_and_params(compare, reference_ranks):
    """bpe-state carries each pane's spelling, count and ids; the params hold panes, policy, ws and a short text."""
    from bpelab.openai_vocab import load_reference

    page = compare.page
    page.evaluate("""() => { window.__states = [];
        document.querySelector('bpe-compare-view').addEventListener('bpe-state', (e) => window.__states.push(e.detail)); }""")
    type_text(compare, XIN_CHAO)
    state = page.evaluate("() => window.__states[window.__states.length - 1]")
    assert state["view"] == "compare"
    assert [(p["tokenizer"], p["tokens"]) for p in state["panes"]] == [("gpt2", 15), ("cl100k", 9), ("o200k", 5)]
    assert state["panes"][2]["ids"] == load_reference("o200k").encode(XIN_CHAO)
    params = page.evaluate("() => document.querySelector('bpe-compare-view').params")
    assert params["panes"] == "gpt2,cl100k,o200k" and params["text"] == XIN_CHAO and params["policy"] == "raise"


def test_add_choose_and_remove_a_pane(compare):
    type_text(compare, XIN_CHAO)
    page = compare.page
    page.locator("#compare-add-kind").select_option("bytes")
    page.locator("#compare-add").click()
    settled(compare)
    expect(pane(compare, "bytes")).to_have_attribute("data-tokens", "22")
    pane(compare, "bytes").locator("select").first.select_option("o200k")
    settled(compare)
    expect(page.locator(".compare-pane")).to_have_count(4)
    expect(page.locator(".compare-pane[data-spec='o200k']")).to_have_count(2)
    page.locator(".compare-pane").nth(3).get_by_role("button", name="Remove").click()
    settled(compare)
    expect(page.locator(".compare-pane")).to_have_count(3)


@pytest.mark.parametrize("width", [1280, 375])
def test_pane_headers_lay_out_alike(compare, width):
    """Review finding: at 1280 one pane had Remove beside its select and the others wrapped it below; later,
    narrow panes cut their select's choice ("GPT-2 (r50k"), so the select now has a line of its own."""
    page = compare.page
    open_compare(compare, "panes=gpt2,cl100k,o200k&policy=raise&ws=1&text=hello")
    page.set_viewport_size({"width": width, "height": 900})
    try:
        shapes = page.locator(".compare-pane").evaluate_all("""(panes) => panes.map((p) => {
            const box = p.getBoundingClientRect();
            const at = (sel) => { const r = p.querySelector(sel).getBoundingClientRect();
                                  return [Math.round(r.left - box.left), Math.round(r.top + r.height / 2 - box.top), Math.round(r.width)]; };
            return { title: at(".pane-title"), select: at(".pane-head select"), remove: at(".pane-remove") };
        })""")
        assert len(shapes) == 3
        for shape in shapes:
            assert shape == shapes[0], shapes  # the same places in every pane
            assert abs(shape["remove"][1] - shape["title"][1]) <= 1, shape  # Remove on the title's line (centres)
            assert shape["select"][1] > shape["remove"][1], shape  # the select below both, across the pane
            assert shape["select"][2] >= shape["title"][2] + shape["remove"][2], shape
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_language_table_shows_every_bundled_language(compare):
    index = json.loads((ROOT / "web" / "samples" / "aligned" / "index.json").read_text("utf-8"))
    names = [lang["name"] for lang in index["languages"]]
    table = compare.page.locator("#compare-lang-table")
    expect(table.locator("tbody th")).to_have_text(names, timeout=60_000)
    expect(table.locator("thead th.group")).to_have_text(["gpt2", "cl100k_base", "o200k_base"])
    expect(table.locator("tbody tr[data-code='en'] td.ratio")).to_have_text(["1.00×"] * 3)
    expect(compare.page.locator("#compare-languages .lang-chart svg")).to_have_count(3)
    expect(compare.page.locator("#compare-languages")).to_contain_text("CC-BY-SA-3.0")


def test_language_table_for_two_pasted_texts(compare, reference_ranks):
    from bpelab.openai_vocab import load_reference

    page = compare.page
    page.locator("#compare-lang-pasted").check()
    page.locator("#compare-lang-a").fill("Hello world")
    page.locator("#compare-lang-b").fill(XIN_CHAO)
    table = page.locator("#compare-lang-table")
    expect(table.locator("tbody th")).to_have_text(["Text A", "Text B"], timeout=30_000)
    gpt2 = load_reference("gpt2")
    ratio = len(gpt2.encode(XIN_CHAO)) / len(gpt2.encode("Hello world"))
    expect(table.locator("tbody tr[data-code='B'] td.ratio").first).to_have_text(f"{ratio:.2f}×")
    page.locator("#compare-lang-bundled").check()
    expect(table.locator("tbody tr")).to_have_count(len(json.loads(
        (ROOT / "web" / "samples" / "aligned" / "index.json").read_text("utf-8"))["languages"]), timeout=30_000)


def test_trained_pane_at_k_merges_and_a_second_configuration(compare):
    """Train seed 003's corpus; trained@2 and trained@8 differ; a second configuration shows the merge diff."""
    site = compare
    train_here(site, 265, SEED003_CORPUS)
    open_compare(site, "panes=trained@2,trained&policy=raise&ws=1&text=" + "newest%20lowest")
    k_pane = site.page.locator(".compare-pane").first
    expect(k_pane).to_have_attribute("data-spec", "trained@2")
    before = k_pane.get_attribute("data-tokens")
    assert before and int(before) > 0
    k_box = k_pane.locator("input[type='number']").first
    k_box.fill("8")
    k_box.press("Enter")
    settled(site)
    expect(k_pane).to_have_attribute("data-spec", "trained@8")
    after = k_pane.get_attribute("data-tokens")
    assert int(after) < int(before)
    expect(k_pane).to_have_attribute("data-tokens", pane(site, "trained").get_attribute("data-tokens"))
    # A second configuration on the same training text: another tie-break.
    open_compare(site, "panes=trained,alt_265_gpt2_smaller-id&policy=raise&ws=1&text=newest%20lowest")
    diff = site.page.locator("#compare-diff")
    expect(diff).to_be_visible(timeout=60_000)
    expect(diff).to_contain_text("first differ at merge")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_audit(compare, theme):
    """No serious or critical axe-core violations on the compare view, light and dark."""
    page = compare.page
    open_compare(compare, "panes=gpt2,cl100k,o200k,bytes&policy=raise&ws=1&text=Xin%20ch%C3%A0o")
    page.evaluate("(t) => { document.documentElement.dataset.theme = t; }", theme)
    pane(compare, "gpt2").locator("token-display .tk[data-index='1']").click()  # a token detail on show
    expect(page.locator("#compare-lang-table tbody tr").first).to_be_visible(timeout=60_000)
    try:
        assert compare.axe("bpe-compare-view", scheme=theme) == []
    finally:
        page.evaluate("() => { delete document.documentElement.dataset.theme; }")


def test_hover_outlines_the_same_characters_in_the_other_panes(compare):
    """Hovering cl100k's ế outlines GPT-2's three byte tokens of ế and o200k's ␣thế."""
    type_text(compare, XIN_CHAO)
    pane(compare, "cl100k").locator("token-display .tk[data-index='6']").hover()
    expect(pane(compare, "gpt2").locator("token-display .tk.linked")).to_have_count(3)
    expect(pane(compare, "gpt2").locator("token-display .tk.linked .chip")).to_have_text(["E1", "BA", "BF"])
    expect(pane(compare, "o200k").locator("token-display .tk.linked")).to_have_text(["␣thế"])
    compare.page.mouse.move(0, 0)
    expect(compare.page.locator(".compare-pane .tk.linked")).to_have_count(0)


def test_trained_pane_follows_a_new_training_run(compare):
    """Training again in the Train view updates the trained pane (same spelling, new tokenizer)."""
    site = compare
    train_here(site, 258, "abababab cdcdcdcd", "&special=%5B%5D")
    open_compare(site, "panes=trained,bytes&policy=raise&ws=1&text=abab%20cdcd")
    expect(pane(site, "trained")).to_have_attribute("data-tokens", "5")  # merges cd, ab: ab ab ␣ cd cd
    train_here(site, 257, "abababab cdcdcdcd", "&special=%5B%5D")
    site.set_hash("#/compare?panes=trained,bytes&policy=raise&ws=1&text=abab%20cdcd")
    settled(site)
    expect(pane(site, "trained")).to_have_attribute("data-tokens", "7")  # merge cd only: a b a b ␣ cd cd


def test_trained_token_detail_opens_its_provenance(compare):
    """A merged token of a trained pane: rank and parents, and the explorer's provenance dialog."""
    site = compare
    train_here(site, 265, SEED003_CORPUS)
    open_compare(site, "panes=trained,gpt2&policy=raise&ws=1&text=%20newest")
    trained = pane(site, "trained")
    expect(trained).to_have_attribute("data-tokens", "1")
    trained.locator("token-display .tk[data-index='0']").click()
    detail = trained.locator(".pane-detail")
    expect(detail.locator("dd")).to_have_text(["263", "20 6E 65 77 65 73 74", "␣newest", "8"])  # seed 003: merge 8, id 263
    expect(detail).to_contain_text("made by merging")
    detail.get_by_role("button", name="Where it came from…").click()
    dialog = site.page.locator("dialog.provenance-dialog")
    expect(dialog).to_be_visible()
    site.page.keyboard.press("Escape")


RECORD_PANE_PROGRESS = """
window.__paneProgress = [];
new MutationObserver((records) => {
  for (const record of records) {
    const node = record.target;
    const bar = node.tagName === "PROGRESS" ? node : node.querySelector?.("progress");
    if (!bar || !bar.closest(".compare-pane")) continue;
    window.__paneProgress.push({ value: bar.value, max: bar.max, shown: !bar.closest(".pane-progress").hidden,
                                 text: bar.closest(".pane-progress").textContent });
  }
}).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["value", "hidden"] });
"""


def train_on_genesis(site):
    """A base long enough that a second configuration trains for a second or two (progress to see)."""
    train_here(site, 300, (ROOT / "web" / "samples" / "kjv-genesis.txt").read_text("utf-8"))


def test_a_second_configuration_shows_its_training_progress(compare):
    """Training a second configuration from a pane shows merges done of the total, then the pane's tokens."""
    site = compare
    train_on_genesis(site)
    site.page.evaluate(RECORD_PANE_PROGRESS)
    open_compare(site, "panes=trained,alt_4000_gpt2_greater&policy=raise&ws=1&text=In%20the%20beginning")
    alt = pane(site, "alt_4000_gpt2_greater")
    expect(alt).to_have_attribute("data-tokens", re.compile(r"^[1-9]"), timeout=120_000)
    expect(alt.locator(".pane-progress")).to_be_hidden()
    seen = site.page.evaluate("window.__paneProgress")
    shown = [r for r in seen if r["shown"]]
    # 4,000 - 256 - 1 (<|endoftext|>) = 3,743 merges, reported as they are learned (every 50 ms: since the
    # trainer got faster, 1,243 merges could end before a second report).
    assert shown and all(r["max"] == 3743 for r in shown), seen[:5]
    assert any(0 < r["value"] < r["max"] for r in shown), [r["value"] for r in shown]
    values = [r["value"] for r in shown]
    assert values == sorted(values), values
    assert re.fullmatch(rf"{values[-1]:,} / 3,743 merges · \d+\.\d s", shown[-1]["text"]), shown[-1]


def test_a_pane_changed_while_it_trains_shows_its_new_tokenizer(compare):
    """Switching a pane to plain bytes mid-training: the finished training is not drawn under the new name."""
    site = compare
    train_on_genesis(site)
    site.set_hash("#/compare?panes=trained,alt_12000_bytes_greater&policy=raise&ws=1&text=In%20the%20beginning")
    alt = pane(site, "alt_12000_bytes_greater")  # bytes: long enough to be caught mid-training
    expect(alt.locator(".pane-progress")).to_be_visible(timeout=60_000)  # not open_compare: it waits for the end
    alt.get_by_role("combobox", name=re.compile("Tokenizer of pane")).select_option("bytes")
    settled(site)
    changed = pane(site, "bytes")
    expect(changed).to_have_attribute("data-tokens", "16")  # 16 bytes, not the 3 tokens of the configuration
    expect(changed.locator("[data-count='tokens'] dd")).to_have_text("16")
    expect(changed.locator(".pane-progress")).to_be_hidden()
    expect(changed.locator(".pane-status")).not_to_contain_text("Training")
