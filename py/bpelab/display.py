"""The token display model: what every view of the site draws for a text or a list of ids.

Python decides every number and every segment on the screen; JavaScript only
draws (web/js/components/token-display.js). One model serves the encode box,
the explorer, compare and the embed widget.

`display_text(tokenizer, text, policy="raise", start=None, stop=None)` and
`display_ids(tokenizer, ids, start=None, stop=None)` return a dict:

- `total`: the number of tokens of the whole text.
- `start`, `stop`: the window of token indices drawn (`tokens`, `ids`). The
  window asked for is widened to whole groups (below), so a character is never
  cut at its edge. Without start/stop the window is every token.
- `ids`: the ids of the window.
- `tokens`: one dict per token of the window:
    - `id`: the token id;
    - `parts`: what to draw, in order: `["t", text]` for whole characters
      (raw: spaces, newlines and tabs as themselves; the display shows them as
      ␣ ⏎ ⇥ when asked), `["b", "E1"]` for one byte that does not form a whole
      character inside this token (a token that splits a UTF-8 character) or a
      control character (C0 other than tab, newline and carriage return, and DEL);
    - `group`: the index of the token's whole-character group;
    - `span`: `[first, end]`, the code-point offsets of its group in the text;
    - `special`: true for a special token (present only then).
- `groups`: the groups of the window that hold more than one token, as
  `{"index", "start", "stop", "text"}`: tokens start..stop-1 together spell
  `text`, whole characters, where each token alone holds only part of one.
  A token that splits no character is a group of its own and is not listed.
- `counts`: for the whole text, `tokens`, `characters` (code points),
  `bytes` (UTF-8), `words` (runs of non-space, as str.split counts them),
  `bytes_per_token`, `chars_per_token`, `tokens_per_word` (None when the
  divisor is 0), and `specials` (special tokens encoded as their ids).
- `policy`: the special-token policy used (display_text only).

Special-token policies, as tiktoken's `encode` has them:
- `raise`: a special token's spelling in the text is an error (DisplayError)
  that says where it is and which policy to pick instead;
- `allow`: it becomes the special token's id;
- `text`: it is ordinary text, split into ordinary tokens.
"""

from .tokenizer import DisallowedSpecialError

POLICIES = ("raise", "allow", "text")
MAX_WINDOW = 20_000  # tokens drawn at once; a longer window is an error, not a frozen page


class DisplayError(ValueError):
    """A text that cannot be shown as asked (a special token under `raise`, a bad window)."""


def _is_continuation(byte):
    return 0x80 <= byte <= 0xBF


def _utf8_length(data, i):
    """Length of the valid UTF-8 sequence at data[i:], or 0 if there is none there.

    >>> _utf8_length(b"\\xc3\\xa9", 0), _utf8_length(b"\\xc3", 0), _utf8_length(b"\\xa9", 0)
    (2, 0, 0)
    """
    b0 = data[i]
    if b0 < 0x80:
        return 1
    if 0xC2 <= b0 <= 0xDF:
        need = 1
    elif 0xE0 <= b0 <= 0xEF:
        need = 2
    elif 0xF0 <= b0 <= 0xF4:
        need = 3
    else:
        return 0
    chunk = data[i : i + need + 1]
    if len(chunk) != need + 1:
        return 0
    try:
        chunk.decode("utf-8")
    except UnicodeDecodeError:
        return 0
    return need + 1


_CONTROL_OK = frozenset("\t\n\r")


def token_parts(data):
    """What to draw for one token's bytes: whole characters as text, other bytes as chips.

    >>> token_parts(b" caf\\xc3\\xa9")
    [['t', ' café']]
    >>> token_parts(b"\\xe1\\xba")
    [['b', 'E1'], ['b', 'BA']]
    >>> token_parts(b"a\\x07b")
    [['t', 'a'], ['b', '07'], ['t', 'b']]
    """
    parts = []
    i = 0
    while i < len(data):
        n = _utf8_length(data, i)
        if n == 0 or (n == 1 and (data[i] < 0x20 or data[i] == 0x7F) and chr(data[i]) not in _CONTROL_OK):
            parts.append(["b", f"{data[i]:02X}"])
            i += 1
            continue
        char = data[i : i + n].decode("utf-8")
        if parts and parts[-1][0] == "t":
            parts[-1][1] += char
        else:
            parts.append(["t", char])
        i += n
    return parts


def _encode(tokenizer, text, policy):
    if policy not in POLICIES:
        raise DisplayError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    if policy == "text":
        return tokenizer.encode_ordinary(text)
    if policy == "allow":
        return tokenizer.encode(text, allowed_special="all")
    try:
        return tokenizer.encode(text)
    except DisallowedSpecialError:
        spelled = tokenizer._special_pattern.search(text)
        where = spelled.group()
        raise DisplayError(
            f"the text holds the special token {where!r} at character {spelled.start()}, and the policy is "
            f"raise (tiktoken's default). Choose allow to encode it as its id {tokenizer.special_tokens[where]}, "
            "or text to encode its spelling as ordinary text."
        ) from None


