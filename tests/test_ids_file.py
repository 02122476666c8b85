"""`bpelab encode FILE --out ids.bin` and `bpelab decode --ids ids.bin` (ids_file.py): the same ids as encoding
the whole text at once, for any ranges, reads and workers; the sidecar; the refusals; bounded memory."""

import array
import json
import os
import subprocess
import sys
import textwrap

import pytest

from bpelab import cli, ids_file, train
from bpelab.openai_vocab import load_reference

_TEXT = ("Hello wörld, ça va? 中文。\n日本語のテキスト。\r\n Привет,  мир!\t12345 don't 🙂👍🏽 e\u0301 "
         "<|endoftext|> x<|endoftext|>y\n\n")


def _tokenizer_arg(name, tmp_path):
    """A --tokenizer argument: a reference name, or the folder of a tokenizer trained here."""
    if name in ("gpt2", "cl100k", "o200k"):
        return name
    folder = tmp_path / f"tok-{name}"
    if not folder.exists():
        pattern = [] if name != "custom" else ["--pattern", r" ?\p{L}+|\s+|."]
        corpus = tmp_path / "corpus.txt"
        corpus.write_text(_TEXT * 3, encoding="utf-8")
        pretokenizer = [] if name == "custom" else ["--pretokenizer", name]
        assert cli.main(["train", str(corpus), "--merges", "60", *pretokenizer, *pattern, "--out", str(folder),
                         "--quiet"]) == 0
    return str(folder)


def _read_back(path, dtype):
    ids = array.array(ids_file.DTYPES[dtype])
    ids.frombytes(path.read_bytes())
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tolist()


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("tokenizer", ["gpt2", "cl100k", "o200k", "bytes", "custom"])
@pytest.mark.parametrize("case, text", [
    ("special tokens at range edges", "a <|endoftext|> b<|endoftext|><|endoftext|>c \n" * 8),
    ("CR LF at range edges", "one\r\ntwo\r\n\r\nthree \r\n four\r\n" * 8),
    ("multibyte characters across reads", "é中🙂 👍🏽 ж e\u0301 中文。\n日本 " * 8),
    ("a mix", _TEXT * 4),
])
@pytest.mark.parametrize("special", ["allow", "text"])
def test_encode_out_equals_encoding_the_whole_text(tmp_path, monkeypatch, workers, tokenizer, case, text, special):
    """Tiny reads (3 bytes: every multibyte character is split) and tiny ranges (7 bytes: ranges end
    next to every special token and line end), in one process or two."""
    monkeypatch.setattr(ids_file, "READ_BYTES", 3)
    monkeypatch.setattr(ids_file, "RANGE_BYTES", 7)
    source = tmp_path / "text.txt"
    source.write_bytes(text.encode("utf-8"))
    spec = _tokenizer_arg(tokenizer, tmp_path)
    tok = cli.load_tokenizer(spec)
    policy = {"allowed_special": "all"} if special == "allow" else {"disallowed_special": ()}
    expected = tok.encode(text, **policy)
    out = tmp_path / "ids.bin"
    assert cli.main(["encode", str(source), "--tokenizer", spec, "--special", special, "--out", str(out),
                     "--workers", str(workers), "--quiet"]) == 0
    sidecar = json.loads((tmp_path / "ids.bin.json").read_text("utf-8"))
    assert _read_back(out, sidecar["dtype"]) == expected, case
    assert sidecar["count"] == len(expected) and sidecar["tokenizer_sha256"] == tok.sha256()


def test_ranges_start_at_cut_points_whatever_the_offset(tmp_path):
    """Every planned range of a real text starts at a cut point, and encoding range by range gives the whole text's ids."""
    tok = load_reference("o200k")
    text = "x Привет, мир! 中文。\n日本語\r\n\t  words  and\u3000more/slashes\n" * 40
    path = tmp_path / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    cuts = ids_file.CutPoints(tok.pretokenizer)
    expected = tok.encode_ordinary(text)
    for size in (1, 2, 5, 13, 64):
        with open(path, "rb") as handle:
            ranges = ids_file.plan_ranges(handle, path.stat().st_size, cuts, size)
        data = path.read_bytes()
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
        ids = [i for start, end in ranges for i in tok.encode_ordinary(data[start:end].decode("utf-8"))]
        assert ids == expected, size


@pytest.mark.parametrize("tokenizer, dtype", [("gpt2", "uint16"), ("cl100k", "uint32"), ("o200k", "uint32"),
                                              ("gpt2", "uint32")])
