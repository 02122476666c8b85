"""BPE of a long pre-token in windows, joined only across cuts that no merge crosses.

A run of spaces, of `=` or of one letter is a single pre-token however long it
is. Encoded whole with a heap of pairs, such a piece costs O(n log n) time and
about a hundred bytes of Python objects per byte. Here it is cut into windows of
about WINDOW bytes; each window is encoded on its own, and remembered, since
the windows of a run are all alike. Each cut is then checked, so the ids are
still exactly those of BPE on the whole piece.

Why a checked cut is exact. BPE applies, step by step, the adjacent pair of
lowest rank, the leftmost among equals. Take two neighbouring windows L and R,
each encoded alone, and the ranks of their merges in the order they were made.
Encoding L+R makes the same merges, the two orders interleaved lowest rank
first (L's on a tie, being further left), for as long as the pair across the
cut (L's last part with R's first part) is never the one chosen. The check
replays that interleaving and asks at each step whether the pair across ranks
below L's next merge and at or below R's next one (it stands right of L's pairs
and left of R's); at the end it must make no token at all. With more windows,
the interleaving of all of them, seen through any two neighbours, is the
interleaving of those two, so a cut that holds against its two neighbours holds
in the whole piece. Where a cut fails, its two windows become one, whose own
cuts are checked again; a piece whose windows keep growing is left to the
caller (Tokenizer._merge_heap, BPE of the whole piece).

Cuts are placed where the two bytes across rank highest as a token (or make
none), among REACH positions: the windows of a periodic piece then start in the
same phase, and their cuts fall where tokens end.

Not here: the pieces of ordinary length (Tokenizer._merge_by_pairs, _merge_by_ranks).
"""

from itertools import chain, repeat

WINDOW = 256  # bytes in a window, before its cut is placed; at least twice the longest token
MAX_WINDOW = 4096  # but no more: a window's list scan is quadratic
REACH = 32  # a window's cut is placed among this many positions after the window's size
JOINED = 8  # a window grown by failed cuts past this many windows' bytes: give up
_CACHE_LIMIT = 4096  # windows (and checked cuts) remembered before both restart
_NO_RANK = 1 << 62


