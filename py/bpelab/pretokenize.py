r"""Pre-tokenizers: cut text into the pieces that BPE merges never cross.

A pre-tokenizer is a regular expression whose matches, in order, are the
pieces. The named patterns are written in `regex` syntax (\p{L}, possessive
quantifiers, (?i:...)), the syntax GPT-2 and tiktoken publish them in. This
module is standard library only, so `translate` rewrites such a pattern into
one the stdlib `re` runs the same way on every Python: every \p{..} and \s
becomes an explicit class from `unicode_classes.py` (generated from `regex`,
so CPython 3.11's Unicode 14 and Pyodide's Unicode 16 split alike), (?i:...)
becomes explicit case classes, and `$` means end of text, as in tiktoken.

Speed: `re` tests a character against a class's astral ranges one by one
whenever the character is not in the class, which made the exact patterns
run at 2-7 MB/s. So each pre-tokenizer also compiles the pattern without
astral ranges and uses it on text that has no astral characters; around
astral characters it switches to the exact pattern (see Pretokenizer).

Custom patterns go through the same translator. They must not be able to
match the empty string, and a custom pattern that skips characters raises
PretokenizeError naming them, instead of dropping text silently.

Not here: special-token policy (`tokenizer.py`) and merging (`train.py`);
`split_special` only cuts text around special-token spellings.
"""

import bisect
import math
import re
import time
from collections import Counter
from functools import lru_cache

from . import unicode_classes

__all__ = [
    "PATTERNS",
    "PRETOKENIZER_NAMES",
    "TIKTOKEN_PATTERNS",
    "PretokenizeError",
    "Pretokenizer",
    "get_pretokenizer",
    "split_special",
    "translate",
]


class PretokenizeError(ValueError):
    """A pattern that cannot be used, or text a custom pattern would drop."""