def test_decode_ids_reads_the_file_back(tmp_path, capsysbinary, tokenizer, dtype):
    source = tmp_path / "text.txt"
    source.write_bytes(_TEXT.encode("utf-8") * 5)
    out = tmp_path / "ids.bin"
    assert cli.main(["encode", str(source), "--tokenizer", tokenizer, "--special", "allow", "--out", str(out),
                     "--dtype", dtype, "--quiet"]) == 0
    sidecar = json.loads(out.with_name("ids.bin.json").read_text("utf-8"))
    assert sidecar["dtype"] == dtype and out.stat().st_size == sidecar["count"] * (2 if dtype == "uint16" else 4)
    assert sidecar["format"] == "bpelab ids" and sidecar["byte_order"] == "little" and sidecar["source"] == "text.txt"
    capsysbinary.readouterr()
    assert cli.main(["decode", "--tokenizer", tokenizer, "--ids", str(out)]) == 0
    assert capsysbinary.readouterr().out == source.read_bytes()
    out.with_name("ids.bin.json").unlink()  # without the sidecar, --dtype says how to read it
    assert cli.main(["decode", "--tokenizer", tokenizer, "--ids", str(out), "--dtype", dtype]) == 0
    assert capsysbinary.readouterr().out == source.read_bytes()


@pytest.mark.parametrize("tokenizer, expected", [("gpt2", "uint16"), ("cl100k", "uint32"), ("o200k", "uint32"),
                                                 ("bytes", "uint16")])
def test_the_default_dtype_is_the_smallest_that_holds_the_vocabulary(tmp_path, tokenizer, expected):
    source = tmp_path / "text.txt"
    source.write_text("hello", encoding="utf-8")
    out = tmp_path / "ids.bin"
    assert cli.main(["encode", str(source), "--tokenizer", _tokenizer_arg(tokenizer, tmp_path), "--out", str(out),
                     "--quiet"]) == 0
    assert json.loads(out.with_name("ids.bin.json").read_text("utf-8"))["dtype"] == expected


def _run(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "bpelab", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env=env)


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "text.txt").write_text("hello world\n", encoding="utf-8")
    (tmp_path / "mine.bin").write_bytes(b"someone's data")
    (tmp_path / "folder").mkdir()
    (tmp_path / "link.bin").symlink_to(tmp_path / "mine.bin")
    return tmp_path


@pytest.mark.parametrize("args, message", [
    (["encode", "text.txt", "--tokenizer", "cl100k", "--out", "x.bin", "--dtype", "uint16"],
     r"--dtype uint16 holds ids up to 65,535, but this tokenizer's go up to 100,276 .*use --dtype uint32"),
    (["encode", "text.txt", "--tokenizer", "o200k", "--out", "x.bin", "--dtype", "uint16"],
     r"--dtype uint16 holds ids up to 65,535, but this tokenizer's go up to 200,018"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--out", ""], r"--out is empty"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--out", "mine.bin"],
     r"--out 'mine.bin' exists and is not an ids file bpelab wrote .* or --force to replace it"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--out", "text.txt"], r"is the file being encoded"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--out", "text.txt", "--force"], r"is the file being encoded"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--out", "link.bin"], r"is a symbolic link"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--out", "folder"], r"is a folder; give a file name"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--out", "missing/x.bin"], r"the folder .*missing.* does not exist"),
    (["encode", "--text", "hi", "--tokenizer", "gpt2", "--out", "x.bin"], r"--out encodes a FILE"),
    (["encode", "folder", "--tokenizer", "gpt2", "--out", "x.bin"], r"cannot read folder: it is a folder"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--out", "x.bin", "--format", "json"],
     r"--format is for standard output"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--dtype", "uint16"], r"--dtype is for writing an ids file"),
    (["encode", "text.txt", "--tokenizer", "gpt2", "--workers", "2"], r"--workers is for writing an ids file"),
    (["decode", "--tokenizer", "gpt2", "--ids", "mine.bin"], r"has no sidecar .*mine.bin.json.* give --dtype uint16 or uint32"),
    (["decode", "--tokenizer", "gpt2", "--ids", "mine.bin", "--dtype", "uint32"],
     r"'mine.bin' is 14 bytes, not a whole number of uint32 ids"),
    (["decode", "--tokenizer", "gpt2", "--ids", "missing.bin"], r"--ids 'missing.bin': no such file"),
    (["decode", "--tokenizer", "gpt2", "--ids", "folder"], r"--ids 'folder': it is a folder"),
    (["decode", "--tokenizer", "gpt2", "--dtype", "uint16", "1", "2"], r"--dtype is for an ids file"),
    (["decode", "--tokenizer", "gpt2", "--ids", "mine.bin", "--dtype", "uint16", "1"],
     r"give the ids either as arguments or with --ids FILE, not both"),
])
def test_refusals(files, args, message):
    proc = _run(*args, cwd=files)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    import re
    assert re.search(message, lines[0]), lines[0]
    assert (files / "mine.bin").read_bytes() == b"someone's data" and (files / "text.txt").read_text() == "hello world\n"
    assert not [name for name in os.listdir(files) if name.startswith(".")], "a staging file was left behind"


