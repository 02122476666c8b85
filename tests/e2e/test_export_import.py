"""Export and import in a real Chromium.

The files the site downloads must be byte-identical to what `bpelab train`
writes in CPython for the same text and settings; the zip must hold the same
bytes; the site must load its own files back, and reject malformed ones with
a message that names the file and, where there is one, the line.
"""

import io
import json
import subprocess
import sys
import zipfile

import pytest
from playwright.sync_api import expect

from site_harness import ROOT, TRAIN_TIMEOUT_MS

FILES = ("encoder.json", "vocab.bpe", "tokenizer.json", "tokenizer.tiktoken", "manifest.json")
# Several scripts, a special token, odd whitespace and an emoji: everything a byte-level file must carry.
TEXT = (
    "The quick brown fox jumps over the lazy dog.<|endoftext|>Über naïve café: 12345 and 678.\n"
    "Съешь же ещё этих мягких французских булок, да выпей чаю.\n\n"
    "敏捷的棕色狐狸跳过了懒狗。 🙂🙂  tabs\tand   spaces\n"
) * 6


def download(page, button):
    with page.expect_download() as info:
        button.click()
    return info.value.path().read_bytes()


def cli_files(tmp_path, text, *args):
    """Run `python -m bpelab train` on `text` and return the files it writes."""
    source = tmp_path / "text.txt"
    source.write_bytes(text.encode("utf-8"))
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "bpelab", "train", str(source), "--out", str(out), "--quiet", *args],
                   check=True, cwd=ROOT, capture_output=True)
    return {name: (out / name).read_bytes() for name in FILES}


@pytest.fixture(scope="module")
def trained(site):
    """The site trained on TEXT with 60 merges, gpt2 pre-tokenizer, greater tie-break."""
    page = site.page
    site.set_hash("#mode=merges&size=60")
    expect(page.locator("#size")).to_have_value("60")
    site.set_text(TEXT)
    site.train_and_wait()
    return site


@pytest.fixture(scope="module")
def downloaded(trained):
    """Each file downloaded once with its own button (seed id layout).

    Chromium lets one page start only about ten downloads before it asks
    the user to allow more, so the tests share these.
    """
    page = trained.page
    return {name: download(page, page.locator(f"#export-files button[data-file='{name}']")) for name in FILES}


@pytest.fixture(scope="module")
def downloaded_zip(trained):
    """The "Download all as .zip" archive of the trained tokenizer (seed id layout)."""
    page = trained.page
    return download(page, page.locator("#export-zip"))


def zip_contents(data):
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.testzip() is None  # every CRC-32 is right
    for info in archive.infolist():
        assert info.compress_type == zipfile.ZIP_DEFLATED  # Python's zipfile in the worker compresses
    return {name: archive.read(name) for name in archive.namelist()}


def test_every_file_downloads_and_matches_the_cli_byte_for_byte(downloaded, tmp_path):
    expected = cli_files(tmp_path, TEXT, "--merges", "60")
    for name in FILES:
        assert downloaded[name] == expected[name], f"{name} differs from the CLI's"
    manifest = json.loads(downloaded["manifest.json"])
    assert manifest["id_layout"] == "seed" and manifest["merges"] == 60 and manifest["truncation"] is None
    assert manifest["char_limit"] == 1_000_000


def test_export_files_api_gives_the_same_bytes(downloaded):
    from bpelab.artifacts import export_files
    from bpelab.train import train

    result = train([TEXT], num_merges=60, pretokenizer="gpt2", tie_break="greater", special_tokens=["<|endoftext|>"])
    expected = export_files(result)
    assert {name: downloaded[name] for name in FILES} == {name: expected[name] for name in FILES}


def test_zip_holds_the_same_files_with_valid_crcs(downloaded_zip, downloaded):
    assert zip_contents(downloaded_zip) == downloaded


def test_gpt2_id_layout_reexports_and_matches_the_cli(trained, tmp_path):
    page = trained.page
    page.locator("input[name=id_layout][value=gpt2]").check()
    expect(page.locator("#export-layout")).to_contain_text("gpt2 id layout", timeout=TRAIN_TIMEOUT_MS)
    expect(page.locator("#self-check")).to_contain_text("Self-check passed")
    expect(page.locator("#self-check")).to_contain_text("GPT-2's id layout")
    files = zip_contents(download(page, page.locator("#export-zip")))
    assert files == cli_files(tmp_path, TEXT, "--merges", "60", "--id-layout", "gpt2")
    assert json.loads(files["manifest.json"])["id_layout"] == "gpt2"
    page.locator("input[name=id_layout][value=seed]").check()
    expect(page.locator("#export-layout")).to_contain_text("seed id layout", timeout=TRAIN_TIMEOUT_MS)


def test_self_check_message_names_the_formats(trained):
    message = trained.page.locator("#self-check")
    expect(message).to_have_class("alert ok")
    expect(message).to_contain_text("encoder.json + vocab.bpe, tokenizer.json, tokenizer.tiktoken")


