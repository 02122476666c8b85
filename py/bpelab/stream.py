"""Encoding text that arrives in parts, holding a bounded window: where text may be cut, and encode_iterable.

A cut point is a place where text may be split, each side pre-tokenized on
its own, and the pieces come out as those of the whole text. It must be a
boundary between pieces, and no piece before it may look past it. The
built-in patterns have no lookbehind, so what follows a cut splits as it
would in the whole text; what precedes it must not end in a way the
pattern's lookaheads (`\\s+(?!\\S)`) or `$` (`\\s++$`) would read differently.
For each built-in pattern (WS: a character of `\\s`; NW: any other):

- NW|WS, the start of a run of whitespace. No piece of gpt2 or "whitespace"
  holds a non-space followed by a space (they take a space only in front).
  cl100k and o200k let punctuation take the newlines after it (`!\\n`), so
  for them the whitespace must not be CR or LF.
- A run of whitespace ending before a non-space, WS|NW:
  - gpt2: a run of one character other than a space (`\\s+(?!\\S)` takes
    one less of a longer run when a non-space follows, and all of it at the
    end of the text; ` ?\\p{L}+` and the like take a space in front).
  - "whitespace": a run that does not end in a space (` ?[^\\s]+` takes it).
  - cl100k: a run ending in CR or LF (`\\s*[\\r\\n]` takes all of it either way).
  - o200k: the same, and the non-space is not `/` (`[\\r\\n/]*` after
    punctuation would take it).

The pattern of "bytes" makes each text one piece, and a custom pattern has no
proved cut points: both are never cut (the window then holds the whole text).
tests/test_stream.py checks every rule against the whole text's split.

A special token's spelling may hold a cut point (`<|end of text|>`), so cuts
inside any spelling of an allowed special token are skipped.
"""

import re

from .pretokenize import _class_ranges, _class_source

# A window holds at least this many characters before a cut is looked for;
# splitting 1 << 20 characters makes about 250,000 pieces (some 15 MB), and the
# piece cache holds at most tokenizer._CACHE_LIMIT of them.
WINDOW_CHARS = 1 << 20
SEGMENT_CHARS = 1 << 18  # a long text given whole is split this many characters at a time

_SPACES = tuple(_class_ranges("space"))
_WS = _class_source(_SPACES)
_NW = _class_source(_SPACES, negated=True)
_WS_NOT_CR_LF = f"(?![\\r\\n]){_WS}"
_RULES = {
    "gpt2": f"(?<={_NW})(?={_WS})|(?<={_WS})(?<! )(?<!{_WS}{_WS})(?={_NW})",
    "whitespace": f"(?<={_NW})(?={_WS})|(?<={_WS})(?<! )(?={_NW})",
    "cl100k": f"(?<={_NW})(?={_WS_NOT_CR_LF})|(?<=[\\r\\n])(?={_NW})",
    "o200k": f"(?<={_NW})(?={_WS_NOT_CR_LF})|(?<=[\\r\\n])(?=(?!/){_NW})",
}
_COMPILED = {}  # name -> (first cut from, last cut before), compiled on first use
# Every rule's cut lies between whitespace and a non-space, in either order. The rules cost about 40 ns a
# character to search, a class of one kind about 3: a long run of one kind (a 2 MB piece of `a`, 5 MB of
# spaces) is skipped by the class, and the rules are searched at most _RULE_SCAN characters at a time.
_WS_RE = re.compile(_WS)
_NW_RE = re.compile(_NW)
_RULE_SCAN = 4096


def _next_change(text, lo, hi):
    """The first p >= lo (lo >= 1) where text[p - 1] and text[p] are not both whitespace or both not, or hi."""
    if lo >= hi:
        return hi
    other = (_NW_RE if _WS_RE.match(text, lo - 1) else _WS_RE).search(text, lo, hi)
    return hi if other is None else other.start()


def _finders(pretokenizer):
    """(first, last) compiled patterns for the pre-tokenizer's cut points, or None if it has none."""
    if not getattr(pretokenizer, "chunkable", False) or pretokenizer.name not in _RULES:
        return None
    found = _COMPILED.get(pretokenizer.name)
    if found is None:
        rules = _RULES[pretokenizer.name]
        found = _COMPILED[pretokenizer.name] = (re.compile(rules), re.compile(f"(?s:.*)(?:{rules})"))
    return found


