"""The merge explorer's model: each step of training, where a token came from, how text is encoded.

Step k is the state after k merges; step 0 is the bytes. Everything the
explorer view draws is built here, from a `TrainResult` trained with
`record=True` (pair tables, ties, changed rows, overlaps) or, for an imported
or reference tokenizer, from its merges or ranks alone (no counts).

- `Explorer(tokenizer, result=None)`: built once per tokenizer, then asked per step:
  - `step_view(k)`: the merge that made step k, its pair table with ties and
    the rule that decided, what each other rule would have picked, changed
    rows, vanished and appeared pairs, corpus tokens and bytes per token;
    and the pair table before merge k + 1 (the one predict mode asks about);
  - `window(k, start, size)`: a window of the training text encoded with the
    first k merges; only the window's pre-tokens are encoded (trained on word
    counts: the pieces, each with its count);
  - `provenance(id)`: a token's merge tree down to bytes, the step that made
    it, the count then, the runners-up and whether it was a tie;
  - `trace(text, k=None)`: the pre-tokenizer layer (which alternative of the
    pattern cut each piece) and each piece's rank-based merge steps;
  - `judge(k, pair)`: predict mode: was `pair` merge k + 1, and why (count or tie-break).

The worker's requests (worker_api.py, "explorer requests"): `explore_step` {handle, step,
window?: {start, size, text?}} -> {view, window}; `explore_token` {handle, id};
`explore_trace` {handle, text, merges?}; `explore_judge` {handle, step, pair}.

Tokens are shown as `parts` lists, the token display's format:
`[["t", text], ["b", "E1"]]` (whole characters, and bytes that are not).

Not here: training and its records (`train.py`), the browser (`worker_api.py`).
"""

import bisect
from array import array
from itertools import accumulate, repeat

from .long_windows import boundary_steps, spans
from .pretokenize import get_pretokenizer, split_by_alternative, split_special
from .ranks import bpe_parts
from .train import LONG_ROW

RULES = {
    "greater": "the greater pair of byte strings",
    "smaller-id": "the pair of smaller ids",
    "first-seen": "the pair that occurs first in the training text",
}
MAX_WINDOW = 20_000  # characters a window may span
TRACE_PIECES = 64  # pre-tokens a trace covers; it says when the text had more
TRACE_STEP_BYTES = 256  # a longer piece's trace gives its tokens, not every step (each step lists the whole piece)
RUNNERS_UP = 5  # runner-up pairs a provenance lists
_HISTORIES = 50_000  # pieces whose merge history is kept for windows
LONG_PIECE = LONG_ROW  # bytes from which a piece's window is a cut of it, not the whole piece (long_windows.py)
_LONG_KEPT = 8  # long pieces whose full encoding is kept

# Plain words for the alternatives of the built-in patterns, keyed by the alternative as written.
ALTERNATIVE_NOTES = {
    "'(?:[sdmt]|ll|ve|re)": "an English contraction ('s, 't, 'll, ...)",
    "'(?i:[sdmt]|ll|ve|re)": "an English contraction, any case ('s, 'LL, ...)",
    " ?\\p{L}+": "letters, with at most one space before them",
    " ?\\p{L}++": "letters, with at most one space before them",
    " ?\\p{N}+": "digits, with at most one space before them",
    " ?\\p{N}++": "digits, with at most one space before them",
    " ?[^\\s\\p{L}\\p{N}]+": "punctuation or symbols, with at most one space before them",
    " ?[^\\s\\p{L}\\p{N}]++": "punctuation or symbols, with at most one space before them",
    "\\s+(?!\\S)": "spaces not followed by a word (the last space stays for the next word)",
    "\\s+": "whitespace",
    "\\s++$": "whitespace at the end of the text",
    "\\s": "one whitespace character",
    " ?[^\\s]+": "anything but whitespace, with at most one space before it",
    "[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++": "letters, with at most one other character (space, punctuation) before them",
    "\\p{N}{1,3}+": "1 to 3 digits: longer numbers are cut every three digits",
    "\\p{N}{1,3}": "1 to 3 digits: longer numbers are cut every three digits",
    " ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+": "punctuation or symbols (one space before them), then any line breaks",
    " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*": "punctuation or symbols (one space before them), then any line breaks or slashes",
    "\\s*[\\r\\n]": "whitespace up to a line break",
    "\\s*[\\r\\n]+": "whitespace ending in line breaks",
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?":
        "a word ending in lower case (capitals first), one character before it, an optional contraction",
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?":
        "a word in capitals (lower case may follow), one character before it, an optional contraction",
}


