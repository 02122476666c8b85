"""Compare: one text through several tokenizers, and what a tokenizer costs each language (issue 14).

Pure functions the compare view is drawn from; the worker requests in
worker_api.py are thin wrappers around them. The token display model (parts,
whole-character groups, counts) is display.py's; this module adds what only
a comparison has:

- `boundaries` / `differing`: token boundaries as byte offsets, and which
  tokens of one pane start or end where the neighbouring pane has no boundary;
- `token_label` / `seed_lines`: seed 003's one-line format,
  `gpt2         15 tokens  X | in | ␣ch | à | o | ␣th | <E1> | <BA> | <BF> | …`;
- `policy_counts`: the token count under each special-token policy;
- `token_detail`: a token's id, bytes in hex, and its merge parents and rank;
- `merge_diff`: two trained configurations, where their merge lists part;
- `language_table`: tokens, bytes per token and the ratio to English for each
  tokenizer and language (seed 003's "What a tokenizer costs Vietnamese").
"""

import weakref
from bisect import bisect_left, bisect_right
from functools import partial
from itertools import accumulate, repeat
from operator import add

from . import display, pretokenize
from .ranks import bpe_parts

# Seed 003 draws whitespace this way; other control characters are byte chips already.
VISIBLE = {" ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍"}
_VISIBLE_TABLE = str.maketrans(VISIBLE)
DIFF_LIMIT = 200  # merges listed per side in a merge diff; the totals are always exact


def encode(tokenizer, text, policy="raise"):
    """Ids of text under a special-token policy (raise, allow or text), as display.py encodes them.

    >>> from bpelab.tokenizer import Tokenizer
    >>> encode(Tokenizer.bytes_only(special_tokens={"<|endoftext|>": 256}), "a<|endoftext|>", "allow")
    [97, 256]
    """
    return display._encode(tokenizer, text, policy)


# ------------------------------------------------------------------ seed 003's line


def token_label(parts):
    """One token as seed 003 prints it: whitespace made visible, stray bytes as <E1>.

    `parts` is display.token_parts' output ([["t", text] | ["b", "E1"]]).

    >>> token_label(display.token_parts(b" th"))
    '␣th'
    >>> token_label(display.token_parts(b"\\xe1"))
    '<E1>'
    """
    if isinstance(parts, (bytes, str)):
        parts = display.token_parts(parts.encode("utf-8") if isinstance(parts, str) else parts)
    return "".join(text.translate(_VISIBLE_TABLE) if kind == "t" else f"<{text}>" for kind, text in parts)


def tokens_word(n):
    """'1 token', '15 tokens'.

    >>> tokens_word(1), tokens_word(15)
    ('1 token', '15 tokens')
    """
    return f"{n:,} token" if n == 1 else f"{n:,} tokens"


def seed_lines(text, panes, indent="  "):
    """Seed 003's block for a text: a header line, then one line per pane.

    panes: [(name, tokenizer, ids)]. Names are padded to the longest and
    counts right-aligned, as in the seed:

        'Xin chào thế giới': 17 characters, 22 bytes
          gpt2         15 tokens  X | in | ␣ch | à | o | ␣th | <E1> | <BA> | <BF> | ␣g | i | <E1> | <BB> | <9B> | i

    >>> from bpelab.tokenizer import Tokenizer
    >>> b = Tokenizer.bytes_only()
    >>> print(seed_lines("hé", [("bytes", b, b.encode("hé"))]))
    'hé': 2 characters, 3 bytes
      bytes  3 tokens  h | <C3> | <A9>
    """
    header = f"{text!r}: {len(text):,} characters, {len(text.encode('utf-8', errors='surrogatepass')):,} bytes"
    if not panes:
        return header
    name_width = max(len(name) for name, _tok, _ids in panes)
    count_width = max(len(f"{len(ids):,}") for _name, _tok, ids in panes)
    lines = [header]
    for name, tokenizer, ids in panes:
        labels = " | ".join(token_label(tokenizer.token_bytes(i)) for i in ids)
        count = f"{len(ids):,}".rjust(count_width)
        word = "token" if len(ids) == 1 else "tokens"
        lines.append(f"{indent}{name.ljust(name_width)}  {count} {word}  {labels}".rstrip())
    return "\n".join(lines)