def test_an_ids_file_is_replaced_but_someone_elses_file_only_with_force(files):
    assert _run("encode", "text.txt", "--tokenizer", "gpt2", "--out", "ids.bin", cwd=files).returncode == 0
    first = (files / "ids.bin").read_bytes()
    (files / "text.txt").write_text("other words here\n", encoding="utf-8")
    assert _run("encode", "text.txt", "--tokenizer", "gpt2", "--out", "ids.bin", cwd=files).returncode == 0
    assert (files / "ids.bin").read_bytes() != first  # ours: replaced without --force
    assert _run("encode", "text.txt", "--tokenizer", "gpt2", "--out", "mine.bin", "--force", cwd=files).returncode == 0
    assert json.loads((files / "mine.bin.json").read_text("utf-8"))["count"] == 4  # other, " words", " here", "\n"


@pytest.mark.parametrize("change, message", [
    ("tokenizer", r"was written by another tokenizer .*records sha256 .*give the tokenizer it was written with"),
    ("cut", r"is 4 bytes, but .*records 3 uint16 ids \(6 bytes\): it is cut short"),
    ("dtype", r"--dtype uint32 contradicts .*which says uint16"),
    ("sidecar", r"is not a bpelab ids sidecar: its \"format\" is not 'bpelab ids'"),
])
def test_decode_checks_the_sidecar(files, change, message):
    assert _run("encode", "text.txt", "--tokenizer", "gpt2", "--out", "ids.bin", cwd=files).returncode == 0
    args = ["decode", "--tokenizer", "gpt2", "--ids", "ids.bin"]
    if change == "tokenizer":
        args[2] = "cl100k"
    elif change == "cut":
        (files / "ids.bin").write_bytes((files / "ids.bin").read_bytes()[:4])
    elif change == "dtype":
        args += ["--dtype", "uint32"]
    else:
        (files / "ids.bin.json").write_text('{"format": "other"}', encoding="utf-8")
    proc = _run(*args, cwd=files)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    import re
    assert re.search(message, proc.stderr), proc.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_errors_in_a_file_name_its_byte_and_line(tmp_path, monkeypatch, capsys, workers):
    """In any range: the byte offset and the line are counted in the whole file, and no output is left."""
    monkeypatch.setattr(ids_file, "RANGE_BYTES", 16)
    monkeypatch.setattr(ids_file, "READ_BYTES", 5)
    lines = [f"line {i} with some words\n".encode() for i in range(30)]
    bad = b"".join(lines[:20]) + b"caf\xe9 " + b"".join(lines[20:])
    special = b"".join(lines[:25]) + "中文 <|endoftext|>\n".encode() + b"".join(lines[25:])
    for data, message in ((bad, f"invalid UTF-8 at byte {len(b''.join(lines[:20])) + 3} (line 21)"),
                          (special, f"the special token '<|endoftext|>' at byte {len(b''.join(lines[:25])) + 7} "
                                    "(line 26). Pass --special allow")):
        source = tmp_path / "text.txt"
        source.write_bytes(data)
        out = tmp_path / "ids.bin"
        capsys.readouterr()
        assert cli.main(["encode", str(source), "--tokenizer", "gpt2", "--out", str(out), "--workers", workers,
                         "--quiet"]) == 2
        assert f"bpelab encode: {source}: {message}" in capsys.readouterr().err
        assert not out.exists() and not [p for p in os.listdir(tmp_path) if p.startswith(".")]


def test_the_progress_bar_counts_megabytes(tmp_path):
    source = tmp_path / "text.txt"
    source.write_text("some words " * 100_000, encoding="utf-8")
    proc = _run("encode", str(source), "--tokenizer", "gpt2", "--out", str(tmp_path / "ids.bin"),
                env=dict(os.environ, BPELAB_PROGRESS="1"))
    assert proc.returncode == 0, proc.stderr
    assert "encoding [##############################] 1.1/1.1 MB" in proc.stderr
    assert "ids (uint16) from 1,100,000 bytes with 1 worker" in proc.stderr