# tiktoken's pattern strings, byte for byte as in tiktoken_ext/openai_public.py,
# for loaders that must reproduce tiktoken exactly. r50k_base, p50k_base and
# GPT-2 share the first one; it splits exactly like PATTERNS["gpt2"].
TIKTOKEN_PATTERNS = {
    "gpt2": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s""",
    "cl100k": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    "o200k": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}

# name -> pattern in `regex` syntax; None for "bytes", which does not split.
PATTERNS = {
    "bytes": None,
    "whitespace": r" ?[^\s]+|\s+",
    # GPT-2's pattern with its contractions grouped (seed 003, tiktoken PR 234).
    "gpt2": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    "cl100k": TIKTOKEN_PATTERNS["cl100k"],
    "o200k": TIKTOKEN_PATTERNS["o200k"],
}
PRETOKENIZER_NAMES = ("bytes", "whitespace", "gpt2", "cl100k", "o200k")

# Limits on custom patterns (a pattern can come from an imported file). The
# built-in ones are far inside them: o200k is 274 characters, 3 levels deep.
MAX_PATTERN_CHARS = 2_000
MAX_PATTERN_NESTING = 100  # levels of parentheses; the parsers recurse once per level
MAX_REPEAT = 100_000  # the largest n in {n} or {m,n}
MAX_TRANSLATED_CHARS = 200_000  # the `re` source, with every \p{..} spelled out (o200k's is 16,599)
# The time budget of a custom pattern on the probe strings (see check_pattern_speed).
PROBE_SCAN_SECONDS = 0.02  # one probe of at most 68 characters; a sane pattern needs microseconds
PROBE_TOTAL_SECONDS = 1.0
# The CPU budget of a custom pattern on the real text (CPython's main thread): sound patterns need
# about 1 microsecond a character.
CUSTOM_SPLIT_SECONDS = 0.5
CUSTOM_SPLIT_SECONDS_PER_CHAR = 1e-5
# Where no CPU budget can stop a split (Pyodide has no signals), a watcher is told when a custom pattern starts
# and ends on a text of at least WATCH_CHARS characters: watch(pattern, characters, running). The site's page
# stops a worker whose split runs past its time budget (worker_api sets it; js/worker-client.js keeps the time).
WATCH_CHARS = 256
_split_watch = None


def watch_custom_splits(watch):
    """Set (or, with None, clear) the watcher of custom-pattern splits; returns the one it replaces."""
    global _split_watch
    old, _split_watch = _split_watch, watch
    return old

# Other spellings of the built-in names (tiktoken's encoding names).
_ALIASES = {
    "r50k": "gpt2",
    "r50k_base": "gpt2",
    "p50k_base": "gpt2",
    "cl100k_base": "cl100k",
    "o200k_base": "o200k",
    "o200k_harmony": "o200k",
}


# ---------------------------------------------------------------- code point sets
# A set of code points is a sorted list of disjoint (first, last) ranges.

_MAX = 0x10FFFF


def _normalize(ranges):
    """Sort and merge overlapping or touching ranges."""
    out = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            if last > out[-1][1]:
                out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))
    return out


def _complement(ranges):
    out, start = [], 0
    for first, last in ranges:
        if first > start:
            out.append((start, first - 1))
        start = last + 1
    if start <= _MAX:
        out.append((start, _MAX))
    return out


def _contains(ranges, cp):
    i = bisect.bisect_left(ranges, (cp + 1,)) - 1  # the last range starting at or before cp
    return i >= 0 and ranges[i][1] >= cp


_ESCAPE_RE = re.compile(r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\U([0-9a-f]{8})|(.)", re.S)


def _decode_class_text(text):
    """Code points of the generated class text, in order: 'A-Z\\x5f' -> [65, '-', 90, 95]."""
    out = []
    for x, u, big, char in _ESCAPE_RE.findall(text):
        if char == "-":
            out.append("-")
        else:
            out.append(ord(char) if char else int(x or u or big, 16))
    return out


def _ranges_from_class_text(text):
    items, ranges, i = _decode_class_text(text), [], 0
    while i < len(items):
        if i + 2 < len(items) and items[i + 1] == "-":
            ranges.append((items[i], items[i + 2]))
            i += 3
        else:
            ranges.append((items[i], items[i]))
            i += 1
    return _normalize(ranges)


@lru_cache(maxsize=None)
def _class_ranges(name):
    """Ranges of a generated class: a general category, or 'space' / 'word'."""
    if name == "space":
        text = unicode_classes.WHITESPACE
    elif name == "word":
        text = unicode_classes.WORD
    else:
        text = unicode_classes.CLASSES[name]
    return tuple(_ranges_from_class_text(text))


@lru_cache(maxsize=None)
@lru_cache(maxsize=1)
def _case_variants():
    """code point -> tuple of all code points equal to it under simple case folding (built once)."""
    variants = {}
    for group in unicode_classes.CASE_GROUPS.split(" "):
        cps = tuple(_decode_class_text(group))
        for cp in cps:
            variants[cp] = cps
    return variants


def _case_close(ranges):
    """Add every case variant of every member (what (?i) does to a class)."""
    return list(_case_close_cached(tuple(ranges)))


@lru_cache(maxsize=256)
def _case_close_cached(ranges):
    extra = [(v, v) for cp, group in _case_variants().items() if _contains(ranges, cp) for v in group]
    return _normalize(list(ranges) + extra)


_SAFE_ASCII = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !\"#%',/:;<=>@_`")


def _escape(cp):
    """One code point, spelled so `re` reads it literally, in or out of a class."""
    char = chr(cp)
    if char in _SAFE_ASCII:
        return char
    if 0x21 <= cp <= 0x7E:  # ASCII punctuation: a backslash always makes it literal
        return "\\" + char
    if cp < 0xA0 or 0xD800 <= cp <= 0xDFFF:  # controls, and surrogates (not valid UTF-8)
        return "\\x%02x" % cp if cp < 0x100 else "\\u%04x" % cp
    # Other characters as themselves: `re` reads a literal several times
    # faster than an escape, and the built-in classes hold thousands.
    return char


def _class_source(ranges, negated=False):
    """An `re` character class for the ranges (memoized: a pattern may repeat \\p{L} many times)."""
    return _class_source_cached(tuple(ranges), negated)


@lru_cache(maxsize=512)
def _class_source_cached(ranges, negated):
    if not ranges:  # an empty set matches nothing, its negation anything
        return "[\\x00-\\U0010ffff]" if negated else "[^\\x00-\\U0010ffff]"
    body = []
    for first, last in ranges:
        if first == last:
            body.append(_escape(first))
        elif last == first + 1:
            body.append(_escape(first) + _escape(last))
        else:
            body.append(_escape(first) + "-" + _escape(last))
    return "[" + ("^" if negated else "") + "".join(body) + "]"


# ---------------------------------------------------------------- the translator

# Loose-matched (case, spaces, '_' and '-' ignored) property names -> generated class.
_PROPERTY_NAMES = {
    "l": "L", "letter": "L",
    "lu": "Lu", "uppercaseletter": "Lu",
    "ll": "Ll", "lowercaseletter": "Ll",
    "lt": "Lt", "titlecaseletter": "Lt",
    "lm": "Lm", "modifierletter": "Lm",
    "lo": "Lo", "otherletter": "Lo",
    "m": "M", "mark": "M", "combiningmark": "M",
    "n": "N", "number": "N",
    "nd": "Nd", "decimalnumber": "Nd",
    "p": "P", "punctuation": "P", "punct": "P",
    "s": "S", "symbol": "S",
    "z": "Z", "separator": "Z",
}
_CASED_LETTER_NAMES = ("lc", "l&", "casedletter")  # Lu | Ll | Lt
_SUPPORTED_PROPERTIES = "L, Lu, Ll, Lt, Lm, Lo, LC, M, N, Nd, P, S, Z (or their long names)"
_FLAGS = frozenset("imsu")  # u (Unicode) is what we always do; x, a, U, R are not supported


class _Translator:
    """Recursive descent over `regex` syntax, writing `re` syntax.

    Each parse method returns (re_source, nullable): nullable means the piece
    can match without consuming text (lookarounds and anchors count as
    nullable, which errs towards rejecting patterns, never accepting bad ones).
    """

    def __init__(self, pattern, bmp=False):
        self.src = pattern
        self.i = 0
        self.flags = frozenset()
        self.bmp = bmp

    def class_source(self, ranges, negated=False):
        if self.bmp:
            # Only for text without astral characters: `re` checks a class's
            # astral ranges one by one for every character the class does not
            # hold, and that made splitting six times slower.
            ranges = [(first, min(last, 0xFFFF)) for first, last in ranges if first <= 0xFFFF]
        return _class_source(ranges, negated)

    def fail(self, message, position=None):
        where = self.i if position is None else position
        raise PretokenizeError(f"{message} at position {where} in pattern {_shorten(repr(self.src))}")

    def peek(self, offset=0):
        j = self.i + offset
        return self.src[j] if j < len(self.src) else ""

    def translate(self):
        self.leading_flags()
        source, nullable = self.alternation()
        if self.i < len(self.src):  # alternation stops only at ')' or the end
            self.fail("unbalanced ')': no group to close")
        if nullable:
            raise PretokenizeError(
                f"pattern {self.src!r} can match the empty string, so it cannot cut text into pieces; "
                "make every alternative consume at least one character (use + instead of *)"
            )
        return source

    def leading_flags(self):
        # Inline flags like (?i) apply to the whole pattern only at its very start.
        while True:
            found = re.match(r"\(\?([a-zA-Z]+)\)", self.src[self.i:])
            if not found:
                return
            self.flags = self.apply_flags(found.group(1), "", self.i)
            self.i += found.end()

    def apply_flags(self, on, off, position):
        for flag in on + off:
            if flag not in _FLAGS or (flag == "u" and flag in off):
                self.fail(f"unsupported inline flag {flag!r} (supported: i, m, s)", position)
        return (self.flags | set(on)) - set(off)

    def alternation(self):
        sources, nullable = [], False
        while True:
            source, branch_nullable = self.sequence()
            sources.append(source)
            nullable = nullable or branch_nullable
            if self.peek() != "|":
                return "|".join(sources), nullable
            self.i += 1

    def sequence(self):
        parts, nullable = [], True
        while self.i < len(self.src) and self.peek() not in "|)":
            start = self.i
            atom = self.atom()
            if atom is None:  # a comment
                continue
            source, atom_nullable, repeatable = atom
            quantifier = self.quantifier()
            if quantifier is not None:
                if not repeatable:
                    self.fail("nothing to repeat", start)
                text, minimum = quantifier
                if len(text) > 1 and text[-1] == "+" and source[0] == "(":
                    # G*+ as (?>G*): the same match, and also right on CPython
                    # before 3.11.5, which gets possessive repeats of groups
                    # wrong (gh-106052, gh-100061).
                    source = "(?>" + source + text[:-1] + ")"
                elif text == "?" and source[0] == "(" and source != "(?s:.)":
                    # G? as (?:G|): the same match, and re runs an alternation
                    # faster than a repeat (o200k's optional contractions: -6%).
                    source = "(?:" + source + "|)"
                else:
                    source += text
                atom_nullable = atom_nullable or minimum == 0
                if self.quantifier_follows():
                    self.fail("multiple repeat (a quantifier after a quantifier)")
            parts.append(source)
            nullable = nullable and atom_nullable
        return "".join(parts), nullable

    _QUANTIFIER_RE = re.compile(r"[*+?]|\{(\d*)(,?)(\d*)\}")

    def quantifier_follows(self):
        found = self._QUANTIFIER_RE.match(self.src, self.i)
        return bool(found) and (found.group(0)[0] != "{" or found.group(1) or found.group(3))

    def quantifier(self):
        """(re text, minimum repeats) of a quantifier here, or None."""
        found = self._QUANTIFIER_RE.match(self.src, self.i)
        if not found:
            return None
        text = found.group(0)
        if text[0] == "{":
            low, comma, high = found.groups()
            if not low and not high:  # '{}' or '{,}' is a literal in regex
                return None
            for number in (low, high):
                if number and (len(number) > 6 or int(number) > MAX_REPEAT):
                    self.fail(f"repeat count {number[:12] + ('...' if len(number) > 12 else '')} in quantifier "
                              f"is too large (at most {MAX_REPEAT:,}); use + or * for an unbounded repeat")
            minimum = int(low or 0)
            if comma and high and int(high) < minimum:
                self.fail(f"quantifier {text!r} has its maximum below its minimum")
            if not comma:
                text = "{%d}" % minimum
            else:
                text = "{%d,%s}" % (minimum, high)
        else:
            minimum = 1 if text == "+" else 0
        self.i = found.end()
        if self.peek() in ("?", "+"):  # lazy or possessive (re has both since 3.11)
            text += self.peek()
            self.i += 1
        return text, minimum

    def atom(self):
        """(re source, nullable, repeatable) for one atom, or None for a comment."""
        char = self.peek()
        if char == "(":
            return self.group()
        if char == "[":
            return self.char_class(), False, True
        if char == "\\":
            return self.escape_atom()
        if char in "*+?":
            self.fail("nothing to repeat")
        if char == "{" and self.quantifier_follows():
            self.fail("nothing to repeat")
        self.i += 1
        if char == ".":
            return ("(?s:.)" if "s" in self.flags else "."), False, True
        if char == "^":
            return ("(?m:^)" if "m" in self.flags else "^"), True, False
        if char == "$":
            # tiktoken's Rust regex: $ is the end of the text (regex would also
            # match before a final newline).
            return ("(?m:$)" if "m" in self.flags else "\\Z"), True, False
        return self.literal(ord(char)), False, True

    def literal(self, cp):
        if "i" in self.flags and cp in _case_variants():
            return self.class_source(_normalize([(v, v) for v in _case_variants()[cp]]))
        return _escape(cp)

    def group(self):
        start = self.i
        self.i += 1
        saved_flags = self.flags
        if self.peek() != "?":
            opener = "(?:"  # capturing groups would change what findall returns
        else:
            rest = self.src[self.i + 1:]
            named = re.match(r"P?<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)'", rest)
            flags = re.match(r"([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])", rest)
            if rest.startswith("#"):
                end = self.src.find(")", self.i)
                if end < 0:
                    self.fail("unterminated comment", start)
                self.i = end + 1
                return None
            if rest[:1] == ":":
                opener, self.i = "(?:", self.i + 2
            elif rest[:1] in ("=", "!", ">"):
                opener, self.i = "(?" + rest[0], self.i + 2
            elif rest[:2] in ("<=", "<!"):
                opener, self.i = "(?" + rest[:2], self.i + 3
            elif named:
                opener, self.i = "(?:", self.i + 1 + named.end()
            elif flags and (flags.group(1) or flags.group(2)):
                if flags.group(3) == ")":
                    self.fail("inline flags like (?i) are only supported at the start of the pattern; "
                              "use a scoped group such as (?i:...)", start)
                self.flags = self.apply_flags(flags.group(1), flags.group(2) or "", start)
                opener, self.i = "(?:", self.i + 1 + flags.end()
            else:
                self.fail(f"unsupported group syntax {self.src[start:start + 4]!r} "
                          "(backreferences, recursion, conditionals and branch reset are not supported)", start)
        source, nullable = self.alternation()
        self.flags = saved_flags
        if self.peek() != ")":
            self.fail("missing ')' for the group opened", start)
        self.i += 1
        if opener[:3] in ("(?=", "(?!", "(?<"):  # lookarounds consume nothing
            return opener + source + ")", True, False
        return opener + source + ")", nullable, True

    def escape_atom(self):
        kind, value = self.escape(in_class=False)
        if kind == "char":
            return self.literal(value), False, True
        if kind == "set":
            ranges, negated = value
            if "i" in self.flags:
                ranges = _case_close(ranges)
            return self.class_source(ranges, negated), False, True
        return value, True, False  # an assertion: consumes nothing, cannot repeat

    def escape(self, in_class):
        """Parse one escape: ('char', cp) | ('set', (ranges, negated)) | ('assert', re text)."""
        start = self.i
        self.i += 1
        char = self.peek()
        if not char:
            self.fail("pattern ends with a lone backslash", start)
        self.i += 1
        if char in "pP":
            return "set", self.property(char == "P", start)
        if char in "sSdDwW":
            name = {"s": "space", "d": "Nd", "w": "word"}[char.lower()]
            return "set", (list(_class_ranges(name)), char.isupper())
        simple = {"n": 10, "r": 13, "t": 9, "f": 12, "v": 11, "a": 7}
        if char in simple:
            return "char", simple[char]
        if char in "xuU":
            return "char", self.hex_escape(char, start)
        if char == "N":
            return "char", self.named_char(start)
        if char == "0":
            digits = re.match(r"[0-7]{0,2}", self.src[self.i:]).group(0)
            self.i += len(digits)
            return "char", int("0" + digits, 8)
        if char == "b" and in_class:
            return "char", 8  # backspace, as in re and regex
        if not in_class:
            if char in "bB":
                word = self.class_source(list(_class_ranges("word")))
                if char == "b":  # \w as regex defines it, not as re's Unicode tables do
                    return "assert", f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"
                return "assert", f"(?:(?<={word})(?={word})|(?<!{word})(?!{word}))"
            if char == "A":
                return "assert", "\\A"
            if char in "Zz":
                return "assert", "\\Z"
        if char.isdigit():
            self.fail(f"backreference or octal escape {self.src[start:self.i]!r} is not supported", start)
        if char.isascii() and char.isalpha():
            self.fail(f"unsupported escape {self.src[start:self.i]!r}", start)
        return "char", ord(char)

    def hex_escape(self, kind, start):
        if self.peek() == "{":
            found = re.match(r"\{([0-9a-fA-F]{1,8})\}", self.src[self.i:])
        else:
            width = {"x": 2, "u": 4, "U": 8}[kind]
            found = re.match("([0-9a-fA-F]{%d})" % width, self.src[self.i:])
        if not found or int(found.group(1), 16) > _MAX:
            self.fail(f"bad escape {self.src[start:self.i + 2]!r} (expected hex digits of a code point)", start)
        self.i += found.end()
        return int(found.group(1), 16)

    def named_char(self, start):
        found = re.match(r"\{([^}]*)\}", self.src[self.i:])
        if not found:
            self.fail("\\N needs a character name in braces, like \\N{EM DASH}", start)
        import unicodedata  # only custom patterns use \N{...}; names are this Python's Unicode version

        try:
            char = unicodedata.lookup(found.group(1))
        except KeyError:
            self.fail(f"unknown character name {found.group(1)!r}", start)
        self.i += found.end()
        return ord(char)

    def property(self, negated, start):
        if self.peek() == "{":
            end = self.src.find("}", self.i)
            if end < 0:
                self.fail("missing '}' after \\p{", start)
            name, self.i = self.src[self.i + 1:end], end + 1
        else:
            name = self.peek()
            self.i += 1
        if name.startswith("^"):
            negated, name = not negated, name[1:]
        key = re.sub(r"[\s_\-]", "", name).lower()
        key = re.sub(r"^(?:gc|generalcategory)[=:]", "", key)
        if "i" in self.flags and _PROPERTY_NAMES.get(key) in ("Lu", "Ll", "Lt"):
            # regex then matches any cased letter, and tiktoken (Rust) the case variants: neither is safe to copy.
            self.fail(f"'{self.src[start:self.i]}' under the i flag is not supported: `regex` and tiktoken "
                      "disagree on what it matches; write [\\p{Lu}\\p{Ll}\\p{Lt}] or move it out of (?i:...)", start)
        if key in _CASED_LETTER_NAMES:
            ranges = _normalize(list(_class_ranges("Lu")) + list(_class_ranges("Ll")) + list(_class_ranges("Lt")))
        elif key in _PROPERTY_NAMES:
            ranges = list(_class_ranges(_PROPERTY_NAMES[key]))
        else:
            self.fail(f"unsupported Unicode property {self.src[start:self.i]!r}; supported: {_SUPPORTED_PROPERTIES}",
                      start)
        return ranges, negated

    def char_class(self):
        start = self.i
        self.i += 1
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        ranges = []
        first = True
        while True:
            char = self.peek()
            if not char:
                self.fail("unterminated character set", start)
            if char == "]" and not first:
                self.i += 1
                break
            first = False
            if char == "[":
                self.fail("'[' inside a character set is ambiguous (a nested set in tiktoken's Rust regex, "
                          "a literal in regex); escape it as \\[")
            self.no_set_operation()
            item_start = self.i
            low = self.class_item()
            self.no_set_operation()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                dash = self.i
                self.i += 1
                high = self.class_item()
                if low[0] != "char" or high[0] != "char":
                    self.fail("bad character range: a range needs a single character at each end", dash)
                if high[1] < low[1]:
                    self.fail(f"bad character range {self.src[item_start:self.i]!r}: end before start", dash)
                ranges.append((low[1], high[1]))
            elif low[0] == "char":
                ranges.append((low[1], low[1]))
            else:
                item_ranges, item_negated = low[1]
                ranges.extend(_complement(item_ranges) if item_negated else item_ranges)
        ranges = _normalize(ranges)
        if "i" in self.flags:
            # (?i)[^s] matches what has no case variant in the set, so close first.
            ranges = _case_close(ranges)
        return self.class_source(ranges, negated)

    def no_set_operation(self):
        if self.src.startswith(("&&", "--", "~~"), self.i):
            self.fail(f"{self.src[self.i:self.i + 2]!r} inside a character set is ambiguous "
                      "(a set operation in tiktoken's Rust regex, literal characters in regex); escape them")

    def class_item(self):
        if self.peek() == "\\":
            kind, value = self.escape(in_class=True)
            return kind, value
        cp = ord(self.peek())
        self.i += 1
        return "char", cp


def translate(pattern):
    r"""A pattern in `regex` syntax, rewritten for the standard library `re`.

    >>> re.findall(translate(r" ?\p{L}+|\s+"), "héllo wörld")
    ['héllo', ' wörld']
    """
    _check_pattern(pattern)
    source = _translate(pattern, False)
    _compile(pattern, source)  # raises if `re` cannot take it
    return source


def _check_pattern(pattern):
    if not isinstance(pattern, str):
        raise PretokenizeError(f"pattern must be a str, got {type(pattern).__name__} {_shorten(repr(pattern))}")
    if not pattern:
        raise PretokenizeError("pattern is empty; give a regular expression such as ' ?\\S+|\\s+'")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PretokenizeError(
            f"pattern {_shorten(repr(pattern))} is {len(pattern):,} characters long; the limit is "
            f"{MAX_PATTERN_CHARS:,} (tiktoken's longest is under 300)"
        )
    depth = _group_depth(pattern)
    if depth > MAX_PATTERN_NESTING:
        # The translator and `re`'s own parser recurse once per level: Python's stack would run out.
        raise PretokenizeError(
            f"pattern {_shorten(repr(pattern))} nests groups {depth:,} deep; the limit is {MAX_PATTERN_NESTING} "
            "levels of parentheses"
        )


def _shorten(text, limit=80):
    """A long repr cut for a one-line message."""
    return text if len(text) <= limit else f"{text[:limit - 15]}... ({len(text):,} characters)"


def _group_depth(pattern):
    """The deepest nesting of parentheses, outside classes and escapes (a cheap scan, before any recursion)."""
    depth = deepest = 0
    for token in _DEPTH_TOKENS.findall(pattern):
        if token == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif token == ")":
            depth = max(depth - 1, 0)
    return deepest


# An escape, a character class (escapes and one level of nested sets inside), or a parenthesis.
_DEPTH_TOKENS = re.compile(r"\\.|\[\^?\]?(?:\\.|\[[^\]]*\]|[^\]\\])*\]|[()]", re.S)


@lru_cache(maxsize=256)
def _translate(pattern, bmp):
    """translate(pattern), not yet compiled.

    With bmp=True, a faster one that is exact only on text without astral characters.
    """
    try:
        return _Translator(pattern, bmp).translate()
    except RecursionError:  # _check_pattern bounds the nesting; this is the last line of defence
        raise PretokenizeError(f"pattern {_shorten(repr(pattern))} nests too deeply to translate") from None


def _compile(pattern, source):
    """The compiled translation of `pattern`; PretokenizeError if `re` rejects it."""
    if len(source) > MAX_TRANSLATED_CHARS:
        raise PretokenizeError(
            f"pattern {_shorten(repr(pattern))} is too large once its classes are spelled out "
            f"({len(source):,} characters; the limit is {MAX_TRANSLATED_CHARS:,}); use fewer \\p{{..}} classes"
        )
    try:
        return re.compile(source)
    except re.error as error:
        raise PretokenizeError(
            f"pattern {_shorten(repr(pattern))} is not supported by Python's re after translation: {error.msg} "
            f"(translated pattern {_shorten(repr(source), 200)})"
        ) from None
    except (OverflowError, RecursionError) as error:  # huge repeat counts, deep nesting
        raise PretokenizeError(f"pattern {_shorten(repr(pattern))} cannot be compiled: {error}") from None


# ---------------------------------------------------------------- pre-tokenizers

_SPACE_CLASS = _class_source(list(_class_ranges("space")))
_SPACE_CHARS = frozenset(chr(cp) for first, last in _class_ranges("space") for cp in range(first, last + 1))
_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
# Astral characters less than 256 characters apart, as one stretch: switching
# between the fast and the exact pattern costs more than that.
# Our own patterns use no possessive quantifiers: CPython before 3.11.5
# matches some of them wrongly (gh-106052, gh-100061). Nothing after these
# repeats can fail, so the greedy ones match the same.
_ASTRAL_STRETCH_RE = re.compile(
    "[\U00010000-\U0010ffff](?:[^\U00010000-\U0010ffff]{0,256}[\U00010000-\U0010ffff])*"
)

# Cuts text before every ' ' whose previous character is not whitespace ("X| ",
# a cut point). No match of a built-in pattern contains a non-whitespace
# character followed by a space, so every cut point is a piece boundary; and
# none looks behind, nor can its lookaheads or `$` tell a cut point from the
# end of the text (they would need whitespace just before it). So the text
# between two cut points splits on its own exactly as inside the whole text.
_CHUNK_RE = re.compile("(?s:.)[^ ]*(?:(?<=%s) [^ ]*)*" % _SPACE_CLASS)


_COUNT_SEGMENT = 1 << 18  # characters counted at a time by Pretokenizer.count


def _has_astral(text):
    return not text.isascii() and _ASTRAL_RE.search(text) is not None


def _cut_before(text, position, floor):
    """The last cut point at or before `position`, or `floor` (a cut point) if none is after it."""
    j = text.rfind(" ", floor, position + 1)
    while j > floor and text[j - 1] in _SPACE_CHARS:
        j = text.rfind(" ", floor, j)
    return max(j, floor)


def _cut_after(text, position):
    """The first cut point at or after `position` >= 1 (len(text) if none)."""
    j = text.find(" ", position)
    while j > 0 and text[j - 1] in _SPACE_CHARS:
        j = text.find(" ", j + 1)
    return len(text) if j < 0 else j


class Pretokenizer:
    """A named pattern that cuts text into pieces; get one with get_pretokenizer.

    >>> get_pretokenizer("gpt2").split("Hello world!")
    ['Hello', ' world', '!']
    """

    __slots__ = ("name", "pattern", "translated", "_compiled", "_fast", "_builtin", "_chunked")

    def __init__(self, name, pattern, *, builtin):
        self.name = name
        self.pattern = pattern  # `regex` syntax; None for "bytes"
        self.translated = None  # `re` syntax
        self._compiled = None  # see `compiled`
        self._fast = None  # the same pattern without astral ranges, for text that has none
        if pattern is not None:
            self.translated = _translate(pattern, False)
            if not builtin:  # the user's pattern is checked whole now, not at its first astral text
                self._compiled = _compile(pattern, self.translated)  # the larger one first: its size is checked
            self._fast = _compile(pattern, _translate(pattern, True))
            if not builtin:
                check_pattern_ambiguity(pattern, self.translated)
                check_pattern_speed(pattern, self._fast, self._compiled)
        self._builtin = builtin
        # Chunking pays off when pieces repeat inside chunks; for "whitespace"
        # the chunks are nearly the pieces, and a plain Counter is faster.
        self._chunked = builtin and pattern is not None and name != "whitespace"

    def __repr__(self):
        if self.pattern is None:
            return f"Pretokenizer({self.name!r})"
        return f"Pretokenizer({self.name!r}, pattern={self.pattern!r})"

    @property
    def compiled(self):
        """re.Pattern of `translated`, exact on any text (None for "bytes").

        Built-in patterns compile it on first use: most text has no astral
        characters and needs only the fast pattern, and compiling the exact
        one takes 20 to 60 ms (more than a short text takes to split).
        """
        if self._compiled is None and self.pattern is not None:
            self._compiled = _compile(self.pattern, self.translated)
        return self._compiled

    def split(self, text):
        """The pieces of `text`, in order; joined they give `text` back.

        >>> get_pretokenizer("gpt2").split("I'll pay 1234")
        ['I', "'ll", ' pay', ' 1234']
        """
        if self.pattern is None:
            return [text] if text else []
        if self._builtin:
            pieces = self._fast.findall(text) if not _has_astral(text) else self._split_astral(text)
        else:
            pieces = self._split_custom(text)
        if not self._builtin and sum(map(len, pieces)) != len(text):
            # Built-in patterns cover every character (the tests prove it); a
            # custom one may skip some, and findall would drop them silently.
            self._raise_skipped(text)
        return pieces

    def _split_custom(self, text):
        # The user's pattern on the real text, under a CPU budget in CPython's main thread (`re` checks
        # for signals while it matches): what check_pattern_ambiguity cannot see, a pattern slow as a
        # power of the text's length, is stopped too, with a message naming it.
        findall = (self.compiled if _has_astral(text) else self._fast).findall
        budget = CUSTOM_SPLIT_SECONDS + len(text) * CUSTOM_SPLIT_SECONDS_PER_CHAR
        watch = _split_watch if len(text) >= WATCH_CHARS else None
        with _alarm(budget):
            try:
                if watch:
                    watch(self.pattern, len(text), True)
                try:
                    return findall(text)
                finally:
                    if watch:
                        watch(self.pattern, len(text), False)
            except _ProbeTimeout:
                raise PretokenizeError(
                    f"pattern {_shorten(repr(self.pattern))} takes too long on this text: splitting its "
                    f"{len(text):,} characters took over {budget:.1f} s of CPU time and was stopped; it backtracks "
                    "too much. Rewrite it so each character can be matched one way only"
                ) from None

    def _split_astral(self, text):
        # Only the text between the cut points around each astral run needs
        # the slow exact pattern; the rest takes the fast one.
        pieces, done = [], 0
        fast, exact = self._fast.findall, self.compiled.findall
        for stretch in _ASTRAL_STRETCH_RE.finditer(text):
            end = _cut_after(text, stretch.end())
            if end <= done:  # already inside the previous region
                continue
            start = _cut_before(text, stretch.start(), done)
            if start > done:
                pieces += fast(text[done:start])
            pieces += exact(text[start:end])
            done = end
        pieces += fast(text[done:]) if done < len(text) else []
        return pieces

    @property
    def chunkable(self):
        """True when `chunks` cuts text into independently splittable parts (built-in patterns)."""
        return self._builtin and self.pattern is not None

    def split_with_offsets(self, text):
        """The pieces with their (start, end) character offsets in `text`.

        >>> get_pretokenizer("gpt2").split_with_offsets("Hi there")
        [('Hi', (0, 2)), (' there', (2, 8))]
        """
        out, start = [], 0
        for piece in self.split(text):
            end = start + len(piece)
            out.append((piece, (start, end)))
            start = end
        return out

    def count(self, text):
        """How often each piece occurs in `text`: equal to Counter(self.split(text)).

        >>> get_pretokenizer("gpt2").count("low low low")
        Counter({' low': 2, 'low': 1})
        """
        if not self._chunked:
            return Counter(self.split(text))
        if len(text) <= _COUNT_SEGMENT:
            return self._count_segment(text)
        # Count a long text a segment at a time: findall's list holds ~50
        # bytes a piece, so peak memory would otherwise grow with the text.
        counts = Counter()
        for segment in self.segments(text, _COUNT_SEGMENT):
            if _has_astral(segment):
                counts.update(self._count_segment(segment))
            else:  # as _count_segment, but counted straight into the total, in C
                counts.update(self._fast.findall(segment))
        return counts

    def segments(self, text, size):
        """Text cut at cut points into parts of about `size` characters that split on their own.

        For built-in patterns only (see chunkable); used to count long texts in
        pieces and to share them among processes.

        >>> get_pretokenizer("gpt2").segments("aa bb cc dd", 4)
        ['aa bb', ' cc dd']
        """
        if not self.chunkable:
            raise PretokenizeError(f"pre-tokenizer {self.name!r} has no safe cut points; split the whole text")
        out = []
        start = 0
        while start < len(text):
            end = _cut_after(text, start + size) if start + size < len(text) else len(text)
            out.append(text[start:end])
            start = end
        return out

    def _count_segment(self, text):
        if not _has_astral(text):
            # The fast pattern already runs at `re`'s speed; chunking (below)
            # measured no faster here, since it also builds and hashes a
            # string per chunk.
            return Counter(self._fast.findall(text))
        # With astral characters the exact pattern is several times slower,
        # so run it only once per distinct chunk. Cut the text at its cut
        # points (see _CHUNK_RE), count the chunks, and split the distinct
        # ones. Chunks with the same count are joined and split by one
        # findall: every join is again "X| ", so the join splits into exactly
        # the pieces of its chunks. Counter keeps first-seen order, so the
        # text's first chunk (the only one that may not start with a space)
        # stays first in its group, and its last chunk (the only one that may
        # end in whitespace) stays last; both occur once.
        chunk_counts = Counter(_CHUNK_RE.findall(text))
        by_count = {}  # count (negative: chunks with astral characters) -> [chunk]
        for chunk, n in chunk_counts.items():
            if not chunk.isascii() and _ASTRAL_RE.search(chunk):
                n = -n
            group = by_count.get(n)
            if group is None:
                by_count[n] = [chunk]
            else:
                group.append(chunk)
        counts = Counter()
        get = counts.get
        for n, chunks in by_count.items():
            pieces = (self._fast if n > 0 else self.compiled).findall("".join(chunks))
            if n == 1 or n == -1:
                counts.update(pieces)  # counted in C
            else:
                n = abs(n)
                for piece, k in Counter(pieces).items():
                    counts[piece] = get(piece, 0) + k * n
        return counts

    def _raise_skipped(self, text):
        position, gap_end = 0, len(text)
        for match in self.compiled.finditer(text):
            if match.start() != position:
                gap_end = match.start()
                break
            position = match.end()
        skipped = text[position:gap_end]
        shown = skipped if len(skipped) <= 20 else skipped[:20] + "..."
        context = text[max(0, position - 15):gap_end + 15]
        raise PretokenizeError(
            f"pattern {self.pattern!r} skips {len(skipped)} character(s) {shown!r} at position {position} "
            f"of the text (in {context!r}); no alternative matches there, so they would be dropped silently. "
            "Add an alternative that matches them, for example end the pattern with '|\\s+' "
            "for whitespace or '|(?s:.)' for any character"
        )


# Probes for catastrophic backtracking: a unit repeated n times, then an ending
# that may make the match fail at the last moment (`(a+)+$` on "aaaa!"), for
# growing n up to 64. n grows by as many units as the budget allows if each
# unit could multiply the time by 4, so an exponential pattern is met in
# small steps, and the first probe over the budget costs a few budgets at most.
_PROBE_UNITS = ("a", "A", "1", " ", "\n", "\t", "'", ".", "\u00e9", "\u4e2d", "ab", "a ", " a", "aA", "a1",
                "\r\n", "\U0001F600")
_PROBE_ENDINGS = ("", "!", " ", "\x00")
_PROBE_MAX_UNITS = 64


def check_pattern_speed(pattern, fast=None, exact=None):
    """Raise PretokenizeError if the pattern backtracks catastrophically on a probe string.

    Each probe is timed, short ones first; a probe over PROBE_SCAN_SECONDS, or
    all of them over PROBE_TOTAL_SECONDS, refuses the pattern, naming it and
    the probe. In CPython's main thread a timer signal also interrupts a probe
    that runs past the budget (`re` checks for signals while it matches). In
    Pyodide there are no signals: the growing probes are the protection, and
    the page restarts a worker that still hangs.

    >>> check_pattern_speed(r" ?\\p{L}+|\\s+|.")
    >>> try:
    ...     check_pattern_speed(r"(a+)+$|(?s:.)")
    ... except PretokenizeError as error:
    ...     print(str(error)[:38])
    pattern '(a+)+$|(?s:.)' takes too long
    """
    if fast is None or exact is None:
        _check_pattern(pattern)
        exact = _compile(pattern, _translate(pattern, False))
        fast = _compile(pattern, _translate(pattern, True))
    # CPU time, not wall time: a busy machine must not make a sound pattern look slow.
    clock = time.process_time
    with _alarm(PROBE_TOTAL_SECONDS * 2) as timed_out:
        started = clock()
        try:
            for unit in _PROBE_UNITS:
                findall = (exact if _has_astral(unit) else fast).findall
                for ending in _PROBE_ENDINGS:
                    n = 1
                    while n <= _PROBE_MAX_UNITS:
                        probe = unit * n + ending
                        before = clock()
                        findall(probe)
                        now = clock()
                        seconds = now - before
                        # A probe over the budget runs twice more and counts its fastest run: a
                        # collection, or Pyodide's clock (wall time there) on a busy machine, can
                        # stall one run, but only backtracking makes every run slow.
                        for _retry in range(2):
                            if seconds <= PROBE_SCAN_SECONDS:
                                break
                            before = clock()
                            findall(probe)
                            seconds = min(seconds, clock() - before)
                        if seconds > PROBE_SCAN_SECONDS or clock() - started > PROBE_TOTAL_SECONDS:
                            _too_slow(pattern, probe, seconds)
                        # Assume the time may grow 4-fold per unit: step as far as stays inside the budget.
                        n += max(1, int(math.log(PROBE_SCAN_SECONDS / max(seconds, 1e-6), 4)))
        except _ProbeTimeout:
            _too_slow(pattern, probe, clock() - before)
    del timed_out


def _too_slow(pattern, probe, seconds):
    shown = probe if len(probe) <= 20 else f"{probe[:8]}...{probe[-4:]} ({len(probe)} characters)"
    raise PretokenizeError(
        f"pattern {_shorten(repr(pattern))} takes too long: one probe, {shown!r}, took {seconds:.2f} s "
        f"(the budget is {PROBE_SCAN_SECONDS} s); it backtracks catastrophically, most likely through a repeat "
        "inside a repeat such as (a+)+ or (a|a)*. Rewrite it so each character can be matched one way only"
    ) from None


class _ProbeTimeout(Exception):
    pass


class _alarm:
    """Raise _ProbeTimeout after `seconds` of CPU time in CPython's main thread; elsewhere (threads, Pyodide) do nothing."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.armed = False

    def __enter__(self):
        import signal
        import sys
        import threading

        if (sys.platform == "emscripten" or not hasattr(signal, "setitimer")
                or threading.current_thread() is not threading.main_thread()):
            return self
        if signal.getitimer(signal.ITIMER_VIRTUAL)[0]:  # someone else's timer is running: leave it alone
            return self

        def fire(signum, frame):
            raise _ProbeTimeout()

        self.previous = signal.signal(signal.SIGVTALRM, fire)
        signal.setitimer(signal.ITIMER_VIRTUAL, self.seconds)
        self.armed = True
        return self

    def __exit__(self, *exc):
        if self.armed:
            import signal

            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            signal.signal(signal.SIGVTALRM, self.previous)
        return False


def get_pretokenizer(name="gpt2", pattern=None):
    r"""The pre-tokenizer called `name` (one of PRETOKENIZER_NAMES, or "custom" with a pattern).

    Memoized. A custom pattern equal to a built-in one (or to tiktoken's
    spelling of it, TIKTOKEN_PATTERNS) gives that built-in, with its name.

    >>> get_pretokenizer("custom", pattern=r" ?\p{L}+|\s+|\p{N}").split("a1 b")
    ['a', '1', ' b']
    """
    if not isinstance(name, str):
        raise PretokenizeError(f"pre-tokenizer name must be a str, got {name!r}")
    if pattern is not None:
        _check_pattern(pattern)
    return _get_pretokenizer(name, pattern)


@lru_cache(maxsize=64)
def _get_pretokenizer(name, pattern):
    canonical = _ALIASES.get(name, name)
    if canonical == "custom":
        if pattern is None:
            raise PretokenizeError("pre-tokenizer 'custom' needs a pattern, e.g. get_pretokenizer('custom', r' ?\\S+|\\s+')")
        for builtin in PRETOKENIZER_NAMES:
            if pattern in (PATTERNS[builtin], TIKTOKEN_PATTERNS.get(builtin)):
                return _get_pretokenizer(builtin, None)
        return Pretokenizer("custom", pattern, builtin=False)
    if canonical not in PATTERNS:
        raise PretokenizeError(
            f"unknown pre-tokenizer {name!r}; choose one of {', '.join(PRETOKENIZER_NAMES)}, "
            "or 'custom' with a pattern"
        )
    if pattern is not None:
        if pattern in (PATTERNS[canonical], TIKTOKEN_PATTERNS.get(canonical)):
            return _get_pretokenizer(canonical, None)
        raise PretokenizeError(
            f"a pattern was given with the built-in pre-tokenizer {name!r}; "
            f"use name='custom' for your own pattern {pattern!r}"
        )
    if canonical != name:
        return _get_pretokenizer(canonical, None)
    return Pretokenizer(canonical, PATTERNS[canonical], builtin=True)


@lru_cache(maxsize=64)
def _special_regex(specials):
    # Longest first, so "<|endoftext|>" wins over a special that is its prefix.
    return re.compile("|".join(re.escape(s) for s in sorted(specials, key=lambda s: (-len(s), s))))


def split_special(text, special_tokens):
    """Cut text around special-token spellings: [(chunk, start, is_special)], no empty chunks.

    >>> split_special("a<|eot|>b", ["<|eot|>"])
    [('a', 0, False), ('<|eot|>', 1, True), ('b', 8, False)]
    """
    specials = frozenset(special_tokens or ())
    for special in specials:
        if not isinstance(special, str) or not special:
            raise PretokenizeError(f"special tokens must be non-empty strings, got {special!r}")
    if not specials:
        return [(text, 0, False)] if text else []
    out, position = [], 0
    for match in _special_regex(specials).finditer(text):
        if match.start() > position:
            out.append((text[position:match.start()], position, False))
        out.append((match.group(), match.start(), True))
        position = match.end()
    if position < len(text):
        out.append((text[position:], position, False))
    return out


# ---------------------------------------------------------------- which alternative matched (the explorer, issue 13)


@lru_cache(maxsize=16)
def _alternatives(pattern):
    translator = _Translator(pattern)
    translator.leading_flags()  # (?i) at the start applies to every alternative
    texts, sources = [], []
    while True:
        start = translator.i
        source, _nullable = translator.sequence()
        texts.append(pattern[start:translator.i])
        sources.append(source)
        if translator.peek() != "|":
            break
        translator.i += 1
    # The translation has no capturing groups, so group i + 1 is alternative i.
    return tuple(texts), _compile(pattern, "|".join(f"({source})" for source in sources))


def alternatives(pattern):
    r"""The top-level alternatives of a pattern, as written.

    >>> alternatives(r"'s| ?\p{L}+|\s+")
    ["'s", ' ?\\p{L}+', '\\s+']
    """
    _check_pattern(pattern)
    return list(_alternatives(pattern)[0])


def split_by_alternative(pattern, text):
    r"""The pieces of `text` with the index of the top-level alternative that matched each.

    Alternatives are tried left to right and the first that matches wins, so
    this says why a piece ends where it does.

    >>> split_by_alternative(r"\p{N}{1,3}|\s+", "12345")
    [('123', 0, 0), ('45', 3, 0)]
    """
    _check_pattern(pattern)
    check_pattern_ambiguity(pattern, _translate(pattern, False))
    compiled = _alternatives(pattern)[1]
    budget = CUSTOM_SPLIT_SECONDS + len(text) * CUSTOM_SPLIT_SECONDS_PER_CHAR
    with _alarm(budget):
        try:
            return [(m.group(), m.start(), m.lastindex - 1) for m in compiled.finditer(text)]
        except _ProbeTimeout:
            raise PretokenizeError(
                f"pattern {_shorten(repr(pattern))} takes too long on this text: splitting its {len(text):,} "
                f"characters took over {budget:.1f} s of CPU time and was stopped; it backtracks too much"
            ) from None


# ------------------------------------------------------------------ ambiguous repeats, read from the parsed pattern
#
# A backtracking matcher is slow without end only when a repeat can match the same text in many
# ways: its passes can cut the text differently. That needs, inside the body of a repeat that may run
# many times, either a part of variable length that repeats itself ((b+)+, (\s*\S+)*, (a?)+), or
# alternatives that can start with the same character ((b|bb)+, (ab|a)*). Those are the only two
# ways a pass's extent can vary with the same next character, so refusing them refuses every
# exponential shape, on any letters and scripts, whatever text comes later; and it costs nothing at
# run time, so it holds in Pyodide too, where a running match cannot be interrupted. Atomic groups and
# possessive repeats never give back what they matched, so their inside is not a choice point.

_ALL = ((0, 0x10FFFF),)
_MANY = 3  # a repeat allowed more passes than this counts as "many" ((.*a){12} is n**12)


def _ambiguity(items, inside, ignore_case):
    """A short description of the first ambiguous repeat in `items`, or None."""
    from re import _constants as c

    for op, av in items:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            low, high, body = av
            if inside and low != high and high > 1:
                return "a repeat of variable length inside a repeat"
            many = high == c.MAXREPEAT or high > _MANY
            found = _body_ambiguity(body, ignore_case) if many and not inside else _ambiguity(body, inside, ignore_case)
            if found:
                return found
        elif op is c.POSSESSIVE_REPEAT:
            found = _ambiguity(av[2], False, ignore_case)
            if found:
                return found
        elif op is c.ATOMIC_GROUP:
            found = _ambiguity(av, False, ignore_case)
            if found:
                return found
        elif op is c.SUBPATTERN:
            flags = av[1]
            found = _ambiguity(av[3], inside, ignore_case or bool(flags & c.SRE_FLAG_IGNORECASE))
            if found:
                return found
        elif op in (c.ASSERT, c.ASSERT_NOT):
            found = _ambiguity(av[1], inside, ignore_case)
            if found:
                return found
        elif op is c.BRANCH:
            branches = av[1]
            if inside:
                firsts = [_first(branch, ignore_case) for branch in branches]
                for i, one in enumerate(firsts):
                    for other in firsts[i + 1:]:
                        shared = _overlap(one, other)
                        if shared is not None:
                            return (f"alternatives inside a repeat that can both start with {chr(shared)!r}"
                                    if 32 < shared < 0x110000 and chr(shared).isprintable()
                                    else "alternatives inside a repeat that can start with the same character")
            for branch in branches:
                found = _ambiguity(branch, inside, ignore_case)
                if found:
                    return found
        elif op is c.GROUPREF_EXISTS:
            for branch in av[1:]:
                if branch:
                    found = _ambiguity(branch, inside, ignore_case)
                    if found:
                        return found
    return None


def _body_ambiguity(body, ignore_case):
    """The body of a repeat that may run many times: a variable repeat at its top level is sound when
    the character after it says whether it goes on ([ab]+(?:c[ab]+)* is, (b+)+ is not)."""
    from re import _constants as c

    body = list(body)
    while len(body) == 1 and body[0][0] is c.SUBPATTERN and not body[0][1][1] & c.SRE_FLAG_IGNORECASE:
        body = list(body[0][1][3])
    for index, (op, av) in enumerate(body):
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] != av[1] and av[1] > 1:
            rest = body[index + 1:]
            follow = _first(rest, ignore_case) if rest else []
            if not rest or _nullable(rest):
                follow = follow + _first(body, ignore_case)
            if _overlap(_first(av[2], ignore_case), follow) is not None:
                return "a repeat of variable length inside a repeat"
            found = _ambiguity([(op, av)], False, ignore_case)
        else:
            found = _ambiguity([(op, av)], True, ignore_case)
        if found:
            return found
    return None


