"""Files: round trips, third-party readers (HF tokenizers, tiktoken), malformed imports."""

import io
import json
import os
import zipfile

import pytest
import tiktoken
import tokenizers
from hypothesis import given, settings, strategies as st
from tiktoken.load import data_gym_to_mergeable_bpe_ranks

from bpelab import train
from bpelab.artifacts import (
    MANIFEST_FORMAT,
    ArtifactError,
    export_files,
    from_gpt2_files,
    from_hf_tokenizer_json,
    from_tiktoken,
    load_files,
    relayout,
    self_check,
    to_gpt2_files,
)

MULTILINGUAL = (
    "English: the quick brown fox doesn't jump; it's 2024 and 1234567 numbers.\n"
    "Tiếng Việt: Xin chào thế giới, tôi đang học tokenizer.\n"
    "中文：你好世界，我们在学习分词。日本語：こんにちは世界、トークナイザーを学ぶ。\n"
    "한국어: 안녕하세요 세계. हिन्दी: नमस्ते दुनिया। العربية: مرحبا بالعالم.\n"
    "Русский: Привет, мир!  \t\r\n  code: def f(x):\n    return x ** 2  # 🙂👍🏽\n"
)


@pytest.fixture(scope="module", params=["seed", "gpt2"])
def exported(request, tmp_path_factory):
    result = train(MULTILINGUAL * 4, vocab_size=600)
    files = export_files(result, id_layout=request.param)
    folder = tmp_path_factory.mktemp(request.param)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    ours = relayout(result.tokenizer, request.param)
    return request.param, result, files, folder, ours


def test_gpt2_files_conventions(exported):
    layout, result, files, _, ours = exported
    text = files["vocab.bpe"].decode()
    assert text.startswith("#version: 0.2\n") and text.endswith("\n")
    assert len(text.split("\n")[1:-1]) == len(result.merges)  # GPT-2's reader: split('\n')[1:-1]
    encoder = json.loads(files["encoder.json"])
    assert list(encoder.values())[-1] == ours.special_tokens["<|endoftext|>"]
    assert encoder["Ġ"] == (32 if layout == "seed" else 220)
    manifest = json.loads(files["manifest.json"])
    assert manifest["id_layout"] == layout and manifest["merges"] == len(result.merges)
    assert manifest["tie_break"] == "greater" and manifest["pretokenizer"]["name"] == "gpt2"


def test_round_trips(exported):
    _, _, files, _, ours = exported
    for loaded in (
        from_gpt2_files(files["encoder.json"], files["vocab.bpe"], manifest=files["manifest.json"]),
        from_hf_tokenizer_json(files["tokenizer.json"]),
        from_tiktoken(files["tokenizer.tiktoken"], manifest=files["manifest.json"]),
        load_files(files),
    ):
        assert loaded.encode(MULTILINGUAL, allowed_special="all") == ours.encode(MULTILINGUAL, allowed_special="all")
    assert self_check(files, exported[1].tokenizer, MULTILINGUAL)["ok"]


def test_a_tokenizer_with_no_merges_round_trips():
    """num_merges=0 is allowed: every format must carry an empty merge list."""
    result = train(MULTILINGUAL, num_merges=0)
    files = export_files(result)
    expected = result.tokenizer.encode(MULTILINGUAL, allowed_special="all")
    assert expected == list(MULTILINGUAL.encode("utf-8"))
    for loaded in (
        from_gpt2_files(files["encoder.json"], files["vocab.bpe"], manifest=files["manifest.json"]),
        from_hf_tokenizer_json(files["tokenizer.json"]),
        from_tiktoken(files["tokenizer.tiktoken"], manifest=files["manifest.json"]),
        load_files(files),
    ):
        assert loaded.encode(MULTILINGUAL, allowed_special="all") == expected
    hf = tokenizers.Tokenizer.from_str(files["tokenizer.json"].decode("utf-8"))
    assert hf.encode(MULTILINGUAL).ids == expected


