"""The gallery "From the textbooks" on the site: each item's published numbers, and word counts as input.

Each trained item is picked from the Train view's sample list and trained as a
visitor would; its merge table must list the source's merges (and counts where
the source gives them). The numbers come from tests/textbooks.py, which says
where each source prints them; tests/test_textbooks.py checks the same in Python.
"""

import json
import time

import pytest
from playwright.sync_api import expect

import textbooks
from site_harness import BOOT_TIMEOUT_MS, TRAIN_TIMEOUT_MS

from test_textbooks import train_sample  # the same sample, trained by the Python API: ids to tokens


def merge_table(page):
    """[(left, right, count)] of the merge table, tokens as shown (␣ for a space)."""
    return page.locator("#merge-body tr").evaluate_all(
        "rows => rows.map(row => { const cells = row.querySelectorAll('td'); const pair = cells[2].children;"
        " return [pair[0].textContent, pair[2].textContent, cells[4].textContent]; })")


def shown(name):
    """A source's token as the merge table shows it: GPT-2's Ġ is a space, drawn ␣."""
    return name.replace("Ġ", "␣")


def pick(site, sample_id):
    page = site.page
    site.set_hash("#/train")
    page.locator("#sample").select_option(sample_id)
    expect(page.locator("#sample-info")).to_contain_text("Source:")
    return page


def ids_in_encode_view(site, text, tokenizer):
    """The ids the Encode view shows for `text` with the trained tokenizer, once they spell that text."""
    page = site.page
    site.set_hash("#/encode?tok=trained")
    view = page.locator("bpe-encode-view")
    expect(view).to_be_visible()
    view.locator("textarea").fill(text)
    deadline = time.monotonic() + TRAIN_TIMEOUT_MS / 1000
    while True:  # the view redraws a moment after typing: wait until its ids are this text's
        ids = [int(t) for t in view.locator("token-ids .tid").all_inner_texts()]
        if b"".join(tokenizer.token_bytes(i) for i in ids) == text.encode("utf-8"):
            return ids
        assert time.monotonic() < deadline, f"the Encode view never showed the ids of {text!r} (last: {ids})"
        page.wait_for_timeout(50)


@pytest.mark.parametrize("item", textbooks.TRAINED, ids=lambda item: item["id"])
def test_each_gallery_item_reproduces_its_merges_on_the_site(site, item):
    page = pick(site, item["id"])
    entry = textbooks.index()[item["id"]]
    counts_box = page.locator("#counts")
    if entry["input"] == "counts":
        expect(page.locator("input[name=input_kind][value=counts]")).to_be_checked()
        expect(counts_box).to_be_visible()
        expect(page.locator("#counts-status")).to_contain_text(f"{entry['pieces']} pieces")
    else:
        expect(page.locator("input[name=input_kind][value=text]")).to_be_checked()
        expect(counts_box).to_be_hidden()
    site.train_and_wait()
    summary = page.locator("#results-summary")
    if entry["input"] == "counts":  # the summary and the report speak of the table
        expect(summary).to_contain_text(f"from {entry['pieces']} counted pieces, {entry['occurrences']} in all")
        page.locator("#tab-compression").click()
        expect(page.locator("#report-body")).to_contain_text("Characters per token")
        page.locator("#tab-merges").click()
    rows = merge_table(page)
    python = train_sample(item["id"])
    if "merges" in item:
        assert [f"{a} {b}" for a, b, _ in rows] == [" ".join(shown(t) for t in m.split(" ")) for m in item["merges"]]
    else:  # minbpe's example prints ids, not merges: the site's merges are the Python API's
        assert len(rows) == len(python.merges)
    if "merge_counts" in item:
        assert [int(c) for _, _, c in rows] == item["merge_counts"]
    if item is textbooks.CS336:
        assert int(rows[1][2]) == item["second_merge_count"]
    # Encoded on the site with the trained tokenizer: the source's ids or segmentations.
    token = lambda i: python.tokenizer.token_bytes(i).decode("utf-8")  # noqa: E731 (the ids mean the same tokens)
    if item is textbooks.MINBPE_WIKIPEDIA:
        assert ids_in_encode_view(site, item["text"], python.tokenizer) == item["ids"]
    elif item is textbooks.HF_CORPUS:
        text, expected = item["tokenize"]
        assert [token(i).replace(" ", "Ġ") for i in ids_in_encode_view(site, text, python.tokenizer)] == expected
    elif item is textbooks.D2L:
        for word, expected in item["segment"].items():
            assert " ".join(map(token, ids_in_encode_view(site, word, python.tokenizer))) == expected
    elif item is textbooks.HF_TOY:
        for word, expected in item["tokenize"].items():
            assert list(map(token, ids_in_encode_view(site, word, python.tokenizer))) == expected


