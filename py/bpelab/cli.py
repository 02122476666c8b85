"""The `bpelab` command: train, count, encode, decode, report, serve.

This module does the file I/O; everything else works on values, so the files
written here are byte for byte the ones the site offers for download.
"""

import argparse
import contextlib
import errno
import hashlib
import json
import os
import re
import shlex
import shutil
import socket
import stat
import sys
import tempfile
import time
from itertools import chain
from typing import NamedTuple

from . import __version__
from .artifacts import (
    ID_LAYOUTS,
    MANIFEST_FORMAT,
    MAX_FILE_BYTES,
    ArtifactError,
    export_files,
    json_depth,
    load_files,
    tokenizer_file_name,
)
from . import ids_file
from .counting import DEFAULT_BLOCK_SIZE
from .counts import CountsError, format_of, read_counts, to_json, to_tsv
from .parallel import usable_workers
from .pretokenize import PRETOKENIZER_NAMES
from .quoting import cap_message, quote
from .report import compression
from .stream import encode_batches
from .tokenizer import MAX_TOKEN_ID, DisallowedSpecialError
from .train import (
    CHAR_LIMIT,
    DEFAULT_SPECIAL_TOKENS,
    EMPTY_TEXT_MESSAGE,
    TIE_BREAKS,
    TrainSettings,
    check_char_limit,
    check_not_empty,
    train,
    truncate_documents,
)

REFERENCE_NAMES = ("gpt2", "cl100k", "o200k")
PATH_CHARS = 200  # a path in a message: longer than other values, as its end matters too


def _path(value):
    return quote(value, PATH_CHARS)


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


_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


