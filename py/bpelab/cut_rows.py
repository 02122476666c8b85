"""The trainer's long rows cut into pieces where the pair across is rare, the pieces kept once each with a weight.

A long row (a whole document under the `bytes` pre-tokenizer) is one
sequence, so BPE on it cannot use a word table the way `gpt2` does: every
merge site is a step of its own (long_rows.py). But a cut between two bytes
x y is crossed only by a merge whose count is at most the count of x y in the
text (each of its sites has x y at its middle), so if the long rows are cut
where x y is rare, the pieces can be trained as a table of distinct pieces
with counts, a merge's sites found and replaced in C, as in the word table;
a text that repeats (a sample repeated, boilerplate) then has each distinct
piece once.

Exact at every step, with no bound to guess:

- the pair at each cut (`junction_pair`: the last token before it, the first
  after it) is counted in the pair counts as any other pair, and updated when
  a merge changes a piece's first or last token, so the trainer chooses from
  the true counts;
- a merge of a pair that sits at a cut cannot be done in the pieces: before
  it, the rows become long_rows.LongRows (joined from the pieces' current
  tokens), which train on from there. At the site's sizes that comes, if at
  all, near the end, when merges have few sites.

Cuts go at rare pairs of two different bytes (a run such as aaaa is where
merges cross), about one per PIECE bytes: pairs rare in a sample of the text,
each then found in the whole text, which gives its true count.

With records, a merge also notes how each new token was made (the rank
that joined its parts), from which the boundaries are rebuilt at the end as
LongRows' one str rebuilds them, and an excerpt of the most frequent changed
rows, as LongRows makes it. A merge that reuses an id hands over to LongRows
too (its sites' inner boundaries differ).

Not here: choosing the pair (train.py).
"""

from array import array
from collections import Counter, defaultdict, deque
from itertools import chain, compress, islice, repeat
from operator import add, mul, sub

from .long_rows import EXCERPT_TOKENS, NEVER, LongRows

try:  # Counter's own counting loop, in C; called directly, without Counter's checks on each (small) call
    from collections import _count_elements
except ImportError:  # pragma: no cover - every CPython and Pyodide has it
    def _count_elements(mapping, iterable):
        get = mapping.get
        for element in iterable:
            mapping[element] = get(element, 0) + 1

PIECE = 4096  # bytes per piece aimed at: a merge's cost grows with its pieces' length, the cuts' count with their number
_SAMPLE, _SAMPLE_BLOCKS = 65536, 64  # characters of the sample in which rare pairs are looked for, in blocks
_TRIES = 1000  # rare pairs of the sample looked for in the whole text, at most
_DISTINCT = 0.5  # the share of the text its distinct pieces may hold, at most, for the pieces to be used
_DENSE = 16  # sites a piece from which a merge lists each piece once per new pair, not once per site
_FIRST, _LAST = slice(0, 1), slice(-1, None)