# ------------------------------------------------------------------ boundaries


def boundaries(tokenizer, ids):
    """Byte offsets where each token ends (the start of the text, 0, is implied).

    >>> from bpelab.tokenizer import Tokenizer
    >>> boundaries(Tokenizer.bytes_only(), [104, 195, 169])
    [1, 2, 3]
    """
    table = tokenizer._token_bytes
    try:
        return list(accumulate(map(len, map(table.__getitem__, ids))))  # C loops: 100,000 tokens in ms
    except KeyError:
        return list(accumulate(len(tokenizer.token_bytes(i)) for i in ids))  # names the unknown id


def differing(ends, other_ends, start=0, stop=None):
    """For tokens start..stop-1 of one pane: True where its boundaries differ from the other pane's.

    A token differs when it starts or ends where the other pane has no
    boundary, or when the other pane has a boundary inside it (it splits what
    this token keeps whole), so a difference is marked in both panes.
    ends, other_ends: `boundaries` of the two panes over the same text.
    Bisection only: the cost is the window's, whatever the text's length.

    >>> differing([1, 3, 4], [1, 2, 3, 4])
    [False, True, False]
    >>> differing([1, 2, 3, 4], [1, 3, 4])
    [False, True, True, False]
    """
    stop = len(ends) if stop is None else min(stop, len(ends))
    n_other = len(other_ends)
    flags = []
    for index in range(start, stop):
        begin = ends[index - 1] if index else 0
        end = ends[index]
        at = bisect_right(other_ends, begin)  # the other pane's first boundary after this token's start
        shared_begin = begin == 0 or (at and other_ends[at - 1] == begin)
        # Same boundaries exactly when the other's next boundary after `begin` is this token's end.
        flags.append(not (shared_begin and at < n_other and other_ends[at] == end))
    return flags


def differing_count(ends, other_ends):
    """How many tokens of one pane `differing` marks, counted from the boundaries the panes do not share.

    >>> differing_count([1, 2, 3, 4], [1, 3, 4]), differing_count([1, 3, 4], [1, 2, 3, 4])
    (2, 1)
    """
    mine, other = set(ends), set(other_ends)
    # Index lookups by bisection, mapped in C: 100,000-token panes cost milliseconds, not a second.
    only_mine = list(map(partial(bisect_left, ends), mine - other))  # tokens ending where the other has no boundary
    marked = set(only_mine)
    marked.update(map(add, only_mine, repeat(1)))  # ... and the tokens starting there
    marked.update(map(partial(bisect_right, ends), other - mine))  # tokens the other pane splits
    marked.discard(len(ends))
    return len(marked)


def neighbour(index, n_panes):
    """The pane a pane is compared with: the one to its left, and for the first pane the second.

    >>> [neighbour(i, 3) for i in range(3)], neighbour(0, 1)
    ([1, 0, 1], None)
    """
    if n_panes < 2:
        return None
    return index - 1 if index else 1


# ------------------------------------------------------------------ the panes

WINDOW = 500  # tokens per pane drawn at first; the view pages through the rest
COUNT_LIMIT = 20_000  # tokens up to which n_differs counts the whole text (else only the window's)
IDS_LIMIT = 10_000  # all ids are sent (and put in bpe-state) only up to this many tokens