# ---------------------------------------------------------------- memory

_PEAK = textwrap.dedent("""
    import json, resource, sys
    from bpelab.cli import main
    code = main(sys.argv[1:])
    # This process's peak from /proc: its ru_maxrss would also count the test process it was forked from
    # before exec (Linux keeps that high-water mark across exec).
    with open("/proc/self/status") as status:
        own = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest worker's peak (KiB)
    print(json.dumps({"code": code, "own_kib": own, "largest_worker_kib": workers}), file=sys.stderr)
""")


def _peak(*args, cwd):
    """(exit code, peak MB, stderr): the process's own peak RSS plus, per worker, the largest worker's (pages the
    workers share with it are counted again in each: an upper bound)."""
    proc = subprocess.run([sys.executable, "-c", _PEAK, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, timeout=900, cwd=cwd)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    workers = int(args[args.index("--workers") + 1]) if "--workers" in args else 1
    total = report["own_kib"] + (workers * report["largest_worker_kib"] if workers > 1 else 0)
    return report["code"], total / 1024, proc.stderr


def test_a_1_gb_file_encodes_within_200_mb(tmp_path):
    """Issue 23: at most 200 MB peak for a 1 GB input, at any worker count (this machine's cores, at most).

    Long words that the trained tokenizer makes one or two tokens each keep it
    fast: the point is the memory of reading, cutting, encoding and writing,
    which does not depend on the words. The ids are checked against encoding
    one 1 MiB block, which the file repeats (a block ends where a cut point is)."""
    words = [unit * (1000 // len(unit)) for unit in ("abcd", "xyz", "mnop", "qrs", "tuvw", "efg", "hijk", "lmn")]
    line = " ".join(words) + "\n"
    block = (line * (2**20 // len(line) + 1))[:2**20]
    block = block[:block.rindex("\n") + 1]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(line * 20, encoding="utf-8")
    assert cli.main(["train", str(corpus), "--merges", "300", "--out", str(tmp_path / "tok"), "--quiet"]) == 0
    tok = cli.load_tokenizer(str(tmp_path / "tok"))
    block_ids = array.array("H", tok.encode(block)).tobytes()
    big = tmp_path / "big.txt"
    repeats = 2**30 // len(block)
    with open(big, "wb") as handle:
        data = block.encode("ascii")
        for _ in range(repeats):
            handle.write(data)
    assert big.stat().st_size >= 0.99 * 2**30
    try:
        for workers in sorted({1, min(2, os.cpu_count() or 1)}):
            out = tmp_path / f"ids-{workers}.bin"
            code, peak_mb, stderr = _peak("encode", str(big), "--tokenizer", str(tmp_path / "tok"), "--out", str(out),
                                          "--workers", str(workers), "--quiet", cwd=tmp_path)
            assert code == 0, stderr
            assert peak_mb <= 200, f"{workers} worker(s): {peak_mb:.0f} MB; {stderr[-300:]}"
            assert out.stat().st_size == repeats * len(block_ids)
            with open(out, "rb") as handle:
                for _ in range(repeats):
                    assert handle.read(len(block_ids)) == block_ids
            out.unlink()
    finally:
        big.unlink()


def test_encoding_and_decoding_to_standard_output_stream(tmp_path):
    """Issue 25: 20 MB encoded to standard output peaked at 478 MB, 10 million ids decoded at 1.7 GB."""
    text = "Some words, and some more words; numbers 1234 and ünïcödé 中文.\n"
    source = tmp_path / "text.txt"
    with open(source, "w", encoding="utf-8") as handle:
        for _ in range(20_000_000 // len(text.encode("utf-8"))):
            handle.write(text)
    code, peak_mb, stderr = _peak("encode", str(source), "--tokenizer", "gpt2", cwd=tmp_path)
    assert code == 0 and peak_mb <= 150, (peak_mb, stderr[-500:])
    ids = array.array("H", [31373, 995] * 5_000_000)
    (tmp_path / "ten.bin").write_bytes(ids.tobytes())
    code, peak_mb, stderr = _peak("decode", "--tokenizer", "gpt2", "--ids", "ten.bin", "--dtype", "uint16", cwd=tmp_path)
    assert code == 0 and peak_mb <= 150, (peak_mb, stderr[-500:])