def display_text(tokenizer, text, policy="raise", start=None, stop=None):
    """The display model of `text` encoded by `tokenizer` under a special-token policy.

    >>> from bpelab.tokenizer import Tokenizer
    >>> model = display_text(Tokenizer.bytes_only(), "hé")
    >>> [t["parts"] for t in model["tokens"]], model["groups"]
    ([[['t', 'h']], [['b', 'C3']], [['b', 'A9']]], [{'index': 1, 'start': 1, 'stop': 3, 'text': 'é'}])
    >>> model["counts"]["bytes_per_token"]
    1.0
    """
    if not isinstance(text, str):
        raise DisplayError(f"text must be a string, got {type(text).__name__}")
    ids = _encode(tokenizer, text, policy)
    model = display_ids(tokenizer, ids, start, stop, text=text)
    model["policy"] = policy
    return model


def display_ids(tokenizer, ids, start=None, stop=None, *, text=None):
    """The display model of a list of ids (the text is their decoded bytes when not given).

    >>> from bpelab.tokenizer import Tokenizer
    >>> display_ids(Tokenizer.bytes_only(), [104, 105], 1)["ids"]
    [105]
    """
    table = [tokenizer.token_bytes(i) for i in ids]  # raises for an unknown id, naming it
    special_ids = set(tokenizer.special_tokens.values())
    whole = b"".join(table)
    if text is None:
        try:
            text = whole.decode("utf-8")
        except UnicodeDecodeError:
            text = whole.decode("utf-8", errors="replace")
    total = len(ids)
    lo, hi = _window(total, start, stop)

    # Groups: a token ends its group when the byte after it starts a character (or the text ends).
    group_of = []
    group_bounds = []  # [(first token, end token, first byte, end byte)]
    first_token, first_byte, offset = 0, 0, 0
    for index, data in enumerate(table):
        group_of.append(len(group_bounds))
        offset += len(data)
        if offset == len(whole) or not _is_continuation(whole[offset]):
            group_bounds.append((first_token, index + 1, first_byte, offset))
            first_token, first_byte = index + 1, offset
    if first_token < total:  # bytes that never complete a character (ids, not text): one last group
        group_bounds.append((first_token, total, first_byte, offset))

    # Widen the window to whole groups.
    if total:
        lo = group_bounds[group_of[lo]][0] if lo < total else lo
        hi = group_bounds[group_of[hi - 1]][1] if hi > lo else hi
    if hi - lo > MAX_WINDOW:
        raise DisplayError(f"a window of {hi - lo:,} tokens is too many to draw; ask for at most {MAX_WINDOW:,} "
                           "with start and stop")

    # Code-point offsets of each group: count the bytes that start a character, up to the window's end.
    char_at = {}
    chars = 0
    last_group = group_of[hi - 1] if hi > lo else -1
    for g, (_t0, _t1, b0, b1) in enumerate(group_bounds[: last_group + 1]):
        begin = chars
        chars += sum(1 for b in whole[b0:b1] if not _is_continuation(b))
        char_at[g] = (begin, chars)

    tokens = []
    groups = []
    for index in range(lo, hi):
        g = group_of[index]
        t0, t1, b0, b1 = group_bounds[g]
        token = {"id": ids[index], "parts": token_parts(table[index]), "group": g, "span": list(char_at[g])}
        if ids[index] in special_ids:
            token["special"] = True
        tokens.append(token)
        if index == t0 and t1 - t0 > 1:
            groups.append({"index": g, "start": t0, "stop": t1,
                           "text": whole[b0:b1].decode("utf-8", errors="replace")})

    n_bytes = len(text.encode("utf-8", errors="surrogatepass"))
    words = len(text.split())
    return {
        "total": total,
        "start": lo,
        "stop": hi,
        "ids": list(ids[lo:hi]),
        "tokens": tokens,
        "groups": groups,
        "counts": {
            "tokens": total,
            "characters": len(text),
            "bytes": n_bytes,
            "words": words,
            "bytes_per_token": _ratio(n_bytes, total),
            "chars_per_token": _ratio(len(text), total),
            "tokens_per_word": _ratio(total, words),
            "specials": sum(1 for i in ids if i in special_ids),
        },
    }


def _ratio(a, b):
    return round(a / b, 4) if b else None


def _window(total, start, stop):
    lo = 0 if start is None else start
    hi = total if stop is None else stop
    for name, value in (("start", lo), ("stop", hi)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise DisplayError(f"{name} must be a whole number of at least 0, got {value!r}")
    if start is None and stop is None and total > MAX_WINDOW:
        hi = MAX_WINDOW  # a whole long text: the first window, and `total` says there is more
    lo = min(lo, total)
    hi = max(lo, min(hi, total))
    return lo, hi
