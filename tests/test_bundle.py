"""bpelab.bundle (any tokenizer in every format, the self-check, the zip) and bpelab.vocab_browse."""

import io
import json
import zipfile

import pytest

from bpelab import artifacts, bundle
from bpelab.openai_vocab import gpt2_files, load_reference
from bpelab.tokenizer import Tokenizer
from bpelab.train import train
from bpelab.vocab_browse import VocabError, browse, parse_hex


def test_real_gpt2_files_convert_to_every_format_with_the_same_ids(tiktoken_encoding):
    encoder_json, vocab_bpe = gpt2_files()
    tok = artifacts.load_files({"encoder.json": encoder_json.encode(), "vocab.bpe": vocab_bpe.encode()})
    files = bundle.tokenizer_files(tok, name="gpt2")
    assert files["encoder.json"] == encoder_json.encode()  # GPT-2's own bytes come back unchanged
    assert files["vocab.bpe"] == vocab_bpe.encode()
    check = bundle.check_files(files, tok)
    assert check["ok"], check["message"]
    text = "Hello, мир! 你好 🙂 naïve<|endoftext|>"
    expected = tiktoken_encoding("gpt2").encode(text, allowed_special="all")
    for name in ("tokenizer.json", "tokenizer.tiktoken"):
        loaded = artifacts.load_files({name: files[name], "manifest.json": files["manifest.json"]})
        assert loaded.encode(text, allowed_special="all") == expected, name
    manifest = json.loads(files["manifest.json"])
    assert manifest["id_layout"] == "gpt2" and manifest["special_tokens"] == [{"token": "<|endoftext|>", "id": 50256}]


def test_the_self_check_reports_a_format_that_encodes_differently():
    # ids out of merge order: the .tiktoken file (ids are ranks) cannot say the same thing.
    vocab = {i: bytes([i]) for i in range(256)}
    vocab[256], vocab[257] = b"bc", b"ab"
    tok = Tokenizer(vocab, [(97, 98), (98, 99)])
    check = bundle.check_files(bundle.tokenizer_files(tok), tok, sample="abc abc")
    assert not check["ok"] and check["failed"] == ["tokenizer.tiktoken"]
    assert "tokenizer.tiktoken (loads back but encodes the sample differently)" in check["message"]


def test_zip_is_deflated_reproducible_and_smaller():
    result = train(["low lower lowest " * 50], num_merges=10)
    files = artifacts.export_files(result)
    data = bundle.make_zip(files)
    assert data == bundle.make_zip(files)
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert {n: archive.read(n) for n in archive.namelist()} == files
    assert all(i.compress_type == zipfile.ZIP_DEFLATED and i.date_time == (1980, 1, 1, 0, 0, 0) for i in archive.infolist())
    assert len(data) < len(bundle.make_zip(files, compress=False))
    assert artifacts.load_files({"all.zip": data}).encode("lowest") == result.tokenizer.encode("lowest")


def test_browse_pages_and_searches_o200k(tiktoken_encoding):
    enc = tiktoken_encoding("o200k_base")
    tok = load_reference("o200k")
    everything = browse(tok, "all", "", 199_900, 1000)
    assert everything["size"] == 200_000 and len(everything["entries"]) == 100
    assert [e["id"] for e in everything["entries"] if e.get("special")] == sorted(enc._special_tokens.values())
    tokyo = enc.encode_single_token("東京".encode())
    found = browse(tok, "text", "東京")
    assert found["entries"][0]["id"] == tokyo  # the exact match first
    assert all("東京".encode().hex(" ").upper() in e["hex"] for e in found["entries"])
    by_hex = browse(tok, "hex", "⟨E6⟩⟨9D⟩⟨B1⟩ e4 ba ac", count=1000)
    assert tokyo in [e["id"] for e in by_hex["entries"]]
    one = browse(tok, "id", "24912")["entries"]
    assert len(one) == 1 and bytes.fromhex(one[0]["hex"].replace(" ", "")) == enc.decode_single_token_bytes(24912)


@pytest.mark.parametrize("kind, query, message", [
    ("id", "x1", "an id is a whole number"),
    ("id", "999999", "no token has id 999,999"),
    ("hex", "zz", "is not bytes in hex"),
    ("hex", "", "give some bytes in hex"),
    ("words", "a", "kind must be one of all, text, hex, id"),
])
def test_browse_errors_say_what_to_type(kind, query, message):
    with pytest.raises(VocabError, match=message):
        browse(Tokenizer.bytes_only(), kind, query)


def test_parse_hex_accepts_the_ways_bytes_are_written():
    assert parse_hex("0xE1 0xBA") == parse_hex("e1ba") == parse_hex("⟨E1⟩⟨BA⟩") == b"\xe1\xba"