def _first(items, ignore_case):
    """The characters a match of `items` can start with, as ranges (all of them when it can be empty)."""
    from re import _constants as c

    ranges = []
    for op, av in items:
        if op is c.LITERAL:
            return ranges + (_cased(av) if ignore_case else [(av, av)])
        if op is c.IN:
            if any(kind in (c.NEGATE, c.CATEGORY) for kind, _ in av) or ignore_case:
                return list(_ALL)
            for kind, value in av:
                ranges += [(value, value)] if kind is c.LITERAL else [value]
            return ranges
        if op in (c.NOT_LITERAL, c.ANY, c.CATEGORY, c.GROUPREF, c.GROUPREF_EXISTS):
            return list(_ALL)
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue  # zero width: the next item starts the match
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            ranges += _first(av[2], ignore_case)
            if av[0] > 0:
                return ranges
            continue
        if op is c.SUBPATTERN:
            inner = av[3]
            ignore = ignore_case or bool(av[1] & c.SRE_FLAG_IGNORECASE)
        elif op is c.ATOMIC_GROUP:
            inner, ignore = av, ignore_case
        elif op is c.BRANCH:
            return list(_ALL) if any(_nullable(b) for b in av[1]) else ranges + [
                r for branch in av[1] for r in _first(branch, ignore_case)]
        else:
            return list(_ALL)
        ranges += _first(inner, ignore)
        if not _nullable(inner):
            return ranges
    return list(_ALL)  # every item can be empty: so can the whole


