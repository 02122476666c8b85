"""The `Tokenizer` value: encode, decode and the special-token policy.

A tokenizer is a vocabulary (id -> bytes), an ordered list of merges, a
pre-tokenizer and its special tokens. Encoding pre-tokenizes the text, then in
each pre-token repeatedly applies the applicable merge of lowest rank (seed
003's `encode_word`); rank, not position or length, decides.

Two merge rules exist, and a tokenizer uses exactly one:
- "pairs": GPT-2's files and our trainer. A merge is a pair of ids with a rank
  (its line in `vocab.bpe`).
- "ranks": tiktoken's files. Any two adjacent parts may merge if their
  concatenated bytes are a token; the token's id is the rank.
For vocabularies made by BPE training both give the same ids.

Speed without changing an id: each distinct pre-token is encoded once and
cached. A long non-ASCII pre-token is cut where no token can span, and each
segment is cached too. Inside a segment, most characters start as their own
BPE result (kept per character) instead of as bytes, where that provably
gives the same ids (see `_encode_characters`).

Not here: training (`train.py`), file formats (`artifacts.py`), the patterns
(`pretokenize.py`).
"""

import base64
import codecs
import gc
import hashlib
import heapq
import json
import re
import reprlib
from array import array
from itertools import chain, compress, repeat
from operator import add, not_

from .long_pieces import LongPieces
from .pretokenize import Pretokenizer, get_pretokenizer, split_special
from .stream import SEGMENT_CHARS, segments

_ONE_BYTE = [bytes((b,)) for b in range(256)]  # byte value -> one-byte string
_NO_RANK = 1 << 62  # larger than any rank; lets min() skip pairs that cannot merge
_UNSPANNED = _NO_RANK + 1  # a boundary no partial-character token spans: above every limit
# Pieces of more bytes than this are merged by a heap (the list scan is
# quadratic), and from two windows' bytes on in windows (see long_pieces).
_LONG_PIECE = 128
_SEGMENT_FROM = 4  # non-ASCII pre-tokens of at least this many characters are cut into segments
_JOIN_AT_ONCE = 1 << 14  # ids whose bytes decode_bytes joins in one call
_CACHE_LIMIT = 200_000  # entries kept per cache (pieces, segments, characters) before all restart


# Token ids are bounded so that a hostile file cannot make n_vocab (the size
# of every table indexed by id, such as the page's vocabulary list) huge:
# every id is an int from 0 to MAX_TOKEN_ID (they fit an int32, as in
# tiktoken and every embedding table), and at most MAX_ID_GAPS ids below the
# largest are unused (cl100k leaves 16 unused, o200k 18).
MAX_TOKEN_ID = 2**31 - 1
MAX_ID_GAPS = 65_536


def check_token_ids(ids, what="token ids"):
    """Raise ValueError unless `ids` (an iterable of distinct ids) follow the rule above.

    >>> check_token_ids(range(300))
    >>> check_token_ids([0, 1, 10**18])
    Traceback (most recent call last):
      ...
    ValueError: token id 1000000000000000000 is too large: ids must be at most 2,147,483,647 (2**31 - 1)
    """
    ids = list(ids)
    for i in ids:
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise ValueError(f"{what} must be non-negative integers, got {show_id(i)}")
        if i > MAX_TOKEN_ID:
            raise ValueError(f"token id {show_id(i)} is too large: ids must be at most {MAX_TOKEN_ID:,} (2**31 - 1)")
    if ids:
        largest = max(ids)
        unused = largest + 1 - len(set(ids))
        if unused > MAX_ID_GAPS:
            raise ValueError(
                f"{what} leave {unused:,} of the ids below the largest, {largest:,}, unused; at most "
                f"{MAX_ID_GAPS:,} may be (ids must be nearly contiguous from 0)"
            )


def show_id(value):
    """repr of an id for a message, short even for a 5,000-digit int (whose str() Python refuses)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"{'-' if value < 0 else ''}<an integer of {int(value.bit_length() * 0.30103) + 1:,} digits>"
    text = repr(value)
    return text if len(text) <= 60 else text[:45] + f"... ({len(text):,} characters)"


def disallowed_special_error(token, position):
    """The DisallowedSpecialError for a special token's spelling found at a character position."""
    error = DisallowedSpecialError(
        f"text contains the special token {token!r} at character {position}. "
        f"To encode it as the special token, pass allowed_special={{{token!r}}} "
        f"(or 'all'); to encode it as ordinary text, pass "
        f"disallowed_special=() or use encode_ordinary()."
    )
    error.token, error.position = token, position
    return error


class InvalidTextError(ValueError):
    """Text that cannot be encoded as UTF-8 (a lone surrogate)."""


class DisallowedSpecialError(ValueError):
    """A special token's spelling appeared in text that may not contain it."""