class ExploreError(ValueError):
    """A question the explorer cannot answer as asked (a step out of range, an unknown token)."""


def _parts(data):
    """What to draw for a token's bytes: whole characters as text, other bytes as hex chips.

    >>> _parts(b" caf\\xc3\\xa9\\xe2")
    [['t', ' café'], ['b', 'E2']]
    """
    parts, i = [], 0
    while i < len(data):
        for n in (1, 2, 3, 4):
            try:
                char = data[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            break
        else:
            parts.append(["b", f"{data[i]:02X}"])
            i += 1
            continue
        if len(char) == 1 and (ord(char) < 0x20 or ord(char) == 0x7F) and char not in "\t\n\r":
            parts.append(["b", f"{ord(char):02X}"])
        elif parts and parts[-1][0] == "t":
            parts[-1][1] += char
        else:
            parts.append(["t", char])
        i += len(char.encode("utf-8"))
    return parts


def show(data):
    """A token's bytes as one readable string, for sentences: ␣ for a space, ⏎ for a newline.

    >>> show(b" new\\n"), show(b"\\xe2")
    ('␣new⏎', '<E2>')
    """
    text = "".join(value if kind == "t" else f"<{value}>" for kind, value in _parts(data))
    return text.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥").replace("\r", "␍")


class Explorer:
    """What the explorer shows about one tokenizer; built once, asked per step.

    >>> from bpelab.train import train
    >>> ex = Explorer.of(train("aaa", num_merges=1, pretokenizer="bytes", special_tokens=(), record=True))
    >>> m = ex.step_view(1)["merge"]
    >>> m["count"], m["merged"], m["overlap"]
    (2, 1, True)
    """

    def __init__(self, tokenizer, result=None):
        self.tokenizer = tokenizer
        self.result = result
        self.records = result.steps if result is not None else None  # None: no counts to show
        self.vocab = tokenizer.vocab
        if tokenizer.merge_rule == "pairs":
            self.merges = list(tokenizer.merges)  # [(a, b)] in rank order
            self.made = list(tokenizer._merge_result)  # rank -> id the merge makes
        else:  # tiktoken's rule: the multi-byte tokens in rank order are the merges
            self.made = sorted(i for i, token in self.vocab.items() if len(token) > 1)
            self.merges = None  # split on demand: recovering 200,000 merges up front takes seconds
        self._maker = {}  # id -> the first rank that made it
        for rank, made in enumerate(self.made):
            self._maker.setdefault(made, rank)
        self._by_bytes = None  # bytes -> id, for long pieces' windows
        self._gone = {}  # long piece bytes -> when each boundary went, from a full encoding (long_windows.py)
        self._reuse = None
        self._index = None  # the training text's pre-tokens, built at the first window
        self._histories = {}  # piece -> (ranks applied, ids after each): see _history_encoder
        self._full = None  # the encoder that records histories
        self._parts_of = {}  # id -> parts, shared by the views (never changed after)

    @classmethod
    def of(cls, result):
        """The explorer of a training run (`train(..., record=True)` for counts)."""
        return cls(result.tokenizer, result)

    @property
    def steps(self):
        """How many merges there are: the last step."""
        return len(self.made)

    # ----------------------------------------------------------------- merges

    def merge_at(self, rank):
        """(a, b, made) of the merge of this rank."""
        if self.merges is not None:
            a, b = self.merges[rank]
            return a, b, self.made[rank]
        made = self.made[rank]
        token = self.vocab[made]
        ranks = self.tokenizer._ranks
        left, right = bpe_parts(ranks, token, max_rank=made)  # tiktoken's ranks: a token's rank is its id
        return ranks[left], ranks[right], made

    def _check_step(self, k, name="step"):
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= self.steps:
            raise ExploreError(f"{name} must be a whole number from 0 to {self.steps} (the merges), got {k!r}")

    def _token(self, token_id):
        parts = self._parts_of.get(token_id)
        if parts is None:  # a step view draws hundreds of tokens, most of them again and again
            parts = self._parts_of[token_id] = _parts(self.tokenizer.token_bytes(token_id))
        return parts

    def _pair(self, a, b):
        return {"pair": [a, b], "left": self._token(a), "right": self._token(b)}

    def _name(self, pair):
        return f"({show(self.vocab[pair[0]])}, {show(self.vocab[pair[1]])})"

    # ----------------------------------------------------------------- steps

    def step_view(self, k):
        """Everything step k shows: the merge that made it and the table before the next one."""
        self._check_step(k)
        view = {"step": k, "steps": self.steps, "has_counts": self.records is not None}
        if self.records is not None:
            tokens = self.result.token_counts[k]
            total = self._table_bytes()
            view |= {"tokens": tokens, "bytes": total, "bytes_per_token": round(total / tokens, 4) if tokens else None,
                     "tie_break": self.result.settings.tie_break}
        view["merge"] = self.merge_view(k - 1) if k else None
        view["next"] = self.table(k) if k < self.steps and self.records is not None else None
        return view

    def _table_bytes(self):
        if not hasattr(self, "_bytes"):
            self._bytes = sum(len(piece) * count for piece, count in self.result.pieces)
        return self._bytes

    def table(self, rank):
        """The pair table before merge `rank` + 1 (step `rank` + 1) and how it was decided."""
        record = self.records[rank]
        top = record["top"]
        best = top[0][2]
        rows = [self._pair(a, b) | {"count": c, "tied": c == best, "chosen": i == 0}
                for i, (a, b, c) in enumerate(top)]
        ties = record.get("ties", sum(1 for row in rows if row["tied"]))
        rule = self.result.settings.tie_break
        picks = record.get("picks")
        decision = {"rule": rule, "rule_text": RULES[rule], "ties": ties, "by": "tie" if ties != 1 else "count"}
        winner = tuple(record["pair"])
        if picks:
            decision["picks"] = {name: self._pair(*pair) | {"differs": tuple(pair) != winner}
                                 for name, pair in picks.items()}
        decision["reason"] = self._reason(winner, best, ties, picks, rule)
        return {"rank": rank, "step": rank + 1, "rows": rows, "decision": decision}

    def _reason(self, winner, count, ties, picks, rule):
        name = self._name(winner)
        if ties == 1:
            return f"{name} has the highest count, {count:,}."
        many = "more than 256" if ties == "over" else f"{ties}"
        text = f"{many} pairs tie at {count:,}; the tie-break {rule!r} picks {name}, {RULES[rule]}."
        if picks:
            others = [f"{other!r} would pick {self._name(pair)}" for other, pair in picks.items()
                      if other != rule and tuple(pair) != winner]
            same = [repr(other) for other, pair in picks.items() if other != rule and tuple(pair) == winner]
            if others:
                text += " " + "; ".join(others) + "."
            if same:
                text += f" {' and '.join(same)} would pick the same."
        return text

    def merge_view(self, rank):
        """The merge of this rank: the pair, the new token and, with a record, what it changed."""
        a, b, made = self.merge_at(rank)
        view = self._pair(a, b) | {"rank": rank, "step": rank + 1, "id": made, "token": self._token(made)}
        if self.records is None:
            return view
        record = self.records[rank]
        total = self._table_bytes()
        tokens = record["tokens_after"]
        view |= {
            "count": record["count"],
            "merged": record["merged"],
            "overlap": record["count"] > record["merged"],
            "table": self.table(rank),
            "rows_changed": record["rows_changed"],
            "rows": [{"count": row["count"], "before": [self._token(i) for i in row["before"]],
                      "after": [self._token(i) for i in row["after"]],
                      "piece": _parts(b"".join(self.vocab[i] for i in row["before"]))}
                     # a long row (a whole document, say) is an excerpt around its first change: its byte span
                     | ({"cut": row["cut"]} if "cut" in row else {})
                     for row in record["rows"]],
            # the merged pair itself always goes; "vanished" lists the neighbours it took with it
            "vanished": [self._pair(x, y) | {"count": c} for x, y, c in record["vanished"] if (x, y) != (a, b)],
            "appeared": [self._pair(x, y) | {"count": c} for x, y, c in record["appeared"]],
            "tokens_after": tokens,
            "bytes_per_token": round(total / tokens, 4) if tokens else None,
        }
        if view["overlap"]:
            view["overlap_text"] = (
                f"{self._name((a, b))} occurs {record['count']:,} times but merges only {record['merged']:,} times: "
                "occurrences overlap (as in aaa), and a merge goes left to right without overlap."
            )
        return view

    # ----------------------------------------------------------------- encoding at k merges

    def _merger(self, k):
        """A function (a, b) -> made id, or None, that knows only the first k merges."""
        tok = self.tokenizer
        if tok.merge_rule == "pairs":
            pair_rank, made = tok._pair_rank, self.made

            def step(a, b):
                rank = pair_rank.get((a, b))
                return (rank, made[rank]) if rank is not None and rank < k else None
            return step
        ranks, vocab = tok._ranks, self.vocab
        limit = self.made[k - 1] if k else -1  # ranks rule: ids are ranks, so the first k merges are ids <= this

        def step(a, b):
            rank = ranks.get(vocab[a] + vocab[b])
            return (rank, rank) if rank is not None and rank <= limit else None
        return step

    def _history_encoder(self, k):
        """piece -> ids under the first k merges, read off the piece's full merge history.

        Encoding applies merges lowest rank first, and a merge only makes pairs of
        higher rank, so the ranks applied rise: the state after the first k merges is
        the state before the first applied rank >= k. A piece's history is kept (it
        is small), so a jump to any step costs one bisection per piece.
        """
        history = self._histories
        if self._full is None:
            self._full = self._fast_encoder(self.steps, record=True)
        full = self._full

        direct = None

        def encode(piece):
            nonlocal direct
            found = history.get(piece)
            if found is None:
                if len(history) >= _HISTORIES:
                    history.clear()
                found = full(piece)
                if any(a > b for a, b in zip(found[0], found[0][1:])):
                    # A merge that reuses an existing token's id can make a lower-ranked pair
                    # again; then the history does not rise, and this piece is encoded directly.
                    found = False
                history[piece] = found
            if found is False:
                direct = direct or self._fast_encoder(k)
                return direct(piece)
            ranks, states = found
            return states[bisect.bisect_left(ranks, k)]
        return encode

    def _fast_encoder(self, k, record=False):
        """piece -> ids under the first k merges, as the tokenizer's own list scan does it (pairs rule)."""
        tok = self.tokenizer
        if tok.merge_rule != "pairs":
            merger = self._merger(k)
            return lambda piece: self.encode_piece(piece, k, merger)
        cached = getattr(self, "_fast", None)
        if cached is not None and cached[0] == k and not record:
            return cached[1]
        # Only the first k merges: a smaller rank table, then the same loop as Tokenizer._merge_by_pairs.
        table = {pair: rank for pair, rank in tok._pair_rank.items() if rank < k}
        get, made, byte_ids, none = table.get, self.made, tok._byte_ids, 1 << 62

        def encode(piece):
            ids = [byte_ids[x] for x in piece.encode("utf-8")]
            applied, states = [], [list(ids)]
            ranks = list(map(get, zip(ids, ids[1:]), repeat(none)))
            while ranks:
                best = min(ranks)
                if best == none:
                    break
                i = ranks.index(best)  # lowest rank, leftmost
                ids[i] = made[best]
                del ids[i + 1]
                del ranks[i]
                if i:
                    ranks[i - 1] = get((ids[i - 1], ids[i]), none)
                if i < len(ranks):
                    ranks[i] = get((ids[i], ids[i + 1]), none)
                if record:
                    applied.append(best)
                    states.append(list(ids))
            return (applied, states) if record else ids
        if not record:
            self._fast = (k, encode)
        return encode

    def encode_piece(self, piece, k, merger=None, trace=False):
        """Ids of one pre-token (a str) under the first k merges; with trace, also every step."""
        merger = merger or self._merger(k)
        ids = [self.tokenizer._byte_ids[x] for x in piece.encode("utf-8")]
        steps = []
        while True:
            found = [(i, merger(ids[i], ids[i + 1])) for i in range(len(ids) - 1)]
            found = [(i, hit) for i, hit in found if hit is not None]
            best = min(found, key=lambda f: (f[1][0], f[0])) if found else None  # lowest rank, then leftmost
            if trace:
                steps.append({"parts": [self._token(i) for i in ids], "ids": list(ids),
                              "candidates": [self._pair(ids[i], ids[i + 1]) | {"rank": hit[0], "position": i}
                                             for i, hit in found],
                              "applied": None if best is None else {"position": best[0], "rank": best[1][0]}})
            if best is None:
                return (ids, steps) if trace else ids
            i, (_rank, made) = best
            ids[i:i + 2] = [made]

    def _text_index(self):
        """The training text as one string, with the start of each pre-token (built once).

        Trained on word counts, the "text" is the pieces one after another, each
        one pre-token, and the index knows each piece's count.
        """
        if self._index is None:
            if self.result is None:
                raise ExploreError("this tokenizer was not trained here: it has no training text; give a text")
            if self.result.input == "counts":
                pieces = [piece.decode("utf-8") for piece, _count in self.result.pieces]
                self._index = _PieceIndex(pieces, get_pretokenizer("bytes"), (), {})
                self._index.counts = [count for _piece, count in self.result.pieces]
            else:
                self._index = _PieceIndex(self.result.documents, self.tokenizer.pretokenizer,
                                          self.result.settings.special_tokens, self.tokenizer.special_tokens)
        return self._index

    def window(self, k, start=0, size=2000, text=None):
        """A window of the training text (or of `text`) encoded with the first k merges.

        The window is widened to whole pre-tokens. Returns {step, start, end,
        text, length (of the whole text), groups: [[first, end, [id]]],
        tokens}: group offsets are code points from `start`; tokens that
        split a character share one group.
        """
        self._check_step(k)
        if not isinstance(size, int) or not 1 <= size <= MAX_WINDOW:
            raise ExploreError(f"size must be a whole number from 1 to {MAX_WINDOW:,}, got {size!r}")
        index = self._text_index() if text is None else _PieceIndex([text], self.tokenizer.pretokenizer, (),
                                                                     self.tokenizer.special_tokens)
        if not isinstance(start, int) or not 0 <= start <= max(0, len(index.text) - 1):
            raise ExploreError(f"start must be a character offset from 0 to {max(0, len(index.text) - 1):,}, "
                               f"got {start!r}")
        first, last = index.pieces_in(start, start + size)
        encode = self._history_encoder(k) if self.tokenizer.merge_rule == "pairs" else self._fast_encoder(k)
        segments = []  # (text offset, text, ids): whole pieces, or the window's part of a long one
        done = {}  # piece -> ids: words repeat within a window
        for p in range(first, last):
            at = index.starts[p]
            piece = index.text[at:index.starts[p + 1]]
            special = index.special_id(p)
            if special is not None:
                segments.append((at, piece, [special]))
                continue
            data = piece.encode("utf-8") if len(piece) * 4 >= LONG_PIECE else None
            if data is not None and len(data) >= LONG_PIECE:
                segments.append(self._long_segment(k, piece, data, at, max(start, at) - at,
                                                   min(start + size, at + len(piece)) - at, text is None))
                continue
            ids = done.get(piece)
            if ids is None:
                ids = done[piece] = encode(piece)
            segments.append((at, piece, ids))
        base = segments[0][0] if segments else start
        end = segments[-1][0] + len(segments[-1][1]) if segments else start
        groups = []
        tok = self.tokenizer
        for at, piece, ids in segments:
            groups += _groups(tok, ids, piece, at - base)
        window = {"step": k, "start": base, "end": end, "text": index.text[base:end], "length": len(index.text),
                  "groups": groups, "tokens": sum(len(g[2]) for g in groups)}
        if index.counts is not None:  # word counts: [first, end, count] of each piece, offsets as the groups'
            window["counts"] = [[max(index.starts[p], base) - base, min(index.starts[p + 1], end) - base, index.counts[p]]
                                for p in range(first, last)]
        return window

    def _long_segment(self, k, piece, data, at, first, end, trained):
        """(text offset, text, ids) of the tokens after k merges covering piece[first:end], a long piece.

        Cut at whole tokens and whole characters, read off when each byte boundary
        went (long_windows.py): from training's records while no merge up to k
        reused an id, else from one full encoding of the piece (then cached).
        """
        tok = self.tokenizer
        pairs_rule = tok.merge_rule == "pairs"
        gone = None
        boundaries = self.result.boundaries if trained and self.result is not None else None
        if boundaries and pairs_rule and k <= self._first_reuse():
            gone = boundaries.get(data)
        if gone is None:
            gone = self._gone_of(data)
        lo = len(piece[:first].encode("utf-8"))
        hi = lo + len(piece[first:end].encode("utf-8"))
        cuts = spans(data, gone, self._threshold(k), lo, hi)
        by_bytes = self._by_bytes_of()
        ids = [by_bytes[data[a:b]] for a, b in cuts]
        begin, stop = cuts[0][0], cuts[-1][1]
        offset = first - len(data[begin:lo].decode("utf-8"))
        return at + offset, data[begin:stop].decode("utf-8"), ids

    def _gone_of(self, data):
        """When each byte boundary of a long piece went, from one full encoding (kept for the next windows)."""
        gone = self._gone.get(data)
        if gone is None:
            if len(self._gone) >= _LONG_KEPT:
                self._gone.clear()
            byte_ids = self.tokenizer._byte_ids
            gone = self._gone[data] = boundary_steps([byte_ids[x] for x in data], self._merger(self.steps))
        return gone

    def _threshold(self, k):
        """A boundary stays after k merges when it went at this rank or later (ranks rule: ids are ranks)."""
        if self.tokenizer.merge_rule == "pairs":
            return k
        return self.made[k - 1] + 1 if k else 0

    def _by_bytes_of(self):
        if self._by_bytes is None:
            self._by_bytes = {token: i for i, token in self.vocab.items()}
        return self._by_bytes

    def _first_reuse(self):
        """The first rank whose merge made an id an earlier merge had made (self.steps if none)."""
        if self._reuse is None:
            self._reuse = next((rank for rank, made in enumerate(self.made) if self._maker[made] != rank), self.steps)
        return self._reuse

    # ----------------------------------------------------------------- provenance

    def tree(self, token_id):
        """A token's merge tree down to bytes: {id, token, rank, step, count, children}."""
        rank = self._maker.get(token_id)
        node = {"id": token_id, "token": self._token(token_id), "rank": rank,
                "step": None if rank is None else rank + 1}
        if rank is None:
            return node
        if self.records is not None:
            node["count"] = self.records[rank]["count"]
        elif self.result is not None:
            node["count"] = self.result.merge_counts[rank]
        a, b, _made = self.merge_at(rank)
        node["children"] = [self.tree(a), self.tree(b)]
        return node

    def provenance(self, token_id):
        """Where a token came from: its tree, the step that made it and the pairs it beat."""
        tok = self.tokenizer
        if not isinstance(token_id, int) or isinstance(token_id, bool):
            raise ExploreError(f"id must be a whole number, got {token_id!r}")
        specials = {i: s for s, i in tok.special_tokens.items()}
        if token_id in specials:
            return {"id": token_id, "token": [["t", specials[token_id]]], "special": True,
                    "text": f"{specials[token_id]!r} is a special token: it is added after the merges and never "
                            "made by one, and text never merges into it."}
        if token_id not in self.vocab:
            raise ExploreError(f"unknown token id {token_id}: this tokenizer has ids 0 to {tok.n_vocab - 1}")
        out = {"id": token_id, "token": self._token(token_id), "bytes": self.vocab[token_id].hex(),
               "tree": self.tree(token_id)}
        rank = self._maker.get(token_id)
        if rank is None:
            out["text"] = f"{show(self.vocab[token_id])} is byte 0x{self.vocab[token_id][0]:02X}: a base token, not made by a merge."
            return out
        a, b, _made = self.merge_at(rank)
        made = {"rank": rank, "step": rank + 1} | self._pair(a, b)
        if self.records is not None:
            table = self.table(rank)
            record = self.records[rank]
            made |= {"count": record["count"], "merged": record["merged"], "tie": table["decision"]["by"] == "tie",
                     "ties": table["decision"]["ties"], "reason": table["decision"]["reason"],
                     "runners_up": table["rows"][1:1 + RUNNERS_UP]}
            made["text"] = (f"Made by merge {rank + 1}: {self._name((a, b))}, "
                            f"which occurred {record['count']:,} times then. " + table["decision"]["reason"])
        else:
            made["text"] = (f"Made by merge {rank + 1}: {self._name((a, b))}. "
                            "This tokenizer was not trained here, so the counts are not known.")
        out["made"] = made
        return out

    # ----------------------------------------------------------------- encode trace

    def trace(self, text, k=None):
        """The pre-tokenizer's pieces (and the alternative that cut each), then each piece's merge steps."""
        if not isinstance(text, str):
            raise ExploreError(f"text must be a string, got {text!r}")
        k = self.steps if k is None else k
        self._check_step(k, "merges")
        tok = self.tokenizer
        pattern = tok.pretokenizer.pattern
        merger = self._merger(k)
        pieces, truncated = [], False
        for chunk, chunk_start, is_special in split_special(text, sorted(tok.special_tokens)):
            if is_special:
                cut = [(chunk, chunk_start, None)]
            elif pattern is None:
                cut = [(chunk, chunk_start, None)]
            else:
                cut = [(piece, chunk_start + at, alt) for piece, at, alt in split_by_alternative(pattern, chunk)]
            for piece, at, alt in cut:
                if len(pieces) == TRACE_PIECES:
                    truncated = True
                    break
                entry = {"piece": piece, "start": at, "end": at + len(piece), "alternative": alt}
                if is_special:
                    entry |= {"special_id": tok.special_tokens[piece], "ids": [tok.special_tokens[piece]], "steps": []}
                elif len(piece.encode("utf-8")) > TRACE_STEP_BYTES:  # the steps of a long piece: far too many to list
                    data = piece.encode("utf-8")
                    ids = [self._by_bytes_of()[data[a:b]] for a, b in spans(data, self._gone_of(data), self._threshold(k),
                                                                           0, len(data))]
                    ids = self._whole_piece(piece, k) or ids  # tiktoken's rule: a piece that is a token is one
                    entry |= {"ids": ids, "tokens": [self._token(i) for i in ids], "steps": [],
                              "steps_note": f"This piece is {len(data):,} bytes long: its merges are listed step by "
                                            f"step only for pieces up to {TRACE_STEP_BYTES} bytes. Its tokens are below."}
                else:
                    ids, steps = self.encode_piece(piece, k, merger, trace=True)
                    whole = self._whole_piece(piece, k)
                    if whole is not None and whole != ids:  # tiktoken's shortcut: a piece that is a token
                        entry["whole_piece"] = True
                        ids = whole
                    entry |= {"ids": ids, "tokens": [self._token(i) for i in ids], "steps": steps}
                pieces.append(entry)
            if truncated:
                break
        alternatives = []
        if pattern is not None:
            from .pretokenize import alternatives as pattern_alternatives

            alternatives = [{"index": i, "source": source, "note": ALTERNATIVE_NOTES.get(source)}
                            for i, source in enumerate(pattern_alternatives(pattern))]
        return {"merges": k, "pretokenizer": tok.pretokenizer.name, "pattern": pattern,
                "alternatives": alternatives, "pieces": pieces, "truncated": truncated}

    def _whole_piece(self, piece, k):
        tok = self.tokenizer
        if tok.merge_rule != "ranks" or k != self.steps:
            return None
        data = piece.encode("utf-8")
        whole = tok._ranks.get(data) if len(data) > 1 else None
        return None if whole is None else [whole]

    # ----------------------------------------------------------------- predict mode

    def judge(self, k, pair):
        """Predict mode: was `pair` the merge that makes step k + 1, and why (its count, or the tie-break)."""
        self._check_step(k)
        if k == self.steps:
            raise ExploreError(f"step {k} is the last: there is no merge after it to predict")
        if (not isinstance(pair, (list, tuple)) or len(pair) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and x in self.vocab for x in pair)):
            raise ExploreError(f"pair must be two token ids, got {pair!r}")
        guess = tuple(pair)
        a, b, _made = self.merge_at(k)
        winner = (a, b)
        out = {"step": k + 1, "guess": list(guess), "pair": [a, b], "correct": guess == winner}
        if self.records is None:
            out["by"] = "rank"
            out["text"] = (("Right: " if out["correct"] else "Not this one: ")
                           + f"merge {k + 1} of this tokenizer is {self._name(winner)}.")
            return out
        table = self.table(k)
        count = table["rows"][0]["count"]
        counts = {tuple(row["pair"]): row["count"] for row in table["rows"]}
        guess_count = counts.get(guess)
        out |= {"count": count, "guess_count": guess_count}
        decision = table["decision"]
        if out["correct"]:
            out["by"] = decision["by"]
            out["text"] = "Right. " + decision["reason"]
        elif guess_count is None:
            out["by"] = "count"
            out["text"] = (f"Not quite: {self._name(guess)} is not among the top pairs; "
                           f"{self._name(winner)} wins with {count:,}.")
        elif guess_count < count:
            out["by"] = "count"
            out["text"] = (f"Not quite: {self._name(guess)} occurs {guess_count:,} times, "
                           f"{self._name(winner)} {count:,} times.")
        else:
            out["by"] = "tie"
            out["text"] = (f"Close: {self._name(guess)} also occurs {count:,} times, a tie, and the tie-break "
                           f"{decision['rule']!r} ({decision['rule_text']}) picks {self._name(winner)}.")
        return out


