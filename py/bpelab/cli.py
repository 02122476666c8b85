"""The `bpelab` command: train, encode, decode, report, serve.

This module does the file I/O; everything else works on values, so the files
written here are byte for byte the ones the site offers for download.
"""

import argparse
import json
import os
import sys
import time

from . import __version__
from .artifacts import ID_LAYOUTS, ArtifactError, export_files, load_files
from .pretokenize import PRETOKENIZER_NAMES
from .report import compression
from .tokenizer import DisallowedSpecialError
from .train import (
    CHAR_LIMIT,
    DEFAULT_SPECIAL_TOKENS,
    TIE_BREAKS,
    TrainSettings,
    check_char_limit,
    train,
    truncate_documents,
)

REFERENCE_NAMES = ("gpt2", "cl100k", "o200k")


class UsageError(Exception):
    """A mistake in the command line or its files; printed without a traceback."""


def read_text_file(path):
    """A file's text; invalid UTF-8 is an error naming the byte and line.

    A leading byte order mark is dropped, as the site's TextDecoder drops
    it: it marks the encoding and is not part of the text.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    return decode_utf8(data, path)


def read_stdin():
    """Standard input as UTF-8, whatever the locale says, read as files are."""
    return decode_utf8(sys.stdin.buffer.read(), "standard input")


def decode_utf8(data, path):
    """Text of UTF-8 bytes, without a leading BOM; invalid UTF-8 is a UsageError naming byte and line."""
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        return data[bom:].decode("utf-8")
    except UnicodeDecodeError as error:
        start = bom + error.start  # counted in the file, BOM included
        line = data[:start].count(b"\n") + 1
        raise UsageError(
            f"{path}: invalid UTF-8 at byte {start} (line {line}): {data[start:start + 4]!r}; "
            "save the file as UTF-8"
        ) from None


class ProgressBar:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, label, stream=sys.stderr):
        self.label = label
        self.stream = stream
        self.started = time.monotonic()
        self.last = 0.0
        self.enabled = stream.isatty() or os.environ.get("BPELAB_PROGRESS") == "1"

    def __call__(self, done, total):
        now = time.monotonic()
        if self.enabled and (now - self.last > 0.1 or done == total):
            self.last = now
            width = 30
            filled = width * done // total if total else width
            self.stream.write(
                f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {now - self.started:5.1f}s"
            )
            if done == total:
                self.stream.write("\n")
            self.stream.flush()
        return True


def _settings(args):
    if args.no_special and args.special:
        raise UsageError("--no-special and --special contradict each other; give one of them")
    specials = () if args.no_special else tuple(args.special or DEFAULT_SPECIAL_TOKENS)
    if args.pattern and args.pretokenizer:
        raise UsageError(
            f"--pattern is a custom pre-tokenizer, so --pretokenizer {args.pretokenizer} would be ignored; give one of them"
        )
    pretokenizer = "custom" if args.pattern else args.pretokenizer or "gpt2"
    return TrainSettings(
        vocab_size=args.vocab_size,
        num_merges=args.merges,
        pretokenizer=pretokenizer,
        pattern=args.pattern,
        tie_break=args.tie_break,
        min_count=args.min_count,
        special_tokens=specials,
        document_separator=args.separator,
    )


def cmd_train(args):
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out!r} is a file; give a directory (it is made if missing)")
    documents = [read_text_file(path) for path in args.files]
    limit = None if args.char_limit == 0 else args.char_limit
    truncation = None
    if args.truncate:
        documents, truncation = truncate_documents(documents, limit)
    else:
        check_char_limit(documents, limit)
    settings = _settings(args)
    bar = ProgressBar("merges") if not args.quiet else None
    started = time.monotonic()
    result = train(documents, settings, on_progress=bar, workers=args.workers)
    files = export_files(result, id_layout=args.id_layout, char_limit=limit, truncation=truncation)
    try:
        os.makedirs(args.out, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(args.out, name), "wb") as handle:
                handle.write(data)
    except OSError as error:
        raise UsageError(f"cannot write the files to {args.out!r}: {error.strerror}") from None
    if not args.quiet:
        print(
            f"{len(result.merges)} merges, vocabulary {len(result.tokenizer.vocab) + len(result.tokenizer.special_tokens)}"
            f" (stopped: {result.stop_reason}) in {time.monotonic() - started:.2f}s; "
            f"wrote {', '.join(files)} to {args.out}",
            file=sys.stderr,
        )
    return 0


def load_tokenizer(spec):
    """A tokenizer from a directory of files, one file, or a reference name."""
    if spec in REFERENCE_NAMES:
        from .openai_vocab import load_reference

        return load_reference(spec)
    paths = []
    if os.path.isdir(spec):
        paths = [os.path.join(spec, name) for name in sorted(os.listdir(spec))]
        paths = [p for p in paths if p.endswith((".json", ".bpe", ".tiktoken", ".txt"))]
    elif os.path.isfile(spec):
        paths = [spec]
    else:
        raise UsageError(
            f"--tokenizer {spec!r} is neither a directory, a file, nor one of {', '.join(REFERENCE_NAMES)}"
        )
    files = {}
    for path in paths:
        with open(path, "rb") as handle:
            files[os.path.basename(path)] = handle.read()
    return load_files(files)


def _input_text(args):
    if args.text is not None and args.file:
        raise UsageError(f"give the text either with --text or as the file {args.file!r}, not both")
    if args.text is not None:
        return args.text
    if args.file:
        return read_text_file(args.file)
    return read_stdin()


def cmd_encode(args):
    tokenizer = load_tokenizer(args.tokenizer)
    text = _input_text(args)
    if args.special == "allow":
        ids = tokenizer.encode(text, allowed_special="all")
    elif args.special == "text":
        ids = tokenizer.encode_ordinary(text)
    else:
        try:
            ids = tokenizer.encode(text)
        except DisallowedSpecialError as error:
            where = str(error).split(". To encode it", 1)[0]
            raise UsageError(f"{where}. Pass --special allow to encode it as the special token, "
                             "or --special text to encode it as ordinary text") from None
    if args.format == "json":
        print(json.dumps(ids))
    elif args.format == "tokens":
        print(" | ".join(tokenizer.token_bytes(i).decode("utf-8", "backslashreplace") for i in ids))
    else:
        print(" ".join(map(str, ids)))
    return 0


def cmd_decode(args):
    tokenizer = load_tokenizer(args.tokenizer)
    raw = " ".join(args.ids) if args.ids else read_stdin()
    words = raw.replace(",", " ").replace("[", " ").replace("]", " ").split()
    if not all(word.isascii() and word.isdigit() for word in words):  # int() would also take "١٢" or "-1"
        raise UsageError(f"ids must be whole numbers separated by spaces or commas, got {raw[:60]!r}")
    ids = [int(word) for word in words]
    try:
        text = tokenizer.decode(ids, errors=args.errors)
    except UnicodeDecodeError as error:
        raise UsageError(f"the ids do not decode to UTF-8 text ({error.reason} at byte {error.start}); "
                         "pass --errors replace to show such bytes as U+FFFD") from None
    # As UTF-8 bytes, whatever the locale's encoding (the ids encode UTF-8).
    sys.stdout.buffer.write(text.encode("utf-8") + (b"\n" if sys.stdout.isatty() else b""))
    sys.stdout.flush()
    return 0


def cmd_report(args):
    tokenizer = load_tokenizer(args.tokenizer)
    documents = [read_text_file(path) for path in args.files]
    stats = compression(tokenizer, documents)
    if args.json:
        print(json.dumps(stats, indent=2, sort_keys=True))
        return 0
    rows = [
        ("documents", stats["documents"]),
        ("bytes", stats["bytes"]),
        ("characters", stats["characters"]),
        ("words", stats["words"]),
        ("tokens", stats["tokens"]),
        ("bytes per token", stats["bytes_per_token"]),
        ("characters per token", stats["characters_per_token"]),
        ("tokens per word", stats["tokens_per_word"]),
        ("entries used", f"{stats['entries_used']} of {stats['vocab_size']}"),
    ]
    for label, value in rows:
        shown = f"{value:,.3f}" if isinstance(value, float) else (f"{value:,}" if isinstance(value, int) else value)
        print(f"{label:>22}  {shown}")
    return 0


def cmd_serve(args):
    from .serve import serve

    if not os.path.isfile(os.path.join(args.dir, "index.html")):
        raise UsageError(f"{args.dir!r} holds no built site (index.html); build it with `npm run build`")
    try:
        serve(args.dir, host=args.host, port=args.port)
    except OSError as error:  # port taken or out of range, unknown host
        raise UsageError(f"cannot serve on {args.host}:{args.port}: {error.strerror or error}; "
                         "pick another --port (0 picks a free one) or --host") from None
    return 0


def _count(minimum, maximum=None):
    """An argparse type: a whole number from `minimum` to `maximum` (no upper bound if None)."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            span = f"at least {minimum}" if maximum is None else f"from {minimum} to {maximum}"
            raise argparse.ArgumentTypeError(f"must be {span}, got {value}")
        return value
    return parse