def check_encodable(text, what="text", offset=0):
    """Raise InvalidTextError naming the first lone surrogate in text, if any (TypeError if text is no str).

    `offset` is where text starts in a longer text, for the message.

    >>> check_encodable("fine")
    """
    check_text(text, what)
    if text.isascii():  # O(1) in CPython, and 20 ms less for 4 MB of English than the search
        return
    match = _SURROGATE.search(text)
    if match:
        index = match.start()
        raise InvalidTextError(
            f"{what} has a lone surrogate U+{ord(text[index]):04X} at character {offset + index} "
            f"(after {text[max(0, index - 20):index]!r}); it cannot be encoded as UTF-8. "
            "Remove it, or replace it with U+FFFD."
        )


_SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(text, what="text"):
    """Raise TypeError unless text is a str; the message names the argument and the fix.

    >>> check_text(b"hi")
    Traceback (most recent call last):
      ...
    TypeError: text must be a str, got bytes b'hi'; decode the bytes first, e.g. data.decode('utf-8')
    """
    if isinstance(text, str):
        return
    if isinstance(text, (bytes, bytearray, memoryview)):
        hint = "; decode the bytes first, e.g. data.decode('utf-8')"
    elif isinstance(text, (list, tuple)):
        hint = "; encode each text on its own, or pass an iterable of texts to encode_iterable()"
    else:
        hint = ""
    raise TypeError(f"{what} must be a str, got {_shown_value(text)}{hint}")


def checked_ids(ids, what="ids"):
    """ids as a list, or TypeError naming the first value that is not a token id (an int; a bool is not one).

    >>> checked_ids((104, 105))
    [104, 105]
    >>> checked_ids([104.0])
    Traceback (most recent call last):
      ...
    TypeError: ids[0] must be an int (a token id), got float 104.0
    """
    if isinstance(ids, (str, bytes, bytearray, memoryview)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"{what} must be a list of token ids (ints), got {_shown_value(ids)}")
    if type(ids) is not list:
        ids = list(ids)
    kinds = set(map(type, ids))  # in C: 6 ms per million ids
    if kinds <= {int}:
        return ids
    for index, value in enumerate(ids):
        if isinstance(value, bool):
            raise TypeError(f"{what}[{index}] is {value!r}, a bool, which is not a token id; pass an int")
        if not isinstance(value, int):
            raise TypeError(f"{what}[{index}] must be an int (a token id), got {_shown_value(value)}")
    return ids


def _shown_value(value):
    """A value's type and a short repr, for a message, whatever the value's size.

    >>> _shown_value(b"x" * 1000)
    "bytes of 1,000 bytes b'xxxxxxxxxxxx...xxxxxxxxxxxxxx'"
    """
    if value is None:
        return "None"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{type(value).__name__} {show_id(value)}"
    kind = type(value).__name__
    size = len(value) if hasattr(value, "__len__") else None
    unit = "characters" if isinstance(value, str) else "bytes" if isinstance(value, (bytes, bytearray, memoryview)) else "items"
    if isinstance(value, memoryview):
        value = bytes(value[:100])
    sized = f" of {size:,} {unit}" if size is not None and size > 20 else ""
    return f"{kind}{sized} {_SHORT_REPR.repr(value)}"


_SHORT_REPR = reprlib.Repr()
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = 32
_SHORT_REPR.maxlist = _SHORT_REPR.maxtuple = _SHORT_REPR.maxset = _SHORT_REPR.maxdict = 6


