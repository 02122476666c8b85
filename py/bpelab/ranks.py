"""Rank tables: tiktoken's `.tiktoken` text format and the merges hidden in it.

A rank table maps each token's bytes to its rank; in tiktoken the rank is also
the token id, and a lower rank is a merge learned earlier. The `.tiktoken` file
stores one token per line as `base64(bytes) rank`, in rank order.

The table holds no merge list, but one can be recovered: BPE with only the
ranks below a token's own rank splits that token into exactly two parts, and
that pair is the merge that made it. GPT-2's `vocab.bpe` is such a list.

This module works on bytes and dicts only (no files), so it runs in Pyodide.
It leaves out special tokens: they are not in rank files.
"""

import base64
import binascii
import re

# A whole .tiktoken file in the exact shape tiktoken writes. The possessive
# `*+` checks o200k's file in 14 ms against 38 for a plain `*`, but CPython
# before 3.11.5 gets possessive repeats of groups wrong (gh-106052,
# gh-100061) and would accept b"/"; there the plain one is used.
_POSSESSIVE_GROUPS_WORK = re.fullmatch("(?:ab?c)*+", "a") is None
_CANONICAL_FILE = re.compile(rb"(?:[A-Za-z0-9+/]+={0,2} [0-9]+\n)*" + (b"+" if _POSSESSIVE_GROUPS_WORK else b""))


MAX_RANK = 2**31 - 1  # ranks are ids: tokenizer.MAX_TOKEN_ID, which also bounds the gaps between them


class RankFileError(ValueError):
    """A `.tiktoken` rank file (or a rank table) that cannot be used."""


def parse_tiktoken(data, *, canonical=False):
    """Read a `.tiktoken` file's bytes into {token bytes: rank}.

    canonical=True skips the shape checks, for a caller that has already
    proved the file is in tiktoken's exact shape with ranks 0..n-1 (say, by
    its sha256); it saves about a third of the parse time.

    >>> parse_tiktoken(b"YQ== 0\\nYg== 1\\nYWI= 2\\n")
    {b'a': 0, b'b': 1, b'ab': 2}
    """
    if isinstance(data, str):
        data = data.encode("ascii", "replace")
    if canonical:
        tokens = data.split()[0::2]
        return dict(zip(map(binascii.a2b_base64, tokens), range(len(tokens))))
    # Fast path for the usual file: one `base64 rank` a line, ranks 0..n-1 in
    # order. The shape check is one C-level regex match; the per-line base64
    # decode is the real cost, so it runs in C too, through map().
    if _CANONICAL_FILE.fullmatch(data):
        fields = data.split()
        tokens = fields[0::2]
        n = len(tokens)
        if fields[1::2] == [b"%d" % i for i in range(n)]:
            try:
                ranks = dict(zip(map(binascii.a2b_base64, tokens), range(n)))
            except binascii.Error:
                ranks = {}  # bad padding: the slow path names the line
            if len(ranks) == n:
                return ranks
    return _parse_tiktoken_slowly(data)


def _parse_tiktoken_slowly(data):
    # Same result as the fast path, line by line, so that errors name the line.
    ranks = {}  # bytes -> int
    seen_ranks = {}  # int -> line number
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise RankFileError(
                f".tiktoken line {number}: expected 'base64 rank', got {_show(line)}; "
                "each line must hold one base64 token, a space and its rank"
            )
        encoded, rank_text = parts
        try:
            token = binascii.a2b_base64(encoded, strict_mode=True)
        except binascii.Error:
            raise RankFileError(
                f".tiktoken line {number}: {_show(encoded)} is not valid base64"
            ) from None
        if not rank_text.isdigit():
            raise RankFileError(
                f".tiktoken line {number}: rank {_show(rank_text)} is not a non-negative integer"
            )
        if len(rank_text) > len(str(MAX_RANK)) or int(rank_text) > MAX_RANK:
            shown = _show(rank_text) if len(rank_text) <= 30 else f"of {len(rank_text):,} digits"
            raise RankFileError(
                f".tiktoken line {number}: rank {shown} is too large; ranks are token ids, "
                f"at most {MAX_RANK:,} (2**31 - 1)"
            )
        rank = int(rank_text)
        if token in ranks:
            raise RankFileError(
                f".tiktoken line {number}: token {token!r} already has rank {ranks[token]}; "
                "each token may appear once"
            )
        if rank in seen_ranks:
            raise RankFileError(
                f".tiktoken line {number}: rank {rank} is already used on line "
                f"{seen_ranks[rank]}; each rank may appear once"
            )
        ranks[token] = rank
        seen_ranks[rank] = number
    return ranks


def _show(raw):
    text = raw.decode("utf-8", "replace")
    return repr(text if len(text) <= 60 else text[:57] + "...")


def dump_tiktoken(ranks):
    """Write {token bytes: rank} as `.tiktoken` bytes, in rank order, as tiktoken does.

    >>> dump_tiktoken({b"ab": 2, b"a": 0, b"b": 1})
    b'YQ== 0\\nYg== 1\\nYWI= 2\\n'
    """
    lines = [
        base64.b64encode(token) + b" %d\n" % rank
        for token, rank in sorted(ranks.items(), key=lambda item: item[1])
    ]
    return b"".join(lines)


def bpe_parts(ranks, token, max_rank=None):
    """Split bytes by rank-based BPE, using only ranks below max_rank (tiktoken's rule).

    The lowest-ranked adjacent pair merges first; on equal ranks the leftmost.

    >>> bpe_parts({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}, b"abb")
    [b'abb']
    >>> bpe_parts({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}, b"abb", max_rank=3)
    [b'ab', b'b']
    """
    parts = [token[i:i + 1] for i in range(len(token))]
    limit = float("inf") if max_rank is None else max_rank
    get = ranks.get
    while len(parts) > 1:
        best_rank = limit
        best_index = -1
        for i in range(len(parts) - 1):
            rank = get(parts[i] + parts[i + 1])
            if rank is not None and rank < best_rank:
                best_rank = rank
                best_index = i
        if best_index < 0:
            break
        parts[best_index:best_index + 2] = [parts[best_index] + parts[best_index + 1]]
    return parts


def recover_merges(ranks):
    """The merges that built a rank table, in rank order, as pairs of byte strings.

    Every token longer than one byte must split, under the ranks below its own,
    into exactly two tokens; RankFileError names the first token that does not.

    >>> recover_merges({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3})
    [(b'a', b'b'), (b'ab', b'b')]
    """
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    merges = []  # (bytes, bytes), in rank order
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) < 2:
            continue
        parts = bpe_parts(ranks, token, max_rank=rank)
        if len(parts) != 2:
            hint = (f"; the table lacks {len(missing)} single bytes, e.g. {bytes([missing[0]])!r}"
                    if missing else "")
            raise RankFileError(
                f"token {token!r} (rank {rank}) is not a merge of two lower-ranked tokens: "
                f"BPE with the lower ranks splits it into {parts!r}{hint}; "
                "a rank table must be the result of BPE training to recover merges"
            )
        merges.append((parts[0], parts[1]))
    return merges
