"""bpelab.worker_api in CPython: the JSON door the web worker uses, without a browser.

The browser tests cover the same requests through Pyodide; these pin the reply
shapes and error handling quickly and show that the module needs no `js`.
"""

import base64
import json

from bpelab import worker_api
from bpelab.artifacts import export_files
from bpelab.train import train

SEED003 = ("low low low low low\n"
           "lower lower widest widest widest\n"
           "newest newest newest newest newest newest\n")


def call(kind, payload=None, progress=None):
    return json.loads(worker_api.handle(kind, json.dumps(payload or {}), progress))


def train_seed003(**extra):
    payload = {"documents": [SEED003], "settings": {"vocab_size": 265}, **extra}
    reply = call("train", payload)
    assert reply["ok"], reply
    return reply["result"]


def test_train_reply_has_merges_counts_and_token_bytes():
    """Seed 003: eight merges, counts 9, 9, 7, 7, 6, 6, 6, 5; the last makes ' newest'."""
    info = train_seed003()
    assert info["merge_counts"] == [9, 9, 7, 7, 6, 6, 6, 5]
    last_left, last_right, last_id = info["merges"][-1]
    assert info["vocab"][last_id] is None  # a merged token is its parts joined, by the page
    vocab = worker_api.reply_vocab(info)
    assert vocab[last_id] == vocab[last_left] + vocab[last_right] == b" newest"
    assert info["special_tokens"] == {"<|endoftext|>": 264}
    assert info["report"]["train"]["characters"] == len(SEED003)


def test_progress_is_json_and_ends_at_the_total():
    messages = []
    call("train", {"documents": [SEED003], "settings": {"vocab_size": 265}}, lambda text: messages.append(json.loads(text)))
    train_messages = [m for m in messages if m["stage"] == "train"]
    assert train_messages[-1]["done"] == train_messages[-1]["total"] == 8
    assert any(m["stage"] == "report" for m in messages)


def test_export_gives_the_same_bytes_as_export_files_and_passes_the_self_check():
    info = train_seed003()
    reply = call("export", {"handle": info["handle"], "id_layout": "gpt2"})
    assert reply["ok"], reply
    files = {f["name"]: base64.b64decode(f["base64"]) for f in reply["result"]["files"]}
    expected = export_files(train([SEED003], vocab_size=265), id_layout="gpt2")
    assert files == expected
    assert reply["result"]["self_check"]["ok"] is True


def test_truncate_uses_the_cli_rule_and_the_manifest_records_it():
    info = call("train", {"documents": ["abcdef", "ghij"], "settings": {"num_merges": 2}, "char_limit": 8,
                          "truncate": True, "report": False})["result"]
    assert info["truncation"] == {"original_characters": 10, "kept_characters": 8}
    files = {f["name"]: base64.b64decode(f["base64"]) for f in call("export", {"handle": info["handle"]})["result"]["files"]}
    manifest = json.loads(files["manifest.json"])
    assert manifest["truncation"] == {"original_characters": 10, "kept_characters": 8}
    assert manifest["char_limit"] == 8


def test_over_the_limit_without_truncate_is_an_error_that_says_what_to_do():
    reply = call("train", {"documents": ["x" * 20], "settings": {"num_merges": 1}, "char_limit": 10})
    assert reply["ok"] is False
    assert reply["error"]["type"] == "ValueError"
    assert "20 characters" in reply["error"]["message"] and "traceback" not in reply["error"]


def test_import_round_trip_and_encode_with_several_handles():
    info = train_seed003()
    exported = call("export", {"handle": info["handle"]})["result"]["files"]
    files = [f for f in exported if f["name"] in ("encoder.json", "vocab.bpe", "manifest.json")]
    imported = call("import", {"files": [{"name": f["name"], "base64": f["base64"]} for f in files]})["result"]
    assert imported["source"] == "imported" and imported["merges"] == info["merges"]
    text = "the lowest widest fox<|endoftext|>newest lower"
    results = call("encode", {"text": text, "handles": [info["handle"], imported["handle"]]})["result"]["results"]
    assert results[0]["ids"] == results[1]["ids"]
    assert len(results[0]["ids"]) == 21  # seed 003: 46 bytes become 21 tokens


def test_tiktoken_import_recovers_the_merge_list():
    info = train_seed003()
    exported = {f["name"]: f["base64"] for f in call("export", {"handle": info["handle"]})["result"]["files"]}
    # A .tiktoken file without its manifest says nothing of its pattern: the request names it.
    imported = call("import", {"files": [{"name": "tokenizer.tiktoken", "base64": exported["tokenizer.tiktoken"]}],
                               "pretokenizer": "gpt2"})
    assert imported["ok"], imported
    assert imported["result"]["merges"] == info["merges"]