def _groups(tok, ids, piece, offset):
    """[[first, end, [id]]] of one piece's tokens, in code points from the window's start.

    Tokens that split a character are one group, spanning the whole characters they spell together.

    >>> from bpelab.tokenizer import Tokenizer
    >>> _groups(Tokenizer.bytes_only(), [104, 0xC3, 0xA9], "hé", 10)
    [[10, 11, [104]], [11, 12, [195, 169]]]
    """
    if len(ids) == 1:
        return [[offset, offset + len(piece), list(ids)]]
    if piece.isascii():  # a byte is a character: every token is its own group
        out, at, sizes = [], offset, tok._token_bytes
        for token_id in ids:
            end = at + len(sizes[token_id])
            out.append([at, end, [token_id]])
            at = end
        return out
    starts = {}  # byte offset of each character's first byte -> its code point offset
    position = 0
    for i, char in enumerate(piece):
        starts[position] = i
        position += len(char.encode("utf-8"))
    starts[position] = len(piece)
    out, byte, first, held = [], 0, 0, []
    for token_id in ids:
        byte += len(tok.token_bytes(token_id))
        held.append(token_id)
        end = starts.get(byte)
        if end is not None:  # the group ends on a character boundary
            out.append([offset + first, offset + end, held])
            first, held = end, []
    if held:  # cannot happen for ids that spell the piece; kept whole rather than lost
        out.append([offset + first, offset + len(piece), held])
    return out


class _PieceIndex:
    """A text's pre-tokens as start offsets, so a window finds its pieces by bisection."""

    def __init__(self, documents, pretokenizer, special_tokens, special_ids):
        self.counts = None  # trained on word counts: piece index -> its count
        self.text = "".join(documents)
        starts = array("q")
        self.specials = {}  # piece index -> special id
        at = 0
        for doc in documents:
            for chunk, chunk_start, is_special in split_special(doc, special_tokens):
                if is_special:
                    self.specials[len(starts)] = special_ids.get(chunk)
                    starts.append(at + chunk_start)
                    continue
                pieces = pretokenizer.split(chunk)
                starts.extend(accumulate(map(len, pieces[:-1]), initial=at + chunk_start))
            at += len(doc)
        starts.append(len(self.text))
        self.starts = starts

    def special_id(self, p):
        return self.specials.get(p)

    def pieces_in(self, first, end):
        """The range of pieces that overlap characters [first, end)."""
        lo = max(0, bisect.bisect_right(self.starts, first) - 1)
        hi = bisect.bisect_left(self.starts, end)
        return lo, min(hi, len(self.starts) - 1)
