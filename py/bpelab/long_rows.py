"""The trainer's long rows: pre-tokens too long to copy at every merge, as one linked sequence.

The trainer (train.py) keeps each row of its table as a str and replaces a
pair in C, which costs the row's whole length per merge. That is cheap for
words but not for one pre-token that is a whole document (the `bytes`
pre-tokenizer) or a long run of CJK: 5,000 merges over a 1,000,000-byte row
copied it 5,000 times. Rows at or above a length go here instead, the way the
Rust trainers hold words:

- `tok`: node -> token (a 1-character str, chr(id); "" once the node is merged away);
- `nxt`, `prv`: node -> the next and previous live node of its row (-1 at the ends);
- `where`: pair -> nodes that began it (array('i'); stale entries are checked and skipped);
- a node is a byte of the row: node - start of row = byte offset.

A merge visits only its sites, left to right (BPE's rule for overlaps such as
aaa), and returns the change in each neighbouring pair's count; the trainer
applies those changes with the short rows' own. With records on, a merge also
notes the rank at which each byte boundary went (`gone`: a window of the
explorer reads the tokens at any step off it) and an excerpt of the most
frequent changed rows.

Not here: choosing the pair, the short rows, the records' other fields (train.py).
"""

from array import array
from bisect import bisect_right
from collections import Counter, defaultdict, deque
from functools import partial
from itertools import count, repeat
from operator import add

EXCERPT_TOKENS = 8  # tokens of context on each side of a long row's first change, in a record
NEVER = 2**31 - 1  # `gone` of a boundary no merge removed