class EncodingCache:
    """The latest encoding of each (tokenizer key, policy): a keystroke re-encodes, a scroll does not.

    >>> from bpelab.tokenizer import Tokenizer
    >>> cache = EncodingCache()
    >>> ids, ends = cache.get("b", Tokenizer.bytes_only(), "hé", "raise")
    >>> cache.get("b", Tokenizer.bytes_only(), "hé", "raise")[0] is ids, ends
    (True, [1, 2, 3])
    """

    def __init__(self):
        self._entries = {}  # (key, policy) -> (text, ids, ends)
        self.windows = {}  # (key, policy) -> window_model's memo

    def get(self, key, tokenizer, text, policy):
        hit = self._entries.get((key, policy))
        if hit is not None and hit[0] == text:
            return hit[1:]
        if _plain_bytes(tokenizer):
            # No merges, no special tokens: the ids are the bytes (the pre-tokenizer cannot matter).
            ids = list(text.encode("utf-8"))
            ends = list(range(1, len(ids) + 1))
        else:
            got = _reencode_tail(tokenizer, hit, text, policy) if hit is not None else None
            if got is None:
                ids = encode(tokenizer, text, policy)
                ends = boundaries(tokenizer, ids)
            else:
                ids, ends = got
        self._entries[key, policy] = (text, ids, ends)
        return ids, ends

    def keep(self, keys):
        """Forget the tokenizers no pane shows any more."""
        for cache_key in [k for k in self._entries if k[0] not in keys]:
            del self._entries[cache_key]
            self.windows.pop(cache_key, None)


_SPACE_CHARS = getattr(pretokenize, "_SPACE_CHARS", frozenset())
_TAIL_MIN = 2_000  # characters: below this a whole encode is as quick as finding what to keep


def _common_prefix(a, b):
    """The length of the longest common prefix of two strings (slice comparisons run in C).

    >>> _common_prefix("abcd", "abxd"), _common_prefix("ab", "abc"), _common_prefix("", "a")
    (2, 2, 0)
    """
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while hi - lo > 1:  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _last_cut(text, position):
    """The last cut point at or before `position`, or 0: a space whose previous character is not whitespace.

    pretokenize.py's built-in patterns split the text on both sides of a cut
    point exactly as inside the whole text (see `Pretokenizer.segments`).

    >>> _last_cut("ab cd  ef", 8), _last_cut("ab cd", 1)
    (5, 0)
    """
    j = text.rfind(" ", 1, position + 1)
    while j > 0 and (text[j - 1].isspace() or text[j - 1] in _SPACE_CHARS):
        j = text.rfind(" ", 1, j)
    return max(j, 0)


def _reencode_tail(tokenizer, previous, text, policy):
    """(ids, ends) of text, re-encoding only from the last cut point before the first changed character.

    `previous` is the cache entry (text, ids, ends) of the same tokenizer and
    policy. None when that saves nothing or is not safe: a pre-tokenizer
    without cut points (bytes, custom patterns) or a special token's spelling
    that the policy does not treat as plain text.
    """
    old_text, old_ids, old_ends = previous
    if len(text) < _TAIL_MIN or not tokenizer.pretokenizer.chunkable:
        return None
    if policy != "text" and tokenizer.special_tokens and tokenizer._special_pattern.search(text):
        return None
    same = _common_prefix(old_text, text)
    cut = _last_cut(text, min(same, len(text)) - 1)
    if cut == 0:
        return None
    start = len(text[:cut].encode("utf-8"))
    kept = bisect_left(old_ends, start) + 1
    if kept > len(old_ends) or old_ends[kept - 1] != start:
        return None  # not a token boundary of the old encoding: something unforeseen; encode it all
    tail = encode(tokenizer, text[cut:], policy)
    ends = old_ends[:kept]
    ends += map(add, boundaries(tokenizer, tail), repeat(start))
    return old_ids[:kept] + tail, ends


_PLAIN = weakref.WeakKeyDictionary()  # tokenizer -> whether it is plain bytes


def _plain_bytes(tokenizer):
    plain = _PLAIN.get(tokenizer)
    if plain is None:
        plain = (not tokenizer.special_tokens and tokenizer.merges == [] and len(tokenizer.vocab) == 256
                 and all(tokenizer.vocab.get(i) == bytes([i]) for i in range(256)))
        _PLAIN[tokenizer] = plain
    return plain


MAX_WINDOW = 5_000  # a window asked for is cut to this many tokens


def _at_character(whole, offset):
    """Whether a byte offset of UTF-8 `whole` starts a character (or is its end)."""
    return offset >= len(whole) or not 0x80 <= whole[offset] <= 0xBF