def cut_long_rows(rows, record=False, one_str=True, piece=None):
    """CutRows for [(trainer's row, str of chr(byte), weight)], or None when no cut is worth making
    (no rare pair, or distinct pieces holding more than half the text: cutting pays through repeats).

    With records, every long row must have weight 1 (LongRows' one str, which records hand over to, needs it).
    `one_str` is passed on to the LongRows a crossing merge hands over to.

    >>> rows = cut_long_rows([(0, "ab|ab|ab|ab|ab", 1)], piece=3)
    >>> rows.words, rows.weights  # cut before each "|" (b| is the rarest pair), each piece kept once
    (['ab', '|ab'], [1, 4])
    >>> cut_long_rows([(0, "ab|ab|ab", 1)], piece=3) is None  # distinct pieces 'ab' and '|ab' hold 5 of 8 bytes
    True
    """
    piece = PIECE if piece is None else piece
    if record and any(weight != 1 for _, _, weight in rows):
        return None
    texts = [text for _, text, _ in rows]
    total = sum(map(len, texts))
    wanted = total // piece
    if not wanted:
        return None
    # Rare pairs are found in a sample (blocks spread over the text), then each is found in the whole text,
    # which gives its true count: one pass of str.find per pair, a pair kept only if it is about as rare as
    # the sample says. The cuts' rarity only makes training fast; the pairs at the cuts keep it exact.
    sample = "\0".join(_blocks(texts))
    scale = total / max(1, len(sample))
    seen = Counter(map(add, sample, sample[1:]))
    chosen, cuts, tried = {}, 0, 0
    for count, pair in sorted((count, pair) for pair, count in seen.items() if pair[0] != pair[1] and "\0" not in pair):
        if cuts >= wanted or tried >= _TRIES:
            break
        tried += 1
        found = [_positions(text, pair) for text in texts]
        found_count = sum(map(len, found))
        if found_count <= 1.5 * scale * count:
            chosen[pair] = found
            cuts += found_count
    if not chosen:
        return None
    # Worth it only when pieces repeat: on text that does not, LongRows' one str and nodes are faster
    # (1M characters of KJV, no repeats: 1.3 s here against 0.95 s there; five copies of Genesis: 0.42 s
    # against 0.87 s).
    distinct = set()
    for long_row, text in enumerate(texts):
        ends = sorted(set(chain.from_iterable(found[long_row] for found in chosen.values())))
        distinct.update(map(text.__getitem__, map(slice, [0] + ends, ends + [len(text)])))
    if sum(map(len, distinct)) > _DISTINCT * total:
        return None
    return CutRows(rows, chosen, record, one_str)


