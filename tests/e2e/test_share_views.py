"""Compare, Encode and Train travel too (issue 20, "Done means"): a state made THROUGH THE UI, copied with
"Copy link" and "Copy embed code" (read back from the clipboard), opened in a fresh browser context (the
app by the link, a course page of another origin holding the embed code) shows the same state.

What is compared: compare's panes (their spellings, `trained` and `trained@K` included) and every pane's
ids; encode's tokenizer and ids; the Train view's input and every setting (and, for the link, the merges
a training run on it makes). Each view's state value (`view.state`, share/states.js) must come back
equal, and the reference tokenizers' ids must be tiktoken's for the exact text. The texts are our own
(several scripts, a tab, a special token's spelling); the settings are not the defaults.
"""

import json

import pytest
from playwright.sync_api import expect

from share_harness import (copy_link_and_embed, last_message, last_state, long_text, new_context, open_app,
                           open_embed, page_at, serve_course, train_pasted, wait_for)
from site_harness import BOOT_TIMEOUT_MS, TRAIN_TIMEOUT_MS

TIKTOKEN = {"gpt2": "gpt2", "cl100k": "cl100k_base", "o200k": "o200k_base"}

RIVER = ("Our own paragraph, about a river town: the lower lanes flood, the lowest lanes flood first, "
         "and the newest houses stand on the widest stilts. Lower, lowest, newer, newest, wider, widest.")
VOLGA = ("Низкий берег, ниже берега, самый низкий берег. Новый дом, новее дома, новейший дом. "
         "Широкая река, шире реки, самая широкая река.")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """(folder, url): course pages written by the tests, on another origin than the widget's."""
    yield from serve_course(tmp_path_factory)


def view_state(page_or_frame, selector=None):
    """The view's state value: the app's mounted view, or the widget's (a frame) view element."""
    if selector is None:
        return page_or_frame.evaluate("JSON.parse(JSON.stringify(window.bpelab.view.state))")
    return page_or_frame.evaluate(f"JSON.parse(JSON.stringify(document.querySelector({json.dumps(selector)}).state))")


