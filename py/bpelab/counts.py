"""Word counts: a corpus given as its pre-tokens with their counts, read, checked and written.

Textbooks give a BPE corpus as words with counts (CS336's `low` 5, `lower` 2,
...), and `bpelab count` writes a large corpus's pre-token table so that
training needs only the table. A table is a dict {piece: count} whose order
is the corpus's order: the first-seen tie-break follows it. Each piece is one
pre-token (its UTF-8 bytes are a row of the merge loop); each count is a whole
number from 1 to MAX_COUNT.

Two formats hold a table:
- lines, for `.tsv` files and the site's box: `piece<TAB>count`, or
  `piece count` (the last field is the count, so a piece may hold spaces; one
  that ends in a space needs the tab). In a piece, `\\n`, `\\r`, `\\t` and `\\\\`
  stand for a newline, a carriage return, a tab and a backslash, so every
  pre-token fits on one line; any other backslash is itself.
- a JSON object {"piece": count}, for `.json` files, the embed's `counts`
  parameter and lesson files; the keys keep their order.

Not here: training on a table (`train(counts=...)` in train.py) and counting a
corpus (the CLI's `bpelab count`, and dask_count.py on a cluster).
"""

import bisect
import hashlib
import json
import json.decoder
import re
from dataclasses import dataclass

from .quoting import quote
from .tokenizer import InvalidTextError, check_encodable

# The largest whole number JavaScript holds exactly, so the site shows the counts Python trains on.
MAX_COUNT = 2**53 - 1
COUNT_FORMATS = ("tsv", "json")

_DIGITS = re.compile(r"[0-9]+")  # ASCII only: int() would also take "٥", "1_000" and " 5"
_NEGATIVE = re.compile(r"-[0-9]+")
_FRACTION = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_ESCAPE = re.compile(r"\\([\\nrt])")
_UNESCAPED = {"\\": "\\", "n": "\n", "r": "\r", "t": "\t"}


class CountsError(ValueError):
    """A bad word-count table: the message names the file (or field), the line and the fix."""

    def __init__(self, source, message, line=None, unit="line"):
        self.source = source
        self.line = line  # the line of a file or box, or the entry of a Python table (unit "entry")
        where = f"{source} {unit} {line}" if line is not None else source
        super().__init__(f"{where}: {message}")


def escape(piece):
    r"""A piece as the lines format writes it.

    >>> escape("a\tb\n\\")
    'a\\tb\\n\\\\'
    """
    return piece.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def unescape(text):
    r"""A piece as the lines format reads it: \n, \r, \t and \\ are replaced, any other backslash stays.

    >>> unescape(r"\n\\n\d")
    '\n\\n\\d'
    """
    return _ESCAPE.sub(lambda match: _UNESCAPED[match.group(1)], text) if "\\" in text else text


class _Table:
    """A table being read: checks each entry as it comes, remembering where each piece was."""

    def __init__(self, source, specials=(), unit="line"):
        self.source = source
        self.unit = unit  # what a position counts: "line" in text, "entry" in a Python table
        self.specials = tuple(specials)
        self.counts = {}  # piece -> count, in order
        self.where = {}  # piece -> line (or entry) it was given on

    def fail(self, message, line):
        raise CountsError(self.source, message, line, self.unit)

    def add(self, piece, count, line):
        if not piece:
            self.fail("the piece is empty; every piece needs at least one character before its count", line)
        try:
            check_encodable(piece)
        except InvalidTextError as error:
            self.fail(f"the piece {quote(piece)}: {error}", line)
        for special in self.specials:
            if special in piece:
                self.fail(
                    f"the piece {quote(piece)} holds the special token {quote(special)}, which training never counts; "
                    "remove it from the table, or from the special tokens", line)
        if piece in self.counts:
            self.fail(
                f"the piece {quote(piece)} is already on {self.unit} {self.where[piece]}; "
                "give each piece once, with its counts added", line)
        self.counts[piece] = count
        self.where[piece] = line

    def count_of_text(self, text, line):
        """A count written as text (lines format): a whole number from 1 to MAX_COUNT."""
        shown = quote(text)
        if _DIGITS.fullmatch(text):
            if len(text.lstrip("0")) > len(str(MAX_COUNT)) or int(text) > MAX_COUNT:
                self.fail(f"the count {shown} is too large; counts go up to {MAX_COUNT:,}", line)
            return self.check_count(int(text), line)
        if _NEGATIVE.fullmatch(text):
            self.fail(f"the count {shown} is negative; a count is how often the piece occurs, at least 1", line)
        if _FRACTION.fullmatch(text):
            self.fail(f"the count {shown} is not a whole number; write how often the piece occurs, like 5", line)
        self.fail(f"the count {shown} is not a number; write the piece, then how often it occurs, like 'low 5'",
                  line)

    def check_count(self, count, line):
        if count < 1:
            self.fail(f"the count {count} is below 1: every piece in the table occurs at least once; "
                      "remove the entry or give its count", line)
        if count > MAX_COUNT:
            self.fail(f"the count {count:,} is too large; counts go up to {MAX_COUNT:,}", line)
        return count