def read_text_prefix(path, max_chars):
    """(text, characters): at most the first `max_chars` characters of a file, read without reading the rest
    into memory (train --truncate on /dev/zero or a 10 GB file); `characters` is the file's whole length in
    characters for a regular file (counted a block at a time), and what was read for a device or pipe."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(4 * max_chars + 3)  # a character is at most 4 bytes; 3 for a BOM
            regular = os.path.isfile(path)
            more = handle.read(1) if regular else b"x" if len(data) == 4 * max_chars + 3 else b""
            rest = 0
            if regular and more:
                rest = 0 if (more[0] & 0xC0) == 0x80 else 1
                while block := handle.read(1 << 20):
                    rest += len(block.translate(None, _CONTINUATION_BYTES))  # one per character
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    if more:  # cut: drop a character split at the end of what was read
        end = len(data)
        while end > 0 and end > len(data) - 4 and (data[end - 1] & 0xC0) == 0x80:
            end -= 1
        if end > 0 and data[end - 1] >= 0xC0:
            end -= 1
        data = data[:end] if end < len(data) and end >= len(data) - 4 else data
    text = decode_utf8(data, path)
    return text[:max_chars], len(text) + rest


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
    """A one-line progress bar on stderr, redrawn at most ten times a second (unit="MB": done and total are bytes)."""

    def __init__(self, label, stream=sys.stderr, unit=None):
        self.label = label
        self.unit = unit
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
            count = f"{done / 1e6:.1f}/{total / 1e6:.1f} MB" if self.unit == "MB" else f"{done}/{total}"
            self.stream.write(
                f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {count} {now - self.started:5.1f}s"
            )
            if done == total:
                self.stream.write("\n")
            self.stream.flush()
        return True


def _settings(args):
    if args.no_special and args.special:
        raise UsageError("--no-special and --special contradict each other; give one of them")
    specials = () if args.no_special else tuple(args.special or DEFAULT_SPECIAL_TOKENS)
    for token in specials:
        bad = next((c for c in token if "\ud800" <= c <= "\udfff"), None)
        if bad is not None:  # the shell passed bytes that are not UTF-8 (Python keeps them as lone surrogates)
            shown = token.encode("utf-8", "surrogateescape" if "\udc80" <= bad <= "\udcff" else "backslashreplace")
            raise UsageError(
                f"--special {quote(shown)} is not valid UTF-8 text (it holds U+{ord(bad):04X}, a lone surrogate); "
                "give the special token as UTF-8 text, such as --special '<|endoftext|>'"
            )
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
    out = resolve_out(args.out)  # once: the folder checked is the folder written
    _check_out(out, args.force)  # before the work, so a mistake costs nothing
    if args.counts is not None:
        return _train_on_counts(args, out)
    if not args.files:
        raise UsageError("give the corpus: one or more UTF-8 text files, or --counts FILE (a word-count table)")
    limit = None if args.char_limit == 0 else args.char_limit
    if limit is not None and not args.truncate:
        # A UTF-8 character is at most 4 bytes: files this large are over the limit, known before reading them.
        size = sum(os.path.getsize(path) for path in args.files if os.path.isfile(path))
        if size > 4 * limit:
            raise UsageError(
                f"the text has at least {size // 4:,} characters ({size:,} bytes), over the limit of {limit:,}: "
                f"train on the first {limit:,} characters (--truncate), or raise the limit (--char-limit)"
            )
    if args.truncate and limit is not None:
        # Read only what the limit needs: --truncate on /dev/zero or a huge file must not fill memory.
        documents, total, room = [], 0, limit
        for path in args.files:
            text, characters = read_text_prefix(path, max(room, 1))
            documents.append(text[:room])
            total += characters
            room -= len(documents[-1])
    else:
        documents = [read_text_file(path) for path in args.files]
    try:
        check_not_empty(documents)
    except ValueError as error:
        sizes = ", ".join(f"{path} is {os.path.getsize(path):,} bytes" for path in args.files[:3])
        raise UsageError(f"{error} ({sizes})") from None
    truncation = None
    if args.truncate:
        documents, truncation = truncate_documents(documents, limit)
        if limit is not None and total > limit:
            truncation = {"original_characters": total, "kept_characters": limit}
    else:
        check_char_limit(documents, limit)
    settings = _settings(args)
    bar = ProgressBar("merges") if not args.quiet else None
    started = time.monotonic()
    result = train(documents, settings, on_progress=bar, workers=args.workers)
    files = export_files(result, id_layout=args.id_layout, char_limit=limit, truncation=truncation)
    write_export(out, files, force=args.force)
    if not args.quiet:
        print(
            f"{len(result.merges)} merges, vocabulary {len(result.tokenizer.vocab) + len(result.tokenizer.special_tokens)}"
            f" (stopped: {result.stop_reason}) in {time.monotonic() - started:.2f}s; "
            f"wrote {', '.join(files)} to {args.out}",
            file=sys.stderr,
        )
    return 0


def _train_on_counts(args, out):
    """train --counts FILE: the table trains as given; no pre-tokenizer runs and no character limit applies."""
    if args.files:
        raise UsageError(f"give the corpus files or --counts {args.counts}, not both "
                         f"(got {len(args.files)} file(s) and a counts file)")
    if args.truncate:
        raise UsageError("--truncate cuts a text; a --counts table trains whole, so drop --truncate")
    settings = _settings(args)
    try:
        with open(args.counts, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise UsageError(f"cannot read --counts {_path(args.counts)}: {error.strerror}") from None
    table = read_counts(data, args.counts, specials=settings.special_tokens)
    bar = ProgressBar("merges") if not args.quiet else None
    started = time.monotonic()
    result = train(counts=table, settings=settings, on_progress=bar)
    files = export_files(result, id_layout=args.id_layout, char_limit=None)
    write_export(out, files, force=args.force)
    if not args.quiet:
        print(f"{len(result.merges)} merges from {len(table):,} counted pieces (stopped: {result.stop_reason}) "
              f"in {time.monotonic() - started:.2f}s; wrote {', '.join(files)} to {args.out}", file=sys.stderr)
    return 0


# ------------------------------------------------------------------ count


def cmd_count(args):
    """count CORPUS... --out FILE: the word-count table of the corpus, for train --counts."""
    settings = _settings(args)
    _check_count_out(args.out)
    for path in args.files:
        if not os.path.isfile(path):
            raise UsageError(f"cannot read {_path(path)}: it is not a file")
    if args.engine == "dask":
        from .counting import InvalidUTF8
        from .dask_count import DaskError, count_files

        empty = all(_text_is_empty(path) for path in args.files)
        try:
            table = {} if empty else count_files(args.files, settings, scheduler=args.scheduler,
                                                 workers=args.workers, block_size=args.block_size,
                                                 timeout=args.timeout)
        except DaskError as error:
            raise UsageError(str(error)) from None
        except InvalidUTF8 as error:  # worded as read_text_file words it
            raise UsageError(str(error)) from None
    else:
        if args.scheduler:
            raise UsageError("--scheduler is the address of a Dask scheduler; add --engine dask")
        from .counting import count_documents

        texts = [read_text_file(path) for path in args.files]
        empty = not any(texts)
        table = {} if empty else count_documents(texts, settings)
    if not table:
        sizes = ", ".join(f"{path} is {os.path.getsize(path):,} bytes" for path in args.files[:3])
        raise UsageError(f"{EMPTY_TEXT_MESSAGE} ({sizes})" if empty else
                         "the corpus holds nothing but special tokens and separators: there are no pre-tokens to count")
    text = to_json(table) if format_of(args.out) == "json" else to_tsv(table)
    _write_file(args.out, text.encode("utf-8"))
    if not args.quiet:
        print(f"{len(table):,} distinct pieces, {sum(table.values()):,} pre-tokens in all, from "
              f"{len(args.files)} file(s); wrote {args.out}\ntrain on it with the same settings:\n  "
              f"{_train_command(args)}", file=sys.stderr)
    return 0


def _text_is_empty(path):
    with open(path, "rb") as handle:
        return handle.read(4) in (b"", b"\xef\xbb\xbf")


def _train_command(args):
    """The train --counts command line with the settings this count used."""
    words = ["bpelab", "train", "--counts", args.out]
    if args.pattern:
        words += ["--pattern", args.pattern]
    else:
        words += ["--pretokenizer", args.pretokenizer or "gpt2"]
    if args.no_special:
        words.append("--no-special")
    for special in args.special or ():
        words += ["--special", special]
    if args.separator:
        words += ["--separator", args.separator]
    words += ["--vocab-size", "N", "--out", "DIR"]
    return " ".join(shlex.quote(word) for word in words)


def _check_count_out(out):
    info = _lstat(out)
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise UsageError(f"--out {_path(out)} is a symbolic link; give a real file (bpelab never writes through a link)")
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise UsageError(f"--out {_path(out)} is a folder; give the file to write, like counts.tsv")


def _write_file(out, data):
    """Write one file whole or not at all: a temporary file beside it, then one rename."""
    _check_count_out(out)  # again: it may have changed while counting ran
    folder = os.path.dirname(os.path.abspath(out))
    temporary = None
    try:
        os.makedirs(folder, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(out)}.", suffix=".bpelab", dir=folder)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        umask = os.umask(0o022)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, out)
        temporary = None
    except OSError as error:
        hint = "; free some space and run again" if error.errno == errno.ENOSPC else ""
        raise UsageError(f"cannot write {_path(out)}: {error.strerror or error}{hint}") from None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


# ------------------------------------------------------------------ train --out
#
# The files are written to a new folder beside --out, then moved into place:
# a new folder by one rename, an existing one file by file (each rename is
# atomic) with manifest.json last, so a run stopped between two renames leaves
# files that do not match their manifest, which loading reports. A folder is
# only replaced when everything in it is what bpelab wrote there (the old
# manifest lists the files and their sha256), unless --force. Nothing is
# written through a symbolic link: new files are created with O_EXCL and
# O_NOFOLLOW, and a rename replaces a link itself, never its target.
#
# The staging folder beside the target is named .NAME.bpelab-HOST-PID-XXXX
# (HOST: 8 hex digits of the host name's sha256). A run that was killed
# (SIGKILL, power loss) cannot remove its own; the next run on the same host
# for the same target removes it once that process is gone, if it holds only
# files of the names this run writes. Another host's folder (a shared or
# network drive) is never touched: its process ids mean nothing here.


def _lstat(path):
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise UsageError(f"cannot inspect {quote(path)}: {error.strerror}") from None


class OutFolder(NamedTuple):
    """--out resolved once: `given` as typed (for messages) and `path`, the absolute path checked and written."""

    given: str
    path: str


def resolve_out(given):
    """The folder --out names, as one absolute path; UsageError if it is empty or passes through a link.

    The path is normalised as written ("a/../b" is "b"), and every part of it
    that exists must be a real folder: with no symbolic link among the parts,
    the system reaches the same folder by the same path, so the folder that
    is checked for foreign files is the folder written to. (With a link, "..
    after the link leads to the parent of the link's target, not of the link.)
    """
    if isinstance(given, OutFolder):
        return given
    if not given:
        raise UsageError("--out is empty; give the folder to write the files to, such as --out tok")
    path = os.path.abspath(given)
    if os.path.dirname(path) == path:
        raise UsageError(f"--out {_path(given)} is the root folder; give a folder inside it, such as --out tok")
    walked = os.path.abspath(os.sep) if os.path.isabs(given) else os.getcwd()
    for part in given.replace(os.altsep or os.sep, os.sep).split(os.sep):
        if part in ("", "."):
            continue
        walked = os.path.dirname(walked) if part == ".." else os.path.join(walked, part)
        info = _lstat(walked)
        if info is not None and stat.S_ISLNK(info.st_mode):
            if walked == path:
                named = "" if os.path.normpath(given) == given.rstrip("/") else f" ({_path(walked)})"  # 'a/b/..'
                raise UsageError(f"--out {_path(given)} is a symbolic link{named}; give a real folder "
                                 "(bpelab never writes through a link)")
            raise UsageError(
                f"--out {_path(given)} passes through the symbolic link {_path(walked)}; give the folder's real "
                f"path, {_path(os.path.realpath(given))}, or another folder (bpelab never writes through a link)"
            )
    return OutFolder(given, path)


def _check_out(out, force):
    """The names in --out that bpelab wrote and may replace; UsageError if the folder cannot be used."""
    out = resolve_out(out)
    info = _lstat(out.path)
    if info is None:
        return set()
    if stat.S_ISLNK(info.st_mode):  # made a link since resolve_out looked
        raise UsageError(
            f"--out {_path(out.given)} is a symbolic link; give a real folder (bpelab never writes through a link)"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise UsageError(f"--out {_path(out.given)} is a file; give a directory (it is made if missing)")
    try:
        entries = sorted(os.listdir(out.path))
    except OSError as error:
        raise UsageError(f"cannot list --out {_path(out.given)}: {error.strerror}") from None
    ours = _previous_export(out.path)
    foreign = [name for name in entries if name not in ours]
    if foreign and not force:
        shown = ", ".join(quote(name, 40)[1:-1] for name in foreign[:4])
        shown += f" and {len(foreign) - 4} more" if len(foreign) > 4 else ""
        raise UsageError(
            f"--out {_path(out.given)} holds files bpelab did not write there, or that were changed since ({shown}); "
            "give a new or empty folder, or --force to replace bpelab's files beside them"
        )
    return ours


def _previous_export(out):
    """Names of the files an earlier `train --out` wrote to `out` and nobody changed since (manifest.json included)."""
    path = os.path.join(out, "manifest.json")
    info = _lstat(path)
    if info is None or not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
        return set()
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
        if json_depth(text, 64) > 64:
            return set()
        recorded = json.loads(text).get("files")
    except (OSError, ValueError, AttributeError, RecursionError):
        return set()  # not our manifest: nothing in the folder is known to be ours
    if not isinstance(recorded, dict) or json.loads(text).get("format") != MANIFEST_FORMAT:
        return set()
    ours = {"manifest.json"}
    for name, entry in recorded.items():
        file_info = _lstat(os.path.join(out, name)) if isinstance(name, str) and "/" not in name else None
        if (file_info is None or not stat.S_ISREG(file_info.st_mode) or not isinstance(entry, dict)
                or file_info.st_size != entry.get("bytes")):
            continue
        with open(os.path.join(out, name), "rb") as handle:
            if hashlib.sha256(handle.read()).hexdigest() == entry.get("sha256"):
                ours.add(name)
    return ours


def _write_new(path, data):
    """Create `path` (it must not exist, nor be a link) and write data to disk."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _host_tag():
    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _staging_prefix(base, pid=None):
    return f".{base}.bpelab-{_host_tag()}-{os.getpid() if pid is None else pid}-"


def _process_exists(pid):
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError):
        return True  # it exists, owned by someone else; or an id this system cannot have: leave it
    return True


