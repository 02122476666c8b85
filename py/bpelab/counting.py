"""Counting a corpus into its word-count table, whole or in byte ranges of its files.

`bpelab count` writes the table `train(counts=...)` trains on: every distinct
pre-token with its count, in the order of its first occurrence, with documents,
separators and special tokens handled exactly as `train` handles them (each
file is a document, split again at the separator; special tokens are
boundaries and are never counted). Training on that table gives the same
merges, first-seen ties included, as training on the text.

A file can also be counted a byte range at a time, by several processes or
machines (dask_count.py), without reading the whole file anywhere. A range
ends only at a safe cut, a byte position p where no pre-token can cross:
- no occurrence of a special token or of the separator spans p; and
- either p is a cut point of the built-in patterns (a space whose previous
  character is not whitespace; see pretokenize._CHUNK_RE), or p ends an
  occurrence of a special token or the separator that overlaps no other
  occurrence of one (so it is a boundary however the text is scanned).
Both neighbours of a range compute its cut with the same function on the same
bytes, so the ranges tile the file; adding their tables in order gives the
whole file's table, in first-seen order.

Not here: the table's formats (counts.py), the cluster (dask_count.py).
"""

import os
from collections import Counter

from .pretokenize import _SPACE_CHARS, get_pretokenizer, split_special

BOM = b"\xef\xbb\xbf"  # dropped from the start of a file, as the CLI's reader drops it
_SEGMENT = 1 << 18  # characters split at a time: a list of pieces costs ~50 bytes each
_WINDOW = 1 << 16  # bytes searched at a time for a cut
DEFAULT_BLOCK_SIZE = 64 << 20  # bytes of a file per range: a range's table then costs less than its reading


class InvalidUTF8(ValueError):
    """A file that is not UTF-8, found in a range: where the CLI's reader of the whole file would stop."""

    def __init__(self, path, offset, line, sample):
        self.path, self.offset, self.line, self.sample = path, offset, line, sample
        super().__init__(f"{path}: invalid UTF-8 at byte {offset} (line {line}): {sample!r}; save the file as UTF-8")


def count_text(text, pretokenizer, special_tokens=(), separator=None, table=None):
    """Add the pre-tokens of one file's text to `table` ({piece: count}, first-seen order) and return it.

    >>> count_text("low lower<|x|>low", get_pretokenizer("gpt2"), ["<|x|>"])
    {'low': 2, ' lower': 1}
    """
    table = {} if table is None else table
    get = table.get
    for document in text.split(separator) if separator else [text]:
        for chunk, _start, is_special in split_special(document, special_tokens):
            if is_special:
                continue
            long = pretokenizer.chunkable and len(chunk) > _SEGMENT
            for part in pretokenizer.segments(chunk, _SEGMENT) if long else [chunk]:
                for piece, count in Counter(pretokenizer.split(part)).items():  # a Counter keeps first-seen order
                    table[piece] = get(piece, 0) + count
    return table


def count_documents(texts, settings):
    """The table of several files' texts (each a document) under TrainSettings' pre-tokenizer and boundaries."""
    pretokenizer = settings.get_pretokenizer()
    table = {}
    for text in texts:
        count_text(text, pretokenizer, settings.special_tokens, settings.document_separator, table)
    return table


def add_tables(tables):
    """Tables of consecutive parts of a corpus added in order: the first-seen order of the whole.

    >>> add_tables([{"b": 1, "a": 2}, {"a": 1, "c": 1}])
    {'b': 1, 'a': 3, 'c': 1}
    """
    total = {}
    get = total.get
    for table in tables:
        for piece, count in table.items():
            total[piece] = get(piece, 0) + count
    return total


# ------------------------------------------------------------------ byte ranges


def block_starts(size, block_size):
    """Where the blocks of a file of `size` bytes start, before each is moved to a safe cut.

    >>> block_starts(10, 4)
    [0, 4, 8]
    """
    if block_size < 1:
        raise ValueError(f"the block size must be at least 1 byte, got {block_size}")
    return list(range(0, size, block_size)) or [0]


def _marks(special_tokens, separator):
    """The strings that cut text apart, as UTF-8: special tokens and the separator."""
    marks = {special.encode("utf-8") for special in special_tokens}
    if separator:
        marks.add(separator.encode("utf-8"))
    return sorted(marks)


def _occurrences(data, marks):
    """Every occurrence (start, end) of any mark in data, overlapping ones included, sorted."""
    found = set()
    for mark in marks:
        at = data.find(mark)
        while at >= 0:
            found.add((at, at + len(mark)))
            at = data.find(mark, at + 1)
    return sorted(found)


