"""Ids files: a text file encoded into a flat array of ids in bounded memory (`bpelab encode FILE --out`), and read back.

An ids file holds the ids and nothing else, each an unsigned little-endian
integer of its dtype, uint16 or uint32 (numpy.fromfile(path, "<u2") reads a
uint16 one). Its sidecar, the same path with ".json" added, says what it holds:

    {"format": "bpelab ids", "version": 1, "dtype": "uint16", "byte_order": "little",
     "count": 1234, "tokenizer_sha256": "…", "n_vocab": 50257, "tokenizer": "gpt2",
     "source": "corpus.txt", "source_bytes": 5678, "special": "raise"}

`count` is the number of ids (the file is count × 2 or × 4 bytes),
`tokenizer_sha256` is Tokenizer.sha256() of the tokenizer that wrote it,
`tokenizer` the --tokenizer argument as given, `special` the --special policy.

Writing. The file is cut into byte ranges at cut points (stream.CutPoints,
which keep every special token's spelling whole), so each range encodes on
its own to exactly the ids the whole text has there. Each range is read in
blocks and encoded by stream.encode_batches, in this process or by --workers
processes, a few ranges at a time; the arrays are written in file order, so
the bytes are the same for any number of workers. Memory holds, per process,
a window of text, the tokenizer's caches and one range's ids, whatever the
file's size. This module does file I/O and starts processes, as parallel.py
does; everything else works on values.
"""

import codecs
import collections
import multiprocessing
import os
import sys
from array import array

from .parallel import _interrupt_held, _sigint_held
from .stream import CutPoints, encode_batches
from .tokenizer import DisallowedSpecialError

DTYPES = {"uint16": "H", "uint32": "I"}  # dtype -> array typecode
LARGEST = {"uint16": (1 << 16) - 1, "uint32": (1 << 32) - 1}
READ_BYTES = 1 << 20  # read a file this much at a time
RANGE_BYTES = 8 << 20  # a range of the file that one process encodes at a time
SIDECAR_FORMAT = "bpelab ids"
SIDECAR_VERSION = 1

for _dtype, _code in DTYPES.items():  # the platform's C types must have these sizes
    if array(_code).itemsize != {"uint16": 2, "uint32": 4}[_dtype]:
        raise ImportError(f"array typecode {_code!r} is not {_dtype} on this platform")


class TextFileError(ValueError):
    """Text that cannot be encoded, found at a byte offset of a file: args are (what, byte offset)."""

    def __str__(self):
        return self.args[0]


def default_dtype(tokenizer):
    """The smallest dtype that holds every id of the tokenizer."""
    return "uint16" if tokenizer.n_vocab - 1 <= LARGEST["uint16"] else "uint32"


