"""The vocabulary view's model: every entry of a tokenizer, paged, and searches by text, hex bytes or id.

`browse(tokenizer, kind="all", query="", start=0, count=100)` returns
{"kind", "query", "total", "start", "entries", "size", "first_id", "last_id",
"unused"}: `total` entries match (all of them for kind "all"), `entries` is
the page start..start+count of them in id order, `size` is the number of
entries in the vocabulary, whose ids run from `first_id` to `last_id` with
`unused` ids in between that no entry has.
Each entry is {"id", "parts" (as bpelab.display draws a token), "hex",
"bytes" (its length), "special" (present only when true), "pair" (the two
ids its merge joined, when the tokenizer has a merge list)}.

Kinds: "all" (every entry), "text" (entries whose bytes contain the query's
UTF-8 bytes; an exact match comes first), "hex" (entries whose bytes contain
these bytes, written as hex digits with optional spaces, ⟨⟩ or 0x), "id"
(the entry with that id).
"""

import re

from .display import token_parts

KINDS = ("all", "text", "hex", "id")
MAX_COUNT = 1000  # entries per page

_SORTED = {}  # id(tokenizer) -> (tokenizer, [(id, bytes, special)] by id); the tokenizer keeps the key alive


class VocabError(ValueError):
    """A search the vocabulary view cannot run: an unknown kind, bad hex, an id out of range."""


def _entries(tokenizer):
    cached = _SORTED.get(id(tokenizer))
    if cached is None or cached[0] is not tokenizer:
        items = [(i, data, False) for i, data in tokenizer.vocab.items()]
        items += [(i, s.encode("utf-8"), True) for s, i in tokenizer.special_tokens.items()]
        items.sort()
        cached = (tokenizer, items)
        _SORTED[id(tokenizer)] = cached
    return cached[1]


def parse_hex(query):
    """Bytes from hex digits: "E1 BA", "e1ba", "⟨E1⟩⟨BA⟩", "0xE1 0xBA".

    >>> parse_hex("⟨E1⟩ 0xba")
    b'\\xe1\\xba'
    """
    digits = re.sub(r"0x|[\s⟨⟩<>,]", "", query, flags=re.I)
    if not digits:
        raise VocabError("give some bytes in hex, such as E1 BA or 20 74")
    if not re.fullmatch(r"[0-9a-fA-F]+", digits) or len(digits) % 2:
        raise VocabError(f"{query!r} is not bytes in hex: use pairs of the digits 0-9 and A-F, such as E1 BA")
    return bytes.fromhex(digits)


def _entry(tokenizer, token_id, data, special, pairs):
    out = {"id": token_id, "parts": token_parts(data), "hex": data.hex(" ").upper(), "bytes": len(data)}
    if special:
        out["special"] = True
    if pairs is not None and token_id in pairs:
        out["pair"] = list(pairs[token_id])
    return out


def _pairs(tokenizer):
    """{merged id: (left id, right id)} when the tokenizer has a merge list, else None."""
    if tokenizer.merges is None:
        return None
    cached = getattr(tokenizer, "_vocab_browse_pairs", None)
    if cached is None:
        by_bytes = {data: i for i, data in tokenizer.vocab.items()}
        vocab = tokenizer.vocab
        cached = {by_bytes[vocab[a] + vocab[b]]: (a, b) for a, b in tokenizer.merges}
        tokenizer._vocab_browse_pairs = cached
    return cached


def browse(tokenizer, kind="all", query="", start=0, count=100):
    """A page of the vocabulary, or of the entries a search finds.

    >>> from bpelab.tokenizer import Tokenizer
    >>> page = browse(Tokenizer.bytes_only(), "text", "a")
    >>> page["total"], page["entries"][0]["id"], page["entries"][0]["parts"]
    (1, 97, [['t', 'a']])
    """
    if kind not in KINDS:
        raise VocabError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if not isinstance(query, str):
        raise VocabError(f"query must be a string, got {query!r}")
    for name, value, least in (("start", start, 0), ("count", count, 1)):
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise VocabError(f"{name} must be a whole number of at least {least}, got {value!r}")
    count = min(count, MAX_COUNT)
    items = _entries(tokenizer)
    if kind == "all":
        found = items
    elif kind == "id":
        text = query.strip()
        if not re.fullmatch(r"\d+", text):
            raise VocabError(f"an id is a whole number such as 1234, got {query!r}")
        wanted = int(text)
        found = [item for item in items if item[0] == wanted] if wanted <= items[-1][0] else []
        if not found:
            raise VocabError(f"no token has id {wanted:,}: this vocabulary's ids run from {items[0][0]:,} to {items[-1][0]:,}"
                             + ("" if wanted > items[-1][0] else ", and this one is not used"))
    else:
        needle = parse_hex(query) if kind == "hex" else query.encode("utf-8", errors="surrogatepass")
        if not needle:
            found = items
        else:
            exact = [item for item in items if item[1] == needle]
            found = exact + [item for item in items if needle in item[1] and item[1] != needle]
    pairs = _pairs(tokenizer)
    page = found[start : start + count]
    return {
        "kind": kind,
        "query": query,
        "total": len(found),
        "start": start,
        "size": len(items),
        # Ids need not be dense (cl100k skips 16 between its ranks and its special tokens):
        # the range and the gaps, so "100,277 ids" and "100,261 entries" can be told apart.
        "first_id": items[0][0],
        "last_id": items[-1][0],
        "unused": items[-1][0] - items[0][0] + 1 - len(items),
        "entries": [_entry(tokenizer, i, data, special, pairs) for i, data, special in page],
    }