def _remove_abandoned_staging(parent, base, names):
    """Remove staging folders that killed runs left for this target (POSIX only: see above)."""
    if os.name != "posix":
        return  # os.kill(pid, 0) would end the process on Windows, not ask about it
    # mkdtemp's suffix is letters, digits and "_": another target's folder
    # (.out.bpelab-H-1-x.bpelab-H-PID-XXXX for a target "out.bpelab-H-1-x") never matches.
    ours = re.compile(re.escape(f".{base}.bpelab-{_host_tag()}-") + r"([0-9]{1,10})-[A-Za-z0-9_]+")
    try:
        matches = [ours.fullmatch(name) for name in os.listdir(parent)]
    except OSError:
        return
    for match in filter(None, matches):
        name, pid = match.group(0), int(match.group(1))
        if pid == os.getpid() or _process_exists(pid):
            continue
        folder = os.path.join(parent, name)
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                continue
            entries = [(entry, os.lstat(os.path.join(folder, entry))) for entry in os.listdir(folder)]
            if not all(stat.S_ISREG(info.st_mode) and entry in names for entry, info in entries):
                continue  # something this run would not write: not ours to delete
            for entry, _ in entries:
                os.unlink(os.path.join(folder, entry))
            os.rmdir(folder)
        except OSError:
            continue  # another run is cleaning up too, or it is not ours to remove