def window_model(tokenizer, ids, ends, whole, start, stop, counts, memo=None):
    """display.py's model of tokens start..stop-1 of a long encoding, in time for the window only.

    display.display_ids walks every token; here it sees only the window,
    widened to whole characters, and the fields that depend on the rest
    (start, stop, total, spans, group positions, counts) are shifted back to
    the whole text. Group numbers are unique within the window.
    `whole` is the text as UTF-8; `counts` the whole text's counts. `memo`, a
    dict kept per pane, returns the last model again when its window holds the
    same tokens at the same place (typing further down a long text).
    """
    total = len(ids)
    lo = min(start, total)
    hi = max(lo, min(stop, total, lo + MAX_WINDOW))
    while lo > 0 and not _at_character(whole, ends[lo - 1]):
        lo -= 1
    while hi < total and hi > 0 and not _at_character(whole, ends[hi - 1]):
        hi += 1
    first = ends[lo - 1] if lo else 0
    last = ends[hi - 1] if hi else 0
    chars_before = len(whole[:first].decode("utf-8"))
    window_ids = ids[lo:hi]
    memo_key = (lo, first, chars_before, window_ids)
    if memo is not None and memo.get("key") == memo_key:
        # Fresh token dicts: the caller marks them, and two panes of one tokenizer may share this memo.
        return dict(memo["model"], total=total, counts=counts, tokens=[dict(t) for t in memo["model"]["tokens"]])
    model = display.display_ids(tokenizer, window_ids, text=whole[first:last].decode("utf-8"))
    for token in model["tokens"]:
        token["span"] = [token["span"][0] + chars_before, token["span"][1] + chars_before]
        token["group"] += lo
    for group in model["groups"]:
        group["index"] += lo
        group["start"] += lo
        group["stop"] += lo
    model.update(start=lo, stop=hi, total=total, counts=counts)
    if memo is not None:
        memo.update(key=memo_key, model=model)
    return model


def _counts(text_counts, ids, tokenizer, policy):
    """display.py's counts for a whole encoding, from the text's counts and the ids."""
    n = len(ids)
    specials = 0
    if policy == "allow" and tokenizer.special_tokens:
        special_ids = set(tokenizer.special_tokens.values())
        specials = sum(1 for i in ids if i in special_ids)
    return {**text_counts, "tokens": n, "bytes_per_token": _ratio(text_counts["bytes"], n),
            "chars_per_token": _ratio(text_counts["characters"], n),
            "tokens_per_word": _ratio(n, text_counts["words"]), "specials": specials}