class LongPieces:
    """Window encoder of one tokenizer; see the module docstring.

    A window is remembered as (bytes, ids, ranks of its merges in order,
    [(merge index, new first part)], [(merge index, new last part)], first
    part, last part); a part is an id (pairs rule) or bytes (ranks rule).
    """

    def __init__(self, tokenizer, window=None, reach=REACH, max_joined=None):
        self._tokenizer = tokenizer
        if window is None:  # a window holds two of the longest tokens, so runs of them cut well
            longest = max(map(len, tokenizer.vocab.values()))
            window = min(max(WINDOW, 2 * longest), MAX_WINDOW)
        if not 1 <= reach <= window:
            raise ValueError(f"reach must be from 1 to window ({window}), got {reach}")
        self.window, self.reach = window, reach
        self.max_joined = JOINED * window if max_joined is None else max_joined
        self._by_ranks = tokenizer.merge_rule == "ranks"
        self._windows = {}  # bytes -> window
        self._cuts = {}  # (bytes, bytes) -> bool: the cut between the two windows holds
        self._two_byte_rank = None  # first << 8 | second -> rank of the two bytes as one token

    def clear(self):
        self._windows.clear()
        self._cuts.clear()

    def encode(self, data):
        """Ids of BPE on `data` (bytes), or None if its cuts keep failing."""
        if len(self._windows) > _CACHE_LIMIT or len(self._cuts) > _CACHE_LIMIT:
            self.clear()
        stack = []  # windows whose cuts (each with the next one) hold so far
        for start, end in self._spans(data):
            window = self._window(data[start:end])
            while stack and not self._holds(stack[-1], window):
                joined = stack.pop()[0] + window[0]
                if len(joined) > self.max_joined:
                    return None
                window = self._window(joined)
            stack.append(window)
        return list(chain.from_iterable(window[1] for window in stack))

    def _spans(self, data):
        # (start, end) of each window; the last takes what is left, under 2 * window bytes.
        rank = self._two_byte_rank
        if rank is None:
            rank = self._two_byte_rank = self._two_byte_ranks()
        n = len(data)
        size, reach = self.window, self.reach
        start = 0
        while n - start >= 2 * size:
            cut = best = start + size
            highest = -1
            for c in range(best, best + reach):
                r = rank[data[c - 1] << 8 | data[c]]
                if r > highest:
                    highest, cut = r, c
                    if r == _NO_RANK:
                        break
            yield start, cut
            start = cut
        yield start, n

    def _two_byte_ranks(self):
        tok = self._tokenizer
        if self._by_ranks:
            get = tok._ranks.get
            return [get(bytes((a, b)), _NO_RANK) for a in range(256) for b in range(256)]
        get, ids = tok._pair_rank.get, tok._byte_ids
        return [get((ids[a], ids[b]), _NO_RANK) for a in range(256) for b in range(256)]

    def _window(self, data):
        window = self._windows.get(data)
        if window is None:
            window = self._windows[data] = (self._encode_window_by_ranks if self._by_ranks else self._encode_window_by_pairs)(data)
        return window

    def _encode_window_by_pairs(self, data):
        tok = self._tokenizer
        parts = [tok._byte_ids[b] for b in data]
        first, last = parts[0], parts[-1]
        get, result = tok._pair_rank.get, tok._merge_result
        ranks = list(map(get, zip(parts, parts[1:]), repeat(_NO_RANK)))
        made, firsts, lasts = [], [], []
        while ranks:  # as Tokenizer._merge_by_pairs, noting each merge and each change at an edge
            best = min(ranks)
            if best == _NO_RANK:
                break
            i = ranks.index(best)
            parts[i] = result[best]
            del parts[i + 1]
            del ranks[i]
            if i:
                ranks[i - 1] = get((parts[i - 1], parts[i]), _NO_RANK)
            if i < len(ranks):
                ranks[i] = get((parts[i], parts[i + 1]), _NO_RANK)
            if not i:
                firsts.append((len(made), parts[0]))
            if i == len(ranks):
                lasts.append((len(made), parts[i]))
            made.append(best)
        return data, tuple(parts), made, firsts, lasts, first, last

    def _encode_window_by_ranks(self, data):
        tok = self._tokenizer
        parts = [data[i:i + 1] for i in range(len(data))]
        first, last = parts[0], parts[-1]
        get = tok._ranks.get
        ranks = list(map(get, map(bytes.__add__, parts, parts[1:]), repeat(_NO_RANK)))
        made, firsts, lasts = [], [], []
        while ranks:  # as Tokenizer._merge_by_ranks, noting each merge and each change at an edge
            best = min(ranks)
            if best == _NO_RANK:
                break
            i = ranks.index(best)
            parts[i] += parts[i + 1]
            del parts[i + 1]
            del ranks[i]
            if i:
                ranks[i - 1] = get(parts[i - 1] + parts[i], _NO_RANK)
            if i < len(ranks):
                ranks[i] = get(parts[i] + parts[i + 1], _NO_RANK)
            if not i:
                firsts.append((len(made), parts[0]))
            if i == len(ranks):
                lasts.append((len(made), parts[i]))
            made.append(best)
        return data, tuple(map(tok._ranks.__getitem__, parts)), made, firsts, lasts, first, last

    def _holds(self, left, right):
        key = (left[0], right[0])
        holds = self._cuts.get(key)
        if holds is None:
            holds = self._cuts[key] = self._replay(left, right)
        return holds

    def _replay(self, left, right):
        """True if, merging L and R together, the pair across their cut never merges (see the module docstring)."""
        if self._by_ranks:
            get = self._tokenizer._ranks.get

            def across(a, b):
                return get(a + b, _NO_RANK)
        else:
            get = self._tokenizer._pair_rank.get

            def across(a, b):
                return get((a, b), _NO_RANK)

        e, e_edges, last = left[2], left[4], left[6]
        f, f_edges, first = right[2], right[3], right[5]
        ne, nf = len(e), len(f)
        e_edges = e_edges + [(ne, None)]  # sentinels: no further change at the edge
        f_edges = f_edges + [(nf, None)]
        i = j = le = lf = 0
        rank = across(last, first)
        while True:
            x = e[i] if i < ne else _NO_RANK
            y = f[j] if j < nf else _NO_RANK
            if rank < x and rank <= y:  # the pair across comes first
                return False
            if x == _NO_RANK and y == _NO_RANK:
                return True
            if x <= y:
                if e_edges[le][0] == i:
                    last = e_edges[le][1]
                    le += 1
                    rank = across(last, first)
                i += 1
            else:
                if f_edges[lf][0] == j:
                    first = f_edges[lf][1]
                    lf += 1
                    rank = across(last, first)
                j += 1