def test_hf_tokenizers_reads_our_files(exported):
    _, _, _, folder, ours = exported
    want = ours.encode(MULTILINGUAL)
    from_json = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    assert from_json.encode(MULTILINGUAL).ids == want
    model = tokenizers.models.BPE.from_file(str(folder / "encoder.json"), str(folder / "vocab.bpe"))
    from_pair = tokenizers.Tokenizer(model)
    from_pair.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)  # GPT-2's own pattern
    assert from_pair.encode(MULTILINGUAL).ids == want


def test_tiktoken_reads_our_files(exported):
    layout, _, files, folder, ours = exported
    pattern = ours.pretokenizer.pattern
    specials = ours.special_tokens
    ranks = tiktoken.load.load_tiktoken_bpe(str(folder / "tokenizer.tiktoken"))
    enc = tiktoken.Encoding("ours", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    assert enc.encode(MULTILINGUAL) == ours.encode(MULTILINGUAL)
    if layout == "gpt2":  # tiktoken's GPT-2 file loader checks the printable-first layout
        ranks = data_gym_to_mergeable_bpe_ranks(str(folder / "vocab.bpe"), str(folder / "encoder.json"))
        enc = tiktoken.Encoding("ours2", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
        assert enc.encode(MULTILINGUAL) == ours.encode(MULTILINGUAL)


def test_headerless_third_party_vocab_bpe():
    tok = train(MULTILINGUAL, num_merges=50).tokenizer
    encoder_json, vocab_bpe = to_gpt2_files(tok)
    headerless = vocab_bpe.split("\n", 1)[1]
    assert from_gpt2_files(encoder_json, headerless).merges == tok.merges
    crlf = vocab_bpe.replace("\n", "\r\n")
    assert from_gpt2_files(encoder_json, crlf).merges == tok.merges


@settings(max_examples=60, deadline=None)
@given(corpus=st.text(min_size=1, max_size=200), text=st.text(max_size=200))
def test_round_trip_over_arbitrary_text(corpus, text):
    result = train(corpus, num_merges=30)
    files = export_files(result)
    loaded = load_files({k: v for k, v in files.items() if k in ("encoder.json", "vocab.bpe", "manifest.json")})
    assert loaded.encode_ordinary(text) == result.tokenizer.encode_ordinary(text)
    assert loaded.decode(loaded.encode_ordinary(text)) == text


def test_export_is_deterministic():
    a = export_files(train(MULTILINGUAL, num_merges=80))
    b = export_files(train(MULTILINGUAL, num_merges=80))
    assert a == b


# ------------------------------------------------------------- malformed


@pytest.fixture(scope="module")
def good():
    tok = train("low lower newest widest " * 3, num_merges=6).tokenizer
    encoder_json, vocab_bpe = to_gpt2_files(tok)
    return json.loads(encoder_json), vocab_bpe


def _enc(encoder):
    return json.dumps(encoder)


def _lines(vocab_bpe):
    return vocab_bpe.split("\n")


def _malformed_cases(good):
    encoder, bpe = good
    lines = _lines(bpe)
    first = lines[1]
    without_byte = {k: v for k, v in encoder.items() if k != "Ā"}
    renumbered = dict(encoder)
    renumbered["!"] = encoder['"']
    gap = {k: (v + 1 if v >= 100 else v) for k, v in encoder.items()}
    with_foreign = dict(encoder) | {"x\u4e00": len(encoder)}
    missing_result = {k: v for k, v in encoder.items() if k != first.replace(" ", "")}
    missing_result = {k: i for i, k in enumerate(missing_result)}
    return [
        ("bad JSON", {"encoder.json": b"{\"a\": 1,", "vocab.bpe": bpe.encode()},
         "encoder.json line 1: not valid JSON: Expecting property name enclosed in double quotes"),
        ("not an object", {"encoder.json": b"[1, 2]", "vocab.bpe": bpe.encode()},
         "encoder.json: expected a JSON object of token -> id, got list"),
        ("duplicate key", {"encoder.json": b'{"a": 0, "a": 1}', "vocab.bpe": bpe.encode()},
         "encoder.json: key 'a' appears twice"),
        ("duplicate id", {"encoder.json": _enc(renumbered).encode(), "vocab.bpe": bpe.encode()},
         "encoder.json: id 34 is used twice, by '!' and '\"'"),
        ("non-contiguous ids", {"encoder.json": _enc(gap).encode(), "vocab.bpe": bpe.encode()},
         "encoder.json: ids must be contiguous from 0; 100 is missing"),
        ("negative id", {"encoder.json": _enc(encoder | {"!": -1}).encode(), "vocab.bpe": bpe.encode()},
         "encoder.json: the id of '!' must be a non-negative integer, got -1"),
        ("missing byte", {"encoder.json": _enc({k: i for i, k in enumerate(without_byte)}).encode(),
                          "vocab.bpe": b"#version: 0.2\n"},
         "encoder.json: has no entry for byte 0x00 ('Ā')"),
        ("char outside byte map", {"encoder.json": _enc(with_foreign).encode(),
                                   "vocab.bpe": (bpe + "x \u4e00\n").encode()},
         "token '\u4e00' of merge 'x \u4e00' is not in encoder.json"),
        ("three tokens on a line", {"encoder.json": _enc(encoder).encode(),
                                    "vocab.bpe": "\n".join(lines[:2] + ["Ġ t x"] + lines[2:]).encode()},
         "vocab.bpe line 3: expected two tokens separated by one space, got 'Ġ t x'"),
        ("blank line inside", {"encoder.json": _enc(encoder).encode(),
                               "vocab.bpe": "\n".join(lines[:2] + [""] + lines[2:]).encode()},
         "vocab.bpe line 3: expected two tokens separated by one space, got ''"),
        ("merge part missing", {"encoder.json": _enc(encoder).encode(),
                                "vocab.bpe": (bpe + "zzz a\n").encode()},
         "token 'zzz' of merge 'zzz a' is not in encoder.json"),
        ("merge result missing", {"encoder.json": _enc(missing_result).encode(), "vocab.bpe": bpe.encode()},
         f"vocab.bpe line 2: merge {first!r} makes {first.replace(' ', '')!r}, which is not in encoder.json"),
        ("repeated merge", {"encoder.json": _enc(encoder).encode(),
                            "vocab.bpe": (bpe + first + "\n").encode()},
         f"merge {first!r} repeats line 2"),
        ("invalid UTF-8", {"encoder.json": b'{"\xff": 0}', "vocab.bpe": bpe.encode()},
         "encoder.json line 1: not valid UTF-8 (byte 2)"),
        ("encoder without merges", {"encoder.json": _enc(encoder).encode()},
         "encoder.json: needs its partner file vocab.bpe"),
        ("no tokenizer at all", {"notes.txt": b"hello"},
         "no tokenizer found: give encoder.json + vocab.bpe, a tokenizer.json, or a .tiktoken file"),
        ("tiktoken bad base64", {"x.tiktoken": b"YQ== 0\n!!! 1\n"}, "x.tiktoken line 2:"),
        ("tiktoken bad rank", {"x.tiktoken": b"YQ== 0\nYg== one\n"}, "x.tiktoken line 2:"),
        ("tiktoken missing bytes", {"x.tiktoken": b"YQ== 0\n"},
         "x.tiktoken: has no token for byte 0x00; a byte-level BPE needs all 256"),
        ("tokenizer.json not BPE", {"tokenizer.json": b'{"model": {"type": "WordPiece"}}'},
         "tokenizer.json: expected a BPE model"),
        ("tokenizer.json with ignore_merges", {"tokenizer.json": json.dumps({
            "model": {"type": "BPE", "vocab": {}, "merges": [], "ignore_merges": True}}).encode()},
         "tokenizer.json: model.ignore_merges=true is not supported"),
        ("tokenizer.json with prefix space", {"tokenizer.json": json.dumps({
            "model": {"type": "BPE", "vocab": {}, "merges": []},
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": True}}).encode()},
         "tokenizer.json: ByteLevel add_prefix_space=true is not supported"),
        ("bad manifest", {"encoder.json": _enc(encoder).encode(), "vocab.bpe": bpe.encode(),
                          "manifest.json": b'{"format": "other"}'},
         "manifest.json: not a BPE Lab manifest"),
        ("manifest pretokenizer not an object", {"encoder.json": _enc(encoder).encode(), "vocab.bpe": bpe.encode(),
                                                  "manifest.json": json.dumps({"format": MANIFEST_FORMAT,
                                                                               "pretokenizer": "gpt2"}).encode()},
         'manifest.json: pretokenizer must be an object like {"name": "gpt2"}'),
        ("JSON that is no tokenizer, named as given", {"data.json": b'{"rows": [1, 2]}'},
         "data.json: expected a BPE model"),
        ("not a zip", {"all.zip": b"PK but not really"}, "all.zip: not a readable .zip archive"),
        ("two rank files", {"a.tiktoken": b"", "b.tiktoken": b""},
         "a.tiktoken, b.tiktoken: 2 .tiktoken files; give the files of one tokenizer at a time"),
        ("two JSON files, neither tokenizer.json", {"x.json": b"{}", "tokenizer_config.json": b"{}"},
         "2 JSON files that could be a tokenizer.json"),
        ("zip with the merges only", {"all.zip": _zip({"x/vocab.bpe": bpe.encode()})},
         "vocab.bpe: needs its partner file encoder.json"),
        ("zip with a malformed member", {"all.zip": _zip({"encoder.json": b"{not json", "vocab.bpe": bpe.encode()})},
         "encoder.json line 1:"),
    ]


def _zip(members):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_zip_of_the_exported_files_loads_like_the_files():
    result = train("low lower lowest newest widest " * 30, vocab_size=275)
    files = export_files(result)
    archive = _zip({f"bpelab-out/{name}": data for name, data in files.items()})
    text = "the lowest and newest of the widest"
    assert load_files({"bpelab-out.zip": archive}).encode(text) == load_files(files).encode(text)
    assert load_files({"bpelab-out.zip": archive}).special_tokens == {"<|endoftext|>": 275 - 1}


def test_a_zip_member_over_the_size_limit_is_refused_before_it_is_inflated(monkeypatch):
    from bpelab import artifacts

    monkeypatch.setattr(artifacts, "MAX_FILE_BYTES", 1000)
    archive = _zip({"encoder.json": b" " * 5000, "vocab.bpe": b""})  # deflates to a few bytes
    with pytest.raises(ArtifactError, match=r"all.zip: encoder.json: file too large \(5,000 bytes; the limit is 1,000\)"):
        load_files({"all.zip": archive})


def test_malformed_imports(good):
    cases = _malformed_cases(good)
    assert len(cases) >= 15
    wrong = []
    for label, files, message in cases:
        with pytest.raises(ArtifactError) as caught:
            load_files(files)
        if message not in str(caught.value):
            wrong.append(f"{label}: got {caught.value}")
    assert not wrong, "\n".join(wrong)


def test_file_too_large(good, monkeypatch):
    from bpelab import artifacts

    monkeypatch.setattr(artifacts, "MAX_FILE_BYTES", 100)
    with pytest.raises(ArtifactError, match="encoder.json: file too large"):
        load_files({"encoder.json": b"{" + b" " * 200 + b"}", "vocab.bpe": b""})


@pytest.mark.parametrize("specials", [("<|end of text|>",), ("§", "<|终|>"), ("<|endoftext|>", "<pad>")])
def test_special_tokens_with_spaces_or_non_ascii_survive_every_format(specials):
    """encoder.json spells them in the byte map (a space is Ġ); every loader must read them back as text."""
    result = train("hello world, hello there §§ " * 5, num_merges=5, special_tokens=specials)
    files = export_files(result)
    for names in (("encoder.json", "vocab.bpe", "manifest.json"), ("encoder.json", "vocab.bpe"),
                  ("tokenizer.json",), ("tokenizer.tiktoken", "manifest.json")):
        given = {name: files[name] for name in names}
        if "§" in specials and "manifest.json" not in names and "encoder.json" in names:
            # Without the manifest only <...> and [...] read as special tokens: '§' could be a lost merge's.
            with pytest.raises(ArtifactError, match=r"'Â§' \(id 261\) is not a byte, no merge makes it.*give the manifest"):
                load_files(given)
            continue
        assert load_files(given).special_tokens == result.tokenizer.special_tokens, names
    text = "hello" + specials[0] + " world"
    assert self_check(files, result.tokenizer, text)["ok"]
    if specials[0] == "<|end of text|>":  # Hugging Face reads it back the same way too
        hf = tokenizers.Tokenizer.from_str(files["tokenizer.json"].decode())
        assert hf.encode(text).ids == result.tokenizer.encode(text, allowed_special="all")


def test_cut_short_merges_are_an_error_not_thousands_of_special_tokens():
    from bpelab.openai_vocab import gpt2_files

    encoder_json, vocab_bpe = gpt2_files()
    first_thousand = "".join(vocab_bpe.splitlines(keepends=True)[:1001])
    for merges in (first_thousand, ""):
        with pytest.raises(ArtifactError, match=r"encoder.json: .* is not a byte, no merge makes it.*are the merges cut short"):
            from_gpt2_files(encoder_json, merges)
    assert from_gpt2_files(encoder_json, vocab_bpe).special_tokens == {"<|endoftext|>": 50256}


def test_a_manifest_from_another_export_is_an_error():
    first = export_files(train("hello world " * 5, num_merges=3))
    second = export_files(train("other words here " * 5, num_merges=3))
    mixed = {"encoder.json": second["encoder.json"], "vocab.bpe": second["vocab.bpe"], "manifest.json": first["manifest.json"]}
    with pytest.raises(ArtifactError, match=r"^encoder.json: does not match manifest.json, which records sha256 [0-9a-f]{12}…"):
        load_files(mixed)
    assert load_files({name: second[name] for name in ("encoder.json", "vocab.bpe")}).encode("other") is not None


def test_a_manifest_special_token_id_must_agree_with_encoder_json():
    result = train("hello world " * 5, num_merges=3)
    files = export_files(result)
    manifest = json.loads(files["manifest.json"])
    manifest["special_tokens"][0]["id"] += 1
    with pytest.raises(ArtifactError, match=r"manifest.json: special token '<\|endoftext\|>' has id 260, but 259 in encoder.json"):
        load_files({"encoder.json": files["encoder.json"], "vocab.bpe": files["vocab.bpe"],
                    "manifest.json": json.dumps(manifest).encode()})


DIGITS = "1 12 123 1234 12345 123456 1234567 x1234y 2024-11-30 3.14159\n"


@pytest.mark.parametrize("pretokenizer, pattern", [
    ("whitespace", None), ("gpt2", None), ("cl100k", None), ("o200k", None),
    ("custom", r"\p{L}++|\p{N}{1,2}+|(?:[^\s\p{L}\p{N}]){1,2}+|\s+"),
])
def test_hf_tokenizers_splits_our_patterns_as_we_do(pretokenizer, pattern):
    """Oniguruma reads X{1,3}+ as 'X{1,3}, repeated': the export must write it so that HF splits like regex."""
    text = (MULTILINGUAL + DIGITS) * 3 + "12 " * 50  # "12" merges early, so "1212" tells 12|12 from 121|2
    result = train(text, vocab_size=500, pretokenizer=pretokenizer, pattern=pattern)
    files = export_files(result)
    hf = tokenizers.Tokenizer.from_str(files["tokenizer.json"].decode("utf-8"))
    probe = text + " 1212 121212 12121212 ...... !!!!"
    assert hf.encode(probe).ids == result.tokenizer.encode(probe, allowed_special="all")
    assert from_hf_tokenizer_json(files["tokenizer.json"]).pretokenizer.name == pretokenizer