class Tokenizer:
    """A byte-level BPE tokenizer.

    >>> tok = Tokenizer({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(97, 98)],
    ...                 pretokenizer="bytes")
    >>> tok.encode("abc"), tok.decode([256, 99])
    ([256, 99], 'abc')
    """

    def __init__(self, vocab, merges, *, special_tokens=None, pretokenizer="gpt2", name=""):
        self.name = name
        self.vocab = dict(vocab)  # int -> bytes, ordinary tokens only
        self.merges = [tuple(pair) for pair in merges]  # [(int, int)] in rank order
        self.special_tokens = dict(special_tokens or {})  # str -> int
        self.pretokenizer = _as_pretokenizer(pretokenizer)
        self.merge_rule = "pairs"
        self._ranks = None  # bytes -> int, only for the "ranks" rule
        self._check_vocab()
        token_id = {token: i for i, token in self.vocab.items()}
        self._pair_rank = {}  # (int, int) -> int
        self._merge_result = []  # rank -> the id the merge makes
        for rank, (a, b) in enumerate(self.merges):
            for part in (a, b):
                if part not in self.vocab:
                    raise ValueError(f"merge {rank} ({a}, {b}) uses id {part}, which is not in the vocabulary")
            merged = token_id.get(self.vocab[a] + self.vocab[b])
            if merged is None:
                raise ValueError(
                    f"merge {rank} ({a}, {b}) makes {self.vocab[a] + self.vocab[b]!r}, which is not in the vocabulary"
                )
            if (a, b) in self._pair_rank:
                raise ValueError(f"merge {rank} ({a}, {b}) repeats merge {self._pair_rank[(a, b)]}")
            self._pair_rank[(a, b)] = rank
            self._merge_result.append(merged)
        self._finish_init()

    @classmethod
    def from_ranks(cls, ranks, *, special_tokens=None, pretokenizer="gpt2", name=""):
        """A tokenizer with tiktoken's rule: a token's rank is its id.

        >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256}
        >>> Tokenizer.from_ranks(ranks, pretokenizer="bytes").encode("abab")
        [256, 256]
        """
        self = cls.__new__(cls)
        self.name = name
        self.vocab = {rank: token for token, rank in ranks.items()}
        if len(self.vocab) != len(ranks):
            raise ValueError("ranks must be distinct: two tokens share a rank")
        self.merges = None  # recovered on demand by `artifacts`, not needed to encode
        self.special_tokens = dict(special_tokens or {})
        self.pretokenizer = _as_pretokenizer(pretokenizer)
        self.merge_rule = "ranks"
        self._ranks = dict(ranks)
        self._check_vocab()
        self._finish_init()
        return self

    def _check_vocab(self):
        for i, token in self.vocab.items():
            if not isinstance(i, int) or isinstance(i, bool) or i < 0:
                raise ValueError(f"token ids must be non-negative integers, got {show_id(i)}")
            if not isinstance(token, bytes) or not token:
                raise ValueError(f"token {i} must be a non-empty bytes value, got {token!r}")
        seen = {}
        for special, i in self.special_tokens.items():
            if not isinstance(special, str) or not special:
                raise ValueError(f"special tokens must be non-empty strings, got {special!r}")
            if not isinstance(i, int) or isinstance(i, bool) or i < 0:
                raise ValueError(f"the id of special token {special!r} must be a non-negative integer, got {show_id(i)}")
            if i in seen:
                raise ValueError(f"special tokens {seen[i]!r} and {special!r} share the id {i}")
            seen[i] = special
        overlap = set(self.special_tokens.values()) & set(self.vocab)
        if overlap:
            raise ValueError(f"special token ids {sorted(overlap)} are also ordinary token ids")
        check_token_ids(chain(self.vocab, seen))

    def _finish_init(self):
        byte_ids = {}
        for i, token in self.vocab.items():
            if len(token) == 1:
                byte_ids.setdefault(token[0], i)
        missing = [b for b in range(256) if b not in byte_ids]
        if missing:
            raise ValueError(
                f"a byte-level vocabulary needs a token for each of the 256 bytes; "
                f"missing {len(missing)}, first 0x{missing[0]:02X}"
            )
        self._byte_ids = [byte_ids[b] for b in range(256)]
        # When every byte id is below 256, bytes.translate maps a piece to ids in C.
        self._byte_table = bytes(self._byte_ids) if max(self._byte_ids) < 256 else None
        self._token_bytes = self.vocab | {i: s.encode("utf-8") for s, i in self.special_tokens.items()}
        self._long_pieces = LongPieces(self)  # see long_pieces
        self._cache = _PieceCache(self._encode_piece_text)  # str -> ids
        self._segment_cache = _PieceCache(self._encode_characters)
        self._seams = None  # what tokens span between characters; see seams()
        self._chars = _CharTable(self)  # character -> _CharTable entry; see _encode_characters
        self._special_pattern = _alternation(self.special_tokens)
        self._digest = None  # see sha256()

    # ----------------------------------------------------------------- encode

    @property
    def n_vocab(self):
        """One more than the largest id: the size of an embedding table."""
        return max(self._token_bytes) + 1

    def clear_cache(self):
        """Forget every cached encoding (pieces, segments, characters): the next encode is cold.

        >>> Tokenizer.bytes_only().clear_cache()
        """
        self._cache.clear()
        self._segment_cache.clear()
        self._chars.clear()
        self._long_pieces.clear()

    def encode_ordinary(self, text):
        """Ids for text, treating special-token spellings as ordinary text.

        >>> Tokenizer.bytes_only().encode_ordinary("<|endoftext|>")[:3]
        [60, 124, 101]
        """
        check_encodable(text)
        return self._encode_text(text)

    def encode(self, text, *, allowed_special=frozenset(), disallowed_special="all"):
        """Ids for text; special tokens follow tiktoken's policy.

        A special token's spelling in text raises DisallowedSpecialError unless
        it is in `allowed_special` (then it becomes the special id) or excluded
        from `disallowed_special` (then it is ordinary text).

        >>> tok = Tokenizer.bytes_only(special_tokens={"<|endoftext|>": 256})
        >>> tok.encode("a<|endoftext|>", allowed_special="all")
        [97, 256]
        """
        check_encodable(text)
        allowed, disallowed = self._special_policy(allowed_special, disallowed_special)
        if disallowed:
            match = _alternation(disallowed).search(text)
            if match:
                raise disallowed_special_error(match.group(), match.start())
        return self._encode_allowing(text, allowed)

    def encode_iterable(self, texts, *, allowed_special=frozenset(), disallowed_special="all"):
        """Ids of the text that `texts` (an iterable of str, such as an open text file) make, yielded lazily.

        The ids equal encode("".join(texts)), with the same special-token
        policy; a str is taken as one text. The texts are read as the ids are
        consumed, and only a window of about stream.WINDOW_CHARS characters is
        held: it is encoded up to its last cut point, where no pre-token or
        allowed special token can cross (see stream.py). A pre-tokenizer
        without cut points ("bytes", a custom pattern) holds the whole text.
        An error (a disallowed special token, a lone surrogate) is raised
        where the ids reach it, after the ids before it.

        >>> tok = Tokenizer.bytes_only(pretokenizer="gpt2")
        >>> list(tok.encode_iterable(["hi th", "ere"]))
        [104, 105, 32, 116, 104, 101, 114, 101]
        """
        from .stream import encode_batches

        if isinstance(texts, str):
            texts = (texts,)
        elif isinstance(texts, (bytes, bytearray, memoryview)) or not hasattr(texts, "__iter__"):
            raise TypeError(f"texts must be an iterable of str (an open text file, a list of str), got "
                            f"{_shown_value(texts)}; for bytes, open the file in text mode or decode them")
        allowed, disallowed = self._special_policy(allowed_special, disallowed_special)
        return chain.from_iterable(encode_batches(self, texts, allowed, disallowed))

    def _encode_allowing(self, text, allowed):
        # Ids of text whose disallowed special tokens have been checked for; allowed ones become their ids.
        if not allowed:
            return self._encode_text(text)
        ids = []
        for chunk, _start, is_special in split_special(text, sorted(allowed)):
            if is_special:
                ids.append(self.special_tokens[chunk])
            else:
                ids += self._encode_text(chunk)
        return ids

    def _special_policy(self, allowed_special, disallowed_special):
        """(allowed, disallowed): the sets of special tokens the two arguments name."""
        specials = set(self.special_tokens)
        allowed = specials if allowed_special == "all" else _token_set(allowed_special, "allowed_special")
        unknown = allowed - specials
        if unknown:
            raise ValueError(f"allowed_special names tokens this tokenizer lacks: {sorted(unknown)}")
        disallowed = specials - allowed if disallowed_special == "all" else _token_set(disallowed_special, "disallowed_special")
        return allowed, disallowed

    def _encode_text(self, text):
        # Encoding makes no reference cycles, but its many new lists and tuples set off the cycle
        # collector every 700 allocations: paused, a cold encode takes 2-5% less CPU time.
        collecting = gc.isenabled()
        gc.disable()
        try:
            if len(text) <= SEGMENT_CHARS:
                self._bound_caches()
                return self._encode_chunk(text)
            # A long text a segment at a time: findall's list of pieces holds about
            # 60 bytes a piece, so memory would otherwise grow with the text.
            ids = []
            for segment in segments(self.pretokenizer, text):
                self._bound_caches()
                ids += self._encode_chunk(segment)
            return ids
        finally:
            if collecting:
                gc.enable()

    def _bound_caches(self):
        if max(len(self._cache), len(self._segment_cache), len(self._chars)) > _CACHE_LIMIT:
            self.clear_cache()  # memory stays bounded in a long-running process

    def _encode_chunk(self, text):
        # Cached pieces are looked up and joined in C; only new pieces run Python.
        cache = self._cache
        return list(chain.from_iterable(map(cache.__getitem__, self.pretokenizer.split(text))))

    def _encode_piece_text(self, piece):
        if piece.isascii():
            data = piece.encode("ascii")
            if self._ranks is not None and len(data) <= _LONG_PIECE:  # encode_piece, without its checks
                whole = self._ranks.get(data)
                if whole is not None:
                    return [whole]
                return self._merge_by_ranks(list(map(_ONE_BYTE.__getitem__, data)))
            return self.encode_piece(data)
        if self.merge_rule == "ranks":
            whole = self._ranks.get(piece.encode("utf-8"))
            if whole is not None:  # tiktoken's shortcut, for whole pieces only
                return [whole]
        if len(piece) >= _SEGMENT_FROM:
            return self._encode_by_segments(piece)
        return self._encode_characters(piece)

    def _encode_by_segments(self, piece):
        """Ids of a long pre-token, cut where no token of the vocabulary can span.

        A merge makes a token out of adjacent parts, so a cut that no token
        (as a substring of the piece) spans is never crossed, and the parts on
        either side never meet: BPE of the piece is BPE of each segment, and
        short segments (a character, a common word) repeat, so they cache well.
        Long Chinese or Japanese pieces become short segments this way; a
        segment of one character takes that character's ids.

        A token spanning the cut between characters x and y either decodes
        (then it holds the bigram xy) or holds a partial character (then it
        holds the last byte of x followed by the first byte of y). Both sets
        are collected once from the vocabulary. ASCII pairs are never cut, so
        only tokens with non-ASCII text need looking at.
        """
        chars, _, kept = self.seams()
        entries = list(map(self._chars.__getitem__, piece))
        # Boundaries whose two characters sit together in some token, found in C.
        joined = map(chars.__contains__, map(add, piece, piece[1:]))
        segment_ids = self._segment_cache.__getitem__
        ids = []
        start = 0
        for i in compress(range(1, len(piece)), map(not_, joined)):
            if not kept[entries[i - 1][1] | entries[i][0]]:  # the two bytes, as last << 8 | first
                ids += entries[start][-1] if i - start == 1 else segment_ids(piece[start:i])
                start = i
        if not start:  # no cut
            return self._encode_characters(piece, entries)
        ids += entries[start][-1] if len(piece) - start == 1 else segment_ids(piece[start:])
        return ids

    def seams(self):
        """What tokens span, built once: ({two characters inside a token}, span_rank, kept).

        span_rank[x << 8 | y] is the lowest rank of the partial-character
        tokens that hold byte x then byte y at a character start
        (_UNSPANNED: none); kept[x << 8 | y] is 1 where there is one, or
        where both bytes are ASCII.
        """
        if self._seams is None:
            if self.merge_rule == "ranks":
                made = self._ranks.items()
            else:  # the tokens merges make, each with its merge's rank
                made = ((self._token_bytes[i], rank) for rank, i in enumerate(self._merge_result))
            self._seams = _seams(made)
        return self._seams

    def _encode_characters(self, text, entries=None):
        """BPE of a non-ASCII text, with most characters starting already merged.

        A character whose two boundaries no partial-character token spans
        cannot meet its neighbours until it is whole: any token across such
        a boundary holds whole characters. Until then it merges on its own,
        exactly as BPE of the character alone does. So it may start as that
        result (kept per character), which saves most merges in Chinese or
        Japanese text. Starting early changes nothing as long as every merge
        across it ranks above all of its own merges: while it is still in
        bytes, its next own merge ranks above whatever is being merged, so
        it could not have joined anything yet. Trained vocabularies always
        pass (a token ranks above its parts); for any other the merge loop
        sees the failure and the text is merged from bytes.

        The same holds at a boundary that partial-character tokens do span,
        if all of them rank above the character's own highest merge: until
        it is whole its next own merge comes first, so its bytes meet no
        neighbour. (A token's rank, for the pairs rule, is that of the merge
        that makes it.) In Russian or Korean text with cl100k this starts most
        characters whole instead of under half.
        """
        if entries is None:
            entries = list(map(self._chars.__getitem__, text))
        if len(entries) == 1:
            return list(entries[0][-1])
        span_rank = self.seams()[1]
        parts, limits = [], []
        left = _UNSPANNED
        previous = entries[0]
        for entry in chain(entries[1:], [None]):
            # The lowest rank of a partial-character token across the boundary to the right.
            right = span_rank[previous[1] | entry[0]] if entry is not None else _UNSPANNED
            limit = previous[3][0]  # the character's highest own merge
            if left > limit and right > limit:
                parts += previous[2]  # the character's own BPE
                limits += previous[3]
            else:
                parts += previous[4]  # bytes
                limits += previous[5]
            left = right
            previous = entry
        if len(parts) <= _LONG_PIECE:
            if self.merge_rule == "ranks":
                merged = self._merge_by_ranks(parts, limits)
            else:
                merged = self._merge_by_pairs(parts, limits)
            if merged is not None:
                return merged
        return self._merge_bytes(text.encode("utf-8"))

    def encode_piece(self, piece):
        """Ids for one pre-token, given as bytes, by applying merges in rank order.

        >>> Tokenizer.bytes_only().encode_piece(b"hi")
        [104, 105]
        """
        if not isinstance(piece, bytes):
            raise TypeError(f"piece must be bytes (one pre-token in UTF-8), got {_shown_value(piece)}; "
                            "for text, use encode() or encode_ordinary()")
        if self.merge_rule == "ranks" and len(piece) > 1:
            whole = self._ranks.get(piece)
            if whole is not None:  # tiktoken's shortcut: a piece that is a token
                return [whole]
        return self._merge_bytes(piece)

    def _merge_bytes(self, piece):
        # BPE of bytes, from single bytes, without the whole-piece shortcut.
        if len(piece) >= 2 * self._long_pieces.window:
            ids = self._long_pieces.encode(piece)
            if ids is not None:
                return ids
        if self._byte_table is not None:
            ids = list(piece.translate(self._byte_table))
        else:
            ids = [self._byte_ids[b] for b in piece]
        if len(ids) < 2:
            return ids
        if self.merge_rule == "ranks":
            parts = list(map(_ONE_BYTE.__getitem__, piece))
            if len(ids) > _LONG_PIECE:
                return list(map(self._ranks.__getitem__, self._merge_heap(parts)))
            return self._merge_by_ranks(parts)
        if len(ids) > _LONG_PIECE:
            return self._merge_heap(ids)
        return self._merge_by_pairs(ids)

    def _merge_by_pairs(self, ids, limits=None):
        # Lowest rank first, leftmost among equals, one merge at a time.
        # With limits (see _encode_characters), limits[i] is the highest rank
        # among the own merges of the characters that started whole in part i
        # (-1: none); a merge at or below it could have come earlier from
        # bytes, so the caller must start from bytes: None.
        get = self._pair_rank.get
        result = self._merge_result
        ranks = list(map(get, zip(ids, ids[1:]), repeat(_NO_RANK)))  # in C
        while ranks:
            best = min(ranks)
            if best == _NO_RANK:
                break
            i = ranks.index(best)
            if limits is not None:  # join the two parts' limits; refuse a merge at or below them
                limit = limits[i] if limits[i] > limits[i + 1] else limits[i + 1]
                if best <= limit:
                    return None
                limits[i] = limit
                del limits[i + 1]
            ids[i] = result[best]
            del ids[i + 1]
            del ranks[i]
            if i:
                ranks[i - 1] = get((ids[i - 1], ids[i]), _NO_RANK)
            if i < len(ranks):
                ranks[i] = get((ids[i], ids[i + 1]), _NO_RANK)
        return ids

    def _merge_by_ranks(self, parts, limits=None):
        # tiktoken's byte_pair_merge on byte strings; limits as in _merge_by_pairs.
        get = self._ranks.get
        ranks = list(map(get, map(add, parts, parts[1:]), repeat(_NO_RANK)))  # in C
        while ranks:
            best = min(ranks)
            if best == _NO_RANK:
                break
            i = ranks.index(best)
            if limits is not None:  # join the two parts' limits; refuse a merge at or below them
                limit = limits[i] if limits[i] > limits[i + 1] else limits[i + 1]
                if best <= limit:
                    return None
                limits[i] = limit
                del limits[i + 1]
            parts[i] += parts[i + 1]
            del parts[i + 1]
            del ranks[i]
            if i:
                ranks[i - 1] = get(parts[i - 1] + parts[i], _NO_RANK)
            if i < len(ranks):
                ranks[i] = get(parts[i] + parts[i + 1], _NO_RANK)
        return list(map(self._ranks.__getitem__, parts))

    def _rank_of(self, a, b):
        """(rank, merged id) of the pair of ids, or None when they do not merge."""
        if self.merge_rule == "ranks":
            rank = self._ranks.get(self._token_bytes[a] + self._token_bytes[b])
            return None if rank is None else (rank, rank)
        rank = self._pair_rank.get((a, b))
        return None if rank is None else (rank, self._merge_result[rank])

    def _merge_heap(self, parts):
        # The same rule as the list scan, in O(n log n) and about 60 bytes a part:
        # a heap of rank << 32 | position over a linked list. An entry whose
        # pair has changed since is stale: its rank is no longer the pair's
        # (a pair at one position only ever grows, so it never has that rank again).
        # Parts are ids (pairs rule) or bytes (ranks rule).
        if self.merge_rule == "ranks":
            get = self._ranks.get
            pair_ranks = map(get, map(add, parts, parts[1:]))
        else:
            get = self._pair_rank.get
            result = self._merge_result
            pair_ranks = map(get, zip(parts, parts[1:]))
        by_ranks = self.merge_rule == "ranks"
        n = len(parts)
        nxt = array("q", range(1, n + 1))
        prv = array("q", range(-1, n - 1))
        heap = [rank << 32 | i for i, rank in enumerate(pair_ranks) if rank is not None]
        heapq.heapify(heap)
        pop, push = heapq.heappop, heapq.heappush
        mask = (1 << 32) - 1
        while heap:
            key = pop(heap)
            i = key & mask
            a = parts[i]
            j = nxt[i]
            if a is None or j >= n:
                continue
            rank = key >> 32
            b = parts[j]
            if by_ranks:
                merged = a + b
                if get(merged) != rank:
                    continue
            else:
                if get((a, b)) != rank:
                    continue
                merged = result[rank]
            parts[i] = merged
            parts[j] = None
            k = nxt[i] = nxt[j]
            if k < n:
                prv[k] = i
                found = get(merged + parts[k] if by_ranks else (merged, parts[k]))
                if found is not None:
                    push(heap, found << 32 | i)
            p = prv[i]
            if p >= 0:
                found = get(parts[p] + merged if by_ranks else (parts[p], merged))
                if found is not None:
                    push(heap, found << 32 | p)
        return [part for part in parts if part is not None]

    def encode_trace(self, piece):
        """Every step of encoding one pre-token: the candidates and the merge applied.

        Each step is a dict with `parts` (ids before the step), `candidates`
        ([(left id, right id, rank)] in position order) and `applied` (the
        candidate chosen), as in seed 003's `encode 'lowest'` trace.

        With tiktoken's rule a piece that is itself a token is encoded whole,
        merged or not. Where the merges would end elsewhere (a token they
        cannot reach), the trace is that one step, marked `whole_piece`.

        >>> Tokenizer.bytes_only().encode_trace("ab")
        [{'parts': [97, 98], 'candidates': [], 'applied': None}]
        """
        check_encodable(piece, "piece")
        steps = self._merge_trace(piece)
        if self.merge_rule == "ranks" and len(piece.encode("utf-8")) > 1:
            whole = self._ranks.get(piece.encode("utf-8"))
            if whole is not None and steps[-1]["parts"] != [whole]:
                return [{"parts": [whole], "candidates": [], "applied": None, "whole_piece": True}]
        return steps

    def _merge_trace(self, piece):
        ids = [self._byte_ids[b] for b in piece.encode("utf-8")]
        steps = []
        while True:
            candidates = []
            for a, b in zip(ids, ids[1:]):
                found = self._rank_of(a, b)
                if found:
                    candidates.append((a, b, found[0]))
            applied = min(candidates, key=lambda c: c[2]) if candidates else None
            steps.append({"parts": list(ids), "candidates": candidates, "applied": applied})
            if applied is None:
                return steps
            a, b, rank = applied
            merged = self._rank_of(a, b)[1]
            i = next(k for k in range(len(ids) - 1) if (ids[k], ids[k + 1]) == (a, b))
            ids[i : i + 2] = [merged]

    # ----------------------------------------------------------------- decode

    def token_bytes(self, token_id):
        """The bytes one id stands for (special tokens as their UTF-8 spelling).

        >>> Tokenizer.bytes_only().token_bytes(104)
        b'h'
        """
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token_id must be an int (a token id), got {_shown_value(token_id)}")
        try:
            return self._token_bytes[token_id]
        except (KeyError, TypeError):
            raise ValueError(f"unknown token id {show_id(token_id)}: this tokenizer has {len(self._token_bytes)} ids") from None

    def decode_bytes(self, ids):
        """The bytes of a list of ids, joined: lossless even mid-character.

        >>> Tokenizer.bytes_only().decode_bytes([0xC3, 0xA9])
        b'\\xc3\\xa9'
        """
        ids = checked_ids(ids)
        get = self._token_bytes.__getitem__
        table = self._token_bytes
        try:
            if len(ids) <= _JOIN_AT_ONCE:
                return b"".join(map(get, ids))
            # bytes.join keeps an 80-byte buffer record per item: 10 million ids at once took 800 MB.
            return b"".join([b"".join(map(get, ids[i:i + _JOIN_AT_ONCE])) for i in range(0, len(ids), _JOIN_AT_ONCE)])
        except KeyError:
            bad = next(i for i in ids if i not in table)
            raise ValueError(f"unknown token id {show_id(bad)}: this tokenizer has {len(table)} ids") from None

    def decode(self, ids, errors="strict"):
        """The text of a list of ids. errors="replace" turns invalid UTF-8 into U+FFFD (lossy).

        >>> Tokenizer.bytes_only().decode([104, 105])
        'hi'
        """
        if errors not in ("strict", "replace"):
            raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    def stream_decoder(self, errors="strict"):
        """A decoder fed ids a few at a time; it holds back partial UTF-8 characters.

        >>> d = Tokenizer.bytes_only().stream_decoder()
        >>> d.feed([0xC3]), d.feed([0xA9]), d.flush()
        ('', 'é', '')
        """
        return StreamDecoder(self, errors)

    # ------------------------------------------------------------------ misc

    def sha256(self):
        """Hex sha256 of everything that decides the ids: the rule, vocabulary, merges, special tokens and pattern.

        Two tokenizers with the same digest encode and decode alike; the same
        tokenizer read again, from any files of the same kind, gives the same
        digest (a `.tiktoken` file and GPT-2's files of one vocabulary differ:
        their merge rules do). `bpelab encode --out` records it beside the ids.

        >>> Tokenizer.bytes_only().sha256() == Tokenizer.bytes_only().sha256() != Tokenizer.bytes_only(pretokenizer="gpt2").sha256()
        True
        """
        if self._digest is None:
            head = json.dumps({
                "format": "bpelab tokenizer digest 1",
                "rule": self.merge_rule,
                "pretokenizer": self.pretokenizer.name,
                "pattern": self.pretokenizer.pattern,
                "special_tokens": sorted(self.special_tokens.items()),
            }, sort_keys=True, ensure_ascii=True)
            vocab = b"".join(b"%d %s\n" % (i, base64.b64encode(self.vocab[i])) for i in sorted(self.vocab))
            merges = b"".join(b"%d %d\n" % pair for pair in self.merges or ())
            self._digest = hashlib.sha256(head.encode("ascii") + b"\nvocab\n" + vocab + b"merges\n" + merges).hexdigest()
        return self._digest

    @classmethod
    def bytes_only(cls, special_tokens=None, pretokenizer="bytes"):
        """The tokenizer with no merges: one id per byte.

        >>> Tokenizer.bytes_only().encode("hé")
        [104, 195, 169]
        """
        return cls({i: bytes([i]) for i in range(256)}, [], special_tokens=special_tokens, pretokenizer=pretokenizer)

    def __repr__(self):
        label = f"{self.name!r}, " if self.name else ""
        return (
            f"Tokenizer({label}{len(self.vocab)} tokens, {len(self.special_tokens)} special, "
            f"pretokenizer={self.pretokenizer.name!r}, rule={self.merge_rule!r})"
        )


