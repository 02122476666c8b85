"""Word counts through the worker's requests (worker_api.handle), as the site sends them.

Training, the explorer's window (the pieces with their counts), compare's
trained@K, the report and the export all work on a counts corpus.
"""

import base64
import json

import pytest

from bpelab import worker_api
from bpelab.counts import to_tsv

CS336_LINES = "low 5\nlower 2\nwidest 3\nnewest 6\n"
CS336_SETTINGS = {"num_merges": 12, "pretokenizer": "whitespace", "tie_break": "greater"}


def ask(kind, payload):
    reply = json.loads(worker_api.handle(kind, json.dumps(payload)))
    return reply


def ok(kind, payload):
    reply = ask(kind, payload)
    assert reply["ok"], reply
    return reply["result"]


def visible(info, merges):
    vocab = worker_api.reply_vocab(info)
    return [f"{vocab[a].decode()} {vocab[b].decode()}" for a, b, _new in merges]


@pytest.fixture()
def trained():
    return ok("train", {"counts": CS336_LINES, "settings": CS336_SETTINGS, "record": True})


def test_train_on_the_boxs_lines_or_a_json_object(trained):
    expected = ["s t", "e st", "o w", "l ow", "w est", "n e", "ne west", "w i", "wi d", "wid est", "low e", "lowe r"]
    assert visible(trained, trained["merges"]) == expected
    assert trained["input"] == "counts" and trained["corpus"]["pieces"] == 4
    assert trained["corpus"]["occurrences"] == 16
    same = ok("train", {"counts": '{"low":5,"lower":2,"widest":3,"newest":6}', "counts_format": "json",
                        "settings": CS336_SETTINGS})
    assert same["merges"] == trained["merges"] and same["corpus"] == trained["corpus"]


@pytest.mark.parametrize("text, fmt, line, words", [
    ("low 5\nlower -2\n", "lines", 2, "Word counts line 2: the count '-2' is negative"),
    ("low 5\nlow 1\n", "lines", 2, "already on line 1"),
    ("low 5\n\t2\n", "lines", 2, "the piece is empty"),
    ("low five\n", "lines", 1, "not a number"),
    ('{"low": 5,\n"lo\\nw": 1.5}', "json", 2, "counts line 2: the count '1.5' is not a whole number"),
])
def test_a_bad_line_is_named_with_its_number(text, fmt, line, words):
    for kind in ("train", "counts_check"):
        reply = ask(kind, {"counts": text, "counts_format": fmt, "settings": CS336_SETTINGS})
        assert not reply["ok"] and reply["error"]["type"] == "CountsError"
        assert reply["error"]["line"] == line and words in reply["error"]["message"]


def test_an_empty_box_says_what_to_write():
    reply = ask("train", {"counts": "\n  \n", "settings": CS336_SETTINGS})
    assert reply["error"]["message"].startswith("Word counts: holds no counts; write one piece")


def test_counts_check_gives_both_forms_in_order():
    info = ok("counts_check", {"counts": "lower 2\n\\n 3\nnew york 1\na \t4\n"})
    assert info["json"] == '{"lower":2,"\\n":3,"new york":1,"a ":4}'
    assert info["lines"] == "lower 2\n\\n 3\nnew york 1\na \t4\n"
    assert (info["pieces"], info["occurrences"]) == (4, 10)
    back = ok("counts_check", {"counts": info["json"], "counts_format": "json"})
    assert back["lines"] == info["lines"] and back["sha256"] == info["sha256"]
    numbers = ok("counts_check", {"counts": '{"b":1,"2":2,"1":3}', "counts_format": "json"})
    assert numbers["lines"] == "b 1\n2 2\n1 3\n"  # key order kept, even for keys a JS object would sort


def test_the_explorer_window_shows_the_pieces_with_their_counts(trained):
    step = ok("explore_step", {"handle": trained["handle"], "step": 1, "window": {"start": 0, "size": 2000}})
    window = step["window"]
    assert window["text"] == "lowlowerwidestnewest"
    assert window["counts"] == [[0, 3, 5], [3, 8, 2], [8, 14, 3], [14, 20, 6]]
    assert step["view"]["merge"]["count"] == 9
    at_six = ok("explore_step", {"handle": trained["handle"], "step": 6, "window": {"start": 0, "size": 2000}})
    newest = [group for group in at_six["window"]["groups"] if group[0] >= 14]
    assert [window["text"][a:b] for a, b, _ids in newest] == ["ne", "west"]
    assert window["tokens"] == 20 - 2  # step 1: a token per byte, but st in widest and newest


def test_compare_and_report_work_on_counts(trained):
    six = ok("at_merges", {"handle": trained["handle"], "merges": 6, "vocab": True})
    (encoded,) = ok("encode", {"handle": six["handle"], "text": "newest"})["results"]
    assert [worker_api.reply_vocab(six)[i] for i in encoded["ids"]] == [b"ne", b"west"]
    report = ok("report", {"handle": trained["handle"], "heldout": "the newest and widest"})
    assert report["train"]["pieces"] == 4 and report["train"]["tokens"] == 16  # every word one token at the end
    assert report["train"]["characters"] == 79 and report["train"]["words"] == 16
    assert report["heldout"]["tokens"] > 0
    assert report["curve"][0]["train"] == 1.0 and report["curve"][-1]["train"] == 79 / 16


def test_export_records_the_counts_and_loads_back(trained):
    files = ok("export", {"handle": trained["handle"]})
    by_name = {f["name"]: base64.b64decode(f["base64"]) for f in files["files"]}
    manifest = json.loads(by_name["manifest.json"])
    assert manifest["input"] == "counts" and manifest["char_limit"] is None
    import hashlib

    table = {"low": 5, "lower": 2, "widest": 3, "newest": 6}
    assert manifest["corpus"]["sha256"] == hashlib.sha256(to_tsv(table).encode()).hexdigest()
    assert files["self_check"]["ok"], files["self_check"]
