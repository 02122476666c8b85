"""bpelab.widgets without a browser: the kernel's answers, the traits, the Python objects.

The kernel answers the messages the worker answers (web/README.md, "Worker protocol") with
the same dispatch, so each reply here is compared with worker_api.handle's own. Seed 003:
vocabulary 265 on its corpus gives the merges st, est, ow, low, west, ne, newest, ␣newest.
"""

import json
import subprocess
import sys

import pytest
import traitlets

from bpelab import worker_api
from bpelab.openai_vocab import load_reference
from bpelab.widgets import Compare, Encode, Explorer, kernel
from seed003_vietnamese import XIN_CHAO

CORPUS = "low low low low low\nlower lower widest widest widest\nnewest newest newest newest newest newest\n"


def ask(kind, payload=None, ident=1):
    replies = []
    kernel.answer({"id": ident, "type": kind, "payload": payload if payload is not None else {}}, replies.append)
    return replies


def test_import_bpelab_needs_no_notebook_package():
    code = ("import sys, bpelab, bpelab.widgets, bpelab.widgets.kernel\n"
            "bad = [m for m in ('anywidget', 'ipywidgets', 'traitlets', 'IPython') if m in sys.modules]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_hello_is_answered_with_ready_versions_and_the_kernel_session():
    replies = []
    kernel.answer({"type": "hello"}, replies.append)
    (ready,) = replies
    assert ready["type"] == "ready" and ready["versions"]["boot"] == "kernel"
    assert ready["versions"]["session"] == kernel.SESSION
    assert ready["versions"]["bpelab"] == json.loads(worker_api.versions())["bpelab"]


@pytest.mark.parametrize("kind, payload", [
    ("ping", {"echo": [1, "é"]}),
    ("encode", {"text": "x", "handles": ["t999999"]}),  # an unknown handle: the worker's own error
    ("nope", {}),
    ("train", {"documents": "not a list"}),
    ("train", {"documents": ["abc"], "settings": {"vocab_size": 100}}),
])
def test_replies_are_the_workers_own(kind, payload):
    (reply,) = ask(kind, payload, ident=42)
    expected = json.loads(worker_api.handle(kind, json.dumps(payload)))
    assert reply["id"] == 42
    if expected["ok"]:
        assert reply == {"id": 42, "type": "result", "payload": expected["result"]}
    else:
        assert reply["type"] == "error" and reply["error"]["message"] == expected["error"]["message"]
        assert "\n" not in reply["error"]["message"]  # one line, as the site shows it


@pytest.mark.parametrize("name, text", [("gpt2", XIN_CHAO), ("cl100k", XIN_CHAO), ("o200k", XIN_CHAO),
                                        ("o200k_base", "hello world")])
def test_reference_uses_the_packages_rank_file(name, text):
    (reply,) = ask("reference", {"name": name})
    handle = reply["payload"]["handle"]
    (encoded,) = ask("encode", {"text": text, "handles": [handle]})
    assert encoded["payload"]["results"][0]["ids"] == load_reference(name).encode(text)


@pytest.mark.parametrize("name", ["o2", "", None, 7])
def test_an_unknown_reference_is_a_one_line_error(name):
    (reply,) = ask("reference", {"name": name})
    assert reply["type"] == "error" and "unknown reference tokenizer" in reply["error"]["message"]


@pytest.mark.parametrize("payload", [[1, 2], "text", 3])
def test_a_payload_that_is_not_an_object_is_refused(payload):
    (reply,) = ask("ping", payload)
    assert reply["type"] == "error" and "must be an object" in reply["error"]["message"]


def test_training_sends_progress_then_the_result_and_is_made_once():
    corpus = "abcd " * 300 + "xyz " * 50
    payload = {"documents": [corpus], "settings": {"num_merges": 40, "tie_break": "smaller-id"}, "record": True,
               "report": False, "name": "first"}
    replies = ask("train", payload, ident=5)
    kinds = [r["type"] for r in replies]
    assert kinds[-1] == "result" and set(kinds[:-1]) <= {"progress"} and kinds.count("progress") >= 1
    assert all(r["id"] == 5 for r in replies)
    again = ask("train", {**payload, "name": "another label"}, ident=6)
    assert [r["type"] for r in again] == ["result"]  # the same run, no second training
    assert again[0]["payload"]["handle"] == replies[-1]["payload"]["handle"]
    other = ask("train", {**payload, "settings": {"num_merges": 41, "tie_break": "smaller-id"}}, ident=7)
    assert other[-1]["payload"]["handle"] != replies[-1]["payload"]["handle"]


def test_a_kernel_interrupt_answers_the_request_as_cancelled(monkeypatch):
    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(kernel, "request", interrupted)
    (reply,) = ask("train", {"documents": ["a"]}, ident=9)
    assert reply == {"id": 9, "type": "error",
                     "error": {"type": "Cancelled", "message": "the kernel was interrupted; nothing was changed"}}


# ---------------------------------------------------------------- the widgets' Python side


def test_explorer_result_is_seed_003s_training():
    w = Explorer(CORPUS, vocab_size=265, step=5)
    vocab = w.result.tokenizer.vocab
    merged = [vocab[a] + vocab[b] for a, b in w.result.tokenizer.merges]
    assert merged == [b"st", b"est", b"ow", b"low", b"west", b"ne", b"newest", b" newest"]
    assert list(w.result.merge_counts) == [9, 9, 7, 7, 6, 6, 6, 5]
    assert w.result is Explorer(CORPUS, vocab_size=265).result  # one run for the same text and settings


@pytest.mark.parametrize("python_first", [True, False])
def test_the_view_and_python_share_one_training_run(python_first):
    """The payload the view sends (explorer-train.js) and the one Python builds are one run, in either order."""
    corpus = CORPUS + ("python first" if python_first else "view first")
    w = Explorer(corpus, num_merges=3, tie_break="first-seen", special_tokens=[])
    view_payload = {"documents": [corpus], "record": True, "report": False, "truncate": True,
                    "char_limit": 1_000_000, "name": "your text",
                    "settings": {"pretokenizer": "gpt2", "tie_break": "first-seen", "min_count": 1,
                                 "special_tokens": [], "num_merges": 3}}
    if python_first:
        result = w.result
        (reply,) = ask("train", view_payload)  # no progress: nothing is trained again
    else:
        reply = ask("train", view_payload)[-1]
        result = w.result
    assert worker_api.lookup(reply["payload"]["handle"])[1] is result


@pytest.mark.parametrize("kwargs, message", [
    ({"vocab_size": 200}, "vocab_size must be at least 256"),
    ({"vocab_size": 300, "num_merges": 4}, None),  # num_merges wins, as the site's merges mode
    ({"pretokenizer": "custom", "pattern": "("}, "pattern"),
])
def test_settings_errors_name_the_field(kwargs, message):
    w = Explorer("low lower lowest", **kwargs)
    if message is None:
        assert len(w.result.tokenizer.merges) == 4
        return
    with pytest.raises(ValueError, match=message):
        w.result


@pytest.mark.parametrize("widget, trait, value", [
    (Explorer, "step", -1), (Explorer, "tie_break", "random"), (Explorer, "pretokenizer", "spaces"),
    (Explorer, "min_count", 0), (Compare, "policy", "ignore"), (Encode, "tokenizer", "gpt4"),
])
def test_traits_refuse_bad_values(widget, trait, value):
    with pytest.raises(traitlets.TraitError):
        widget("text", **{trait: value})


def test_no_training_text_says_which_trait():
    with pytest.raises(ValueError, match="set its text"):
        Explorer("").result
    with pytest.raises(ValueError, match="set its corpus"):
        Encode("x", tokenizer="trained").ids


def test_compare_ids_are_seed_003s_counts_and_follow_the_panes():
    c = Compare(XIN_CHAO)
    assert {k: len(v) for k, v in c.ids.items()} == {"gpt2": 15, "cl100k": 9, "o200k": 5}
    c.panes = ["o200k", "bytes", "trained@2", "trained"]
    c.corpus = CORPUS
    c.vocab_size = 265
    ids = c.ids
    assert list(ids) == ["o200k", "bytes", "trained@2", "trained"]
    assert ids["bytes"] == list(XIN_CHAO.encode("utf-8"))
    assert ids["trained"] == c.result.tokenizer.encode(XIN_CHAO, allowed_special=set())


@pytest.mark.parametrize("policy, expected", [("allow", [199999]), ("text", None)])
def test_encode_ids_follow_the_policy(policy, expected):
    w = Encode("<|endoftext|>", tokenizer="o200k", policy=policy)
    ref = load_reference("o200k")
    assert w.ids == (expected or ref.encode_ordinary("<|endoftext|>"))


def test_encode_raise_policy_refuses_a_special_spelling():
    with pytest.raises(ValueError, match="special"):
        Encode("a <|endoftext|>", tokenizer="gpt2").ids


def test_export_writes_the_clis_files(tmp_path):
    w = Explorer(CORPUS, vocab_size=265)
    paths = w.export(tmp_path / "out")
    (tmp_path / "corpus.txt").write_text(CORPUS, encoding="utf-8")
    cli = subprocess.run([sys.executable, "-m", "bpelab", "train", str(tmp_path / "corpus.txt"), "--vocab-size", "265",
                          "--out", str(tmp_path / "cli")], text=True, capture_output=True)
    assert cli.returncode == 0, cli.stderr
    for name, path in paths.items():
        if name != "manifest.json":
            assert path.read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert sorted(paths) == sorted(p.name for p in (tmp_path / "cli").iterdir())


def test_export_into_a_folder_of_other_files_names_the_argument(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(ValueError, match=r"export: out .* force=True"):
        Explorer(CORPUS, vocab_size=265).export(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"
