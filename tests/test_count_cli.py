"""`bpelab count` and `bpelab train --counts`, as a user runs them: the same files as training on the text.

The Dask test starts real worker processes (two, on this machine) and stops
them before it ends.
"""

import json
import os
import subprocess
import sys

import pytest

from bpelab.cli import main
from bpelab.counts import parse_lines

# The manifest's input fields: what was trained on. Everything else must match.
INPUT_FIELDS = {"input", "corpus", "char_limit", "truncation"}
TOKENIZER_FILES = ("encoder.json", "vocab.bpe", "tokenizer.json", "tokenizer.tiktoken")

CS336_MERGES = ["s t", "e st", "o w", "l ow", "w est", "n e", "ne west", "w i", "wi d", "wid est", "low e", "lowe r"]


def run(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "bpelab", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def merges_of(folder):
    lines = (folder / "vocab.bpe").read_text("utf-8").split("\n")
    assert lines[0] == "#version: 0.2" and lines[-1] == ""
    return lines[1:-1]


def without_input(manifest_path):
    manifest = json.loads(manifest_path.read_text("utf-8"))
    return {key: value for key, value in manifest.items() if key not in INPUT_FIELDS}


def same_training(text_dir, counts_dir):
    for name in TOKENIZER_FILES:
        assert (text_dir / name).read_bytes() == (counts_dir / name).read_bytes(), name
    assert without_input(text_dir / "manifest.json") == without_input(counts_dir / "manifest.json")
    assert json.loads((counts_dir / "manifest.json").read_text())["input"] == "counts"


@pytest.fixture()
def corpus(tmp_path):
    """Three files, documents split by '||', special tokens, ties everywhere, several scripts."""
    texts = [
        "low low low low low lower lower widest widest widest||newest newest newest<|endoftext|>newest\n" * 3,
        "\ufeffXin chào thế giới<|endoftext|> 新しい 新しい 🙂🙂 don't stop||  tabs\tand\nlines\n\n" * 4,
        "ab ab ba ba cd dc<|pad|>ab ba\r\n" * 5 + "<|endoftext|>",
    ]
    paths = []
    for k, text in enumerate(texts):
        path = tmp_path / f"part{k}.txt"
        path.write_text(text, encoding="utf-8", newline="")
        paths.append(path)
    return paths


SETTINGS = ["--separator", "||", "--special", "<|endoftext|>", "--special", "<|pad|>"]


# ------------------------------------------------------------------ train --counts


def test_the_cs336_handout_merges_from_counts(tmp_path):
    """CS336 assignment 1 handout, §2.4 "Example (bpe_example)": {low: 5, lower: 2, widest: 3, newest: 6},
    whitespace split, ties to the greater pair: its twelve merges, in order, as vocab.bpe lines."""
    for name, text in (("words.tsv", "low\t5\nlower\t2\nwidest\t3\nnewest\t6\n"),
                       ("words.json", '{"low": 5, "lower": 2, "widest": 3, "newest": 6}')):
        (tmp_path / name).write_text(text, encoding="utf-8")
        out = tmp_path / f"out-{name}"
        proc = run("train", "--counts", tmp_path / name, "--vocab-size", "1000", "--pretokenizer", "whitespace",
                   "--tie-break", "greater", "--out", out, "--quiet")
        assert proc.returncode == 0, proc.stderr
        assert merges_of(out) == CS336_MERGES
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["stopping"]["stopped_because"] == "no_pairs" and manifest["input"] == "counts"
        assert manifest["corpus"]["pieces"] == 4 and manifest["corpus"]["occurrences"] == 16


BAD_COUNTS = [
    ("neg.tsv", "low\t5\nlower\t-2\n", 2, "negative"),
    ("word.tsv", "low\tfive\n", 1, "not a number"),
    ("empty.tsv", "low 5\n\t3\n", 2, "piece is empty"),
    ("dup.tsv", "low 5\nlower 2\nlow 1\n", 3, "already on line 1"),
    ("newline.tsv", "low 5\nlo\nw 2\n", 2, "a newline inside a piece is written \\n"),
    ("zero.tsv", "low 0\n", 1, "below 1"),
    ("huge.tsv", "low 99999999999999999999999\n", 1, "too large"),
    ("half.tsv", "low 2.5\n", 1, "not a whole number"),
    ("cr.tsv", "lo\rw 2\n", 1, "carriage return"),
    ("bad.tsv", "low 5\nl\xffw 2\n", 2, "invalid UTF-8"),
    ("neg.json", '{"low": 5,\n "lower": -2}', 2, "negative"),
    ("word.json", '{"low": "5"}', 1, "a string, not a number"),
    ("empty.json", '{"": 5}', 1, "piece is empty"),
    ("dup.json", '{"low": 5,\n\n "low": 1}', 3, "already on line 1"),
    ("newline.json", '{"lo\nw": 1}', 1, "broken string"),
]


@pytest.mark.parametrize("name, text, line, words", BAD_COUNTS, ids=[case[0] for case in BAD_COUNTS])
def test_a_bad_counts_file_gets_one_line_with_file_line_and_fix(tmp_path, capsys, name, text, line, words):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8").replace("\xff".encode("utf-8"), b"\xff"))
    code = main(["train", "--counts", str(path), "--merges", "3", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"bpelab train: {path} line {line}: ") and words in err
    assert not (tmp_path / "out").exists()


def test_train_takes_files_or_counts(tmp_path, capsys, corpus):
    (tmp_path / "c.tsv").write_text("low 5\n")
    assert main(["train", str(corpus[0]), "--counts", str(tmp_path / "c.tsv"), "--merges", "2",
                 "--out", str(tmp_path / "o")]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["train", "--merges", "2", "--out", str(tmp_path / "o")]) == 2
    assert "--counts FILE" in capsys.readouterr().err
    assert main(["train", "--counts", str(tmp_path / "missing.tsv"), "--merges", "2", "--out", str(tmp_path / "o")]) == 2
    assert "cannot read --counts" in capsys.readouterr().err


# ------------------------------------------------------------------ count, then train --counts


@pytest.mark.parametrize("tie", ["greater", "smaller-id", "first-seen"])
@pytest.mark.parametrize("pretokenizer", ["gpt2", "whitespace", "bytes", "o200k"])
def test_count_then_train_counts_gives_the_files_of_training_on_the_text(tmp_path, capsys, corpus, tie,
                                                                         pretokenizer):
    table = tmp_path / "counts.tsv"
    assert main(["count", *map(str, corpus), "--out", str(table), "--pretokenizer", pretokenizer,
                 *SETTINGS, "--quiet"]) == 0
    train_args = ["--vocab-size", "330", "--tie-break", tie, "--pretokenizer", pretokenizer, *SETTINGS, "--quiet"]
    assert main(["train", *map(str, corpus), *train_args, "--out", str(tmp_path / "text")]) == 0
    assert main(["train", "--counts", str(table), *train_args, "--out", str(tmp_path / "counts")]) == 0
    same_training(tmp_path / "text", tmp_path / "counts")
    assert capsys.readouterr().err == ""


def test_count_writes_json_too_and_says_how_to_train(tmp_path, corpus):
    proc = run("count", *corpus, "--out", tmp_path / "c.json", *SETTINGS)
    assert proc.returncode == 0, proc.stderr
    table = json.loads((tmp_path / "c.json").read_text("utf-8"))
    tsv = tmp_path / "c.tsv"
    assert main(["count", *map(str, corpus), "--out", str(tsv), *SETTINGS, "--quiet"]) == 0
    assert list(table.items()) == list(parse_lines(tsv.read_text("utf-8")).items())
    assert "bpelab train --counts" in proc.stderr and "--separator '||'" in proc.stderr


@pytest.mark.parametrize("args, words", [
    (["--out", "{dir}"], "is a folder"),
    (["--scheduler", "tcp://127.0.0.1:1"], "add --engine dask"),
    (["--pattern", "(a"], "pattern"),
])
def test_count_errors_are_one_line(tmp_path, capsys, corpus, args, words):
    args = [a.replace("{dir}", str(tmp_path)) for a in args]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "c.tsv")]
    assert main(["count", str(corpus[0]), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_count_refuses_an_empty_corpus(tmp_path, capsys):
    (tmp_path / "e.txt").write_bytes(b"\xef\xbb\xbf")
    (tmp_path / "s.txt").write_text("<|endoftext|><|endoftext|>")
    assert main(["count", str(tmp_path / "e.txt"), "--out", str(tmp_path / "c.tsv")]) == 2
    assert "the training text is empty" in capsys.readouterr().err
    assert main(["count", str(tmp_path / "s.txt"), "--out", str(tmp_path / "c.tsv")]) == 2
    assert "nothing but special tokens" in capsys.readouterr().err
    assert not (tmp_path / "c.tsv").exists()


def test_count_reports_invalid_utf8_as_train_does(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine\nfine too\nnot \xe2\x28 fine\n")
    assert main(["train", str(path), "--merges", "1", "--out", str(tmp_path / "o")]) == 2
    from_train = capsys.readouterr().err.split(": ", 1)[1]
    assert main(["count", str(path), "--out", str(tmp_path / "c.tsv")]) == 2
    assert capsys.readouterr().err.split(": ", 1)[1] == from_train
    assert "line 3" in from_train


# ------------------------------------------------------------------ Dask


def test_count_on_a_dask_cluster_trains_as_one_process(tmp_path, corpus):
    """Two worker processes count byte ranges of three files (documents, special tokens, a BOM);
    train --counts on their table writes the files of one-process training on the text."""
    local = tmp_path / "local.tsv"
    assert main(["count", *map(str, corpus), "--out", str(local), *SETTINGS, "--quiet"]) == 0
    on_dask = tmp_path / "dask.tsv"
    proc = run("count", *corpus, "--out", on_dask, *SETTINGS, "--engine", "dask", "--workers", "2",
               "--block-size", "97")
    assert proc.returncode == 0, proc.stderr
    assert on_dask.read_bytes() == local.read_bytes()
    for tie in ("first-seen", "greater"):
        train_args = ["--vocab-size", "320", "--tie-break", tie, *SETTINGS, "--quiet"]
        text_dir, counts_dir = tmp_path / f"text-{tie}", tmp_path / f"counts-{tie}"
        proc = run("train", *corpus, *train_args, "--workers", "1", "--out", text_dir)
        assert proc.returncode == 0, proc.stderr
        proc = run("train", "--counts", on_dask, *train_args, "--out", counts_dir)
        assert proc.returncode == 0, proc.stderr
        same_training(text_dir, counts_dir)


def test_count_on_a_running_scheduler(tmp_path, corpus):
    """--scheduler ADDRESS: the count runs on a cluster this test started (two worker processes)."""
    import distributed  # the test extra installs it, as bpelab[dask] does
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  scheduler_port=0, silence_logs=50) as cluster:
        proc = run("count", *corpus, "--out", tmp_path / "c.tsv", *SETTINGS, "--engine", "dask",
                   "--scheduler", cluster.scheduler_address, "--block-size", "50", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert main(["count", *map(str, corpus), "--out", str(tmp_path / "l.tsv"), *SETTINGS, "--quiet"]) == 0
    assert (tmp_path / "c.tsv").read_bytes() == (tmp_path / "l.tsv").read_bytes()


def test_an_unreachable_scheduler_is_one_line(tmp_path, corpus):
    import socket

    with socket.socket() as probe:  # a port nothing listens on: bound here, never listened on
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
        proc = run("count", corpus[0], "--out", tmp_path / "c.tsv", "--engine", "dask", "--scheduler", address,
                   "--timeout", "1")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"bpelab count: cannot reach the Dask scheduler at '{address}'")
    assert "leave out --scheduler" in proc.stderr
    assert not os.path.exists(tmp_path / "c.tsv")