def compare_panes(panes, text, policy="raise", windows=None, cache=None, ids_limit=IDS_LIMIT):
    """Everything the compare view draws for its panes, each pane's tokens only in its window.

    panes: [(key, name, Tokenizer)]; windows: [[start, stop] or None] per pane
    (token indices; default the first WINDOW tokens). Each pane gets
    display.py's model of its window (tokens, groups, counts, total, start,
    stop; see `window_model`), plus:
    - `ids_all`: every id when there are at most `ids_limit` tokens, else None;
    - `differs`: per token of the window, whether its boundaries differ from
      the neighbouring pane's (`neighbour`; see `differing`), also set as
      `differs: true` on those tokens; `n_differs_window` of them, and
      `n_differs` for the whole text (None above COUNT_LIMIT tokens);
    - `policies`: the count under each special-token policy;
    - `error`: the message when this pane cannot encode the text under the
      policy (raise and a special token's spelling), with no tokens.

    >>> from bpelab.tokenizer import Tokenizer
    >>> from bpelab.train import train
    >>> merged = train("aaaa", num_merges=1, pretokenizer="bytes", special_tokens=()).tokenizer
    >>> out = compare_panes([("b", "bytes", Tokenizer.bytes_only()), ("m", "aa", merged)], "aaa")
    >>> [p["total"] for p in out["panes"]], [p["differs"] for p in out["panes"]]
    ([3, 2], [[True, True, False], [True, False]])
    """
    if policy not in display.POLICIES:
        raise ValueError(f"policy must be one of {', '.join(display.POLICIES)}, got {policy!r}")
    cache = cache or EncodingCache()
    cache.keep({key for key, _name, _tok in panes})
    windows = list(windows or [])
    whole = text.encode("utf-8")
    text_counts = {"characters": len(text), "bytes": len(whole), "words": len(text.split())}
    encoded = []
    for key, _name, tokenizer in panes:
        try:
            encoded.append(cache.get(key, tokenizer, text, policy))
        except display.DisplayError as error:
            encoded.append(error)
    out = []
    for index, (key, name, tokenizer) in enumerate(panes):
        got = encoded[index]
        known = None if isinstance(got, Exception) else len(got[0])
        pane = {"key": key, "name": name, "policies": policy_counts(tokenizer, text, known)}
        if isinstance(got, Exception):
            pane.update(error=str(got), total=None, tokens=[], groups=[], ids=[], ids_all=None,
                        differs=[], n_differs=None, n_differs_window=None, neighbour=None, start=0, stop=0, counts=None)
            out.append(pane)
            continue
        ids, ends = got
        window = windows[index] if index < len(windows) and windows[index] else [0, WINDOW]
        model = window_model(tokenizer, ids, ends, whole, window[0], window[1],
                             _counts(text_counts, ids, tokenizer, policy), cache.windows.setdefault((key, policy), {}))
        pane.update(model)
        pane["error"] = None
        pane["ids_all"] = list(ids) if len(ids) <= ids_limit else None
        other = neighbour(index, len(panes))
        other_ends = None
        if other is not None and not isinstance(encoded[other], Exception):
            _ids, other_ends = encoded[other]
        pane["neighbour"] = other if other_ends is not None else None
        if other_ends is None:
            pane["differs"], pane["n_differs"] = [False] * (model["stop"] - model["start"]), 0
            pane["n_differs_window"] = 0
        else:
            pane["differs"] = differing(ends, other_ends, model["start"], model["stop"])
            pane["n_differs_window"] = sum(pane["differs"])
            # Counting over a whole long text costs more than the rest of a keystroke: up to a limit only.
            small = max(len(ends), len(other_ends)) <= COUNT_LIMIT
            pane["n_differs"] = differing_count(ends, other_ends) if small else None
        for token, flag in zip(model["tokens"], pane["differs"]):
            if flag:
                token["differs"] = True  # the token display marks it
            else:
                token.pop("differs", None)  # a model from the memo may carry an old mark
        out.append(pane)
    return {**text_counts, "policy": policy, "panes": out}


# ------------------------------------------------------------------ policies


def policy_counts(tokenizer, text, known=None):
    """The token count under each special-token policy, or the error `raise` gives.

    Without a special token's spelling in the text the three policies agree,
    so `known` (the count under any policy, when the caller has it) saves
    encoding the text again.

    >>> from bpelab.tokenizer import Tokenizer
    >>> tok = Tokenizer.bytes_only(special_tokens={"<|endoftext|>": 256})
    >>> counts = policy_counts(tok, "a<|endoftext|>")
    >>> counts["raise"]["tokens"], counts["allow"]["tokens"], counts["text"]["tokens"]
    (None, 2, 14)
    >>> policy_counts(tok, "abc", known=3)["allow"]
    {'tokens': 3, 'error': None}
    """
    specials = bool(tokenizer.special_tokens) and tokenizer._special_pattern.search(text) is not None
    out = {}
    for policy in display.POLICIES:
        if not specials and known is not None:
            out[policy] = {"tokens": known, "error": None}
            continue
        try:
            out[policy] = {"tokens": len(encode(tokenizer, text, policy)), "error": None}
        except display.DisplayError as error:
            out[policy] = {"tokens": None, "error": str(error)}
        if not specials:
            known = out[policy]["tokens"]
    out["specials_in_text"] = specials
    return out


# ------------------------------------------------------------------ one token

_MADE_BY = weakref.WeakKeyDictionary()  # tokenizer -> {merged id: rank}


def _made_by(tokenizer):
    table = _MADE_BY.get(tokenizer)
    if table is None:
        table = {merged: rank for rank, merged in enumerate(tokenizer._merge_result)}
        _MADE_BY[tokenizer] = table
    return table