class LongRows:
    """Rows as linked nodes; built from [(row, str of chr(id), weight)] in row order.

    >>> rows = LongRows([(0, "abab", 1)], record=False)
    >>> sorted(rows.pair_counts().items())
    [('ab', 2), ('ba', 1)]
    >>> merged, delta, changed, rows_hit = rows.merge("ab", "Ā", 0, keep=0, left_bytes=1)
    >>> merged, sorted((k, d) for k, d in delta.items() if d), rows.row_tokens(0)  # (Ā, a) came and went
    (2, [('ba', -1), ('ĀĀ', 1)], ['Ā', 'Ā'])
    """

    def __init__(self, rows, record):
        self.rows = [row for row, _, _ in rows]  # index -> the trainer's row number
        self.starts = array("q")  # index -> first node; one more at the end
        self.weights = [weight for _, _, weight in rows]
        tok = []
        for _, text, _ in rows:
            self.starts.append(len(tok))
            tok.extend(text)
        self.starts.append(len(tok))
        n = len(tok)
        tok.append("")  # node n: the sentinel at both ends of every row; never a token, so never a site
        self.tok = tok
        self.nxt = nxt = array("i", range(1, n + 2))
        self.prv = prv = array("i", range(-1, n))
        for first, end in zip(self.starts, self.starts[1:]):
            prv[first] = n
            nxt[end - 1] = n
        self.end = n
        # A weight per node only when some long row repeats: most long rows are whole documents, once each.
        self.node_weight = None
        if any(w != 1 for w in self.weights):
            self.node_weight = array("q")
            for (first, end), w in zip(zip(self.starts, self.starts[1:]), self.weights):
                self.node_weight.extend([w] * (end - first))
        self.where = defaultdict(partial(array, "i"))  # pair -> nodes; array: 4 bytes per entry, not 36
        for (first, end) in zip(self.starts, self.starts[1:]):
            pairs = map(add, tok[first:end - 1], tok[first + 1:end])
            deque(map(array.append, map(self.where.__getitem__, pairs), count(first)), 0)  # all in C
        self.gone = array("i", [NEVER]) * n if record else None  # node -> rank that merged it into its left

    def pair_counts(self):
        """{pair: count} over the long rows, weights included."""
        total = Counter()
        tok = self.tok
        for (first, end), w in zip(zip(self.starts, self.starts[1:]), self.weights):
            counts = Counter(map(add, tok[first:end - 1], tok[first + 1:end]))
            if w != 1:
                for pair in counts:
                    counts[pair] *= w
            total.update(counts)
        return total

    def tokens(self):
        """Tokens over the long rows, weights included."""
        return sum((end - first) * w for (first, end), w in zip(zip(self.starts, self.starts[1:]), self.weights))

    def row_of(self, node):
        """The index (into `rows`) of the long row that holds a node."""
        return bisect_right(self.starts, node) - 1

    def row_tokens(self, index):
        """The live tokens of one long row, in order (for tests and checks)."""
        out, node = [], self.starts[index]
        while node != self.end:
            out.append(self.tok[node])
            node = self.nxt[node]
        return out

    def first_occurrence(self, pair):
        """(row, node offset in the row) of the pair's first occurrence, or None."""
        nodes = self.where.get(pair)
        if not nodes:
            return None
        tok, nxt = self.tok, self.nxt
        a, b = pair
        for p in sorted(set(nodes)):
            if tok[p] == a and tok[nxt[p]] == b:
                index = self.row_of(p)
                return self.rows[index], p - self.starts[index]
        return None

    def merge(self, pair, new, rank, keep, left_bytes):
        """Merge `pair` into the token `new` (1-character strs) at every site; a is `left_bytes` long.

        Returns (merged, delta, changed, rows_hit): merged is the weighted number of
        sites; delta is {pair: change in count} of the neighbouring pairs
        (the merged pair's own loss is left to the caller); changed, with
        records on, is [(row, weight, before, after, cut)] for up to `keep` of
        the most frequent changed rows, before/after being an excerpt's ids
        and cut {start, end, bytes} its byte span in the row; rows_hit, with
        records on, is how many long rows changed.
        """
        nodes = self.where.pop(pair, None)
        if not nodes:
            return 0, {}, [], 0
        a, b = pair
        tok, nxt, prv, where, weight, gone = self.tok, self.nxt, self.prv, self.where, self.node_weight, self.gone
        sites = sorted(set(nodes))
        excerpts, rows_hit = self._excerpts_before(sites, a, b, keep) if gone is not None else (None, 0)
        # Per site: the token after it (y) and before it (x); the new pairs (N, y) begin at the site,
        # (x, N) at the node before it. The pairs themselves are made and counted afterwards, in C.
        ys, xs, hits, lefts = [], [], [], []
        y_add, x_add, hit_add, left_add = ys.append, xs.append, hits.append, lefts.append
        for p in sites:
            if tok[p] == a:
                q = nxt[p]
                if tok[q] == b:  # else stale: merged away or changed since it was listed, or (a, a) overlapping
                    r = nxt[q]
                    x = prv[p]
                    tok[p] = new
                    tok[q] = ""
                    nxt[p] = r
                    prv[r] = p  # the sentinel's prv, at a row's end: never read
                    y_add(tok[r])  # read before a site at r merges it: (b, y) then (N, y) is what this site did
                    x_add(tok[x])  # already N when the site before ends at x: then (N, a) goes again
                    hit_add(p)
                    left_add(x)
        if gone is not None:  # a node is a byte: b began len(a) bytes after the site
            for q in map(add, hits, repeat(left_bytes)):
                gone[q] = rank
        if weight is None:
            merged = len(hits)
            after, before = Counter(ys), Counter(xs)
        else:
            ws = list(map(weight.__getitem__, hits))
            merged = sum(ws)
            after, before = _weighted(ys, ws), _weighted(xs, ws)
        delta = {}
        for y, c in after.items():
            if y:  # "" is a row's end
                delta[b + y] = -c
                delta[new + y] = c
        get = delta.get
        for x, c in before.items():
            if x:
                k = x + a
                delta[k] = get(k, 0) - c
                k = x + new
                delta[k] = get(k, 0) + c
        for k, nodes in ((map(add, repeat(new), ys), hits), (map(add, xs, repeat(new)), lefts)):
            deque(map(array.append, map(where.__getitem__, k), nodes), 0)  # in C
        where.pop(new, None)  # the row ends' entries
        changed = self._excerpts_after(excerpts) if excerpts else []
        return merged, delta, changed, rows_hit

    # -- records: excerpts of changed rows ---------------------------------

    def _excerpts_before(self, sites, a, b, keep):
        """The rows a merge will change, most frequent first (up to `keep`), each with its context before."""
        tok, nxt, prv, starts = self.tok, self.nxt, self.prv, self.starts
        first_site = {}  # index of a long row -> its first site
        end = -1  # end of the row whose first site was found last: its later sites are skipped
        for p in sites:
            if p < end:
                continue
            if tok[p] == a and tok[nxt[p]] == b:
                index = self.row_of(p)
                first_site[index] = p
                end = starts[index + 1]
        chosen = sorted(first_site, key=lambda i: (-self.weights[i], self.rows[i]))[:keep]
        out = []
        for index in chosen:
            p = first_site[index]
            left = p
            for _ in range(EXCERPT_TOKENS):
                if prv[left] == self.end:
                    break
                left = prv[left]
            nodes, node = [], left
            while node != self.end and len(nodes) < 2 * EXCERPT_TOKENS + 6:
                nodes.append(node)
                node = nxt[node]
            at = nodes.index(p)
            target = nodes[at + 2 + EXCERPT_TOKENS] if at + 2 + EXCERPT_TOKENS < len(nodes) else starts[index + 1]
            out.append((index, nodes, [tok[n] for n in nodes], target))
        return out, len(first_site)

    def _excerpts_after(self, excerpts):
        tok, nxt, starts = self.tok, self.nxt, self.starts
        changed = []
        for index, nodes, before, target in excerpts:
            row_end = starts[index + 1]
            after, node = [], nodes[0]
            while node < target:  # the sentinel, at the row's end, is past every target
                after.append(tok[node])
                node = nxt[node]
            stop = min(node, row_end)  # a boundary both before and after the merge
            kept = [t for n, t in zip(nodes, before) if n < stop]
            first = starts[index]
            cut = {"start": nodes[0] - first, "end": stop - first, "bytes": row_end - first}
            changed.append((self.rows[index], self.weights[index], kept, after, cut))
        return changed

    def gone_by_row(self):
        """{trainer's row: array of the rank that removed each byte boundary}; index 0 (the row's start) is NEVER."""
        return {row: self.gone[first:end] for row, first, end in zip(self.rows, self.starts, self.starts[1:])}


def _weighted(keys, weights):
    """Counter of keys, each counted with its weight."""
    out = Counter()
    get = out.get
    for k, w in zip(keys, weights):
        out[k] = get(k, 0) + w
    return out