def test_minbpe_cl100k_in_the_encode_view(site):
    item = textbooks.MINBPE_CL100K
    page = site.page
    site.set_hash(f"#/encode?tok=cl100k&sample={item['id']}")
    view = page.locator("bpe-encode-view")
    expect(view.locator("token-ids")).to_have_text(" ".join(map(str, item["ids"])) + " ", timeout=TRAIN_TIMEOUT_MS)


def test_a_bad_line_in_the_word_counts_box_is_named(site):
    page = site.page
    site.set_hash("#/train")
    page.locator("input[name=input_kind][value=counts]").check()
    box = page.locator("#counts")
    expect(box).to_be_visible()
    box.fill("low 5\nlower 2\nwidest three\nnewest 6\n")
    error = page.locator("#counts-error")
    expect(error).to_contain_text("Word counts line 3: the count 'three' is not a number")
    expect(box).to_have_attribute("aria-invalid", "true")
    page.locator("#train").click()
    expect(page.locator("#run-message")).to_contain_text("line 3")
    box.fill("low\t5\nlower\t2\nwidest\t3\nnewest\t6\n")
    expect(error).to_be_hidden()
    expect(page.locator("#counts-status")).to_contain_text("4 pieces, 16 pre-tokens in all")
    for problem, words in (("low 5\nlow 2\n", "line 2: the piece 'low' is already on line 1"),
                           ("low 5\n\t2\n", "line 2: the piece is empty"),
                           ("low -5\n", "line 1: the count '-5' is negative")):
        box.fill(problem)
        expect(error).to_contain_text(words)
    for scheme in ("light", "dark"):  # the counts box with its error, in both themes
        assert site.axe("#text-panel", scheme=scheme) == []
    page.locator("input[name=input_kind][value=text]").check()  # back to the text box for the next test
    expect(page.locator("#text")).to_be_visible()


def test_the_cs336_merges_from_a_counts_link_and_a_lesson_file(site, tmp_path):
    """#/train?counts=... reproduces the handout's merges; the link the view writes keeps the counts, in order."""
    page = site.page
    counts = json.dumps({"low": 5, "lower": 2, "widest": 3, "newest": 6}, separators=(",", ":"))
    from urllib.parse import quote

    site.set_hash(f"#/train?counts={quote(counts)}&mode=merges&size=12&pre=whitespace")
    expect(page.locator("#counts")).to_have_value("low 5\nlower 2\nwidest 3\nnewest 6\n", timeout=BOOT_TIMEOUT_MS)
    site.train_and_wait()
    assert [f"{a} {b}" for a, b, _ in merge_table(page)] == textbooks.CS336["merges"]
    assert "counts=" in page.evaluate("location.hash")
    # Order is the table's, even for pieces JavaScript would sort first ("2" before "b").
    numbers = json.dumps({"b": 1, "2": 2, "1": 3}, separators=(",", ":"))
    site.set_hash(f"#/train?counts={quote(numbers)}&mode=merges&size=1")
    expect(page.locator("#counts")).to_have_value("b 1\n2 2\n1 3\n", timeout=BOOT_TIMEOUT_MS)
    expect(page.locator("#counts-status")).to_contain_text("3 pieces")
    assert quote(numbers) in page.evaluate("location.hash") or numbers in page.evaluate("decodeURIComponent(location.hash)")


def test_each_gallery_item_has_a_one_click_embed_code(site):
    page = site.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    for item in textbooks.ALL:
        pick(site, item["id"])
        page.locator(f"[data-embed-sample='{item['id']}']").click()
        expect(page.locator("#sample-info")).to_contain_text("Copied")
        code = page.evaluate("() => navigator.clipboard.readText()")
        entry = textbooks.index()[item["id"]]
        assert code.startswith("<iframe src=") and "embed.html?" in code
        assert f"sample={item['id']}" in code and f"view={entry['view']}" in code