def token_detail(tokenizer, token_id):
    """A token's id, bytes in hex, and the merge that made it: parents and rank.

    For a merge-list tokenizer the rank is the merge's index; for a rank
    table (OpenAI's .tiktoken) it is the token's rank, and the parents are
    the two tokens BPE over the lower ranks leaves (tiktoken's own rule).
    A single byte or a special token has no parents.

    >>> from bpelab.tokenizer import Tokenizer
    >>> tok = Tokenizer({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(97, 98)], pretokenizer="bytes")
    >>> detail = token_detail(tok, 256)
    >>> detail["hex"], detail["rank"], [p["id"] for p in detail["parents"]]
    ('61 62', 0, [97, 98])
    """
    data = tokenizer.token_bytes(token_id)  # raises for an unknown id, naming it
    special = token_id in set(tokenizer.special_tokens.values())
    detail = {"id": token_id, "hex": data.hex(" ").upper(), "n_bytes": len(data),
              "parts": display.token_parts(data), "label": token_label(display.token_parts(data)),
              "special": special, "rank": None, "parents": None}
    if special or len(data) == 1:
        return detail
    if tokenizer.merge_rule == "ranks":
        ranks = tokenizer._ranks
        detail["rank"] = ranks[data]
        pieces = bpe_parts(ranks, data, max_rank=ranks[data])
        parent_ids = [ranks[piece] for piece in pieces] if len(pieces) == 2 else None
    else:
        rank = _made_by(tokenizer).get(token_id)
        detail["rank"] = rank
        parent_ids = list(tokenizer.merges[rank]) if rank is not None else None
    if parent_ids:
        detail["parents"] = [{"id": p, "label": token_label(tokenizer.token_bytes(p)),
                              "hex": tokenizer.token_bytes(p).hex(" ").upper()} for p in parent_ids]
    return detail


# ------------------------------------------------------------------ two trained configurations


def _merge_bytes(tokenizer):
    """The merges as pairs of byte strings (ids differ between layouts; bytes do not)."""
    if tokenizer.merges is None:
        raise ValueError(f"{tokenizer.name or 'this tokenizer'} has no merge list to compare (a rank table)")
    vocab = tokenizer.vocab
    return [(vocab[a], vocab[b]) for a, b in tokenizer.merges]


def merge_diff(tok_a, tok_b, text=None, limit=DIFF_LIMIT):
    """Where two trained configurations part: first differing merge, merges each lacks, counts on text.

    Merges are compared as byte pairs, so two layouts of the same merges are
    equal. `first_difference` is the 0-based index of the first merge that
    differs (None when one list is a prefix of the other and they are equal
    in length); `only_a` / `only_b` list at most `limit` merges that the other
    configuration never learns, as {rank, left, right, label}, with exact totals.

    >>> from bpelab.train import train
    >>> a = train("low low lower", num_merges=3, special_tokens=()).tokenizer
    >>> b = train("low low lower", num_merges=2, tie_break="smaller-id", special_tokens=()).tokenizer
    >>> diff = merge_diff(a, b, "lower")
    >>> diff["first_difference"], diff["at_first"]["a"]["label"], diff["at_first"]["b"]["label"], diff["tokens"]
    (0, 'ow', 'lo', {'a': 3, 'b': 3})
    """
    ma, mb = _merge_bytes(tok_a), _merge_bytes(tok_b)
    first = next((k for k, (x, y) in enumerate(zip(ma, mb)) if x != y), None)
    if first is None and len(ma) != len(mb):
        first = min(len(ma), len(mb))
    set_a, set_b = set(ma), set(mb)

    def listing(merges, other):
        missing = [(rank, pair) for rank, pair in enumerate(merges) if pair not in other]
        rows = [{"rank": rank, "left": token_label(a), "right": token_label(b), "label": token_label(a + b)}
                for rank, (a, b) in missing[:limit]]
        return rows, len(missing)

    only_a, n_only_a = listing(ma, set_b)
    only_b, n_only_b = listing(mb, set_a)
    out = {
        "merges": {"a": len(ma), "b": len(mb)},
        "first_difference": first,
        "at_first": None,
        "only_a": only_a, "only_b": only_b,
        "n_only_a": n_only_a, "n_only_b": n_only_b,
        "shared": len(set_a & set_b),
        "tokens": None,
    }
    if first is not None:
        pick = lambda merges: ({"left": token_label(merges[first][0]), "right": token_label(merges[first][1]),
                                "label": token_label(merges[first][0] + merges[first][1])}
                               if first < len(merges) else None)
        out["at_first"] = {"a": pick(ma), "b": pick(mb)}
    if text is not None:
        out["tokens"] = {"a": len(tok_a.encode_ordinary(text)), "b": len(tok_b.encode_ordinary(text))}
    return out