def write_export(out, files, *, force=False):
    """Write {name: bytes} to the folder `out` as described above; UsageError on failure, `out` unchanged."""
    out = resolve_out(out)
    ours = _check_out(out, force)  # again: the folder may have changed while training ran
    given, out = out.given, out.path
    parent = os.path.dirname(out)
    staging = None
    try:
        os.makedirs(parent, exist_ok=True)
        _remove_abandoned_staging(parent, os.path.basename(out), set(files))
        staging = tempfile.mkdtemp(prefix=_staging_prefix(os.path.basename(out)), dir=parent)
        umask = os.umask(0o022)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes it private; the folder is the user's, as makedirs made it
        for name, data in files.items():
            _write_new(os.path.join(staging, name), data)
        if _lstat(out) is None:
            os.rename(staging, out)  # the whole folder appears at once
            staging = None
            return
        order = sorted(files, key=lambda name: name == "manifest.json")  # the manifest last
        for name in order:
            os.replace(os.path.join(staging, name), os.path.join(out, name))
        for stale in sorted(ours - set(files)):  # ours from an earlier export, which these files do not include
            os.unlink(os.path.join(out, stale))
    except OSError as error:
        hint = "; free some space and run again" if error.errno == errno.ENOSPC else ""
        raise UsageError(
            f"cannot write the files to {_path(out)}: {error.strerror or error}{hint} (the folder was left as it was)"
        ) from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def load_tokenizer(spec, pretokenizer=None):
    """A tokenizer from a directory of files, one file, or a reference name.

    In a directory only the files a tokenizer can be in are read (see
    artifacts.tokenizer_file_name), and every size is checked before a byte
    is read.
    """
    if spec in REFERENCE_NAMES:
        if pretokenizer is not None:
            raise UsageError(f"--tokenizer {spec} has its own pre-tokenizer; drop --pretokenizer/--pattern")
        from .openai_vocab import load_reference

        return load_reference(spec)
    info = _lstat(spec)
    if info is not None and stat.S_ISLNK(info.st_mode):
        info = os.stat(spec) if os.path.exists(spec) else None  # a link to a tokenizer is fine to read
    if info is not None and stat.S_ISDIR(info.st_mode):
        try:
            names = sorted(os.listdir(spec))
        except OSError as error:
            raise UsageError(f"cannot list --tokenizer {quote(spec)}: {error.strerror}") from None
        paths = [os.path.join(spec, name) for name in names if tokenizer_file_name(name)]
        if not paths:
            raise UsageError(
                f"--tokenizer {quote(spec)} holds no tokenizer files: give encoder.json + vocab.bpe, a tokenizer.json, "
                "or a .tiktoken file"
            )
    elif info is not None and stat.S_ISREG(info.st_mode):
        paths = [spec]
    else:
        raise UsageError(
            f"--tokenizer {quote(spec)} is neither a directory, a file, nor one of {', '.join(REFERENCE_NAMES)}"
        )
    files = {}
    for path in paths:
        files[os.path.basename(path)] = _read_tokenizer_file(path)
    return load_files(files, pretokenizer=pretokenizer)


