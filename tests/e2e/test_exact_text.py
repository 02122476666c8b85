"""The text is kept exactly (issue 20): CR LF, a lone CR, a tab and NUL arrive unchanged from a command,
a link and a file; the ids are tiktoken's for that exact text in gpt2, cl100k and o200k, and the bytes
pane counts every byte. A note under the box says what it cannot show; a lone surrogate is refused."""

import json
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from share_harness import serve_course
from site_harness import BOOT_TIMEOUT_MS, TRAIN_TIMEOUT_MS

TEXTS = [
    "line one\r\nline two",
    "a lone\rcarriage return",
    "tab\tand NUL\x00 in the middle",
    "all four: x\r\ny\rz\tw\x00 Xin chào\r\n",
    "\r\r\n\n\r",
]
REFERENCES = [("gpt2", "gpt2"), ("cl100k", "cl100k_base"), ("o200k", "o200k_base")]
PANES = ",".join([r for r, _ in REFERENCES] + ["bytes"])

RECORD = """
window.__bpe = [];
addEventListener("message", (event) => {
  const d = event.data;
  if (d && typeof d === "object" && d.source === "bpe-lab") window.__bpe.push(JSON.parse(JSON.stringify(d)));
});
"""


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """(folder, url): a course page on another origin than the widget's."""
    yield from serve_course(tmp_path_factory, "exact")


@pytest.fixture(scope="module")
def widget(browser, site_url, host):
    """A compare widget with the three references and bytes, on a course page; (page, frame locator)."""
    folder, url = host
    src = f"{site_url.rstrip('/')}/embed.html?view=compare&panes={PANES}&id=w&parts=all"
    (folder / "page.html").write_text(
        f'<!doctype html><html lang=en><title>exact</title><body><iframe id="w" title="widget" src="{src}" '
        'style="width:100%;height:900px;border:0"></iframe></body></html>', "utf-8")
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.add_init_script(RECORD)
    page = context.new_page()
    page.goto(f"{url}/page.html")
    page.wait_for_function("window.__bpe.some((m) => m.type === 'ready')", timeout=BOOT_TIMEOUT_MS)
    yield page, page.frame_locator("#w"), site_url.rstrip("/")
    context.close()


def expected_note(text):
    """The note under the box: it counts the lone CRs (a CR in CR LF is a line end the box draws as it is)
    and the control characters it cannot show, and says that typing makes every line end LF."""
    crlf = text.count("\r\n")
    lone, controls = text.count("\r") - crlf, sum(c < " " and c not in "\t\n\r" for c in text)
    parts = []
    if lone:
        parts.append(f"shows {lone} lone carriage return (CR) as a line break" if lone == 1
                     else f"shows {lone} lone carriage returns (CR) as line breaks")
    if controls:
        parts.append(f"cannot show {controls} control character{'s' if controls > 1 else ''} (such as NUL)")
    sentences = []
    if parts:
        sentences.append(f"The box {' and '.join(parts)}; the text keeps {'it' if lone + controls == 1 else 'them'} exactly, "
                         "and every count and id is for the exact text.")
    if crlf:
        sentences.append(f"{'Its' if parts else 'The text' + chr(39) + 's'} {crlf} {'line end is CR LF, kept as it is' if crlf == 1 else 'line ends are CR LF, kept as they are'}.")
    if lone or crlf:
        sentences.append("Typing in the box makes every line end a line feed (LF).")
    return " ".join(sentences)


@pytest.mark.parametrize("text,note", [
    ("line one\r\nline two", "The text's 1 line end is CR LF, kept as it is. Typing in the box makes every line end a line feed (LF)."),
    ("a lone\rcarriage return", "The box shows 1 lone carriage return (CR) as a line break; the text keeps it exactly, and every count and id "
     "is for the exact text. Typing in the box makes every line end a line feed (LF)."),
    ("x\r\ny\r\nz\rw\x00", "The box shows 1 lone carriage return (CR) as a line break and cannot show 1 control character (such as NUL); "
     "the text keeps them exactly, and every count and id is for the exact text. Its 2 line ends are CR LF, kept as they are. "
     "Typing in the box makes every line end a line feed (LF)."),
    ("tab\tonly", ""),
])
def test_the_note_counts_only_the_carriage_returns_the_box_cannot_show(text, note):
    """The worked cases the note's wording is checked against (expected_note, used with the widget below)."""
    assert expected_note(text) == note


def expected_panes(text, tiktoken_encoding):
    ids = [tiktoken_encoding(name).encode(text) for _, name in REFERENCES]
    return ids, len(text.encode("utf-8"))