def check_dtype(tokenizer, dtype):
    """ValueError if `dtype` cannot hold the tokenizer's largest id."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if tokenizer.n_vocab - 1 > LARGEST[dtype]:
        raise ValueError(
            f"--dtype {dtype} holds ids up to {LARGEST[dtype]:,}, but this tokenizer's go up to "
            f"{tokenizer.n_vocab - 1:,} (a vocabulary of {tokenizer.n_vocab:,}); use --dtype uint32"
        )


def sidecar_path(path):
    return os.fspath(path) + ".json"


def text_blocks(handle, start=0, end=None, first_line=1, prefix=b""):
    """The text of handle's bytes from start to end (its end if None), as str blocks of about READ_BYTES.

    `prefix` holds bytes from `start` on that were already read from handle.
    A character split between two reads is joined; invalid UTF-8 raises
    TextFileError naming its byte offset in the file and its line (counted
    from first_line, the line of `start`; None leaves the line out).
    """
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    position, line = start, first_line or 0
    while end is None or position < end:
        want = READ_BYTES if end is None else min(READ_BYTES, end - position)
        data = prefix + handle.read(max(0, want - len(prefix)))
        prefix = b""
        last = not data or (end is not None and position + len(data) >= end)
        held = len(decoder.getstate()[0])  # bytes of an unfinished character from the previous block
        try:
            text = decoder.decode(data, final=last)
        except UnicodeDecodeError as error:
            offset = position - held + error.start
            before = error.object[:error.start].count(b"\n")
            where = f"at byte {offset}" + (f" (line {line + before})" if first_line else "")
            raise TextFileError(
                f"invalid UTF-8 {where}: {error.object[error.start:error.start + 4]!r}; save the file as UTF-8", offset
            ) from None
        position += len(data)
        line += data.count(b"\n")
        if text:
            yield text
        if last:
            return


def plan_ranges(handle, size, cuts, range_bytes=None):
    """[(start, end)] byte ranges that cover the file (after a UTF-8 byte order mark), cut at cut points."""
    range_bytes = RANGE_BYTES if range_bytes is None else range_bytes
    handle.seek(0)
    start = 3 if handle.read(3) == b"\xef\xbb\xbf" else 0
    ranges = []
    while size - start > range_bytes:
        cut = _cut_at_or_after(handle, start + range_bytes, size, cuts)
        if cut >= size:
            break
        ranges.append((start, cut))
        start = cut
    if start < size or not ranges:
        ranges.append((start, size))
    return ranges


def _cut_at_or_after(handle, offset, size, cuts):
    """The byte offset of the first cut point at or after `offset`, or `size` if there is none.

    Both ranges that meet there call this with the same offset and get the
    same answer. Invalid UTF-8 is read as escapes here; encoding the range
    reports it.
    """
    margin = max(1, cuts.longest_special)  # characters a cut needs after it
    back = 4 * (cuts.longest_special + 4)  # bytes before: the rules read two characters back, a spelling longer
    span = 1 << 16
    while True:
        start = max(0, offset - back)
        handle.seek(start)
        data = handle.read(offset - start + span)
        at_end = start + len(data) >= size
        first = _character_start(data, 0)
        here = _character_start(data, offset - start)
        head = data[first:here].decode("utf-8", "surrogateescape")
        tail = codecs.getincrementaldecoder("utf-8")("surrogateescape").decode(data[here:], final=at_end)
        text = head + tail
        cut = cuts.first(text, max(1, len(head)))
        if cut >= 0 and (at_end or cut + margin <= len(text)):
            return start + first + len(text[:cut].encode("utf-8", "surrogateescape"))
        if at_end:
            return size
        span *= 2


def _character_start(data, i):
    # The first index at or after i that is not a UTF-8 continuation byte.
    while i < len(data) and 0x80 <= data[i] < 0xC0:
        i += 1
    return i


# ------------------------------------------------------------------ encoding a range, in any process

_worker = {}  # "tokenizer", "load": (function, args) to load it in a process that did not inherit it


def _start_worker(load, args):
    if "tokenizer" not in _worker:  # started by spawn, not fork
        if load is None:
            raise RuntimeError("this worker did not inherit the tokenizer and has no loader for it")
        _worker["tokenizer"] = load(*args)


def _encode_range(task):
    """(ids as little-endian bytes, count) of one byte range of the file."""
    path, start, end, first_line, typecode, allowed, disallowed = task
    tokenizer = _worker["tokenizer"]
    ids = array(typecode)
    with open(path, "rb") as handle:
        handle.seek(start)
        try:
            for batch in encode_batches(tokenizer, text_blocks(handle, start, end, first_line), allowed, disallowed):
                ids.extend(batch)
        except DisallowedSpecialError as error:
            offset = _byte_offset(handle, start, error.position)
            raise TextFileError(f"the special token {error.token!r} at byte {offset}", offset) from None
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tobytes(), len(ids)


def _byte_offset(handle, start, characters):
    """The byte offset of the character `characters` characters after byte `start`."""
    handle.seek(start)
    offset = start
    for text in text_blocks(handle, start):
        if characters <= len(text):
            return offset + len(text[:characters].encode("utf-8"))
        characters -= len(text)
        offset += len(text.encode("utf-8"))
    return offset


def line_of(path, offset):
    """The line (from 1) that holds byte `offset` of the file."""
    line = 1
    with open(path, "rb") as handle:
        while offset > 0:
            data = handle.read(min(READ_BYTES, offset))
            if not data:
                break
            line += data.count(b"\n")
            offset -= len(data)
    return line


def encode_file(path, tokenizer, write, *, dtype, allowed=frozenset(), disallowed=frozenset(), workers=1,
                loader=None, on_progress=None, range_bytes=None):
    """Encode the text file at `path`, passing each range's ids (little-endian bytes) to write(); returns the count.

    `loader` is (function, args) that loads the tokenizer in a worker process
    that does not inherit it (a start method other than fork); on_progress(done
    bytes, total bytes) is called after each range.
    """
    check_dtype(tokenizer, dtype)
    size = os.path.getsize(path)
    cuts = CutPoints(tokenizer.pretokenizer, set(allowed) | set(disallowed))
    with open(path, "rb") as handle:
        if workers > 1 and range_bytes is None:  # ranges small enough to share among the workers
            range_bytes = max(READ_BYTES, min(RANGE_BYTES, size // (4 * workers) + 1))
        ranges = plan_ranges(handle, size, cuts, range_bytes)
    typecode = DTYPES[dtype]
    tasks = [(os.fspath(path), start, end, None, typecode, frozenset(allowed), frozenset(disallowed))
             for start, end in ranges]
    count = 0

    def take(task, result):
        nonlocal count
        data, n = result
        write(data)
        count += n
        if on_progress is not None:
            on_progress(task[2], size)

    _worker["tokenizer"] = tokenizer  # a forked worker inherits it
    try:
        if workers <= 1 or len(tasks) < 2:
            for task in tasks:
                take(task, _run(task, path))
        else:
            _run_in_pool(tasks, workers, loader, take, path)
    finally:
        _worker.clear()
    return count


def _run(task, path):
    try:
        return _encode_range(task)
    except TextFileError as error:
        raise _with_line(error, path) from None


def _with_line(error, path):
    # A range does not know the lines before it: the message gets its line here.
    message, offset = error.args
    if "(line " not in message:
        message = message.replace(f"at byte {offset}", f"at byte {offset} (line {line_of(path, offset)})", 1)
    return TextFileError(message, offset)


def _run_in_pool(tasks, workers, loader, take, path):
    """Each task's result, in order, from `workers` processes, at most 2 * workers tasks in flight.

    Bounded in flight: a slow range must not let the others pile up their
    results here. SIGINT is held and polled for while the pool lives, as in
    parallel._count_in_pool, so a Ctrl-C ends the workers at once.
    """
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with _sigint_held():
        pool = context.Pool(workers, initializer=_start_worker, initargs=loader or (None, ()))
        try:
            queue = collections.deque()
            upcoming = iter(tasks)
            for task in upcoming:
                queue.append((task, pool.apply_async(_encode_range, (task,))))
                if len(queue) >= 2 * workers:
                    break
            while queue:
                task, result = queue.popleft()
                while not result.ready():
                    if _interrupt_held():
                        return  # the held Ctrl-C is raised when the mask is restored
                    result.wait(0.05)
                try:
                    value = result.get()
                except TextFileError as error:
                    raise _with_line(error, path) from None
                take(task, value)
                following = next(upcoming, None)
                if following is not None:
                    queue.append((following, pool.apply_async(_encode_range, (following,))))
        finally:
            pool.terminate()
            pool.join()


# ------------------------------------------------------------------ reading an ids file back

def read_ids(path, dtype, block=1 << 16):
    """The ids of an ids file, as lists of at most `block` ids; ValueError if its size is not a whole number of ids."""
    typecode = DTYPES[dtype]
    itemsize = array(typecode).itemsize
    size = os.path.getsize(path)
    if size % itemsize:
        raise ValueError(
            f"{os.fspath(path)!r} is {size:,} bytes, not a whole number of {dtype} ids ({itemsize} bytes each); "
            "it is cut short, or not of this dtype"
        )
    with open(path, "rb") as handle:
        while True:
            data = handle.read(block * itemsize)
            if not data:
                return
            ids = array(typecode)
            ids.frombytes(data)
            if sys.byteorder == "big":
                ids.byteswap()
            yield ids.tolist()