def _nullable(items):
    from re import _parser

    try:
        return _parser.SubPattern(_parser.State(), list(items)).getwidth()[0] == 0
    except Exception:  # noqa: BLE001 - unknown shape: assume the worst
        return True


def _cased(cp):
    ch = chr(cp)
    return [(ord(x), ord(x)) for x in {ch, ch.lower(), ch.upper(), ch.casefold()} if len(x) == 1]


def _overlap(one, other):
    """A character in both range lists, or None."""
    for a_low, a_high in one:
        for b_low, b_high in other:
            low = max(a_low, b_low)
            if low <= min(a_high, b_high):
                return low
    return None


def check_pattern_ambiguity(pattern, source):
    """Raise PretokenizeError if a repeat in the pattern can match the same text in many ways.

    >>> check_pattern_ambiguity(r" ?\\p{L}+|\\s+", r" ?[a-z]+|\\s+")
    >>> try:
    ...     check_pattern_ambiguity("(b+)+$|c", "(b+)+$|c")
    ... except PretokenizeError as error:
    ...     print(str(error).split(":")[0])
    pattern '(b+)+$|c' takes too long on some texts
    """
    from re import _parser

    try:
        parsed = _parser.parse(source)
    except Exception:  # noqa: BLE001 - _compile reports what `re` rejects
        return
    found = _ambiguity(list(parsed), False, bool(parsed.state.flags & re.IGNORECASE))
    if found:
        raise PretokenizeError(
            f"pattern {_shorten(repr(pattern))} takes too long on some texts: {found} can match the same text in "
            "many ways, so it backtracks catastrophically (as (a+)+ or (a|aa)* do). Rewrite it so each character "
            "can be matched one way only, or make the inner part atomic, (?>...), or possessive, such as a++"
        ) from None