def _ends_in_space(data, p, floor):
    """Whether the character that ends at data[p] is whitespace (invalid UTF-8 counts as whitespace: no cut)."""
    byte = data[p - 1]
    if byte < 0x80:
        return chr(byte) in _SPACE_CHARS
    lead = p - 1
    while lead > max(floor, p - 4) and data[lead] & 0xC0 == 0x80:
        lead -= 1
    try:
        return data[lead:p].decode("utf-8") in _SPACE_CHARS
    except UnicodeDecodeError:
        return True


def find_cut(handle, size, position, marks, chunkable, text_start=0):
    """The first safe cut (module docstring) at or after byte `position` of the open file, or `size`.

    `text_start` is where the text begins (3 after a byte order mark): no cut
    comes before it, and no occurrence starts before it.
    """
    longest = max(map(len, marks), default=0)
    back = 2 * longest + 4  # enough to see every occurrence that overlaps one ending at the cut
    p = max(position, text_start + 1)
    while p < size:
        low = max(text_start, p - back)
        high = min(size, p + _WINDOW + longest)
        handle.seek(low)
        data = handle.read(high - low)
        first, last = p - low, min(p + _WINDOW, size) - low  # candidates lie in data[first:last]
        occurrences = _occurrences(data, marks)
        spanned = set()
        for start, end in occurrences:
            spanned.update(range(start + 1, end))
        ends = {}
        for start, end in occurrences:
            ends.setdefault(end, []).append(start)
        candidates = set()
        if chunkable:
            at = data.find(b" ", first, last)
            while at >= 0:
                candidates.add(at)
                at = data.find(b" ", at + 1, last)
        candidates.update(end for end in ends if first <= end < last)
        for c in sorted(candidates):
            if c in spanned:
                continue
            if chunkable and data[c] == 0x20 and c > 0 and not _ends_in_space(data, c, 0):
                return low + c
            for start in ends.get(c, ()):
                alone = all(s == start and e == c or e <= start or s >= c for s, e in occurrences)
                if alone:
                    return low + c
        p = low + last
    return size


def file_text_start(handle):
    """Where a file's text starts: after a byte order mark, else 0."""
    handle.seek(0)
    return len(BOM) if handle.read(len(BOM)) == BOM else 0


def count_range(path, size, start_hint, end_hint, spec):
    """Count the range of the file from the first safe cut at or after `start_hint` to the one after `end_hint`.

    `spec` is (pretokenizer name, pattern, special tokens, separator). Returns
    {"table", "newlines"} (the newlines in the range, to number lines across
    ranges), or, for invalid UTF-8, {"error": byte offset in the file,
    "newlines_before": newlines of the range before it, "sample": 4 bytes}.
    """
    name, pattern, special_tokens, separator = spec
    pretokenizer = get_pretokenizer(name, pattern)
    marks = _marks(special_tokens, separator)
    with open(path, "rb") as handle:
        text_start = file_text_start(handle)
        cut = lambda at: find_cut(handle, size, at, marks, pretokenizer.chunkable, text_start)  # noqa: E731
        start = text_start if start_hint == 0 else cut(start_hint)
        end = size if end_hint >= size else cut(end_hint)
        if start >= end:
            return {"table": {}, "newlines": 0}
        handle.seek(start)
        data = handle.read(end - start)
    if len(data) != end - start:
        raise OSError(f"{path} changed while it was counted (expected {size:,} bytes); count it again")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return {"error": start + error.start, "newlines_before": data[:error.start].count(b"\n"),
                "sample": data[error.start:error.start + 4]}
    table = count_text(text, pretokenizer, special_tokens, separator)
    return {"table": table, "newlines": data.count(b"\n")}


def range_jobs(paths, block_size):
    """(path, size, start_hint, end_hint) for every block of every file, in corpus order."""
    jobs = []
    for path in paths:
        size = os.path.getsize(path)
        starts = block_starts(size, block_size)
        for k, start in enumerate(starts):
            jobs.append((path, size, start, starts[k + 1] if k + 1 < len(starts) else size))
    return jobs


def combine(jobs, results):
    """The corpus's table from the results of count_range for range_jobs, in order.

    InvalidUTF8 names the first bad byte in corpus order, its line counted
    over the ranges of its file before it.
    """
    lines = 0
    for (path, _size, start_hint, _end), result in zip(jobs, results):
        if start_hint == 0:  # a file's first block: its lines count from 1 again
            lines = 0
        if "error" in result:
            raise InvalidUTF8(path, result["error"], lines + result["newlines_before"] + 1, result["sample"])
        lines += result["newlines"]
    return add_tables(result["table"] for result in results)