def import_files(site, files):
    page = site.page
    payload = [{"name": name, "mimeType": "application/octet-stream", "buffer": data} for name, data in files.items()]
    page.locator("#import-input").set_input_files(files=payload)
    message = page.locator("#import-message")
    question = page.locator("[data-role=pretokenizer-question]")
    shown = page.locator("#import-message:not([hidden]), [data-role=pretokenizer-question]:not([hidden])")
    expect(shown).to_have_count(1, timeout=TRAIN_TIMEOUT_MS)
    if question.is_visible():  # a .tiktoken file without its manifest: say it was split as GPT-2 splits
        site.wait_ready()
        page.locator("[data-action=import-with-pretokenizer]").click()
        expect(message).to_be_visible(timeout=TRAIN_TIMEOUT_MS)
    site.wait_ready()
    return message


@pytest.mark.parametrize("names", [
    ("encoder.json", "vocab.bpe", "manifest.json"),
    ("encoder.json", "vocab.bpe"),
    ("tokenizer.json",),
    ("tokenizer.tiktoken", "manifest.json"),
])
def test_import_of_the_downloaded_files(trained, downloaded, names):
    message = import_files(trained, {name: downloaded[name] for name in names})
    expect(message).to_have_class("alert ok")
    expect(message).to_contain_text('60 merges, 1 special token ("<|endoftext|>")')
    expect(trained.page.locator("#results-summary")).to_contain_text("Imported")
    expect(trained.page.locator("#merge-body tr")).to_have_count(60)
    # An imported tokenizer can be written in every format, on request.
    expect(trained.page.locator("#export-make")).to_be_visible()
    expect(trained.page.locator("#export-files li")).to_have_count(0)


@pytest.mark.parametrize("files, expected", [
    ({"encoder.json": b"{not json"}, "encoder.json"),
    ({"encoder.json": b'{"a": 0}'}, "needs its partner file vocab.bpe"),
    ({"encoder.json": b'{"a": 0, "b": 1}', "vocab.bpe": b"#version: 0.2\na b c\n"}, "line 2"),
    ({"encoder.json": b'{"a": 0, "b": 0}', "vocab.bpe": b"#version: 0.2\n"}, "encoder.json"),
    ({"notes.txt": b"hello"}, "no tokenizer found"),
    ({"data.json": b'{"rows": [1, 2]}'}, "data.json: expected a BPE model"),
    ({"all.zip": b"PK but no archive"}, "all.zip: not a readable .zip archive"),
    ({"ranks.tiktoken": b"YWI= 0\nnot base64 at all\n"}, "line 2"),
])
def test_malformed_imports_get_specific_errors(trained, files, expected):
    message = import_files(trained, files)
    expect(message).to_have_class("alert error")
    expect(message).to_contain_text("Could not import:")
    expect(message).to_contain_text(expected)


def test_a_tiktoken_file_without_its_pattern_asks_for_it(trained, downloaded):
    """A .tiktoken file holds ranks only: without its manifest the page asks for the pre-tokenizer, then imports."""
    page = trained.page
    page.locator("#import-input").set_input_files(files=[
        {"name": "mine.tiktoken", "mimeType": "application/octet-stream", "buffer": downloaded["tokenizer.tiktoken"]}])
    question = page.locator("[data-role=pretokenizer-question]")
    expect(question).to_be_visible(timeout=TRAIN_TIMEOUT_MS)
    expect(question).to_contain_text("mine.tiktoken")
    trained.wait_ready()
    page.locator("[data-role=pretokenizer-question] select").select_option("whitespace")
    page.locator("[data-action=import-with-pretokenizer]").click()
    message = page.locator("#import-message")
    expect(message).to_have_class("alert ok", timeout=TRAIN_TIMEOUT_MS)
    expect(message).to_contain_text("60 merges")
    expect(message).to_contain_text("pre-tokenizer whitespace")
    expect(question).to_be_hidden()
    trained.wait_ready()


def test_the_downloaded_zip_imports_as_its_files(trained, downloaded_zip):
    page = trained.page
    page.locator("#import-open").focus()
    message = import_files(trained, {"bpelab-tokenizer.zip": downloaded_zip})
    expect(page.locator("#import-open")).to_be_focused()  # back where it was before the import ran
    expect(message).to_have_class("alert ok")
    expect(message).to_contain_text('Imported bpelab-tokenizer.zip: 317 entries, 60 merges, 1 special token ("<|endoftext|>")')
    expect(page.locator("#merge-body tr")).to_have_count(60)


def test_import_of_gpt2s_real_files(trained):
    """GPT-2's own encoder.json + vocab.bpe (rebuilt byte for byte from the r50k ranks): 50,000 merges."""
    from bpelab.openai_vocab import gpt2_files

    encoder_json, vocab_bpe = gpt2_files()
    page = trained.page
    message = import_files(trained, {"encoder.json": encoder_json.encode(), "vocab.bpe": vocab_bpe.encode()})
    expect(message).to_have_class("alert ok")
    expect(message).to_contain_text("50,257 entries, 50,000 merges")
    first = page.locator("#merge-body tr").first.locator("td")
    # GPT-2's first merge is 'Ġ t': a space and t, id 256 in its own layout.
    assert first.all_inner_texts()[1:4] == ["256", "␣+t", "␣t"]
    expect(page.locator("#merge-range")).to_contain_text("Merges 1–100 of 50,000 · page 1 of 500")
    page.locator("#merge-jump").fill("50000")  # the last merge: merges are numbered 1 to 50,000
    page.locator("#merge-jump").press("Enter")
    expect(page.locator("#merge-range")).to_contain_text("page 500 of 500")


def test_no_request_left_the_origin(site):
    assert site.outside == []
