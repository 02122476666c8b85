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
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict, deque
from functools import partial
from itertools import accumulate, count, repeat
from operator import add

EXCERPT_TOKENS = 8  # tokens of context on each side of a long row's first change, in a record
NEVER = 2**31 - 1  # `gone` of a boundary no merge removed
# While the rows are one str, a merge with fewer sites than 1 per this many tokens turns them into nodes:
# a split and join cost about 1 ns a token, a site about 0.25 us there and about 1 us in the nodes.
_SITES_PER_PASS = 3000
_SEP = "\U0010fffe"  # between rows in the one str; never a token (the trainer stops below 0x10FFFF ids)
_FIRST, _LAST = slice(0, 1), slice(-1, None)


class LongRows:
    """Rows as linked nodes; built from [(row, str of chr(id), weight)] in row order.

    >>> rows = LongRows([(0, "abab", 1)], record=False)
    >>> sorted(rows.pair_counts().items())
    [('ab', 2), ('ba', 1)]
    >>> merged, delta, changed, rows_hit = rows.merge("ab", "Ā", 0, keep=0, left_bytes=1)
    >>> merged, sorted((k, d) for k, d in delta.items() if d), rows.row_tokens(0)  # (Ā, a) came and went
    (2, [('ba', -1), ('ĀĀ', 1)], ['Ā', 'Ā'])
    """

    def __init__(self, rows, record, one_str=True):
        self.rows = [row for row, _, _ in rows]  # index -> the trainer's row number
        self.weights = [weight for _, _, weight in rows]
        texts = [text for _, text, _ in rows]
        self.gone = None
        self.record = record
        self.work = 0  # tokens scanned (one str) plus nodes visited (linked), over all merges: linear, tests check
        self.first_at = {}  # pair -> its first occurrence, until a merge changes the pair's nodes
        # The first merges, each with thousands of sites, go faster on one str (see `_merge_text`);
        # records need a node per byte from the start, and repeated rows a weight per node. `one_str`
        # False keeps nodes throughout (first-seen asks for first occurrences, a scan of the str each).
        self.where = None  # the index of nodes, once linked
        # With records, while one str: each token's length in bytes, and how each merged token was made
        # (the ranks of the boundaries inside it), from which the nodes and `gone` are built when linked.
        self.tok_len = self.made = None
        if one_str and all(w == 1 for w in self.weights) and all(_SEP not in t for t in texts):
            self.text = _SEP.join(texts)
            self.tok = None
            if record:
                self.tok_len = {chr(i): 1 for i in range(256)}
                self.made = {}
                self.row_bytes = list(map(len, texts))  # a byte a token before any merge
                self.excerpt_mark = 0, 0  # (token, its byte) in the one str, to count bytes from
            return
        self.text = None
        self._link(texts)
        self.gone = array("i", [NEVER]) * self.end if record else None  # node -> rank that merged it into its left

    @classmethod
    def resume(cls, rows, texts, tok_len, made):
        """Records on, one str, from rows already merged: [(row, weight 1)], their texts of chr(id), and
        `tok_len` and `made` as the one str keeps them (cut_rows.py hands over here when a merge crosses a cut)."""
        self = cls([(row, "", 1) for row, _ in rows], record=True)
        self.text = _SEP.join(texts)
        self.tok_len, self.made = tok_len, made
        self.row_bytes = [sum(map(tok_len.__getitem__, text)) for text in texts]
        return self

    def _link(self, texts):
        """Build the linked nodes from the rows' strs: a node per token (per byte, before any merge)."""
        self.starts = array("q")  # index -> first node; one more at the end
        tok = []
        for text in texts:
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

    def _link_bytes(self):
        """Leave the one str for nodes a byte each, as records need: a token's node is its first byte.

        `gone` is rebuilt from how each token was made: a token's first byte keeps NEVER (no merge
        joined it to its left yet), the bytes inside it the ranks of the merges that made it.
        """
        tok_len, made = self.tok_len, self.made
        inside = {ch: b"" for ch in tok_len}  # token -> the ranks of its inner boundaries, as int32 bytes
        for ch, (a, b, rank) in made.items():  # in the order made: a token's parts come before it
            inside[ch] = inside[a] + array("i", [rank]).tobytes() + inside[b]
        never = array("i", [NEVER]).tobytes()
        whole = {ch: never + pattern for ch, pattern in inside.items()}
        whole[_SEP] = b""
        text = self.text
        gone = array("i")
        gone.frombytes(b"".join(map(whole.__getitem__, text)))
        texts = text.split(_SEP)
        self.text = self.tok_len = self.made = None
        n = len(gone)
        self.starts = starts = array("q", accumulate(self.row_bytes, initial=0))
        self.tok = tok = [""] * (n + 1)  # node n: the sentinel at both ends of every row
        self.nxt = nxt = array("i", range(1, n + 2))
        self.prv = prv = array("i", range(-1, n))
        self.end = n
        self.node_weight = None
        self.where = where = defaultdict(partial(array, "i"))
        for row_text, first in zip(texts, starts):
            nodes = list(accumulate(map(tok_len.__getitem__, row_text), initial=first))  # one more: the row's end
            nodes[-1] = n
            deque(map(tok.__setitem__, nodes, row_text), 0)
            deque(map(nxt.__setitem__, nodes[:-1], nodes[1:]), 0)
            deque(map(prv.__setitem__, nodes[1:-1], nodes), 0)
            prv[nodes[0]] = n
            deque(map(array.append, map(where.__getitem__, map(add, row_text, row_text[1:])), nodes), 0)
        tok[n] = ""
        self.gone = gone

    def _texts(self):
        """The rows as strs of tokens (before the first merge: pair_counts is asked then)."""
        if self.text is not None:
            return self.text.split(_SEP)
        tok = self.tok
        if len(tok) == self.starts[-1] + 1:  # no merge yet: a node per token
            return ["".join(tok[first:end]) for first, end in zip(self.starts, self.starts[1:])]
        return ["".join(self.row_tokens(index)) for index in range(len(self.rows))]

    def pair_counts(self):
        """{pair: count} over the long rows, weights included."""
        total = Counter()
        for text, w in zip(self._texts(), self.weights):
            counts = Counter(map(add, text, text[1:]))
            if w != 1:
                for pair in counts:
                    counts[pair] *= w
            total.update(counts)
        return total

    def tokens(self):
        """Tokens over the long rows, weights included."""
        if self.text is not None:
            return len(self.text) - len(self.rows) + 1  # less the separators
        return sum((end - first) * w for (first, end), w in zip(zip(self.starts, self.starts[1:]), self.weights))

    def row_of(self, node):
        """The index (into `rows`) of the long row that holds a node."""
        return bisect_right(self.starts, node) - 1

    def row_tokens(self, index):
        """The live tokens of one long row, in order (for tests and checks)."""
        if self.text is not None:
            return list(self.text.split(_SEP)[index])
        out, node = [], self.starts[index]
        while node != self.end:
            out.append(self.tok[node])
            node = self.nxt[node]
        return out

    def first_occurrence(self, pair):
        """(row, position in the row) of the pair's first occurrence, or None; positions grow along a row."""
        if self.text is not None:
            at = self.text.find(pair)
            if at < 0:
                return None
            return self.rows[self.text.count(_SEP, 0, at)], at - self.text.rfind(_SEP, 0, at) - 1
        # Nodes never move, so a first occurrence holds until the pair's nodes change (see `merge`):
        # records and first-seen ask about the same tied pairs merge after merge.
        found = self.first_at.get(pair, False)
        if found is not False:
            return found
        found = None
        nodes = self.where.get(pair)
        if nodes:
            tok, nxt = self.tok, self.nxt
            a, b = pair
            for p in sorted(nodes):
                if tok[p] == a and tok[nxt[p]] == b:
                    index = self.row_of(p)
                    found = self.rows[index], p - self.starts[index]
                    break
        self.first_at[pair] = found
        return found

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
        if self.text is not None:
            if self.made is None or new not in self.tok_len:
                return self._merge_text(pair, new, rank, keep, left_bytes)
            # A merge that reuses a token's id: its inner boundaries would differ by site. Nodes from here.
            self._link_bytes()
        nodes = self.where.pop(pair, None)
        if not nodes:
            return 0, {}, [], 0
        self.work += len(nodes)
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
        if self.first_at:
            forget = self.first_at.pop
            forget(pair, None)
            for k in delta:  # a pair can lose a node and gain one (a change of 0): forgotten too
                forget(k, None)
        changed = self._excerpts_after(excerpts) if excerpts else []
        return merged, delta, changed, rows_hit

    def _merge_text(self, pair, new, rank, keep, left_bytes):
        """`merge` while the rows are one str (no repeated rows): split and join in C.

        Splitting at the pair gives the merge sites of BPE's left-to-right rule (aaa: one
        site); the token before and after each site are the ends of the parts around it. A
        part that is empty lies between two adjacent sites: the site after it sees N before
        it, the site before it sees a after it (read before the next site merges), as the
        linked nodes make it. Once a merge has few sites for the length, the rows become
        linked nodes: a pass over the whole str would then cost more than the sites.
        """
        self.work += len(self.text)
        a, b = pair
        if self.made is not None:
            self.tok_len[new] = left_bytes + self.tok_len[b]
            self.made[new] = a, b, rank
        text = self.text
        parts = text.split(pair)
        merged = len(parts) - 1
        if not merged:
            return 0, {}, [], 0
        self.text = new.join(parts)
        changed, rows_hit = self._text_excerpts(text, parts, keep) if self.made is not None else ([], 0)
        after = Counter(map(str.__getitem__, parts[1:], repeat(_FIRST)))
        before = Counter(map(str.__getitem__, parts[:-1], repeat(_LAST)))
        # Empty parts: between two sites (y is a, x is N), or at the str's ends (nothing there).
        empty = after.pop("", 0) - (parts[-1] == "")
        if empty:
            after[a] += empty
        empty = before.pop("", 0) - (parts[0] == "")
        if empty:
            before[new] += empty
        after.pop(_SEP, None)  # a row's end
        before.pop(_SEP, None)  # a row's start
        delta = {}
        for y, c in after.items():
            delta[b + y] = -c
            delta[new + y] = c
        get = delta.get
        for x, c in before.items():
            k = x + a
            delta[k] = get(k, 0) - c
            k = x + new
            delta[k] = get(k, 0) + c
        if merged * _SITES_PER_PASS < len(self.text):
            if self.made is not None:
                self._link_bytes()
            else:
                texts = self.text.split(_SEP)
                self.text = None
                self._link(texts)
        return merged, delta, changed, rows_hit

    def _text_excerpts(self, text, parts, keep):
        """`_excerpts_before` and `_excerpts_after` for the one str: the same rows, tokens and byte spans.

        `text` is the str before the merge, `parts` it split at the pair, `self.text` the str after.
        """
        if len(self.rows) == 1:  # one document, the `bytes` pre-tokenizer's usual case
            cum, rows = None, [0]
        else:
            cum = list(accumulate(map(str.count, parts[:-1], repeat(_SEP))))  # site -> its row
            rows = list(dict.fromkeys(cum))  # the rows changed, in order (a weight of 1 each: by row)
        if not keep:
            self.excerpt_mark = 0, 0  # the str changes without an excerpt: count from the start next time
            return [], len(rows)
        # Site k is at ends[k] + 2k in `text`; only the first site of each kept row is asked for.
        ends = list(accumulate(map(len, parts[:-1]))) if cum is not None else [len(parts[0])]
        tok_len, after_text, changed = self.tok_len, self.text, []
        for index in rows[:keep]:
            k = bisect_left(cum, index) if cum is not None else 0  # the row's first site
            at_site = ends[k] + 2 * k
            if cum is None:
                row_start, row_end = 0, len(text)
            else:
                row_start = text.rfind(_SEP, 0, at_site) + 1
                row_end = text.find(_SEP, at_site)
                row_end = len(text) if row_end < 0 else row_end
            left = max(row_start, at_site - EXCERPT_TOKENS)
            before = text[left:min(left + 2 * EXCERPT_TOKENS + 6, row_end)]
            if cum is None:  # one row: from the start, or from the last excerpt's start if nearer
                mark, mark_byte = self.excerpt_mark  # valid still: no merge changed a token before it
                if abs(left - mark) < left:
                    if mark <= left:
                        left_byte = mark_byte + sum(map(tok_len.__getitem__, text[mark:left]))
                    else:
                        left_byte = mark_byte - sum(map(tok_len.__getitem__, text[left:mark]))
                else:
                    left_byte = sum(map(tok_len.__getitem__, text[:left]))
                # No site of this merge lies before `left`, so after it the token there starts at the same byte.
                self.excerpt_mark = left - k, left_byte
            else:
                left_byte = sum(map(tok_len.__getitem__, text[row_start:left]))
            at = at_site - left
            if at + 2 + EXCERPT_TOKENS < len(before):
                target = left_byte + sum(map(tok_len.__getitem__, before[:at + 2 + EXCERPT_TOKENS]))
            else:
                target = self.row_bytes[index]
            # After the merge: the k sites before this row's first took a token each.
            node, i, after = left_byte, left - k, []
            while node < target and i < len(after_text) and after_text[i] != _SEP:
                after.append(after_text[i])
                node += tok_len[after_text[i]]
                i += 1
            stop = min(node, self.row_bytes[index])
            kept, node = [], left_byte
            for t in before:
                if node >= stop:
                    break
                kept.append(t)
                node += tok_len[t]
            changed.append((self.rows[index], 1, kept, after,
                            {"start": left_byte, "end": stop, "bytes": self.row_bytes[index]}))
        return changed, len(rows)

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
        if self.text is not None:
            self._link_bytes()
        return {row: self.gone[first:end] for row, first, end in zip(self.rows, self.starts, self.starts[1:])}


def _weighted(keys, weights):
    """Counter of keys, each counted with its weight."""
    out = Counter()
    get = out.get
    for k, w in zip(keys, weights):
        out[k] = get(k, 0) + w
    return out
