"""Files for any tokenizer the site holds, and the "download all" zip.

A tokenizer trained here is exported by `artifacts.export_files` (with the
manifest of its training run). An imported or reference tokenizer has no
training run; `tokenizer_files` writes it in every format with its own ids,
so the site converts between GPT-2 files, `tokenizer.json` and `.tiktoken`:

- `encoder.json` + `vocab.bpe` (GPT-2's conventions),
- `tokenizer.json` (Hugging Face, byte-level BPE),
- `tokenizer.tiktoken` (tiktoken's ranks: ids are ranks),
- `manifest.json`: a BPE Lab manifest saying where the tokenizer came from,
  its pre-tokenizer and special tokens (which a .tiktoken file cannot hold),
  and the digest of each file.

`check_files` loads each format back and compares its ids on a sample with
the original's; `make_zip` packs files with DEFLATE and fixed timestamps, so
the same files always give the same zip.
"""

import hashlib
import io
import json
import zipfile

from . import __version__, artifacts

ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the zip format's earliest date: the same files give the same bytes
ZIP_LEVEL = 1  # GPT-2 in every format (4.4 MB): level 1 takes 0.05 s for 1.73 MB, level 6 0.47 s for 1.53 MB, stored 0.008 s
# A sample for the self-check of a tokenizer that has no training text: several scripts, digits, an emoji.
CHECK_SAMPLE = (
    "Hello world! It's 2024: naïve café, 12345 and 678.\n"
    "Съешь же ещё этих мягких французских булок. 敏捷的棕色狐狸。 東京 🙂  tabs\tand   spaces\n"
)


def tokenizer_files(tokenizer, *, name="", source="imported"):
    """{filename: bytes} of a tokenizer in every format, with its own ids.

    >>> from bpelab.tokenizer import Tokenizer
    >>> sorted(tokenizer_files(Tokenizer.bytes_only()))
    ['encoder.json', 'manifest.json', 'tokenizer.json', 'tokenizer.tiktoken', 'vocab.bpe']
    """
    encoder_json, vocab_bpe = artifacts.to_gpt2_files(tokenizer)
    files = {
        "encoder.json": encoder_json.encode("utf-8"),
        "vocab.bpe": vocab_bpe.encode("utf-8"),
        "tokenizer.json": artifacts.to_hf_tokenizer_json(tokenizer).encode("utf-8"),
        artifacts.TIKTOKEN_FILENAME: artifacts.to_tiktoken(tokenizer),
    }
    pretokenizer = tokenizer.pretokenizer
    manifest = {
        "format": artifacts.MANIFEST_FORMAT,
        "format_version": artifacts.MANIFEST_VERSION,
        "tool": "bpelab",
        "tool_version": __version__,
        "algorithm": "byte-level BPE",
        "byte_map": "GPT-2 bytes_to_unicode",
        "source": source,
        "name": name or tokenizer.name,
        "id_layout": artifacts.id_layout_of(tokenizer),
        "pretokenizer": {"name": pretokenizer.name, "pattern": pretokenizer.pattern},
        "special_tokens": [{"token": s, "id": i} for s, i in sorted(tokenizer.special_tokens.items(), key=lambda x: x[1])],
        "vocab_size": len(tokenizer.vocab) + len(tokenizer.special_tokens),
        "merges": len(files["vocab.bpe"].splitlines()) - 1,
        "merges_sha256": _sha256(files["vocab.bpe"]),
        "vocab_sha256": _sha256(files["encoder.json"]),
        "files": {n: {"bytes": len(data), "sha256": _sha256(data)} for n, data in sorted(files.items())},
    }
    files["manifest.json"] = (json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    return files


def check_files(files, tokenizer, sample=CHECK_SAMPLE):
    """Load each format back (with the manifest) and compare its ids on `sample` with the tokenizer's.

    Returns {"ok", "checked": [format...], "failed": [format...], "tokens", "sample_chars", "message"}.
    """
    expected = tokenizer.encode(sample, allowed_special="all")
    manifest = {"manifest.json": files["manifest.json"]} if "manifest.json" in files else {}
    formats = {
        "encoder.json + vocab.bpe": {"encoder.json": files["encoder.json"], "vocab.bpe": files["vocab.bpe"]},
        "tokenizer.json": {"tokenizer.json": files["tokenizer.json"]},
        artifacts.TIKTOKEN_FILENAME: {artifacts.TIKTOKEN_FILENAME: files[artifacts.TIKTOKEN_FILENAME]},
    }
    failed = {}
    for label, chosen in formats.items():
        try:
            got = artifacts.load_files({**chosen, **manifest}).encode(sample, allowed_special="all")
        except Exception as error:  # the check reports every failure, it never hides one
            failed[label] = f"does not load back: {error}"
            continue
        if got != expected:
            failed[label] = "loads back but encodes the sample differently"
    ok = not failed
    if ok:
        message = f"Self-check passed: every format loads back and encodes the sample ({len(expected)} tokens) identically."
    else:
        message = "Self-check FAILED for " + "; ".join(f"{label} ({why})" for label, why in failed.items()) + "."
    return {"ok": ok, "checked": list(formats), "failed": sorted(failed), "tokens": len(expected),
            "sample_chars": len(sample), "message": message}


def make_zip(files, *, compress=True):
    """One .zip of {filename: bytes}, DEFLATE-compressed (or stored), with fixed timestamps.

    >>> data = make_zip({"a.txt": b"aaaa" * 100})
    >>> zipfile.ZipFile(io.BytesIO(data)).read("a.txt") == b"aaaa" * 100
    True
    """
    buffer = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(buffer, "w", compression=method, compresslevel=ZIP_LEVEL if compress else None) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = method
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, compress_type=method, compresslevel=ZIP_LEVEL if compress else None)
    return buffer.getvalue()


def _sha256(data):
    return hashlib.sha256(data).hexdigest()