# ------------------------------------------------------------------ languages


def language_table(tokenizers, texts, base=None):
    """What a tokenizer costs each language: seed 003's table for every tokenizer and text.

    tokenizers: [(name, Tokenizer)]; texts: [(code, name, text)], the same
    passage in each language; base: the code the ratios are to (default the
    first text). Special-token spellings are ordinary text here.

    Returns {"languages": [{code, name, characters, bytes, words}],
             "rows": [{tokenizer, code, tokens, bytes_per_token, chars_per_token, ratio}], "base": code}
    where ratio = tokens / the base language's tokens under the same tokenizer.

    >>> from bpelab.tokenizer import Tokenizer
    >>> table = language_table([("bytes", Tokenizer.bytes_only())], [("en", "English", "ab"), ("x", "X", "é")])
    >>> [(row["code"], row["tokens"], row["ratio"]) for row in table["rows"]]
    [('en', 2, 1.0), ('x', 2, 1.0)]
    """
    if not texts:
        raise ValueError("language_table needs at least one text")
    codes = [code for code, _name, _text in texts]
    if len(set(codes)) != len(codes):
        raise ValueError(f"language codes must be distinct, got {codes!r}")
    base = codes[0] if base is None else base
    if base not in codes:
        raise ValueError(f"base {base!r} is not one of the texts' codes {codes!r}")
    languages = [{"code": code, "name": name, "characters": len(text),
                  "bytes": len(text.encode("utf-8", errors="surrogatepass")), "words": len(text.split())}
                 for code, name, text in texts]
    rows = []
    for tok_name, tokenizer in tokenizers:
        counts = {code: len(tokenizer.encode_ordinary(text)) for code, _name, text in texts}
        for lang in languages:
            n = counts[lang["code"]]
            rows.append({
                "tokenizer": tok_name, "code": lang["code"], "tokens": n,
                "bytes_per_token": _ratio(lang["bytes"], n), "chars_per_token": _ratio(lang["characters"], n),
                "ratio": _ratio(n, counts[base]),
            })
    return {"base": base, "languages": languages, "rows": rows}


def language_lines(table):
    """The language table as text, one row per language and a column group per tokenizer.

    >>> from bpelab.tokenizer import Tokenizer
    >>> table = language_table([("bytes", Tokenizer.bytes_only())], [("en", "English", "ab"), ("vi", "Vietnamese", "ế")])
    >>> print(language_lines(table))
    language    bytes  bytes tokens  bytes/tok  ratio
    English         2             2       1.00  1.00x
    Vietnamese      3             3       1.00  1.50x
    """
    names = list(dict.fromkeys(row["tokenizer"] for row in table["rows"]))
    by = {(row["tokenizer"], row["code"]): row for row in table["rows"]}
    width = max(len("language"), *(len(lang["name"]) for lang in table["languages"]))
    head = f"{'language'.ljust(width)}  {'bytes':>5}"
    for name in names:
        head += f"  {name + ' tokens':>{max(8, len(name) + 7)}}  bytes/tok  ratio"
    lines = [head]
    for lang in table["languages"]:
        line = f"{lang['name'].ljust(width)}  {lang['bytes']:>5,}"
        for name in names:
            row = by[name, lang["code"]]
            bpt = f"{row['bytes_per_token']:.2f}" if row["bytes_per_token"] is not None else "-"
            ratio = f"{row['ratio']:.2f}x" if row["ratio"] is not None else "-"
            line += f"  {row['tokens']:>{max(8, len(name) + 7)},}  {bpt:>9}  {ratio:>5}"
        lines.append(line)
    return "\n".join(lines)


def _ratio(a, b):
    return round(a / b, 4) if b else None
