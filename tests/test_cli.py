"""The `bpelab` command: files byte-identical to the API's, encode/decode/report, errors."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bpelab import train
from bpelab.artifacts import export_files
from bpelab.cli import main
from bpelab.parallel import MIN_PARALLEL_CHARS
from bpelab.train import TrainSettings

TEXT = "low low low low low\nlower lower widest widest widest\nnewest newest newest newest newest newest\n"


def run(*args, stdin=None):
    """Run the CLI in a subprocess, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "bpelab", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(TEXT * 5 + "Xin chào thế giới 新しい 🙂<|endoftext|>second document\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("layout", ["seed", "gpt2"])
def test_train_writes_the_api_bytes(corpus, tmp_path, layout):
    out = tmp_path / "out"
    proc = run("train", str(corpus), "--vocab-size", "300", "--id-layout", layout, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    result = train(corpus.read_text(encoding="utf-8"), TrainSettings(vocab_size=300))
    expected = export_files(result, id_layout=layout)
    assert sorted(os.listdir(out)) == sorted(expected)
    for name, data in expected.items():
        assert (out / name).read_bytes() == data, name


def test_train_settings_reach_the_manifest(corpus, tmp_path):
    out = tmp_path / "out"
    proc = run("train", str(corpus), "--merges", "20", "--pretokenizer", "whitespace", "--tie-break", "first-seen",
               "--min-count", "2", "--special", "<|a|>", "--special", "<|b|>", "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tie_break"] == "first-seen"
    assert manifest["pretokenizer"]["name"] == "whitespace"
    assert manifest["stopping"]["num_merges"] == 20 and manifest["stopping"]["min_count"] == 2
    assert [s["token"] for s in manifest["special_tokens"]] == ["<|a|>", "<|b|>"]


def test_workers_give_identical_files(tmp_path):
    # Many documents separated by special tokens, so the parallel path really cuts.
    text = "<|endoftext|>".join(f"story {i}: the cat sat on mat number {i * 7}. 日本語 {i}" for i in range(3000))
    path = tmp_path / "big.txt"
    path.write_text(text, encoding="utf-8")
    from bpelab import parallel

    one = train(text, vocab_size=400)
    settings = TrainSettings(vocab_size=400)
    saved = parallel.MIN_PARALLEL_CHARS
    parallel.MIN_PARALLEL_CHARS = 0  # force the process pool on this small file
    try:
        table = parallel.count_pieces_parallel([text], settings, 2)
        many = train(text, settings, workers=2)
    finally:
        parallel.MIN_PARALLEL_CHARS = saved
    assert list(table.items()) == [(p.decode(), c) for p, c in one.pieces]
    assert export_files(one) == export_files(many)


def test_encode_decode_round_trip(corpus, tmp_path):
    out = tmp_path / "tok"
    assert run("train", str(corpus), "--vocab-size", "280", "--out", str(out), "--quiet").returncode == 0
    encoded = run("encode", "--tokenizer", str(out), "--text", "the lowest café 🙂")
    assert encoded.returncode == 0, encoded.stderr
    ids = encoded.stdout.split()
    decoded = run("decode", "--tokenizer", str(out), *ids)
    assert decoded.stdout == "the lowest café 🙂"


def test_encode_special_policy(corpus, tmp_path):
    out = tmp_path / "tok"
    run("train", str(corpus), "--vocab-size", "280", "--out", str(out), "--quiet")
    refused = run("encode", "--tokenizer", str(out), "--text", "a<|endoftext|>")
    assert refused.returncode == 2 and "Pass --special allow" in refused.stderr
    allowed = run("encode", "--tokenizer", str(out), "--special", "allow", "--text", "a<|endoftext|>")
    assert allowed.stdout.split() == ["97", "279"]
    as_text = run("encode", "--tokenizer", str(out), "--special", "text", "--format", "json", "--text", "<|endoftext|>")
    assert 279 not in json.loads(as_text.stdout)


def test_report(corpus, tmp_path, capsys):
    out = tmp_path / "tok"
    run("train", str(corpus), "--vocab-size", "280", "--out", str(out), "--quiet")
    held = tmp_path / "held.txt"
    held.write_text("newest widest lower\n", encoding="utf-8")
    assert main(["report", "--tokenizer", str(out), "--json", str(held)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["bytes"] == 20 and stats["words"] == 3 and stats["tokens"] < 20


def test_invalid_utf8_names_the_byte(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"line one\nline \xff two\n")
    proc = run("train", str(bad), "--merges", "3", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2
    assert "invalid UTF-8 at byte 14 (line 2)" in proc.stderr and str(bad) in proc.stderr


def test_a_byte_order_mark_is_not_text_as_on_the_site(tmp_path):
    """The site's TextDecoder drops a leading BOM; the CLI must train on the same characters."""
    plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
    plain.write_bytes(b"hello hello hello")
    marked.write_bytes(b"\xef\xbb\xbfhello hello hello")
    manifests = []
    for path in (plain, marked):
        assert main(["train", str(path), "--merges", "3", "--out", str(tmp_path / path.stem), "--quiet"]) == 0
        manifests.append(json.loads((tmp_path / path.stem / "manifest.json").read_text()))
    assert manifests[1]["corpus"] == manifests[0]["corpus"]
    assert manifests[1]["corpus"]["characters"] == 17
    marked.write_bytes(b"\xef\xbb\xbfline one\nline \xff two\n")  # offsets still count the BOM, as the site's do
    proc = run("train", str(marked), "--merges", "3", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "invalid UTF-8 at byte 17 (line 2)" in proc.stderr


def test_over_the_limit_asks_and_truncate_records(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("abcdefghij" * 10, encoding="utf-8")
    proc = run("train", str(path), "--merges", "3", "--char-limit", "50", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "over the limit of 50" in proc.stderr and "--truncate" in proc.stderr
    proc = run("train", str(path), "--merges", "3", "--char-limit", "50", "--truncate", "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["truncation"] == {"original_characters": 100, "kept_characters": 50}
    assert manifest["char_limit"] == 50 and manifest["corpus"]["characters"] == 50


def test_bad_tokenizer_argument():
    proc = run("encode", "--tokenizer", "/nonexistent/dir", "--text", "x")
    assert proc.returncode == 2 and "neither a directory, a file, nor one of gpt2, cl100k, o200k" in proc.stderr


def test_pattern_and_pretokenizer_together_is_a_usage_error(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("hello hello", encoding="utf-8")
    proc = run("train", str(path), "--merges", "2", "--pretokenizer", "o200k", "--pattern", r"\S+|\s+",
               "--out", str(tmp_path / "o"))
    assert proc.returncode == 2
    assert "--pattern is a custom pre-tokenizer, so --pretokenizer o200k would be ignored" in proc.stderr
    assert main(["train", str(path), "--merges", "2", "--pattern", r"\S+|\s+", "--out", str(tmp_path / "c"), "--quiet"]) == 0
    assert json.loads((tmp_path / "c" / "manifest.json").read_text())["pretokenizer"]["name"] == "custom"
    assert main(["train", str(path), "--merges", "2", "--out", str(tmp_path / "d"), "--quiet"]) == 0
    assert json.loads((tmp_path / "d" / "manifest.json").read_text())["pretokenizer"]["name"] == "gpt2"


@pytest.mark.parametrize("args, message", [
    (["--workers", "0"], "argument --workers: must be at least 1, got 0"),
    (["--workers", "-3"], "argument --workers: must be at least 1, got -3"),
    (["--char-limit", "-5", "--truncate"], "argument --char-limit: must be at least 0, got -5"),
])
def test_counts_below_their_minimum_are_refused(tmp_path, args, message):
    path = tmp_path / "t.txt"
    path.write_text("hello hello", encoding="utf-8")
    proc = run("train", str(path), "--merges", "2", "--out", str(tmp_path / "o"), *args)
    assert proc.returncode == 2 and message in proc.stderr


def test_out_that_is_a_file_is_refused_before_training(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("hello hello", encoding="utf-8")
    proc = run("train", str(path), "--merges", "2", "--out", str(path))
    assert proc.returncode == 2 and "is a file; give a directory" in proc.stderr and "Traceback" not in proc.stderr


def test_standard_input_is_read_as_utf8_like_a_file(tmp_path):
    """Not in the locale's encoding, and with the same BOM and invalid-byte handling as files."""
    env = dict(os.environ, PYTHONIOENCODING="latin-1")
    def encode(data):
        return subprocess.run([sys.executable, "-m", "bpelab", "encode", "--tokenizer", "gpt2"], input=data,
                              capture_output=True, env=env, timeout=120)
    assert encode("é".encode("utf-8")).stdout.split() == [b"2634"]  # GPT-2's single token for é
    assert encode(b"\xef\xbb\xbfhi").stdout.split() == [b"5303"]  # "hi", the BOM dropped
    bad = encode(b"ok\xff")
    assert bad.returncode == 2 and b"standard input: invalid UTF-8 at byte 2 (line 1)" in bad.stderr
    decoded = subprocess.run([sys.executable, "-m", "bpelab", "decode", "--tokenizer", "gpt2", "2634"],
                             capture_output=True, env=env, timeout=120)
    assert decoded.stdout == "é".encode("utf-8")
    for ids in ("١٢", "-1"):
        proc = run("decode", "--tokenizer", "gpt2", ids)
        assert proc.returncode == 2 and "ids must be whole numbers" in proc.stderr


def test_ctrl_c_while_workers_count_ends_the_run_at_once(tmp_path):
    """SIGINT goes to the whole process group, as from a terminal: the pool must not hang or spew tracebacks."""
    path = tmp_path / "big.txt"
    rng = random.Random(5)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = [" " + "".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(1_250_000)]
    text = "".join(words)
    assert len(text) >= MIN_PARALLEL_CHARS  # large enough for the pool to start
    path.write_text(text, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "bpelab", "train", str(path), "--merges", "3000", "--workers", "2",
                             "--char-limit", "0", "--out", str(tmp_path / "o"), "--quiet"],
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    # Interrupt once the pool's processes exist, so the test is about the pool.
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + 30
    while proc.poll() is None and not children.read_text().split():
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("bpelab train started no worker processes within 30 s")
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, stderr = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("bpelab train did not end within 20 s of Ctrl-C")
    assert proc.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr, stderr


# One pool, started and counted in a process of its own; exit 130 on Ctrl-C, as the CLI does.
ONE_POOL = """
import sys
from bpelab import parallel
from bpelab.train import TrainSettings
parallel.MIN_PARALLEL_CHARS = 0
try:
    parallel.count_pieces_parallel([" the cat sat on the mat" * 40_000], TrainSettings(num_merges=1), 2)
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_ctrl_c_while_the_pool_starts_leaves_no_worker_behind():
    """A Ctrl-C between the pool's forks once left a worker alive after bpelab exited, holding its stderr open.

    Each trial interrupts within 2 ms of the first worker's start, while the pool
    is still starting the next: the run must end, with every process of its group.
    Before the fix, about one trial in six hung.
    """
    rng = random.Random(16)
    interrupted = 0
    for trial in range(20):
        proc = subprocess.Popen([sys.executable, "-c", ONE_POOL], stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        while proc.poll() is None and not children.read_text().split():
            pass  # no sleep: the window between two forks is short
        time.sleep(rng.random() * 0.002)
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass  # the run ended (and poll() reaped it) before the interrupt: a trial that missed its window
        try:
            _, stderr = proc.communicate(timeout=20)  # returns once no process holds the stderr pipe
        except subprocess.TimeoutExpired:
            left = subprocess.run(["ps", "-o", "pid,ppid,stat,args", "-s", str(proc.pid)], capture_output=True, text=True)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            pytest.fail(f"trial {trial}: the run or one of its workers was still alive 20 s after Ctrl-C:\n{left.stdout}")
        assert proc.returncode in (0, 130) and "Traceback" not in stderr, stderr
        interrupted += proc.returncode == 130
    assert interrupted >= 10, f"only {interrupted} of 20 trials were interrupted while counting: the test missed its window"


def test_contradictory_or_doubled_inputs_are_usage_errors_not_silent_choices(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("hello hello", encoding="utf-8")
    proc = run("train", str(path), "--merges", "2", "--no-special", "--special", "<x>", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "--no-special and --special contradict each other" in proc.stderr
    proc = run("encode", "--tokenizer", "gpt2", "--text", "hi", str(path))
    assert proc.returncode == 2 and "either with --text or as the file" in proc.stderr


def test_a_special_token_spelling_says_which_flag_to_pass():
    proc = run("encode", "--tokenizer", "gpt2", "--text", "a<|endoftext|>b")
    assert proc.returncode == 2
    assert "text contains the special token '<|endoftext|>' at character 1" in proc.stderr
    assert "Pass --special allow" in proc.stderr and "allowed_special" not in proc.stderr