def test_errors_are_typed_and_unknown_things_are_named():
    assert call("nope")["error"]["type"] == "RequestError"
    missing = call("export", {"handle": "t999"})["error"]
    assert missing["type"] == "RequestError" and "'t999'" in missing["message"]
    bad = call("train", {"documents": ["abc"], "settings": {"vocab_size": 265, "colour": "red"}})["error"]
    assert "colour" in bad["message"]
    assert call("import", {"files": [{"name": "encoder.json", "base64": base64.b64encode(b"{oops").decode()}]})[
        "error"]["message"].startswith("encoder.json")


def test_worker_api_imports_nothing_from_the_browser():
    import ast

    tree = ast.parse(open(worker_api.__file__, encoding="utf-8").read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert imported and not imported & {"js", "pyodide", "pyodide_js"}


def test_steps_trace_and_at_merges_for_the_later_views():
    """Seed 003: the encode trace of ' lowest' applies ranks in order; k merges give a smaller tokenizer."""
    info = train_seed003(record=True, report=False)
    steps = call("steps", {"handle": info["handle"], "start": 0, "stop": 3})["result"]
    assert steps["total"] == 8 and len(steps["steps"]) == 3
    assert steps["steps"][0]["pair"] == info["merges"][0][:2] and steps["steps"][0]["count"] == 9
    trace = call("trace", {"handle": info["handle"], "text": "the lowest"})["result"]["pieces"]
    assert [p["piece"] for p in trace] == ["the", " lowest"]
    applied = [step["applied"] for step in trace[1]["steps"] if step["applied"]]
    assert [a[2] for a in applied] == sorted(a[2] for a in applied)  # lowest rank first, every time
    small = call("at_merges", {"handle": info["handle"], "merges": 3})["result"]
    assert small["n_merges"] == 3 and small["merges"] == info["merges"][:3]
    without = call("steps", {"handle": small["handle"]})["error"]
    assert "record: true" in without["message"]


def test_report_request_measures_a_trained_tokenizer_with_heldout_text():
    info = train_seed003(report=False)
    assert "report" not in info
    messages = []
    reply = call("report", {"handle": info["handle"], "heldout": "the lowest newest"}, messages.append)
    assert reply["ok"], reply
    result = reply["result"]
    assert result["train"]["tokens"] == 40 and result["heldout"]["characters"] == 17
    assert [point["merges"] for point in result["curve"]][0] == 0 and result["curve"][-1]["merges"] == 8
    assert json.loads(messages[-1])["done"] == json.loads(messages[-1])["total"]


def test_over_the_limit_says_what_the_page_can_do_not_the_cli_flags():
    reply = call("train", {"documents": ["abcdefghij" * 10], "settings": {"num_merges": 2}, "char_limit": 50})
    assert not reply["ok"]
    message = reply["error"]["message"]
    assert "the text has 100 characters, over the limit of 50" in message
    assert "(truncate: true), or shorten the text" in message and "--" not in message


def test_malformed_payloads_get_clear_errors_never_tracebacks(tmp_path):
    handle = train_seed003(record=True)["handle"]
    cases = [
        ("describe", {"handle": ["t1"]}, "no tokenizer with handle ['t1']"),
        ("drop", {"handle": {"x": 1}}, "no tokenizer with handle"),
        ("steps", {"handle": handle, "start": None}, "start must be a whole number of at least 0, got None"),
        ("steps", {"handle": handle, "start": "3"}, "start must be a whole number"),
        ("steps", {"handle": handle, "start": 2, "stop": -1}, "stop must be a whole number of at least 2, got -1"),
        ("encode", {"handle": handle, "text": "a", "allowed_special": None}, 'allowed_special must be "all" or a list'),
        ("encode", {"handle": handle, "text": "a", "allowed_special": "none"}, 'allowed_special must be "all" or a list'),
        ("encode", {"handles": "t1", "text": "a"}, "handles must be a list of tokenizer handles, got 't1'"),
        ("train", {"documents": ["ab ab"], "settings": {"num_merges": 1, "special_tokens": None}},
         "special_tokens must be a list of strings (empty for none), got None"),
        ("train", {"documents": ["ab ab"], "settings": {"num_merges": 1, "document_separator": 5}},
         "document_separator must be a string or None, got 5"),
        ("train", {"documents": ["ab ab"], "settings": {"num_merges": 1}, "char_limit": "2"},
         "the character limit must be a whole number of at least 1 (or none), got '2'"),
        ("train", {"documents": ["ab ab"], "settings": {"num_merges": 1}, "char_limit": -1, "truncate": True},
         "the character limit must be a whole number of at least 1"),
        ("train", {"documents": ["ab ab"], "settings": {"num_merges": 1}, "heldout": 5}, "heldout must be a string or null"),
        ("reference", {"name": "gpt2", "path": str(tmp_path / "missing.tiktoken")}, "cannot read its rank file"),
        ("import", {"files": ["encoder.json"]}, "each file must be an object {name, base64}"),
        ("pattern", {"pattern": "a+", "sample": 5}, "sample must be a string or null, got 5"),
        ("at_merges", {"handle": handle, "merges": True}, "merges must be a whole number of at least 0, got True"),
    ]
    registered = len(worker_api._REGISTRY)
    for kind, payload, message in cases:
        reply = call(kind, payload)
        assert not reply["ok"], (kind, payload)
        assert message in reply["error"]["message"], (kind, reply["error"]["message"])
        assert "traceback" not in reply["error"], (kind, reply["error"])
    assert len(worker_api._REGISTRY) == registered  # no failed request left a tokenizer behind


def test_trace_treats_special_tokens_as_encode_does_and_says_when_it_stops():
    handle = train_seed003()["handle"]
    text = "low<|endoftext|>lower"
    reply = call("trace", {"handle": handle, "text": text})["result"]
    assert [piece["piece"] for piece in reply["pieces"]] == ["low", "<|endoftext|>", "lower"]
    assert reply["pieces"][1]["special_id"] == 264 and reply["pieces"][1]["steps"] == []
    assert reply["truncated"] is False
    traced = [id_ for piece in reply["pieces"]
              for id_ in ([piece["special_id"]] if "special_id" in piece else piece["steps"][-1]["parts"])]
    assert traced == call("encode", {"handle": handle, "text": text})["result"]["results"][0]["ids"]
    long = call("trace", {"handle": handle, "text": "low " * 100})["result"]
    assert len(long["pieces"]) == 64 and long["truncated"] is True


# ---------------------------------------------------------------- issue 12: display, vocab, bundle, zip


def test_display_request_returns_the_model_and_a_clear_raise_error():
    info = train_seed003()
    reply = call("display", {"handle": info["handle"], "text": "lowest newest", "policy": "allow"})
    assert reply["ok"], reply
    model = reply["result"]
    assert model["counts"]["tokens"] == len(model["ids"]) == model["total"]
    assert "".join(part[1] for token in model["tokens"] for part in token["parts"]) == "lowest newest"
    error = call("display", {"handle": info["handle"], "text": "a<|endoftext|>"})["error"]
    assert error["type"] == "DisplayError" and "Choose allow" in error["message"]
    by_ids = call("display", {"handle": info["handle"], "ids": model["ids"]})["result"]
    assert by_ids["ids"] == model["ids"] and "policy" not in by_ids
    bad = call("display", {"handle": info["handle"], "ids": [1, "2"]})["error"]
    assert bad["type"] == "RequestError" and "ids must be a list of whole numbers" in bad["message"]


def test_vocab_request_pages_and_searches():
    info = train_seed003()
    page = call("vocab", {"handle": info["handle"], "start": 256, "count": 3})["result"]
    assert page["size"] == 265 and page["total"] == 265
    assert [e["id"] for e in page["entries"]] == [256, 257, 258]
    assert page["entries"][0]["pair"] == [115, 116]  # s + t, the seed's first merge
    found = call("vocab", {"handle": info["handle"], "kind": "text", "query": "newest"})["result"]
    assert [bytes.fromhex(e["hex"].replace(" ", "")) for e in found["entries"]] == [b"newest", b" newest"]
    special = call("vocab", {"handle": info["handle"], "kind": "id", "query": "264"})["result"]["entries"][0]
    assert special["special"] is True and special["parts"] == [["t", "<|endoftext|>"]]
    error = call("vocab", {"handle": info["handle"], "kind": "hex", "query": "E"})["error"]
    assert error["type"] == "VocabError" and "pairs of the digits" in error["message"]


def test_bundle_and_zip_requests_write_an_imported_tokenizer_in_every_format():
    import io
    import zipfile

    info = train_seed003()
    exported = call("export", {"handle": info["handle"]})["result"]
    tokenizer_json = next(f for f in exported["files"] if f["name"] == "tokenizer.json")
    imported = call("import", {"files": [{"name": "tokenizer.json", "base64": tokenizer_json["base64"]}]})["result"]
    bundle = call("bundle", {"handle": imported["handle"]})["result"]
    assert bundle["self_check"]["ok"], bundle["self_check"]
    names = [f["name"] for f in bundle["files"]]
    assert names == ["encoder.json", "vocab.bpe", "tokenizer.json", "tokenizer.tiktoken", "manifest.json"]
    reply = call("zip", {"files": [{"name": f["name"], "base64": f["base64"]} for f in bundle["files"]]})["result"]
    archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(reply["base64"])))
    assert archive.namelist() == names and archive.testzip() is None
    assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in archive.infolist())
    assert reply["size"] < reply["files_size"]
    same = call("zip", {"files": [{"name": f["name"], "base64": f["base64"]} for f in bundle["files"]]})["result"]
    assert same["base64"] == reply["base64"]  # fixed timestamps: the same files give the same zip
    error = call("zip", {"files": [{"name": "a/b", "base64": ""}]})["error"]
    assert error["type"] == "RequestError"
