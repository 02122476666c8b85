"""Training: learn merges from a corpus, fast, without changing a single merge.

The algorithm is seed 003's: pre-tokenize into a table of distinct pieces with
counts, then repeatedly merge the most frequent adjacent pair. This trainer
keeps three structures so that a merge touches only what it changes:

- `pair_counts`: (id, id) -> total count over the table;
- `where`: (id, id) -> the rows that held the pair (rows may go stale; a stale
  row is found to lack the pair and skipped);
- a heap of candidate pairs with lazy deletion: an entry whose count no longer
  matches `pair_counts` is dropped when popped.

A merge walks only the rows in `where[pair]` and, in each row, only the merge
sites, updating the counts of the neighbouring pairs (the Rust trainers' way),
so long rows (Chinese, Japanese) cost no more than short ones.

Policies, all from the seeds:
- tie-break `greater` (seed 003, CS336): the greater pair of byte strings;
  `smaller-id` (seed 000): the smaller pair of ids; `first-seen` (seed 004):
  the pair whose first occurrence comes first, as `Counter.most_common` picks;
- stop when the size is reached, no pair is left, or the best count is below
  `min_count`;
- no pair crosses a document or a special token; special tokens take ids after
  the last merge.

Not here: the plain reference trainer (`reference.py`), encoding (`tokenizer.py`).
"""

import hashlib
import heapq
from collections import Counter, defaultdict
from operator import add
from dataclasses import dataclass, field, asdict

from .pretokenize import PRETOKENIZER_NAMES, get_pretokenizer, split_special
from .tokenizer import Tokenizer, check_encodable

TIE_BREAKS = ("greater", "smaller-id", "first-seen")
DEFAULT_SPECIAL_TOKENS = ("<|endoftext|>",)
# The site's limit on training text, also recorded by the CLI so files match.
CHAR_LIMIT = 1_000_000
_TOP_PAIRS = 10  # pairs kept per recorded step
_ROWS_KEPT = 12  # changed rows kept per recorded step
_PAIRS_KEPT = 24  # vanished/appeared pairs kept per recorded step


class TrainingCancelled(Exception):
    """Raised when the progress callback asks training to stop."""