def _seams(made):
    """Tokenizer.seams, from the (token, rank) pairs that merges make. Only tokens with non-ASCII bytes are read."""
    chars = set()
    span_rank = [_UNSPANNED] * (1 << 16)
    for token, rank in made:
        if token.isascii():
            continue
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            for i in range(1, len(token)):
                if token[i] < 0x80 or token[i] >= 0xC0:  # a character starts here
                    at = token[i - 1] << 8 | token[i]
                    if rank < span_rank[at]:
                        span_rank[at] = rank
            continue
        chars.update(map(add, text, text[1:]))  # each pair of neighbouring characters, in C
    kept = bytearray(map(_UNSPANNED.__gt__, span_rank))  # 1 where a partial token spans
    for x in range(0x80):
        kept[x << 8 : x << 8 | 0x80] = b"\x01" * 0x80
    return frozenset(chars), span_rank, bytes(kept)


class _CharTable(dict):
    """Character -> (first byte, last byte << 8, own parts, their limits, byte parts, their limits, ids).

    Parts are ids (pairs rule) or bytes (ranks rule). The own parts are BPE of
    the character alone; their limit is the highest rank among its merges (-1
    for none, _NO_RANK if it never becomes one token). Byte parts have no
    limit (-1). See Tokenizer._encode_characters.
    """

    __slots__ = ("_tokenizer",)

    def __init__(self, tokenizer):
        super().__init__()
        self._tokenizer = tokenizer

    def __missing__(self, char):
        tok = self._tokenizer
        data = char.encode("utf-8")
        by_ranks = tok.merge_rule == "ranks"
        raw = tuple(map(_ONE_BYTE.__getitem__, data)) if by_ranks else tuple(map(tok._byte_ids.__getitem__, data))
        parts, applied = list(raw), []
        while len(parts) > 1:  # plain BPE of one character: a few bytes
            found = []
            for i in range(len(parts) - 1):
                if by_ranks:
                    joined = parts[i] + parts[i + 1]
                    rank = tok._ranks.get(joined)
                else:
                    rank_and_id = tok._rank_of(parts[i], parts[i + 1])
                    rank, joined = rank_and_id or (None, None)
                if rank is not None:
                    found.append((rank, i, joined))
            if not found:
                break
            rank, i, joined = min(found)
            applied.append(rank)
            parts[i : i + 2] = [joined]
        ids = tuple(map(tok._ranks.__getitem__, parts)) if by_ranks else tuple(parts)
        # A character that never becomes one token never joins a neighbour.
        limit = max(applied, default=-1) if len(parts) == 1 else _NO_RANK
        entry = self[char] = (data[0], data[-1] << 8, tuple(parts), (limit,) * len(parts), raw, (-1,) * len(raw), ids)
        return entry