def panes_for(page, since, predicate="true"):
    page.wait_for_function(
        f"window.__bpe.slice({since}).some((m) => m.type === 'state' && m.panes && m.panes.length === 4 "
        f"&& m.panes.every((p) => p.ids) && ({predicate}))", timeout=TRAIN_TIMEOUT_MS)
    return page.evaluate(f"window.__bpe.slice({since}).filter((m) => m.type === 'state' && m.panes && m.panes.length === 4 "
                         f"&& m.panes.every((p) => p.ids) && ({predicate})).pop().panes")


@pytest.mark.parametrize("text", TEXTS, ids=[json.dumps(t) for t in TEXTS])
def test_a_text_command_keeps_every_character(widget, text, tiktoken_encoding):
    page, frame, origin = widget
    since = page.evaluate("window.__bpe.length")
    page.evaluate("([text, origin]) => document.getElementById('w').contentWindow.postMessage("
                  "{target: 'bpe-lab', type: 'command', action: 'text', text}, origin)", [text, origin])
    ids, n_bytes = expected_panes(text, tiktoken_encoding)
    panes = panes_for(page, since, f"m.panes[3].tokens === {n_bytes}")
    assert [p["ids"] for p in panes[:3]] == ids
    assert panes[3]["tokens"] == n_bytes and panes[3]["ids"] == list(text.encode("utf-8"))
    note = frame.locator("#compare-text-note")
    expect(note).to_be_visible()
    expect(note).to_have_text(expected_note(text))


def test_a_lone_surrogate_from_a_command_is_refused_with_a_message(widget):
    page, _, origin = widget
    since = page.evaluate("window.__bpe.length")
    # The surrogate is written in the page's own JavaScript: a Python string would not cross as one.
    page.evaluate("(origin) => document.getElementById('w').contentWindow.postMessage("
                  "{target: 'bpe-lab', type: 'command', action: 'text', text: 'ab\\uD800cd'}, origin)", origin)
    page.wait_for_function(f"window.__bpe.slice({since}).some((m) => m.type === 'error')", timeout=BOOT_TIMEOUT_MS)
    error = page.evaluate(f"window.__bpe.slice({since}).find((m) => m.type === 'error').message")
    assert "lone surrogate (U+D800) at index 2" in error


@pytest.mark.parametrize("text", TEXTS[:4], ids=[json.dumps(t) for t in TEXTS[:4]])
def test_a_link_keeps_every_character(browser, site_url, text, tiktoken_encoding):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.add_init_script("window.__states = []; document.addEventListener('bpe-state', (e) => window.__states.push(JSON.parse(JSON.stringify(e.detail))));")
        page.goto(f"{site_url}#/compare?panes={PANES}&text={quote(text, safe='')}")
        ids, n_bytes = expected_panes(text, tiktoken_encoding)
        page.wait_for_function(f"() => window.__states.some((s) => s.view === 'compare' && s.panes.length === 4 && s.panes.every((p) => p.ids) "
                               f"&& s.panes[3].tokens === {n_bytes})", timeout=TRAIN_TIMEOUT_MS)
        panes = page.evaluate("window.__states.filter((s) => s.view === 'compare' && s.panes.length === 4 && s.panes.every((p) => p.ids)).pop().panes")
        assert [p["ids"] for p in panes[:3]] == ids and panes[3]["tokens"] == n_bytes
        assert page.evaluate("window.bpelab.view.state.text") == text
    finally:
        context.close()


def test_a_file_opened_in_the_train_view_keeps_its_bytes(browser, site_url, tmp_path):
    text = "first line\r\nsecond\rthird\ttabbed\x00end\r\n"
    path = tmp_path / "crlf.txt"
    path.write_bytes(text.encode("utf-8"))
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{site_url}#/train")
        expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
        page.locator("#clear-text").click()
        page.locator("#file-input").set_input_files(str(path))
        page.wait_for_function("() => (window.bpelab.view.state.training.text || '').length > 0"
                               " || (window.bpelab.view.state.training.documents || []).length > 0", timeout=BOOT_TIMEOUT_MS)
        training = page.evaluate("window.bpelab.view.state.training")
        got = training.get("text", None) if training.get("text") else (training.get("documents") or [None])[0]
        assert got == text
        expect(page.locator("#file-list")).to_contain_text("crlf.txt")
        # The same text from a link goes into the box, which shows its CRs as line breaks and says so.
        page.goto(f"{site_url}#/train?text={quote(text, safe='')}")
        expect(page.locator("#text-note")).to_have_text(expected_note(text))
        expect(page.locator("#text-note")).to_contain_text("shows 1 lone carriage return (CR) as a line break")
        expect(page.locator("#text-note")).to_contain_text("Its 2 line ends are CR LF")
        assert page.evaluate("window.bpelab.view.state.training.text") == text
    finally:
        context.close()