def build_parser():
    parser = argparse.ArgumentParser(prog="bpelab", description="Train, inspect and use byte-level BPE tokenizers.")
    parser.add_argument("--version", action="version", version=f"bpelab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("train", help="train a tokenizer and write its files")
    p.add_argument("files", nargs="+", help="UTF-8 text files; each is one document")
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--vocab-size", type=int, help="bytes + merges + special tokens")
    size.add_argument("--merges", type=int, help="number of merges to learn")
    p.add_argument("--pretokenizer", choices=PRETOKENIZER_NAMES, help="default: gpt2")
    p.add_argument("--pattern", help="a custom pre-tokenizer pattern (regex syntax, \\p{L} allowed)")
    p.add_argument("--tie-break", choices=TIE_BREAKS, default="greater")
    p.add_argument("--min-count", type=int, default=1, help="stop when the best pair is rarer than this")
    p.add_argument("--special", action="append", help="a special token (repeat for several); default <|endoftext|>")
    p.add_argument("--no-special", action="store_true", help="no special tokens")
    p.add_argument("--separator", help="split each file into documents at this string")
    p.add_argument("--id-layout", choices=ID_LAYOUTS, default="seed")
    p.add_argument("--char-limit", type=_count(0), default=CHAR_LIMIT, help=f"default {CHAR_LIMIT:,}; 0 for none")
    p.add_argument("--truncate", action="store_true", help="over the limit, train on the first --char-limit characters")
    p.add_argument(
        "--workers",
        type=_count(1),
        default=os.cpu_count() or 1,
        help="processes for pre-tokenizing large inputs (default and most: one per core; the files are the same for any N)",
    )
    p.add_argument("--out", required=True, help="directory for the files")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_train)

    for name, func, help_text in (("encode", cmd_encode, "text to ids"), ("decode", cmd_decode, "ids to text")):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--tokenizer", required=True, help=f"a directory of files, a file, or {'|'.join(REFERENCE_NAMES)}")
        if name == "encode":
            p.add_argument("file", nargs="?", help="a UTF-8 file (default: standard input)")
            p.add_argument("--text", help="the text itself")
            p.add_argument(
                "--special",
                choices=("raise", "allow", "text"),
                default="raise",
                help="special-token spellings: refuse (default), encode as specials, or as text",
            )
            p.add_argument("--format", choices=("ids", "json", "tokens"), default="ids")
        else:
            p.add_argument("ids", nargs="*", help="ids (default: standard input)")
            p.add_argument("--errors", choices=("strict", "replace"), default="strict")
        p.set_defaults(func=func)

    p = sub.add_parser("report", help="compression on held-out files")
    p.add_argument("--tokenizer", required=True)
    p.add_argument("files", nargs="+")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("serve", help="serve the built site")
    p.add_argument("--dir", default="dist")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=_count(0, 65535), default=8000, help="0 picks a free port")
    p.set_defaults(func=cmd_serve)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, ArtifactError, ValueError) as error:
        print(f"bpelab {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"bpelab {args.command}: interrupted", file=sys.stderr)
        return 130