@dataclass(frozen=True)
class TrainSettings:
    """Every setting of a training run; the manifest records all of them.

    Give exactly one of `vocab_size` (bytes + merges + special tokens) and
    `num_merges`.

    >>> TrainSettings(vocab_size=265).merge_budget()
    8
    """

    vocab_size: int | None = None
    num_merges: int | None = None
    pretokenizer: str = "gpt2"
    pattern: str | None = None  # the pattern, when pretokenizer is "custom"
    tie_break: str = "greater"
    min_count: int = 1
    special_tokens: tuple = DEFAULT_SPECIAL_TOKENS
    document_separator: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "special_tokens", tuple(self.special_tokens))
        if (self.vocab_size is None) == (self.num_merges is None):
            raise ValueError(
                f"give exactly one of vocab_size and num_merges, got vocab_size={self.vocab_size!r}, "
                f"num_merges={self.num_merges!r}"
            )
        for name in ("vocab_size", "num_merges", "min_count"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError(f"{name} must be an integer, got {value!r}")
        if self.num_merges is not None and self.num_merges < 0:
            raise ValueError(f"num_merges must be 0 or more, got {self.num_merges}")
        floor = 256 + len(self.special_tokens)
        if self.vocab_size is not None and self.vocab_size < floor:
            raise ValueError(
                f"vocab_size must be at least 256 + number of special tokens ({floor}), got {self.vocab_size}"
            )
        if self.min_count < 1:
            raise ValueError(f"min_count must be at least 1, got {self.min_count}")
        if self.tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {', '.join(TIE_BREAKS)}; got {self.tie_break!r}")
        if self.pretokenizer == "custom":
            if not self.pattern:
                raise ValueError("pretokenizer 'custom' needs a pattern")
        elif self.pretokenizer not in PRETOKENIZER_NAMES:
            raise ValueError(
                f"pretokenizer must be one of {', '.join(PRETOKENIZER_NAMES)} or 'custom'; got {self.pretokenizer!r}"
            )
        elif self.pattern is not None:
            raise ValueError(f"pattern is only for pretokenizer 'custom', not {self.pretokenizer!r}")
        seen = set()
        for special in self.special_tokens:
            if not isinstance(special, str) or not special:
                raise ValueError(f"special tokens must be non-empty strings, got {special!r}")
            if special in seen:
                raise ValueError(f"special token {special!r} is listed twice")
            check_encodable(special)
            seen.add(special)
        if self.document_separator == "":
            raise ValueError("document_separator cannot be empty; use None for no separator")

    def merge_budget(self):
        """The most merges this run may learn."""
        if self.num_merges is not None:
            return self.num_merges
        return self.vocab_size - 256 - len(self.special_tokens)

    def get_pretokenizer(self):
        """The Pretokenizer these settings name."""
        return get_pretokenizer(self.pretokenizer, self.pattern)

    def to_dict(self):
        """A JSON-ready dict, every field present."""
        data = asdict(self)
        data["special_tokens"] = list(self.special_tokens)
        return data

    @classmethod
    def from_dict(cls, data):
        """Settings from a dict such as `to_dict` makes; unknown keys are an error."""
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown settings {sorted(unknown)}; known: {sorted(known)}")
        return cls(**data)


@dataclass
class CorpusInfo:
    """What was trained on: sizes and digests, for the manifest."""

    documents: int
    characters: int
    bytes: int
    sha256: str  # of the one document, or of the documents' digests joined by newlines
    document_sha256: list = field(default_factory=list)

    @classmethod
    def of(cls, documents):
        encoded = [doc.encode("utf-8") for doc in documents]
        digests = [hashlib.sha256(data).hexdigest() for data in encoded]
        if len(digests) == 1:
            total = digests[0]
        else:
            total = hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()
        return cls(len(documents), sum(map(len, documents)), sum(map(len, encoded)), total, digests)


@dataclass
class TrainResult:
    """A trained tokenizer and how it came to be."""

    tokenizer: Tokenizer
    merges: list  # [(int, int)] in rank order
    merge_counts: list  # the winning pair count of each merge
    settings: TrainSettings
    stop_reason: str  # "size", "no_pairs" or "min_count"
    corpus: CorpusInfo
    documents: list  # the training documents, as given
    pieces: list  # [(bytes, count)]: the pre-token table, in first-seen order
    steps: list | None = None  # per-merge records when trained with record=True
    token_counts: list | None = None  # tokens in the pre-token table after 0, 1, ... merges


def split_documents(corpus, separator=None):
    """A corpus as a list of documents: a string is one, a list is several.

    >>> split_documents(["a", "b||c"], "||")
    ['a', 'b', 'c']
    """
    documents = [corpus] if isinstance(corpus, str) else list(corpus)
    for i, doc in enumerate(documents):
        if not isinstance(doc, str):
            raise ValueError(f"document {i} must be a str, got {type(doc).__name__}")
    if separator:
        documents = [part for doc in documents for part in doc.split(separator)]
    return documents


def truncate_documents(documents, limit):
    """The first `limit` characters of the documents, and a note of what was cut.

    Returns (documents, truncation): truncation is None when nothing was cut,
    else {"original_characters": n, "kept_characters": limit} for the manifest.

    >>> truncate_documents(["abc", "def"], 4)
    (['abc', 'd'], {'original_characters': 6, 'kept_characters': 4})
    """
    total = sum(map(len, documents))
    if limit is None or total <= limit:
        return list(documents), None
    kept, room = [], limit
    for doc in documents:
        if room <= 0:
            break
        kept.append(doc[:room])
        room -= len(kept[-1])
    return kept, {"original_characters": total, "kept_characters": limit}


def check_char_limit(documents, limit):
    """Raise ValueError saying how to proceed when the text is over the limit."""
    total = sum(map(len, documents))
    if limit is not None and total > limit:
        raise ValueError(
            f"the text has {total:,} characters, over the limit of {limit:,}: "
            f"train on the first {limit:,} characters (--truncate), or raise the limit (--char-limit)"
        )


def count_pieces(documents, pretokenizer, special_tokens, *, first_seen_order=False):
    """The pre-token table {piece: count}; specials are boundaries.

    With `first_seen_order`, pieces are in the order of their first
    occurrence, which the first-seen tie-break needs; otherwise the order is
    whatever the fast counter gives (the other tie-breaks do not depend on it).

    >>> count_pieces(["ab ab<|x|>ab"], get_pretokenizer("whitespace"), ["<|x|>"], first_seen_order=True)
    {'ab': 2, ' ab': 1}
    """
    table = {}
    for doc in documents:
        for chunk, _start, is_special in split_special(doc, special_tokens):
            if is_special:
                continue
            if first_seen_order:
                for piece in pretokenizer.split(chunk):
                    table[piece] = table.get(piece, 0) + 1
                continue
            for piece, count in pretokenizer.count(chunk).items():
                table[piece] = table.get(piece, 0) + count
    return table


def train(corpus, settings=None, *, on_progress=None, record=False, workers=1, **overrides):
    """Train a byte-level BPE tokenizer on a text or a list of documents.

    `on_progress(done, total)` is called now and then; returning False cancels
    (TrainingCancelled). `record=True` keeps, for each merge, what the explorer
    shows (see `TrainResult.steps`). `workers` > 1 pre-tokenizes large corpora
    in parallel processes (CPython only), with the same result.

    >>> result = train("low low lower", num_merges=2, pretokenizer="whitespace", special_tokens=())
    >>> [result.tokenizer.vocab[i] for i in (256, 257)]
    [b'lo', b'low']
    """
    if settings is None:
        settings = TrainSettings(**overrides)
    elif overrides:
        settings = TrainSettings(**(settings.to_dict() | overrides))
    documents = split_documents(corpus, settings.document_separator)
    for i, doc in enumerate(documents):
        try:
            check_encodable(doc)
        except ValueError as error:
            raise type(error)(f"document {i}: {error}") from None
    pretokenizer = settings.get_pretokenizer()
    if workers > 1 and settings.tie_break != "first-seen":
        from .parallel import count_pieces_parallel  # multiprocessing: not in Pyodide

        table = count_pieces_parallel(documents, settings, workers)
    else:
        first_seen = settings.tie_break == "first-seen"
        table = count_pieces(documents, pretokenizer, settings.special_tokens, first_seen_order=first_seen)
    pieces = [(piece.encode("utf-8"), count) for piece, count in table.items()]
    trainer = _Trainer(pieces, settings, on_progress, record)
    trainer.run()
    vocab = trainer.vocab
    next_id = max(vocab) + 1
    specials = {special: next_id + i for i, special in enumerate(settings.special_tokens)}
    tokenizer = Tokenizer(vocab, trainer.merges, special_tokens=specials, pretokenizer=pretokenizer)
    return TrainResult(
        tokenizer=tokenizer,
        merges=trainer.merges,
        merge_counts=trainer.merge_counts,
        settings=settings,
        stop_reason=trainer.stop_reason,
        corpus=CorpusInfo.of(documents),
        documents=documents,
        pieces=pieces,
        steps=trainer.steps,
        token_counts=trainer.token_counts,
    )


def _descending_key(token):
    """A bytes key whose ascending order is the token's descending order.

    Each byte x becomes (0, 255 - x) and the end becomes 1, so a prefix sorts
    after its extensions, as the greater-pair rule needs in a min-heap.
    """
    out = bytearray()
    for x in token:
        out += bytes((0, 255 - x))
    out.append(1)
    return bytes(out)


# Pairs are ints, (a << _SHIFT) | b: ints hash and compare faster than tuples,
# and their order is the order of (a, b), which the smaller-id rule needs.
_SHIFT = 21
_MASK = (1 << _SHIFT) - 1
_SCALE = (1 << _SHIFT).__mul__  # a -> a << _SHIFT, as a C-level function for map()
MAX_VOCAB = 1 << _SHIFT


class _Trainer:
    """One training run's state; `run` fills merges, vocab and stop_reason."""

    def __init__(self, pieces, settings, on_progress, record):
        self.settings = settings
        self.on_progress = on_progress
        self.words = [list(piece) for piece, _ in pieces]  # [[int]]: each row's current ids
        self.counts = [count for _, count in pieces]  # [int]
        self.vocab = {i: bytes([i]) for i in range(256)}  # int -> bytes
        self.ids_by_bytes = {token: i for i, token in self.vocab.items()}  # bytes -> int
        self.merges = []  # [(int, int)]
        self.merge_counts = []  # [int]
        self.stop_reason = "size"
        self.steps = [] if record else None
        self.tie_break = settings.tie_break
        self.sort_keys = {i: _descending_key(token) for i, token in self.vocab.items()}
        if 256 + settings.merge_budget() >= MAX_VOCAB:
            raise ValueError(f"at most {MAX_VOCAB - 257:,} merges are supported, got {settings.merge_budget():,}")

    # -- the heap ----------------------------------------------------------
    def entry(self, count, key):
        """A heap entry: the smallest entry is the best pair; the key is last."""
        if self.tie_break == "greater":
            return (-count, self.sort_keys[key >> _SHIFT], self.sort_keys[key & _MASK], key)
        return (-count, key)  # smaller-id; first-seen breaks ties at pop time

    def pop_best(self):
        """The best pair as (key, count), or None when no pair is left."""
        heap, pair_counts = self.heap, self.pair_counts
        while heap:
            top = heap[0]
            if pair_counts.get(top[-1]) != -top[0]:
                heapq.heappop(heap)  # stale: the count changed since this push
                continue
            if self.tie_break != "first-seen":
                heapq.heappop(heap)
                return top[-1], -top[0]
            return self.pop_first_seen(-top[0])
        return None

    def pop_first_seen(self, count):
        # Every valid entry at the top count is a tie; the one whose first
        # occurrence (row, position) comes first wins; the rest go back.
        heap, pair_counts = self.heap, self.pair_counts
        tied = {}
        while heap and -heap[0][0] == count:
            key = heapq.heappop(heap)[-1]
            if pair_counts.get(key) == count:
                tied[key] = True
        best = min(tied, key=self.first_occurrence)
        for key in tied:
            if key != best:
                heapq.heappush(heap, self.entry(count, key))
        return best, count

    def first_occurrence(self, key):
        a, b = key >> _SHIFT, key & _MASK
        for row in sorted(self.where[key]):
            w = self.words[row]
            for i in range(len(w) - 1):
                if w[i] == a and w[i + 1] == b:
                    return row, i
        raise AssertionError(f"pair {(a, b)} has a count but no row holds it")

    # -- the run -----------------------------------------------------------
    def run(self):
        words, counts = self.words, self.counts
        pair_counts = Counter()  # pair key -> count
        where = defaultdict(list)  # pair key -> rows that held it (a row may repeat)
        count_once = pair_counts.update  # C-level counting for the many rows seen once
        for row, (w, c) in enumerate(zip(words, counts)):
            keys = list(map(add, map(_SCALE, w), w[1:]))  # the row's pairs as keys, in C
            if c == 1:
                count_once(keys)
            else:
                for key in keys:
                    pair_counts[key] += c
            for key in set(keys):
                where[key].append(row)
        pair_counts = dict(pair_counts)  # plain dict: Counter's __delitem__ is Python code
        self.pair_counts, self.where = pair_counts, where
        self.heap = [self.entry(c, key) for key, c in pair_counts.items()]
        heapq.heapify(self.heap)
        self.tokens = sum(len(w) * c for w, c in zip(words, counts))
        self.token_counts = [self.tokens]

        settings = self.settings
        budget = settings.merge_budget()
        by_size = settings.vocab_size is not None
        report_every = max(1, budget // 200)
        self.progress(0, budget)
        while (len(self.vocab) - 256 if by_size else len(self.merges)) < budget:
            if self.steps is not None:
                top = self.top_pairs()
            best = self.pop_best()
            if best is None:
                self.stop_reason = "no_pairs"
                break
            key, count = best
            if count < settings.min_count:
                self.stop_reason = "min_count"
                break
            step = self.merge(key, count)
            if self.steps is not None:
                step["top"] = top
                self.steps.append(step)
            done = len(self.merges)
            if done % report_every == 0:
                self.progress(done, budget)
        self.progress(len(self.merges), budget)

    def progress(self, done, total):
        if self.on_progress is not None and self.on_progress(done, total) is False:
            raise TrainingCancelled(f"training cancelled after {done} of {total} merges")

    def merge(self, key, count):
        """Merge the pair everywhere; returns the step record (or None)."""
        a, b = key >> _SHIFT, key & _MASK
        new_bytes = self.vocab[a] + self.vocab[b]
        # Two different pairs can spell the same bytes; like HF tokenizers we
        # then reuse the existing id rather than add a duplicate token.
        new = self.ids_by_bytes.get(new_bytes)
        if new is None:
            new = len(self.vocab)
            self.vocab[new] = new_bytes
            self.ids_by_bytes[new_bytes] = new
            self.sort_keys[new] = _descending_key(new_bytes)
        self.merges.append((a, b))
        self.merge_counts.append(count)

        words, counts, pair_counts, where = self.words, self.counts, self.pair_counts, self.where
        recording = self.steps is not None
        changed_rows = [] if recording else None
        delta = defaultdict(int)  # pair key -> change in count
        new_rows = defaultdict(list)  # pair key -> rows that now hold it
        shift = _SHIFT
        new_shifted = new << shift
        b_shifted = b << shift
        merged_total = 0
        for row in set(where.pop(key)):  # a row may be listed more than once
            w = words[row]
            before = list(w) if recording else None
            if a == b:
                hits = _merge_row_same(w, a, new, counts[row], row, delta, new_rows)
                merged_total += hits * counts[row]
            else:
                # A sentinel `a` at the end lets index() always succeed, so the
                # scan needs no exception to stop; it cannot pair with b != a.
                w.append(a)
                index = w.index
                last = len(w) - 1  # the sentinel's position
                i = index(a)
                hits = 0
                if i < last:
                    c = counts[row]
                    while i < last:
                        if w[i + 1] == b:
                            hits += 1
                            if i:
                                left = w[i - 1] << shift
                                delta[left | a] -= c
                                k = left | new
                                delta[k] += c
                                new_rows[k].append(row)
                            w[i] = new
                            del w[i + 1]
                            last -= 1
                            if i + 1 < last:
                                right = w[i + 1]
                                delta[b_shifted | right] -= c
                                k = new_shifted | right
                                delta[k] += c
                                new_rows[k].append(row)
                        i = index(a, i + 1)
                    merged_total += hits * c
                w.pop()
            if hits and recording:
                changed_rows.append((row, counts[row], before, list(w)))
        del pair_counts[key]
        delta.pop(key, None)
        self.tokens -= merged_total
        self.token_counts.append(self.tokens)

        vanished, appeared = [], []
        heap = self.heap
        push = heapq.heappush
        sort_keys = self.sort_keys if self.tie_break == "greater" else None
        get = pair_counts.get
        for k, d in delta.items():
            if not d:
                continue
            old = get(k, 0)
            now = old + d
            if now:
                pair_counts[k] = now
                if sort_keys is not None:  # self.entry, inlined: this loop is hot
                    push(heap, (-now, sort_keys[k >> _SHIFT], sort_keys[k & _MASK], k))
                else:
                    push(heap, (-now, k))
            else:
                del pair_counts[k]
            if recording:
                if now == 0:
                    vanished.append((k >> _SHIFT, k & _MASK, old))
                elif old == 0:
                    appeared.append((k >> _SHIFT, k & _MASK, now))
        for k, rows in new_rows.items():
            held = where.get(k)
            if held is None:
                where[k] = rows
            else:
                held += rows

        if not recording:
            return None
        changed_rows.sort()
        return {
            "rank": len(self.merges) - 1,
            "pair": (a, b),
            "id": new,
            "count": count,
            "merged": merged_total,  # below count when occurrences overlap, as in aaa
            "rows_changed": len(changed_rows),
            "rows": [
                {"row": row, "count": c, "before": before, "after": after}
                for row, c, before, after in changed_rows[:_ROWS_KEPT]
            ],
            "vanished": sorted(vanished, key=lambda p: (-p[2], p[:2]))[:_PAIRS_KEPT],
            "appeared": sorted(appeared, key=lambda p: (-p[2], p[:2]))[:_PAIRS_KEPT],
            "tokens_after": self.tokens,
        }

    def top_pairs(self):
        """The best pairs before a merge, in tie-break order: [(a, b, count)]."""
        heap, pair_counts = self.heap, self.pair_counts
        popped, seen = [], set()
        while heap and len(seen) < _TOP_PAIRS:
            item = heapq.heappop(heap)
            popped.append(item)
            if item[-1] not in seen and pair_counts.get(item[-1]) == -item[0]:
                seen.add(item[-1])
        for item in popped:
            heapq.heappush(heap, item)
        top = sorted(seen, key=lambda k: self.entry(pair_counts[k], k))
        if self.tie_break == "first-seen":
            top.sort(key=lambda k: (-pair_counts[k], self.first_occurrence(k)))
        return [(k >> _SHIFT, k & _MASK, pair_counts[k]) for k in top]


def _merge_row_same(w, a, new, c, row, delta, new_rows):
    """Merge (a, a) in one row, left to right without overlap; returns the hits."""
    hits = 0
    i = 0
    while i < len(w) - 1:
        if w[i] == a and w[i + 1] == a:
            hits += 1
            if i:
                left = w[i - 1] << _SHIFT
                delta[left | a] -= c
                delta[left | new] += c
                new_rows[left | new].append(row)
            w[i] = new
            del w[i + 1]
            if i + 1 < len(w):
                right = w[i + 1]
                delta[(a << _SHIFT) | right] -= c
                delta[(new << _SHIFT) | right] += c
                new_rows[(new << _SHIFT) | right].append(row)
        i += 1
    return hits