def embed_frame(page):
    """The widget's frame on a course page, once its view is mounted and ready."""
    page.wait_for_function("() => document.querySelector('iframe')", timeout=BOOT_TIMEOUT_MS)
    page.wait_for_function("() => document.querySelector('iframe').contentWindow !== null", timeout=BOOT_TIMEOUT_MS)
    frame = page.frame_locator("iframe").first
    expect(frame.locator("#embed")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
    return next(f for f in page.frames if "/embed.html" in f.url)


# ------------------------------------------------------------------ compare

# (id, training: (text, size, selects) or None, the compared text, the panes to make, policy)
COMPARE_CASES = [
    ("river, trained and trained@5", (RIVER, 300, {"#tie_break": "smaller-id"}),
     "The lowest lanes flood first; newer houses, wider stilts.", ["gpt2", "trained", "trained@5"], "raise"),
    ("russian, trained@12 first, whitespace pre-tokenizer", (VOLGA, 290, {"#pretokenizer": "whitespace", "#tie_break": "first-seen"}),
     "Самый низкий берег\tи новейший дом.", ["trained@12", "o200k", "bytes"], "raise"),
    ("japanese with a special token, no training, four panes, allow", None,
     "日本語のテキスト<|endoftext|>と\tタブ。", ["cl100k", "o200k", "gpt2", "bytes"], "allow"),
]


def make_panes(page, specs):
    """Set the compare panes to `specs` through their menus and k fields (adding panes as needed)."""
    panes = page.locator("bpe-compare-view .compare-pane")
    while panes.count() < len(specs):
        page.locator("#compare-add").click()
    while panes.count() > len(specs):
        panes.last.locator(".pane-remove").click()
    for i, spec in enumerate(specs):
        pane = panes.nth(i)
        if spec.startswith("trained@"):
            pane.locator("select[id$='-kind']").select_option("trainedAt")
            k = pane.locator("input[type=number][id$='-k']")
            expect(k).to_be_visible()
            k.fill(spec.split("@")[1])
        else:
            pane.locator("select[id$='-kind']").select_option(spec)
        expect(pane).to_have_attribute("data-spec", spec)


def compare_done(specs):
    """A JS condition on a compare state: these panes, each with its ids."""
    return f"JSON.stringify(s.panes.map((p) => p.tokenizer)) === {json.dumps(json.dumps(specs, separators=(',', ':')))} && s.panes.every((p) => p.ids)"


@pytest.mark.parametrize("training,text,specs,policy", [c[1:] for c in COMPARE_CASES], ids=[c[0] for c in COMPARE_CASES])
def test_compare_link_and_embed_reopen_its_panes_and_ids(browser, site_url, course, tiktoken_encoding, training, text, specs, policy):
    context = new_context(browser, site_url)
    try:
        if training:
            page = open_app(context, site_url + "#/train")
            train_pasted(page, *training)
            page.locator("#nav").get_by_role("link", name="Compare", exact=True).click()
        else:
            page = open_app(context, site_url + "#/compare")
        expect(page.locator("bpe-compare-view")).to_be_visible()
        page.locator("#compare-text").fill(text)
        make_panes(page, specs)
        if policy != "raise":
            page.locator(f"#compare-policy-{policy}").check()
        # The view is idle (data-state=done is set after the state of its last change is sent).
        expect(page.locator("bpe-compare-view")).to_have_attribute("data-state", "done", timeout=TRAIN_TIMEOUT_MS)
        condition = compare_done(specs)
        made = last_state(page, "compare", condition)
        state = view_state(page)
        assert state["text"] == text and state["panes"] == specs and state["policy"] == policy
        assert (state["training"] is not None) == bool(training)
        for spec, pane in zip(specs, made["panes"]):
            if spec in TIKTOKEN:
                expected = tiktoken_encoding(TIKTOKEN[spec]).encode(text, allowed_special="all" if policy == "allow" else set())
                assert pane["ids"] == expected, spec
            if spec == "bytes":
                assert pane["ids"] == list(text.encode("utf-8"))
        link, src, code = copy_link_and_embed(page, page.locator("#app-share"))
        assert "#/compare?" in link and "view=compare" in src
    finally:
        context.close()

    with page_at(browser, site_url, link) as page:
        again = last_state(page, "compare", condition)
        assert again == made
        assert view_state(page) == state

    context, page = open_embed(browser, site_url, course, code, f"compare-{abs(hash(text)) % 10_000}")
    try:
        heard = last_message(page, "compare", condition.replace("s.panes", "m.panes"))
        assert heard["panes"] == made["panes"]
        assert view_state(embed_frame(page), "bpe-compare-view") == state
    finally:
        context.close()


# ------------------------------------------------------------------ encode

# (id, training or None, tokenizer choice, text, policy, whitespace marks)
ENCODE_CASES = [
    ("o200k, vietnamese and an emoji, no whitespace marks", None, "o200k", "Hà Nội, naïve café 🙂\tand a tab", "raise", False),
    ("gpt2, a special token allowed", None, "gpt2", "one<|endoftext|>two, ثلاثة", "allow", True),
    ("the tokenizer trained on russian", (VOLGA, 300, {"#tie_break": "smaller-id"}), "trained", "Новейший берег шире реки.", "raise", True),
]


@pytest.mark.parametrize("training,tok,text,policy,ws", [c[1:] for c in ENCODE_CASES], ids=[c[0] for c in ENCODE_CASES])
def test_encode_link_and_embed_reopen_its_tokenizer_and_ids(browser, site_url, course, tiktoken_encoding, training, tok, text, policy, ws):
    context = new_context(browser, site_url)
    try:
        if training:
            page = open_app(context, site_url + "#/train")
            train_pasted(page, *training)
            page.locator("#nav").get_by_role("link", name="Encode", exact=True).click()
        else:
            page = open_app(context, site_url + "#/encode")
        view = page.locator("bpe-encode-view")
        view.locator("select").first.select_option(tok)
        view.locator("textarea").first.fill(text)
        if policy != "raise":
            view.locator(f"input[type=radio][value={policy}]").check()
        if not ws:
            view.get_by_label("Show spaces, newlines and tabs as ␣ ⏎ ⇥").uncheck()
        condition = f"{{s}}.tokenizer === {json.dumps(tok)} && {{s}}.ids && {{s}}.ids.length === {{s}}.tokens"
        # The output is no longer busy: its last state is for the text and the settings on show.
        expect(view.locator(".encode-output")).to_have_attribute("aria-busy", "false", timeout=TRAIN_TIMEOUT_MS)
        made = last_state(page, "encode", condition.format(s="s"))
        state = view_state(page)
        assert state["tok"] == tok and state["text"] == text and state["policy"] == policy and state["ws"] is ws
        if tok in TIKTOKEN:
            assert made["ids"] == tiktoken_encoding(TIKTOKEN[tok]).encode(text, allowed_special="all" if policy == "allow" else set())
        link, src, code = copy_link_and_embed(page, page.locator("#app-share"))
        assert "#/encode?" in link and "view=encode" in src
    finally:
        context.close()

    with page_at(browser, site_url, link) as page:
        again = last_state(page, "encode", condition.format(s="s"))
        assert again == made
        assert view_state(page) == state
        expect(page.locator("bpe-encode-view select").first).to_have_value(tok)

    context, page = open_embed(browser, site_url, course, code, f"encode-{tok}")
    try:
        heard = last_message(page, "encode", condition.format(s="m"))
        assert heard["ids"] == made["ids"] and heard["tokens"] == made["tokens"]
        assert view_state(embed_frame(page), "bpe-encode-view") == state
    finally:
        context.close()


# ------------------------------------------------------------------ train

FORM_FIELDS = ["#size", "#pretokenizer", "#tie_break", "#min_count", "#separator", "#special_tokens", "#text", "#counts", "#heldout"]


def form_values(page_or_frame, ended=True):
    """Every field of the Train view's form, and the checked radios, as the reader sees them. Python writes
    word counts read from a link back one "piece count" line each, the last one ended too: ended=False
    takes that last newline off."""
    values = page_or_frame.evaluate(
        """(ids) => ({
            fields: Object.fromEntries(ids.map((id) => [id, document.querySelector(id).value])),
            radios: [...document.querySelectorAll("bpe-train-view input[type=radio]:checked")].map((r) => `${r.name}=${r.value}`),
            sample: document.querySelector("#sample").value,
        })""", FORM_FIELDS)
    if not ended:
        values["fields"]["#counts"] = values["fields"]["#counts"].removesuffix("\n")
    return values


def make_train_state(page, case):
    """Set the Train view's input and settings through its controls, as a reader would."""
    if case.get("sample"):
        page.locator("#sample").select_option(case["sample"])
        expect(page.locator("#sample-info")).to_be_visible()
    else:
        page.locator("#clear-text").click()
    if case.get("counts"):
        page.get_by_role("radio", name="Word counts").check()
        page.locator("#counts").fill(case["counts"])
    elif case.get("text"):
        page.locator("#text").fill(case["text"])
    if case.get("merges"):
        page.get_by_label("Number of merges").check()
    for selector, value in case.get("selects", {}).items():
        page.locator(selector).select_option(value)
    for selector, value in case.get("fills", {}).items():
        page.locator(selector).fill(value)
    if case.get("layout"):
        page.locator(f"input[name=id_layout][value={case['layout']}]").check()
    if case.get("heldout"):
        page.locator("details.heldout summary").click()
        page.locator("#heldout").fill(case["heldout"])


TRAIN_CASES = [
    ("pasted text, merges, whitespace, first-seen, min count 2, held-out",
     {"text": RIVER, "merges": True, "fills": {"#size": "30", "#min_count": "2"},
      "selects": {"#pretokenizer": "whitespace", "#tie_break": "first-seen"}, "heldout": "The lower town floods first."}),
    ("word counts, smaller-id, two special tokens",
     {"counts": "low 5\nlower 2\nnewest 6\nwidest 3", "fills": {"#size": "270", "#special_tokens": "<|end|>\n<|pad|>"},
      "selects": {"#tie_break": "smaller-id"}}),
    ("russian text, cl100k pre-tokenizer, each line a document, GPT-2 id layout",
     {"text": VOLGA.replace(". ", ".\n"), "fills": {"#size": "300"}, "selects": {"#pretokenizer": "cl100k", "#separator": "line"},
      "layout": "gpt2"}),
    ("a bundled sample with its settings changed",
     {"sample": "seed004-walk", "fills": {"#size": "262"}, "selects": {"#tie_break": "greater"}}),
]


@pytest.mark.parametrize("case", [c[1] for c in TRAIN_CASES], ids=[c[0] for c in TRAIN_CASES])
def test_train_link_and_embed_reopen_its_input_and_settings(browser, site_url, course, case):
    context = new_context(browser, site_url)
    try:
        page = open_app(context, site_url + "#/train")
        make_train_state(page, case)
        # Copied at once, as a reader would: word counts typed a moment ago are in the link too.
        link, src, code = copy_link_and_embed(page, page.locator("#train-share"))
        assert "#/train" in link and "view=train" in src
        state = view_state(page)
        if case.get("counts"):
            pairs = [line.split() for line in case["counts"].split("\n")]
            assert list(json.loads(state["training"]["counts"]).items()) == [(piece, int(n)) for piece, n in pairs]
        form = form_values(page)
        runs = int(page.locator("#app").get_attribute("data-runs"))
        page.locator("#train").click()
        expect(page.locator("#app")).to_have_attribute("data-runs", str(runs + 1), timeout=TRAIN_TIMEOUT_MS)
        trained = last_state(page, "train")
        assert view_state(page) == state  # training changes nothing of the state
    finally:
        context.close()

    context = new_context(browser, site_url)
    try:
        page = open_app(context, link)
        expect(page.locator("#app")).to_have_attribute("data-applied", "1", timeout=BOOT_TIMEOUT_MS)
        assert view_state(page) == state
        assert form_values(page, ended=False) == form
        runs = int(page.locator("#app").get_attribute("data-runs"))
        page.locator("#train").click()
        expect(page.locator("#app")).to_have_attribute("data-runs", str(runs + 1), timeout=TRAIN_TIMEOUT_MS)
        assert last_state(page, "train") == trained
    finally:
        context.close()

    context, page = open_embed(browser, site_url, course, code, f"train-{abs(hash(json.dumps(case))) % 100_000}")
    try:
        frame = embed_frame(page)
        assert view_state(frame, "bpe-train-view") == state
        assert form_values(frame, ended=False) == form
    finally:
        context.close()


# ------------------------------------------------------------------ over the link limit

@pytest.mark.parametrize("route", ["compare", "encode"])
def test_a_long_text_in_compare_or_encode_travels_as_a_lesson_file(browser, site_url, route, tmp_path):
    """Compare's and encode's texts go in the link; a text no link holds goes in the lesson file, which
    the app opens in a fresh context with the same panes (or tokenizer) and the same ids."""
    text = long_text(16_000, seed=7)
    context = new_context(browser, site_url)
    try:
        page = open_app(context, f"{site_url}#/{route}")
        if route == "compare":
            page.locator("#compare-text").fill(text)
            make_panes(page, ["o200k", "gpt2"])
            expect(page.locator("bpe-compare-view")).to_have_attribute("data-state", "done", timeout=TRAIN_TIMEOUT_MS)
            condition = "JSON.stringify(s.panes.map((p) => p.tokenizer)) === '[\"o200k\",\"gpt2\"]' && s.panes[1].tokens > 3000"
        else:
            page.locator("bpe-encode-view select").first.select_option("gpt2")
            page.locator("bpe-encode-view textarea").first.fill(text)
            expect(page.locator("bpe-encode-view .encode-output")).to_have_attribute("aria-busy", "false", timeout=TRAIN_TIMEOUT_MS)
            condition = "s.tokenizer === 'gpt2' && s.tokens > 3000"
        made = last_state(page, route, condition)
        state = view_state(page)
        assert state["text"] == text
        share = page.locator("#app-share")
        share.get_by_role("button", name="Copy link").click()
        expect(share.get_by_role("status")).to_contain_text("a link holds at most 6,000")
        with page.expect_download() as info:
            share.get_by_role("button", name="Download the lesson file").click()
        lesson_path = tmp_path / info.value.suggested_filename
        info.value.save_as(lesson_path)
        assert json.loads(lesson_path.read_text("utf-8"))["view"] == route
    finally:
        context.close()

    context = new_context(browser, site_url)
    try:
        page = open_app(context, site_url)
        with page.expect_file_chooser() as chooser:
            page.locator("#open-lesson").click()
        chooser.value.set_files(str(lesson_path))
        assert last_state(page, route, condition) == made
        assert view_state(page) == state
    finally:
        context.close()