def parse_lines(text, source="counts", specials=()):
    r"""A table from the lines format (TSV, or the site's box); CountsError names the line and the fix.

    >>> parse_lines("low 5\nlower\t2\nnew york 3\n")
    {'low': 5, 'lower': 2, 'new york': 3}
    """
    if text.startswith("\ufeff"):
        text = text[1:]  # a byte order mark marks the encoding; it is not part of the first piece
    try:
        return _parse_lines(text, _Table(source, specials))
    except CountsError as error:
        if error.line == 1 and text.lstrip().startswith("{"):
            raise CountsError(source, f"{str(error).split(': ', 1)[1]} (if this is a JSON object, "
                                      "give the file a .json name)", 1) from None
        raise


def _parse_lines(text, table):
    for number, line in enumerate(text.split("\n"), 1):
        if line.endswith("\r"):
            line = line[:-1]  # CRLF line ends
        if not line.strip(" \t"):
            continue
        if "\r" in line:
            table.fail("a carriage return inside the line; end lines with \\n or \\r\\n, "
                       "and write a carriage return inside a piece as \\r", number)
        if "\t" in line:
            piece, _, count = line.rpartition("\t")
            if "\t" in piece:
                table.fail("more than one tab; a tab separates the piece from its count, "
                           "and a tab inside a piece is written \\t", number)
            count = count.strip(" ")
        else:
            line = line.rstrip(" ")
            cut = line.rfind(" ")
            if cut < 0:
                table.fail(f"no count in {quote(line)}: write the piece, a space or a tab, then how often it "
                           "occurs, like 'low 5' (a newline inside a piece is written \\n)", number)
            piece, count = line[:cut].rstrip(" "), line[cut + 1:]
        table.add(unescape(piece), table.count_of_text(count, number), number)
    return table.counts


def parse_json(text, source="counts", specials=()):
    """A table from a JSON object {"piece": count}, in key order; CountsError names the line.

    >>> parse_json('{"hug": 10, "pug": 5}')
    {'hug': 10, 'pug': 5}
    """
    table = _Table(source, specials)
    if text.startswith("\ufeff"):
        text = text[1:]
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(position):
        return bisect.bisect_right(line_starts, position)

    def skip(position):
        return _JSON_SPACE.match(text, position).end()

    def expect(position, what):
        found = text[position:position + 12]
        table.fail(f"expected {what}, found {quote(found) if found else 'the end of the file'}; "
                   'the table is one JSON object, {"piece": count, ...}', line_of(position))

    def string(position):
        try:
            return json.decoder.scanstring(text, position + 1)
        except json.JSONDecodeError as error:
            table.fail(f"a broken string: {error.msg}", line_of(error.pos))

    i = skip(0)
    if not text.startswith("{", i):
        expect(i, "a JSON object")
    i = skip(i + 1)
    if text.startswith("}", i):
        i += 1
    else:
        while True:
            if not text.startswith('"', i):
                expect(i, "a piece in double quotes")
            line = line_of(i)
            piece, i = string(i)
            i = skip(i)
            if not text.startswith(":", i):
                expect(i, "':' after the piece")
            i = skip(i + 1)
            number = _JSON_NUMBER.match(text, i)
            if number and not number.group(1) and not number.group(2):
                digits = number.group()
                if len(digits.lstrip("-0")) > len(str(MAX_COUNT)):
                    table.fail(f"the count {quote(digits)} is too large; counts go up to {MAX_COUNT:,}", line_of(i))
                if digits.startswith("-") and digits != "-0":
                    table.fail(f"the count {digits} is negative; a count is how often the piece occurs, at least 1",
                               line_of(i))
                count = table.check_count(int(digits), line_of(i))
                i = number.end()
            elif number:
                table.fail(f"the count {quote(number.group())} is not a whole number; "
                           "write how often the piece occurs, like 5", line_of(i))
            elif text.startswith('"', i):
                value, _ = string(i)
                table.fail(f"the count {quote(value)} is a string, not a number; write it without quotes, like 5",
                           line_of(i))
            else:
                token = re.match(r"[^\s,}]*", text[i:i + 60]).group()
                table.fail(f"the count {quote(token) if token else 'is missing; it'} is not a number; "
                           "write how often the piece occurs, like 5", line_of(i))
            table.add(piece, count, line)
            i = skip(i)
            if text.startswith(",", i):
                i = skip(i + 1)
                continue
            if text.startswith("}", i):
                i += 1
                break
            expect(i, "',' or '}' after the count")
    if skip(i) != len(text):
        expect(skip(i), "the end of the file after the JSON object")
    return table.counts