def _read_tokenizer_file(path):
    """A file's bytes, its size checked first; one-line errors for folders, sizes and permissions."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{path} is a folder, not a tokenizer file; move it out of the --tokenizer folder")
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path} is not a regular file (a device, pipe or socket); give a tokenizer file")
    if info.st_size > MAX_FILE_BYTES:
        raise UsageError(f"{path}: file too large ({info.st_size:,} bytes; the limit is {MAX_FILE_BYTES:,})")
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_FILE_BYTES + 1)  # a file that grew since stat is still caught by load_files
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}; check its permissions") from None


def _chosen_pretokenizer(args):
    """--pretokenizer / --pattern of encode, decode and report: None, a name or a custom pattern."""
    if args.pattern is not None:
        if args.pretokenizer not in (None, "custom"):
            raise UsageError(f"--pattern is a custom pre-tokenizer, so --pretokenizer {args.pretokenizer} contradicts it; give one of them")
        return {"name": "custom", "pattern": args.pattern}
    if args.pretokenizer == "custom":
        raise UsageError("--pretokenizer custom needs --pattern with the regular expression")
    return args.pretokenizer


def _input_texts(args):
    """The text to encode, as an iterator of str blocks (a file or standard input is read a block at a time)."""
    if args.text is not None and args.file:
        raise UsageError(f"give the text either with --text or as the file {args.file!r}, not both")
    if args.text is not None:
        return iter((args.text,))
    if args.file:
        try:
            handle = open(args.file, "rb")
        except OSError as error:
            raise UsageError(f"cannot read {args.file}: {error.strerror}") from None
        return _blocks_of(handle, args.file, close=True)
    return _blocks_of(sys.stdin.buffer, "standard input")


def _blocks_of(handle, name, close=False):
    # As read_text_file reads a file (the BOM dropped, invalid UTF-8 named), a block at a time.
    try:
        head = handle.read(3)
        bom = head == b"\xef\xbb\xbf"
        try:
            yield from ids_file.text_blocks(handle, 3 if bom else 0, prefix=b"" if bom else head)
        except ids_file.TextFileError as error:
            raise UsageError(f"{name}: {error}") from None
    finally:
        if close:
            handle.close()


def _special_sets(args, tokenizer):
    """(allowed, disallowed) special tokens for --special raise|allow|text."""
    specials = set(tokenizer.special_tokens)
    if args.special == "allow":
        return specials, set()
    if args.special == "text":
        return set(), set()
    return set(), specials


def _special_hint():
    return "Pass --special allow to encode it as the special token, or --special text to encode it as ordinary text"


def cmd_encode(args):
    tokenizer = load_tokenizer(args.tokenizer, _chosen_pretokenizer(args))
    if args.out is not None:
        return _encode_to_ids_file(args, tokenizer)
    for flag, value in (("--dtype", args.dtype), ("--workers", args.workers), ("--force", args.force or None)):
        if value is not None:
            raise UsageError(f"{flag} is for writing an ids file; give --out ids.bin with it")
    allowed, disallowed = _special_sets(args, tokenizer)
    batches = encode_batches(tokenizer, _input_texts(args), allowed, disallowed)
    out = sys.stdout.buffer
    fmt = args.format or "ids"
    separator = {"ids": b" ", "json": b", ", "tokens": b" | "}[fmt]
    try:
        out.write(b"[" if fmt == "json" else b"")
        first = True
        for ids in batches:
            if not ids:
                continue
            if fmt == "tokens":
                words = [tokenizer.token_bytes(i).decode("utf-8", "backslashreplace") for i in ids]
                chunk = " | ".join(words).encode("utf-8")
            else:
                chunk = (", " if fmt == "json" else " ").join(map(str, ids)).encode("ascii")
            out.write(chunk if first else separator + chunk)
            first = False
        out.write(b"]\n" if fmt == "json" else b"\n")
    except DisallowedSpecialError as error:
        where = str(error).split(". To encode it", 1)[0]
        raise UsageError(f"{where}. {_special_hint()}") from None
    out.flush()
    return 0


def _encode_to_ids_file(args, tokenizer):
    if args.format is not None:
        raise UsageError("--format is for standard output; --out writes the ids as a binary array (see --dtype)")
    if not args.file:
        raise UsageError("--out encodes a FILE; give the text file to encode (standard input and --text go to standard output)")
    source = args.file
    if not os.path.isfile(source):
        raise UsageError(f"cannot read {source}: {'it is a folder' if os.path.isdir(source) else 'no such file'}")
    dtype = args.dtype or ids_file.default_dtype(tokenizer)
    try:
        ids_file.check_dtype(tokenizer, dtype)
    except ValueError as error:
        raise UsageError(str(error)) from None
    out = _ids_out_path(args.out, source, args.force)
    workers = usable_workers(args.workers or 1)
    allowed, disallowed = _special_sets(args, tokenizer)
    bar = ProgressBar("encoding", unit="MB") if not args.quiet else None
    started = time.monotonic()
    staging = []
    try:
        folder, name = os.path.split(out)
        handle = tempfile.NamedTemporaryFile(dir=folder or ".", prefix=f".{name}.bpelab-", delete=False)
        staging.append(handle.name)
        with handle:
            count = ids_file.encode_file(
                source, tokenizer, handle.write, dtype=dtype, allowed=allowed, disallowed=disallowed,
                workers=workers, loader=(load_tokenizer, (args.tokenizer, _chosen_pretokenizer(args))),
                on_progress=bar,
            )
        sidecar = {
            "format": ids_file.SIDECAR_FORMAT,
            "version": ids_file.SIDECAR_VERSION,
            "dtype": dtype,
            "byte_order": "little",
            "count": count,
            "tokenizer_sha256": tokenizer.sha256(),
            "n_vocab": tokenizer.n_vocab,
            "tokenizer": args.tokenizer,
            "source": os.path.basename(source),
            "source_bytes": os.path.getsize(source),
            "special": args.special,
        }
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder or ".", prefix=f".{name}.json.bpelab-",
                                         delete=False) as side:
            staging.append(side.name)
            side.write(json.dumps(sidecar, indent=2) + "\n")
        os.replace(staging[0], out)
        os.replace(staging[1], ids_file.sidecar_path(out))
        staging.clear()
    except ids_file.TextFileError as error:
        message = str(error)
        if message.startswith("the special token"):
            message = f"{message}. {_special_hint()}"
        raise UsageError(f"{source}: {message}") from None
    except OSError as error:
        if error.filename in staging or error.filename2 in staging or error.filename is None:
            hint = "; free some space and run again" if error.errno == errno.ENOSPC else ""
            raise UsageError(f"cannot write --out {_path(args.out)}: {error.strerror or error}{hint} "
                             "(an earlier file there was left as it was)") from None
        raise
    finally:
        for path in staging:
            with contextlib.suppress(OSError):
                os.unlink(path)
    if not args.quiet:
        print(f"{count:,} ids ({dtype}) from {os.path.getsize(source):,} bytes with {workers} "
              f"worker{'s' if workers > 1 else ''} in {time.monotonic() - started:.2f}s; wrote {out} "
              f"and {os.path.basename(ids_file.sidecar_path(out))}", file=sys.stderr)
    return 0


def _ids_out_path(given, source, force):
    """--out of encode as an absolute path; UsageError where writing it could lose someone's file."""
    if not given:
        raise UsageError("--out is empty; give the ids file to write, such as --out ids.bin")
    out = os.path.abspath(given)
    folder = os.path.dirname(out)
    if not os.path.isdir(folder):
        raise UsageError(f"--out {_path(given)}: the folder {_path(folder)} does not exist; make it first")
    for path, what in ((out, "--out"), (ids_file.sidecar_path(out), "its sidecar")):
        info = _lstat(path)
        if info is None:
            continue
        if stat.S_ISLNK(info.st_mode):
            raise UsageError(f"{what} {_path(path)} is a symbolic link; give another name (bpelab never writes through a link)")
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"{what} {_path(path)} is a folder; give a file name such as --out ids.bin")
        if os.path.samefile(path, source):
            raise UsageError(f"{what} {_path(path)} is the file being encoded; give another name")
    if os.path.exists(out) and not force and not _our_ids_file(out):
        raise UsageError(
            f"--out {_path(given)} exists and is not an ids file bpelab wrote (no matching "
            f"{os.path.basename(ids_file.sidecar_path(out))} beside it); give a new name, or --force to replace it"
        )
    sidecar = ids_file.sidecar_path(out)
    if os.path.exists(sidecar) and not force and _read_sidecar(sidecar, quiet=True) is None:
        raise UsageError(f"{_path(sidecar)} exists and is not a sidecar bpelab wrote; give a new name, or --force to replace it")
    return out