class CutPoints:
    """The cut points of one pre-tokenizer, avoiding the spellings of some special tokens.

    >>> from bpelab.pretokenize import get_pretokenizer
    >>> cuts = CutPoints(get_pretokenizer("gpt2"))
    >>> cuts.last("one two three", 1, 13), cuts.first("one two three", 4)
    (7, 7)
    """

    def __init__(self, pretokenizer, specials=()):
        self._finders = _finders(pretokenizer)
        self._specials = tuple(sorted(s for s in specials if len(s) > 1))
        self.longest_special = max(map(len, specials), default=0)

    @property
    def any(self):
        """False for a pre-tokenizer whose text is never cut."""
        return self._finders is not None

    def last(self, text, lo, hi):
        """The last cut point p with lo <= p < hi (text[p] is read, so p < len(text)), or -1."""
        if self._finders is None:
            return -1
        last = self._finders[1]
        while hi > lo:
            match = last.match(text, lo, hi)
            if match is None:
                return -1
            p = match.end()
            if not self._inside_special(text, p):
                return p
            hi = p
        return -1

    def first(self, text, lo, hi=None):
        """The first cut point p with lo <= p < hi (default: the text's end), or -1."""
        if self._finders is None:
            return -1
        first = self._finders[0]
        hi = len(text) if hi is None else hi
        lo = max(lo, 1)  # no cut at the text's start
        while lo < hi:
            lo = _next_change(text, lo, hi)
            if lo >= hi:
                return -1
            end = min(hi, lo + _RULE_SCAN)
            match = first.search(text, lo, end)
            if match is None:
                lo = end
                continue
            p = match.start()
            if p > 0 and not self._inside_special(text, p):
                return p
            lo = p + 1
        return -1

    def _inside_special(self, text, p):
        # Some spelling of a special token starts before p and ends after it.
        for special in self._specials:
            n = len(special)
            if text.find(special, max(0, p - n + 1), p + n - 1) >= 0:
                return True
        return False


def segments(pretokenizer, text, size=SEGMENT_CHARS):
    """Text cut at cut points into parts of about `size` characters or more (all of it if it has none).

    >>> from bpelab.pretokenize import get_pretokenizer
    >>> list(segments(get_pretokenizer("gpt2"), "aa bb cc dd", 4))
    ['aa bb', ' cc dd']
    """
    cuts = CutPoints(pretokenizer)
    start = 0
    while len(text) - start > size:
        cut = cuts.first(text, start + size)
        if cut < 0:
            break
        yield text[start:cut]
        start = cut
    if start < len(text):
        yield text[start:] if start else text


def encode_batches(tokenizer, texts, allowed, disallowed, window=None):
    """Lists of ids of the text that `texts` make, one list per window; see Tokenizer.encode_iterable.

    `allowed` and `disallowed` are sets of special tokens (Tokenizer._special_policy);
    `window` defaults to WINDOW_CHARS.
    """
    from .tokenizer import _alternation, check_encodable, disallowed_special_error

    window = WINDOW_CHARS if window is None else window
    cuts = CutPoints(tokenizer.pretokenizer, allowed)
    longest = max(cuts.longest_special, max(map(len, disallowed), default=0))
    margin = max(1, longest - 1)  # a cut needs the character after it, and a special token all of it
    forbidden = _alternation(disallowed) if disallowed else None

    def encoded(buffer, cut, offset):
        # Ids of buffer[:cut]. A disallowed spelling may cross the cut, so it is
        # looked for up to where one that starts before the cut would end.
        if forbidden is not None:
            match = forbidden.search(buffer, 0, min(len(buffer), cut + longest - 1))
            if match:
                raise disallowed_special_error(match.group(), offset + match.start())
        return tokenizer._encode_allowing(buffer[:cut] if cut < len(buffer) else buffer, allowed)

    buffer = ""  # text read but not yet encoded
    done = 0  # characters encoded before `buffer`
    pending, pending_chars = [], 0  # texts read since `buffer` was last joined
    searched = 1  # no cut point lies in buffer[1:searched]
    for index, text in enumerate(texts):
        check_encodable(text, f"item {index} of texts", offset=done + len(buffer) + pending_chars)
        pending.append(text)
        pending_chars += len(text)
        # Join when the new text is a window's worth, and at least as long as
        # the buffer: text without cut points is then copied O(1) times a character.
        if pending_chars < window or pending_chars < len(buffer):
            continue
        buffer += "".join(pending)
        pending, pending_chars = [], 0
        hi = len(buffer) - margin
        cut = cuts.last(buffer, searched, hi)
        if cut < 0:
            searched = max(searched, hi)
            continue
        yield encoded(buffer, cut, done)
        buffer = buffer[cut:]
        done += cut
        searched = 1
    buffer += "".join(pending)
    if buffer:
        yield encoded(buffer, len(buffer), done)