class _PieceCache(dict):
    """Text -> ids; missing text is encoded by the given function and remembered."""

    __slots__ = ("_encode_piece",)

    def __init__(self, encode_piece):
        super().__init__()
        self._encode_piece = encode_piece

    def __missing__(self, piece):
        ids = self[piece] = tuple(self._encode_piece(piece))
        return ids


class StreamDecoder:
    """Decodes ids incrementally; see `Tokenizer.stream_decoder`."""

    def __init__(self, tokenizer, errors="strict"):
        self._tokenizer = tokenizer
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors=errors)

    def feed(self, ids):
        """Text completed by these ids; partial characters wait for the next call."""
        return self._decoder.decode(self._tokenizer.decode_bytes(ids))

    def flush(self):
        """The rest; raises UnicodeDecodeError (strict) if a character is unfinished."""
        return self._decoder.decode(b"", final=True)


def _as_pretokenizer(pretokenizer):
    if isinstance(pretokenizer, Pretokenizer):
        return pretokenizer
    return get_pretokenizer(pretokenizer)


def _token_set(value, what):
    """allowed_special or disallowed_special as a set of strings; a lone str other than "all" is refused."""
    if isinstance(value, str):
        raise TypeError(f"{what} must be 'all' or a collection of special tokens, got the str {_SHORT_REPR.repr(value)}; "
                        f"for one token write {what}={{{_SHORT_REPR.repr(value)}}}")
    if not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be 'all' or a collection of special tokens, got {_shown_value(value)}")
    tokens = set(value)
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(f"{what} must hold special tokens as str, got {_shown_value(token)}")
    return tokens


def _alternation(strings):
    """A regex matching any of the strings, longest first, so a prefix never wins."""
    if not strings:
        return re.compile(r"(?!)")
    return re.compile("|".join(re.escape(s) for s in sorted(strings, key=lambda s: (-len(s), s))))