def _our_ids_file(path):
    sidecar = _read_sidecar(ids_file.sidecar_path(path), quiet=True)
    if sidecar is None:
        return False
    return os.path.getsize(path) == sidecar["count"] * (2 if sidecar["dtype"] == "uint16" else 4)


def _read_sidecar(path, quiet=False):
    """The sidecar's fields, checked; None if there is none (or, quiet, if it is not one)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 16)
    except FileNotFoundError:
        return None
    except OSError as error:
        if quiet:
            return None
        raise UsageError(f"cannot read {_path(path)}: {error.strerror}") from None
    problem = None
    try:
        fields = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        fields, problem = None, "it is not JSON"
    if fields is not None:
        if not isinstance(fields, dict) or fields.get("format") != ids_file.SIDECAR_FORMAT:
            problem = f"its \"format\" is not {ids_file.SIDECAR_FORMAT!r}"
        elif fields.get("version") != ids_file.SIDECAR_VERSION:
            problem = f"its \"version\" is {quote(fields.get('version'), 20)}, not {ids_file.SIDECAR_VERSION}"
        elif fields.get("dtype") not in ids_file.DTYPES:
            problem = f"its \"dtype\" {quote(fields.get('dtype'), 20)} is not one of {', '.join(ids_file.DTYPES)}"
        elif not isinstance(fields.get("count"), int) or isinstance(fields.get("count"), bool) or fields["count"] < 0:
            problem = "its \"count\" is not a whole number"
        elif not isinstance(fields.get("tokenizer_sha256"), str):
            problem = "it has no \"tokenizer_sha256\""
    if problem is None:
        return fields
    if quiet:
        return None
    raise UsageError(f"{_path(path)} is not a bpelab ids sidecar: {problem}; remove it, or give --dtype and move it away")


def cmd_decode(args):
    tokenizer = load_tokenizer(args.tokenizer, _chosen_pretokenizer(args))
    decoder = tokenizer.stream_decoder(errors=args.errors)
    if args.ids_file is not None:
        if args.ids:
            raise UsageError("give the ids either as arguments or with --ids FILE, not both")
        batches = _ids_from_file(args, tokenizer)
    else:
        if args.dtype is not None:
            raise UsageError("--dtype is for an ids file; give --ids ids.bin with it")
        batches = _ids_from_text(args, tokenizer)
    out = sys.stdout.buffer
    written = 0
    try:
        for position, ids in batches:
            try:
                data = decoder.feed(ids).encode("utf-8")
            except ValueError as error:  # an id the tokenizer lacks (UnicodeDecodeError is handled below)
                if isinstance(error, UnicodeDecodeError):
                    raise
                bad = next(i for i, value in enumerate(ids) if value not in tokenizer._token_bytes)
                raise UsageError(f"{error} (id number {position + bad + 1:,} of the input)") from None
            out.write(data)
            written += len(data)
        out.write(decoder.flush().encode("utf-8"))
    except UnicodeDecodeError as error:
        raise UsageError(f"the ids do not decode to UTF-8 text ({error.reason} at byte {written + error.start}); "
                         "pass --errors replace to show such bytes as U+FFFD") from None
    # As UTF-8 bytes, whatever the locale's encoding (the ids encode UTF-8).
    out.write(b"\n" if sys.stdout.isatty() else b"")
    out.flush()
    return 0


def _ids_from_text(args, tokenizer):
    """(position, [id]) batches of the ids given as arguments or on standard input, read a block at a time."""
    if args.ids:
        blocks = iter((" ".join(args.ids),))
    else:
        blocks = _blocks_of(sys.stdin.buffer, "standard input")
    position, carry = 0, ""  # carry: the start of a number that the block cut
    for block in chain(blocks, ("\n",)):
        text = carry + block
        cut = max(text.rfind(c) for c in " ,[]\n\t\r\f\v")
        carry = text[cut + 1:]
        words = text[:cut + 1].replace(",", " ").replace("[", " ").replace("]", " ").split()
        if not all(word.isascii() and word.isdigit() for word in words):  # int() would also take "١٢" or "-1"
            bad = next(word for word in words if not (word.isascii() and word.isdigit()))
            raise UsageError(f"ids must be whole numbers separated by spaces or commas, got {quote(bad, 60)}")
        for word in words:  # before int(): Python refuses to read an int of over 4,300 digits
            if len(word.lstrip("0")) > len(str(MAX_TOKEN_ID)) or int(word) > MAX_TOKEN_ID:
                shown = word if len(word) <= 20 else f"{word[:12]}... ({len(word):,} digits)"
                raise UsageError(f"id {shown} is too large: this tokenizer's ids are 0 to {tokenizer.n_vocab - 1:,}")
        ids = list(map(int, words))
        yield position, ids
        position += len(ids)


def _ids_from_file(args, tokenizer):
    """(position, [id]) batches of an ids file; the dtype from its sidecar or --dtype, the tokenizer checked."""
    path = args.ids_file
    if not os.path.isfile(path):
        raise UsageError(f"--ids {_path(path)}: {'it is a folder' if os.path.isdir(path) else 'no such file'}")
    sidecar_name = ids_file.sidecar_path(path)
    sidecar = _read_sidecar(sidecar_name)
    dtype = args.dtype
    if sidecar is None:
        if dtype is None:
            raise UsageError(f"--ids {_path(path)} has no sidecar {_path(sidecar_name)} to say its dtype; "
                             f"give --dtype {' or '.join(ids_file.DTYPES)}")
    else:
        if dtype is not None and dtype != sidecar["dtype"]:
            raise UsageError(f"--dtype {dtype} contradicts {_path(sidecar_name)}, which says {sidecar['dtype']}; "
                             "drop --dtype")
        dtype = sidecar["dtype"]
        if sidecar["tokenizer_sha256"] != tokenizer.sha256():
            raise UsageError(
                f"{_path(path)} was written by another tokenizer ({_path(sidecar_name)} records sha256 "
                f"{sidecar['tokenizer_sha256'][:12]}…, and --tokenizer {_path(args.tokenizer)} is "
                f"{tokenizer.sha256()[:12]}…); give the tokenizer it was written with"
            )
        itemsize = 2 if dtype == "uint16" else 4
        if os.path.getsize(path) != sidecar["count"] * itemsize:
            raise UsageError(f"{_path(path)} is {os.path.getsize(path):,} bytes, but {_path(sidecar_name)} records "
                             f"{sidecar['count']:,} {dtype} ids ({sidecar['count'] * itemsize:,} bytes): it is cut short "
                             "or was changed")
    position = 0
    try:
        for ids in ids_file.read_ids(path, dtype):
            yield position, ids
            position += len(ids)
    except ValueError as error:
        raise UsageError(str(error)) from None


def cmd_report(args):
    tokenizer = load_tokenizer(args.tokenizer, _chosen_pretokenizer(args))
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
        raise UsageError(f"cannot serve on {args.host}:{8000 if args.port is None else args.port}: "
                         f"{error.strerror or error}; "
                         "pick another --port (0 picks a free one) or --host") from None
    return 0


def _one_line(error):
    """The message on one line: control characters (a newline, a bidi override) in a name are escaped."""
    text = cap_message(str(error) or type(error).__name__)
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _count(minimum, maximum=None):
    """An argparse type: a whole number from `minimum` to `maximum` (no upper bound if None)."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {quote(text)}") from None
        if value < minimum or (maximum is not None and value > maximum):
            span = f"at least {minimum}" if maximum is None else f"from {minimum} to {maximum}"
            raise argparse.ArgumentTypeError(f"must be {span}, got {value}")
        return value
    return parse