def format_of(filename):
    """"json" for a name ending in .json, else "tsv" (the lines format).

    >>> format_of("words.JSON"), format_of("counts.tsv")
    ('json', 'tsv')
    """
    return "json" if str(filename).lower().endswith(".json") else "tsv"


def read_counts(data, filename, specials=()):
    """A table from a file's bytes: a JSON object for .json, else the lines format; one-line CountsError."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise CountsError(filename, f"invalid UTF-8 at byte {error.start}: {data[error.start:error.start + 4]!r}; "
                                    "save the file as UTF-8", line) from None
    parse = parse_json if format_of(filename) == "json" else parse_lines
    table = parse(text, filename, specials)
    if not table:
        raise CountsError(filename, "holds no counts; write one piece and its count per line, like 'low 5', "
                                    'or a JSON object {"low": 5}')
    return table


def check_counts(counts, source="counts", specials=()):
    """The table of a Python value: a {piece: count} mapping or (piece, count) pairs, checked, in order.

    >>> check_counts([("low", 5), ("lower", 2)])
    {'low': 5, 'lower': 2}
    """
    if isinstance(counts, (str, bytes)) or not hasattr(counts, "__iter__"):
        raise CountsError(source, f"must be a {{piece: count}} dict or (piece, count) pairs, got {type(counts).__name__}")
    table = _Table(source, specials, unit="entry")
    entries = counts.items() if hasattr(counts, "items") else counts
    for k, entry in enumerate(entries):
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            table.fail(f"must be a (piece, count) pair, got {type(entry).__name__}", k)
        piece, count = entry
        if not isinstance(piece, str):
            table.fail(f"the piece must be a str, got {type(piece).__name__}", k)
        if not isinstance(count, int) or isinstance(count, bool):
            table.fail(f"the count of {quote(piece)} must be a whole number (int), got {quote(count)}", k)
        table.add(piece, table.check_count(count, k), k)
    return table.counts


def to_tsv(table):
    r"""The table as a .tsv file's text: `piece<TAB>count` lines, pieces escaped.

    >>> to_tsv({"low": 5, "\n": 2})
    'low\t5\n\\n\t2\n'
    """
    return "".join(f"{escape(piece)}\t{count}\n" for piece, count in table.items())


def to_lines(table):
    r"""The table as the site's box shows it: `piece count`, or a tab where the piece ends in a space.

    >>> to_lines({"low": 5, "new york": 3, "a ": 1})
    'low 5\nnew york 3\na \t1\n'
    """
    out = []
    for piece, count in table.items():
        shown = escape(piece)
        out.append(f"{shown}{chr(9) if shown.endswith(' ') else ' '}{count}\n")
    return "".join(out)


def to_json(table):
    """The table as a JSON object, one entry per line, in order.

    >>> print(to_json({"hug": 10, "pug": 5}), end="")
    {
    "hug": 10,
    "pug": 5
    }
    """
    body = ",\n".join(f"{json.dumps(piece, ensure_ascii=False)}: {count}" for piece, count in table.items())
    return "{\n" + body + ("\n" if body else "") + "}\n"


@dataclass
class CountsInfo:
    """What a table trained on holds, for the manifest (in place of a text's sizes)."""

    pieces: int
    occurrences: int  # pre-tokens in all: the sum of the counts
    characters: int  # of the text the table stands for
    bytes: int
    sha256: str  # of the table written by to_tsv, whichever format it came in

    @classmethod
    def of(cls, table):
        return cls(
            pieces=len(table),
            occurrences=sum(table.values()),
            characters=sum(len(piece) * count for piece, count in table.items()),
            bytes=sum(len(piece.encode("utf-8")) * count for piece, count in table.items()),
            sha256=hashlib.sha256(to_tsv(table).encode("utf-8")).hexdigest(),
        )

    def to_dict(self):
        return {"pieces": self.pieces, "occurrences": self.occurrences, "characters": self.characters,
                "bytes": self.bytes, "sha256": self.sha256}