def _blocks(texts):
    """A quarter of the texts (at least _SAMPLE characters), as _SAMPLE_BLOCKS blocks spread evenly over them."""
    total = sum(map(len, texts))
    if total <= _SAMPLE:
        return texts
    size = max(_SAMPLE, total // 4) // _SAMPLE_BLOCKS
    step = total // _SAMPLE_BLOCKS
    whole = texts[0] if len(texts) == 1 else "\0".join(texts)
    return [whole[i:i + size] for i in range(0, len(whole) - size + 1, step)]


def _positions(text, pair):
    """The offsets just after the pair's first character, wherever it occurs in the text."""
    out = []
    at = text.find(pair)
    while at >= 0:
        out.append(at + 1)
        at = text.find(pair, at + 1)
    return out


class CutRows:
    """Long rows as a weighted table of pieces, with the pairs at the cuts; the interface of long_rows.LongRows."""

    def __init__(self, rows, cuts, record=False, one_str=True):
        self.rows = [row for row, _, _ in rows]  # index -> the trainer's row number
        self.row_weights = [weight for _, _, weight in rows]
        self.record = record
        self.one_str = one_str
        self.inner = None  # the LongRows, once a merge crosses a cut
        self.first_at = {}  # pair -> its first occurrence, until a merge changes the pair's count
        # With records: each token's length in bytes and how each merged token was made (its parts and rank),
        # from which the boundaries are rebuilt at the end, as LongRows' one str keeps them.
        self.tok_len = {chr(i): 1 for i in range(256)}  # first occurrences are byte offsets: kept without records too
        self.made = {} if record else None
        self._work = 0  # tokens of the pieces split, over all merges (tests check it stays linear)
        self.words = []  # piece -> str of chr(id)
        self.weights = []  # piece -> its occurrences, weighted by the long rows' weights
        self.sequences = []  # long row -> [piece], in order
        self.starts = []  # long row -> [byte offset of each of its pieces]: cuts are never crossed, so fixed
        self.occurrences = defaultdict(list)  # piece -> [(long row, place in its sequence)], in order
        self.row_bytes = [len(text) for _, text, _ in rows]
        index = {}
        for long_row, (_, text, weight) in enumerate(rows):
            ends = sorted(set(chain.from_iterable(found[long_row] for found in cuts.values()))) + [len(text)]
            self.starts.append([0] + ends[:-1])
            sequence, start = [], 0
            for end in ends:
                text_piece = text[start:end]
                start = end
                number = index.get(text_piece)
                if number is None:
                    number = index[text_piece] = len(self.words)
                    self.words.append(text_piece)
                    self.weights.append(0)
                self.weights[number] += weight
                self.occurrences[number].append((len(self.sequences), len(sequence)))
                sequence.append(number)
            self.sequences.append(sequence)
        # The cuts: junction j lies between pieces left[j] and right[j] of a long row of weight junction_weight[j].
        self.left, self.right, self.junction_weight, self.junction_pair = [], [], [], []
        self.ends_at = defaultdict(list)  # piece -> junctions it ends (its last token is their pair's first)
        self.starts_at = defaultdict(list)  # piece -> junctions it starts
        self.at_cut = defaultdict(list)  # pair -> junctions that held it (stale ones are checked)
        words = self.words
        self.junction_place = []  # junction -> (long row, place of the piece before it)
        for long_row, (sequence, weight) in enumerate(zip(self.sequences, self.row_weights)):
            for place, (left, right) in enumerate(zip(sequence, sequence[1:])):
                j = len(self.left)
                self.junction_place.append((long_row, place))
                self.left.append(left)
                self.right.append(right)
                self.junction_weight.append(weight)
                pair = words[left][-1] + words[right][0]
                self.junction_pair.append(pair)
                self.ends_at[left].append(j)
                self.starts_at[right].append(j)
                self.at_cut[pair].append(j)
        self.index = defaultdict(list)  # pair -> pieces that held it (repeats and stale ones are skipped)
        get = self.index.__getitem__
        self._counts = counts = Counter()  # the pairs in the pieces, each piece counted once with its weight
        for number, (text_piece, weight) in enumerate(zip(words, self.weights)):
            found = Counter(map(add, text_piece, text_piece[1:]))
            deque(map(list.append, map(get, found), repeat(number)), 0)
            if weight != 1:
                for pair in found:
                    found[pair] *= weight
            counts.update(found)
        for pair, weight in zip(self.junction_pair, self.junction_weight):
            counts[pair] += weight

    @property
    def work(self):
        """Tokens of the pieces split plus, once joined, what LongRows scanned and visited."""
        return self._work + (self.inner.work if self.inner is not None else 0)

    # -- what the trainer asks before the first merge -----------------------
    def pair_counts(self):
        """{pair: count} over the long rows, weights included, the pairs at the cuts too."""
        return self._counts

    def tokens(self):
        if self.inner is not None:
            return self.inner.tokens()
        return sum(map(mul, map(len, self.words), self.weights))

    def row_tokens(self, index):
        """The live tokens of one long row, in order (for tests and checks)."""
        if self.inner is not None:
            return self.inner.row_tokens(index)
        return list("".join(map(self.words.__getitem__, self.sequences[index])))

    # -- a merge -------------------------------------------------------------
    def merge(self, pair, new, rank, keep, left_bytes):
        """As LongRows.merge: (merged, delta, changed, rows_hit), changed and rows_hit with records on."""
        if self.inner is None:
            held = self.at_cut.get(pair)
            if held and pair in map(self.junction_pair.__getitem__, held):
                self._join()  # the pair sits at a cut: on from here as one sequence per row
            elif self.made is not None and new in self.tok_len:
                self._join()  # a merge that reuses an id: its sites' inner boundaries differ, LongRows links bytes
        if self.inner is not None:
            return self.inner.merge(pair, new, rank, keep, left_bytes)
        if self.first_at:
            self.first_at.pop(pair, None)
        self.tok_len[new] = left_bytes + self.tok_len[pair[1]]
        if self.made is not None:
            self.made[new] = pair[0], pair[1], rank
        listed = self.index.pop(pair, None)
        if not listed:
            return 0, {}, [], 0
        words, where = self.words, self.index
        numbers = list(dict.fromkeys(listed))
        texts = list(map(words.__getitem__, numbers))
        self._work += sum(map(len, texts))
        parts = list(map(str.split, texts, repeat(pair)))
        counts = list(map(len, parts))  # sites + 1
        if 1 in counts:  # pieces listed but without the pair now: a merge since took it
            held = list(map(bool, map((1).__sub__, counts)))
            numbers, parts, counts = (list(compress(x, held)) for x in (numbers, parts, counts))
            if not numbers:
                return 0, {}, [], 0
        excerpts, rows_hit = self._excerpts_before(numbers, parts, keep) if self.made is not None else (None, 0)
        deque(map(words.__setitem__, numbers, map(new.join, parts)), 0)
        weights = list(map(self.weights.__getitem__, numbers))
        sites = list(map(sub, counts, repeat(1)))
        merged = sum(map(mul, sites, weights))
        # y, the token after each site, is the first of the part after it (each piece's parts but its first);
        # x, the token before it, the last of the part before (all but the last). An empty part lies between two
        # sites (y is a, x is the new token), or at a piece's end (the pair at the cut, see _recut).
        firsts = list(map(str.__getitem__, chain.from_iterable(map(islice, parts, repeat(1), repeat(None))),
                          repeat(_FIRST)))
        lasts = list(map(str.__getitem__, chain.from_iterable(map(islice, parts, sites)), repeat(_LAST)))
        after, before = {}, {}
        if weights.count(weights[0]) == len(weights):
            w = weights[0]  # one weight (most merges): counted in C, the weight applied per distinct neighbour
            _count_elements(after, firsts)
            _count_elements(before, lasts)
        else:
            w = 1
            site_weights = list(chain.from_iterable(map(repeat, weights, sites)))
            after, before = _weighted(firsts, site_weights), _weighted(lasts, site_weights)
        a, b = pair
        edges = None
        if "" in after or "" in before:
            edges = list(compress(numbers, map(_at_an_end, parts)))
            ends = sum(self.weights[n] for n, p in zip(numbers, parts) if not p[-1]) // w
            between = after.pop("", 0) - ends
            before.pop("", None)
            if between:
                after[a] = after.get(a, 0) + between
                before[new] = before.get(new, 0) + between
        delta = defaultdict(int)
        for y, c in after.items():
            c *= w
            delta[b + y] -= c
            delta[new + y] += c
        for x, c in before.items():
            c *= w
            delta[x + a] -= c
            delta[x + new] += c
        # The pieces that now hold (x, new) and (new, y), a piece once per site; an empty part lists the pair
        # `new` alone, dropped below, and (new, new) is looked for. The index may list too much, never too little.
        get = where.__getitem__
        if len(firsts) < _DENSE * len(numbers):
            owners = list(chain.from_iterable(map(repeat, numbers, sites)))
            deque(map(list.append, map(get, map(add, lasts, repeat(new))), owners), 0)
            deque(map(list.append, map(get, map(add, repeat(new), firsts)), owners), 0)
        else:  # many sites a piece (the first merges): each piece once per distinct pair
            for number, split, n in zip(numbers, parts, sites):
                xs = set(map(str.__getitem__, islice(split, n), repeat(_LAST)))
                ys = set(map(str.__getitem__, islice(split, 1, None), repeat(_FIRST)))
                deque(map(list.append, map(get, map(add, xs, repeat(new))), repeat(number)), 0)
                deque(map(list.append, map(get, map(add, repeat(new), ys)), repeat(number)), 0)
        if edges is not None:
            twice = new + new
            deque(map(list.append, repeat(where[twice]),
                      compress(numbers, map(str.__contains__, map(words.__getitem__, numbers), repeat(twice)))), 0)
            where.pop(new, None)
            if edges:
                self._recut(edges, delta)
        if self.first_at:
            forget = self.first_at.pop
            for k in delta:
                forget(k, None)
        changed = self._excerpts_after(excerpts) if excerpts else []
        return merged, delta, changed, rows_hit

    def _recut(self, numbers, delta):
        """Update the pairs at the cuts next to pieces whose first or last token changed."""
        words, junction_pair, weight = self.words, self.junction_pair, self.junction_weight
        left, right, at_cut = self.left, self.right, self.at_cut
        for number in numbers:
            for j in chain(self.ends_at.get(number, ()), self.starts_at.get(number, ())):
                pair = words[left[j]][-1] + words[right[j]][0]
                old = junction_pair[j]
                if pair != old:
                    delta[old] -= weight[j]
                    delta[pair] += weight[j]
                    junction_pair[j] = pair
                    at_cut[pair].append(j)

    def _join(self):
        """Become LongRows: each long row its pieces' current tokens joined."""
        words = self.words
        texts = ["".join(map(words.__getitem__, sequence)) for sequence in self.sequences]
        if self.made is not None:
            self.inner = LongRows.resume(list(zip(self.rows, self.row_weights)), texts, self.tok_len, self.made)
        else:
            self.inner = LongRows(list(zip(self.rows, texts, self.row_weights)), record=False, one_str=self.one_str)
        self.words = self.weights = self.sequences = self.at_cut = self.ends_at = self.starts_at = None
        self.left = self.right = self.junction_pair = self.junction_weight = self.index = None
        self.occurrences = self.starts = self.junction_place = self.tok_len = self.made = None

    @property
    def where(self):
        """pair -> pieces (or, once joined, LongRows' nodes) that held it; the trainer drops the pairs gone."""
        return self.index if self.inner is None else self.inner.where

    def first_occurrence(self, pair):
        """(trainer's row, position) of the pair's first occurrence, or None; positions grow along a row.

        Pieces are numbered in the order they first occur, so the first piece that holds the pair holds its
        first occurrence inside a piece; junctions are numbered in order too. A position is a byte offset,
        which a merge elsewhere does not move (as LongRows' nodes)."""
        if self.inner is not None:
            return self.inner.first_occurrence(pair)
        found = self.first_at.get(pair, False)
        if found is not False:
            return found
        found = None
        words, tok_len = self.words, self.tok_len
        for number in sorted(set(self.index.get(pair, ()))):
            at = words[number].find(pair)
            if at >= 0:
                long_row, place = self.occurrences[number][0]
                found = long_row, self._offset(long_row, place, words[number], at)
                break
        junction_pair = self.junction_pair
        for j in sorted(set(self.at_cut.get(pair, ()))):
            if junction_pair[j] == pair:
                long_row, place = self.junction_place[j]
                other = long_row, self.starts[long_row][place + 1] - tok_len[words[self.left[j]][-1]]
                if found is None or other < found:
                    found = other
                break
        if found is not None:
            found = self.rows[found[0]], found[1]
        self.first_at[pair] = found
        return found

    # -- records ---------------------------------------------------------------
    def _excerpts_before(self, numbers, parts, keep):
        """Each changed long row's first site, and for up to `keep` of them (most frequent first, as
        LongRows chooses) the tokens around it before the merge; see `_excerpts_after`."""
        first = {}  # long row -> (place, token) of its first site
        for number, split in zip(numbers, parts):
            at = len(split[0])
            for long_row, place in self.occurrences[number]:
                old = first.get(long_row)
                if old is None or place < old[0]:
                    first[long_row] = place, at
        if not keep:
            return None, len(first)
        chosen = sorted(first, key=lambda i: (-self.row_weights[i], self.rows[i]))[:keep]
        words, out = self.words, []
        for long_row in chosen:
            place, at = first[long_row]
            sequence = self.sequences[long_row]
            low = high = place
            before = at  # tokens in the window before the site
            while before < EXCERPT_TOKENS and low > 0:
                low -= 1
                before += len(words[sequence[low]])
            after = len(words[sequence[place]]) - at
            while after < 3 * EXCERPT_TOKENS and high + 1 < len(sequence):
                high += 1
                after += len(words[sequence[high]])
            window = "".join(map(words.__getitem__, sequence[low:high + 1]))
            # The byte offset of the excerpt's first token, counted from the nearer end of the site's piece.
            left = max(before - EXCERPT_TOKENS, 0)
            if left >= before - at:
                left_byte = self._offset(long_row, place, words[sequence[place]], at - (before - left))
            else:
                left_byte = self.starts[long_row][place] - sum(map(self.tok_len.__getitem__, window[left:before - at]))
            out.append((long_row, low, high, window, before, left_byte))
        return out, len(first)

    def _offset(self, long_row, place, text, at):
        """The byte offset in its row of token `at` of the piece `text` at `place`, summed from the nearer end."""
        starts = self.starts[long_row]
        if 2 * at <= len(text):
            return starts[place] + sum(map(self.tok_len.__getitem__, text[:at]))
        end = starts[place + 1] if place + 1 < len(starts) else self.row_bytes[long_row]
        return end - sum(map(self.tok_len.__getitem__, text[at:]))

    def _excerpts_after(self, excerpts):
        """[(row, weight, before, after, cut)] as LongRows makes them: up to EXCERPT_TOKENS tokens before the
        first site, up to 2 * EXCERPT_TOKENS + 6 from there, and the tokens after the merge over the same bytes."""
        tok_len, words, changed = self.tok_len, self.words, []
        for long_row, low, high, window, site, left_byte in excerpts:
            row_bytes = self.row_bytes[long_row]
            left = max(site - EXCERPT_TOKENS, 0)
            nodes = window[left:left + 2 * EXCERPT_TOKENS + 6]
            at = site - left
            if at + 2 + EXCERPT_TOKENS < len(nodes):
                target = left_byte + sum(map(tok_len.__getitem__, nodes[:at + 2 + EXCERPT_TOKENS]))
            else:
                target = row_bytes
            merged = "".join(map(words.__getitem__, self.sequences[long_row][low:high + 1]))
            node, i, after = left_byte, left, []  # no site lies before this one in the row: same tokens up to it
            while node < target and i < len(merged):
                after.append(merged[i])
                node += tok_len[merged[i]]
                i += 1
            stop = min(node, row_bytes)
            kept, node = [], left_byte
            for t in nodes:
                if node >= stop:
                    break
                kept.append(t)
                node += tok_len[t]
            changed.append((self.rows[long_row], self.row_weights[long_row], kept, after,
                            {"start": left_byte, "end": stop, "bytes": row_bytes}))
        return changed

    def gone_by_row(self):
        """{trainer's row: array of the rank that removed each byte boundary}, rebuilt from how each token was made."""
        if self.inner is not None:
            return self.inner.gone_by_row()
        inside = {ch: b"" for ch in self.tok_len}  # token -> the ranks of its inner boundaries, as int32 bytes
        for ch, (a, b, rank) in self.made.items():  # in the order made: a token's parts come before it
            inside[ch] = inside[a] + array("i", [rank]).tobytes() + inside[b]
        never = array("i", [NEVER]).tobytes()
        whole = {ch: never + pattern for ch, pattern in inside.items()}
        out = {}
        for row, sequence in zip(self.rows, self.sequences):
            gone = array("i")
            gone.frombytes(b"".join(map(whole.__getitem__, "".join(map(self.words.__getitem__, sequence)))))
            out[row] = gone
        return out


def _at_an_end(parts):
    """Whether a piece split at a pair has a site at its start or its end (an empty first or last part)."""
    return not parts[0] or not parts[-1]


def _weighted(keys, weights):
    """{key: count}, each key counted with its weight."""
    out = {}
    get = out.get
    for k, w in zip(keys, weights):
        out[k] = get(k, 0) + w
    return out