def _pretokenizer_options(p):
    p.add_argument("--pretokenizer", choices=PRETOKENIZER_NAMES + ("custom",),
                   help="the pre-tokenizer of a .tiktoken file (or GPT-2 files) that does not say; "
                        "OpenAI's own .tiktoken files are recognised")
    p.add_argument("--pattern", help="a custom pre-tokenizer pattern for such files")


def build_parser():
    parser = argparse.ArgumentParser(prog="bpelab", description="Train, inspect and use byte-level BPE tokenizers.")
    parser.add_argument("--version", action="version", version=f"bpelab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("train", help="train a tokenizer and write its files")
    p.add_argument("files", nargs="*", help="UTF-8 text files; each is one document")
    p.add_argument("--counts", metavar="FILE",
                   help="train on a word-count table instead: piece<TAB>count lines (.tsv, as bpelab count "
                        "writes) or a JSON object {piece: count} (.json); each piece is one pre-token")
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
    p.add_argument("--out", required=True, help="directory for the files (made if missing)")
    p.add_argument("--force", action="store_true",
                   help="write into a folder that holds files bpelab did not write (they are kept)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("count", help="write the word-count table of a corpus, for train --counts")
    p.add_argument("files", nargs="+", help="UTF-8 text files; each is one document")
    p.add_argument("--out", required=True, help="the table to write: .tsv (piece<TAB>count) or .json")
    p.add_argument("--pretokenizer", choices=PRETOKENIZER_NAMES, help="default: gpt2")
    p.add_argument("--pattern", help="a custom pre-tokenizer pattern (regex syntax, \\p{L} allowed)")
    p.add_argument("--special", action="append", help="a special token (repeat for several); default <|endoftext|>")
    p.add_argument("--no-special", action="store_true", help="no special tokens")
    p.add_argument("--separator", help="split each file into documents at this string")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="local: this process; dask: a Dask cluster (pip install 'bpelab[dask]')")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: the scheduler, like tcp://HOST:8786 (default: a local cluster)")
    p.add_argument("--workers", type=_count(1), default=2, help="with --engine dask and no --scheduler: "
                                                                "worker processes of the local cluster (default 2)")
    p.add_argument("--block-size", type=_count(1), default=DEFAULT_BLOCK_SIZE, metavar="BYTES",
                   help="with --engine dask: bytes of a file per task, before moving to a safe cut (default 64 MiB)")
    p.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                   help="with --scheduler: how long to try to reach it (default 10)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_count, vocab_size=None, merges=0, tie_break="greater", min_count=1)

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
            p.add_argument("--format", choices=("ids", "json", "tokens"), help="on standard output (default: ids)")
            p.add_argument("--out", help="write the ids of FILE to this file as a flat little-endian array, "
                                         "with a .json sidecar beside it")
            p.add_argument("--dtype", choices=tuple(ids_file.DTYPES),
                           help="of --out (default: the smallest that holds the vocabulary)")
            p.add_argument("--workers", type=_count(1),
                           help="processes encoding byte ranges of FILE for --out (default 1; at most one per core; "
                                "the ids are the same for any N)")
            p.add_argument("--force", action="store_true", help="let --out replace a file bpelab did not write")
            p.add_argument("--quiet", action="store_true", help="no progress bar or summary for --out")
        else:
            p.add_argument("ids", nargs="*", help="ids (default: standard input)")
            p.add_argument("--ids", dest="ids_file", metavar="FILE",
                           help="read the ids from an ids file written by encode --out")
            p.add_argument("--dtype", choices=tuple(ids_file.DTYPES),
                           help="of --ids FILE, when it has no .json sidecar")
            p.add_argument("--errors", choices=("strict", "replace"), default="strict")
        _pretokenizer_options(p)
        p.set_defaults(func=func)

    p = sub.add_parser("report", help="compression on held-out files")
    p.add_argument("--tokenizer", required=True)
    p.add_argument("files", nargs="+")
    p.add_argument("--json", action="store_true")
    _pretokenizer_options(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("serve", help="serve the built site")
    p.add_argument("--dir", default="dist")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=_count(0, 65535), default=None,
                   help="0 picks a free port; without it, 8000 or the next free port after it")
    p.set_defaults(func=cmd_serve)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, ArtifactError, CountsError, ValueError) as error:
        print(f"bpelab {args.command}: {_one_line(error)}", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"bpelab {args.command}: the input nests too deeply to process", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"bpelab {args.command}: out of memory; give a smaller input", file=sys.stderr)
        return 2
    except OSError as error:  # a file that vanished or became unreadable mid-run
        where = f" {error.filename}" if error.filename else ""
        print(f"bpelab {args.command}: cannot use{where}: {error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"bpelab {args.command}: interrupted", file=sys.stderr)
        return 130
