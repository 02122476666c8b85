"""Training: learn merges from a corpus, fast, without changing a single merge.

The algorithm is seed 003's: pre-tokenize into a table of distinct pieces with
counts, then repeatedly merge the most frequent adjacent pair. Each row of
the table is a str holding one character per token, chr(id), so that finding
and replacing a pair in a row run in C. This trainer keeps three structures
so that a merge touches only what it changes:

- `pair_counts`: pair -> total count over the table;
- `where`: pair -> the rows that held it (rows may go stale or repeat; a
  stale row is found to lack the pair and skipped);
- a heap of candidate pairs: a pair's entry may be too high, since a count
  that drops is not pushed again; pop_best corrects such an entry when it
  reaches the top, and drops the entries of pairs that are gone. Most new
  pairs are rare and never come up, so an entry below a floor waits in a
  bucket by count instead, and enters the heap only if the best count falls
  that far.

A merge replaces the pair in the rows of `where[pair]` and then looks only at
the merge sites, moving counts from the neighbouring pairs (x a, b y) to the
new ones (x N, N y), the Rust trainers' way, so long rows (Chinese, Japanese)
cost little more than short ones.

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

import gc
import hashlib
import heapq
from collections import Counter, defaultdict, deque
from contextlib import contextmanager
from itertools import compress, repeat
from operator import add, mul, sub
from dataclasses import dataclass, field, asdict

from .cut_rows import cut_long_rows
from .long_rows import LongRows
from .pretokenize import PRETOKENIZER_NAMES, get_pretokenizer, split_special
from .quoting import quote
from .tokenizer import Tokenizer, check_encodable

TIE_BREAKS = ("greater", "smaller-id", "first-seen")
DEFAULT_SPECIAL_TOKENS = ("<|endoftext|>",)
# The site's limit on training text, also recorded by the CLI so files match.
CHAR_LIMIT = 1_000_000
_TOP_PAIRS = 10  # pairs kept per recorded step
_ROWS_KEPT = 12  # changed rows kept per recorded step
_PAIRS_KEPT = 24  # vanished/appeared pairs kept per recorded step
_TIES_KEPT = 256  # tied pairs a record weighs for the other tie-breaks' picks; more are only counted as "over"
# Rows of at least this many bytes are linked nodes (long_rows.py), not a str copied at each merge.
LONG_ROW = 256


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
        if isinstance(self.special_tokens, str):  # tuple() would make each character a special token
            raise ValueError(
                f"special_tokens must be a list of strings, got the string {self.special_tokens!r}; "
                f"write special_tokens=({self.special_tokens!r},) for one token"
            )
        if not isinstance(self.special_tokens, (list, tuple)):  # a set's order would not be reproducible
            raise ValueError(f"special_tokens must be a list of strings (empty for none), got {self.special_tokens!r}")
        if self.document_separator is not None and not isinstance(self.document_separator, str):
            raise ValueError(f"document_separator must be a string or None, got {self.document_separator!r}")
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
            check_encodable(special, f"special token {quote(special)}")
            if len(special.encode("utf-8")) == 1:
                # Every byte is already a token: the exported encoder.json could not tell the two apart.
                raise ValueError(
                    f"special token {special!r} is one byte long, so it would share its spelling with the byte "
                    f"token 0x{ord(special):02X} and the exported files could not tell them apart; "
                    f"use a longer spelling such as {'<|' + special + '|>'!r}"
                )
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
    corpus: CorpusInfo  # or, trained on counts, a counts.CountsInfo
    documents: list  # the training documents, as given ([] for counts)
    pieces: list  # [(bytes, count)]: the pre-token table, in first-seen order
    steps: list | None = None  # per-merge records when trained with record=True
    token_counts: list | None = None  # tokens in the pre-token table after 0, 1, ... merges
    # With record=True, for each long piece (LONG_ROW bytes or more): {piece bytes: array('i')}, the rank of
    # the merge that joined byte i - 1 and byte i (2**31 - 1: none did); the explorer's windows read it.
    boundaries: dict | None = None

    @property
    def input(self):
        """What was trained on: "text" (documents), or "counts" (a word-count table; `corpus` is a CountsInfo)."""
        return "text" if isinstance(self.corpus, CorpusInfo) else "counts"


def split_documents(corpus, separator=None):
    """A corpus as a list of documents: a string is one, a list is several.

    >>> split_documents(["a", "b||c"], "||")
    ['a', 'b', 'c']
    """
    if isinstance(corpus, str):
        documents = [corpus]
    elif isinstance(corpus, (bytes, bytearray, memoryview)):
        raise ValueError(f"the corpus must be text (a str or a list of str), got {type(corpus).__name__}: "
                        "decode it first, e.g. train(data.decode('utf-8'), ...)")
    elif isinstance(corpus, (list, tuple)) or (hasattr(corpus, "__iter__") and not isinstance(corpus, (dict, set))):
        documents = list(corpus)
    else:  # a dict's keys or a set's order would be a silent guess
        raise ValueError(f"the corpus must be a str or a list of str (one per document), got {type(corpus).__name__}")
    for i, doc in enumerate(documents):
        if isinstance(doc, (bytes, bytearray, memoryview)):
            raise ValueError(f"document {i} is {type(doc).__name__}, not text: decode it first, "
                            "e.g. [doc.decode('utf-8') for doc in documents]")
        if not isinstance(doc, str):
            raise ValueError(f"document {i} must be a str, got {type(doc).__name__}: give each document as text")
    if separator:
        documents = [part for doc in documents for part in doc.split(separator)]
    return documents


def _check_limit(limit):
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ValueError(f"the character limit must be a whole number of at least 1 (or none), got {limit!r}")


def truncate_documents(documents, limit):
    """The first `limit` characters of the documents, and a note of what was cut.

    Returns (documents, truncation): truncation is None when nothing was cut,
    else {"original_characters": n, "kept_characters": limit} for the manifest.

    >>> truncate_documents(["abc", "def"], 4)
    (['abc', 'd'], {'original_characters': 6, 'kept_characters': 4})
    """
    _check_limit(limit)
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


EMPTY_TEXT_MESSAGE = "the training text is empty: give at least one character of text to train on"


def check_not_empty(documents):
    """Raise ValueError(EMPTY_TEXT_MESSAGE) for documents without a character (the CLI and the site refuse them).

    `train` itself still accepts an empty corpus: it gives the bytes-only
    tokenizer (0 merges), a baseline the Python API and tests use.

    >>> check_not_empty(["", "a"])
    """
    if not any(documents):
        raise ValueError(EMPTY_TEXT_MESSAGE)


def check_char_limit(documents, limit, *, truncate="--truncate", raise_limit="raise the limit (--char-limit)"):
    """Raise ValueError saying how to proceed when the text is over the limit.

    `truncate` and `raise_limit` word the two ways out for the caller (the CLI's flags by default).
    """
    _check_limit(limit)
    total = sum(map(len, documents))
    if limit is not None and total > limit:
        raise ValueError(
            f"the text has {total:,} characters, over the limit of {limit:,}: "
            f"train on the first {limit:,} characters ({truncate}), or {raise_limit}"
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
            if first_seen_order:  # a Counter keeps its keys in the order they first came
                counts = Counter(pretokenizer.split(chunk))
            else:
                counts = pretokenizer.count(chunk)
            for piece, count in counts.items():
                table[piece] = table.get(piece, 0) + count
    return table


def train(corpus=None, settings=None, *, counts=None, on_progress=None, record=False, workers=1, **overrides):
    """Train a byte-level BPE tokenizer on a text, a list of documents, or word counts.

    `counts` is a {piece: count} dict (or (piece, count) pairs) in place of a
    corpus: each piece is one pre-token, its UTF-8 bytes, with its count; no
    pre-tokenizer runs (the settings' one is what the tokenizer encodes new
    text with), and the first-seen tie-break follows the order of the entries.
    `on_progress(done, total)` is called now and then; returning False cancels
    (TrainingCancelled). `record=True` keeps, for each merge, what the explorer
    shows (see `TrainResult.steps`). `workers` > 1 pre-tokenizes large corpora
    in parallel processes (CPython only), with the same result.

    >>> result = train("low low lower", num_merges=2, pretokenizer="whitespace", special_tokens=())
    >>> [result.tokenizer.vocab[i] for i in (256, 257)]  # "ow" and "lo" tie at 3: the greater pair wins
    [b'ow', b'low']
    >>> counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}  # the HF course's toy corpus
    >>> train(counts=counts, num_merges=1).merge_counts  # (u, g): 10 + 5 + 5, ahead of (p, u)'s 17
    [20]
    """
    if (corpus is None) == (counts is None):
        raise ValueError("give train a corpus (a text or a list of documents) or counts={piece: count}, not "
                         + ("both" if counts is not None else "neither"))
    if settings is None:
        settings = TrainSettings(**overrides)
    elif overrides:
        settings = TrainSettings(**(settings.to_dict() | overrides))
    pretokenizer = settings.get_pretokenizer()
    if counts is not None:
        from .counts import CountsInfo, check_counts

        table = check_counts(counts, specials=settings.special_tokens)
        documents, corpus_info = [], CountsInfo.of(table)
    else:
        documents = split_documents(corpus, settings.document_separator)
        for i, doc in enumerate(documents):
            try:
                check_encodable(doc)
            except ValueError as error:
                raise type(error)(f"document {i}: {error}") from None
        table, corpus_info = None, CorpusInfo.of(documents)
    with _cycle_collector_paused():
        # A record names the pair each tie-break would pick, and first-seen needs the pieces in order.
        first_seen = settings.tie_break == "first-seen" or record
        if table is not None:
            pass  # word counts: the table is given, in its own order
        elif workers > 1 and not first_seen and _worth_a_pool(documents):
            from .parallel import count_pieces_parallel, usable_workers

            table = count_pieces_parallel(documents, settings, usable_workers(workers))
        else:
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
        corpus=corpus_info,
        documents=documents,
        pieces=pieces,
        steps=trainer.steps,
        token_counts=trainer.token_counts,
        boundaries=trainer.boundaries,
    )


@contextmanager
def _cycle_collector_paused():
    """Pause Python's cycle collector, then restore it as it was.

    Training makes millions of lists, tuples and dicts but no reference
    cycles, so refcounting frees all of it; the collector would only walk
    the growing pair index again and again (5-8% of a multilingual run).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _worth_a_pool(documents):
    """Whether the text is long enough for worker processes; below that, cutting it costs more too."""
    from .parallel import MIN_PARALLEL_CHARS  # multiprocessing: not in Pyodide

    return sum(map(len, documents)) >= MIN_PARALLEL_CHARS


def _descending_key(token):
    """A bytes key whose ascending order is the token's descending order.

    Each byte x becomes (0, 255 - x) and the end becomes 1, so a prefix sorts
    after its extensions, as the greater-pair rule needs in a min-heap. A
    merged token's key is its first part's key, less the end, then its second's:

    >>> _descending_key(b"ab") == _descending_key(b"a")[:-1] + _descending_key(b"b")
    True
    """
    out = bytearray()
    for x in token:
        out += bytes((0, 255 - x))
    out.append(1)
    return bytes(out)


# A row is a str with one character per token, chr(id), so that finding and
# replacing a pair run in C. A pair is a 2-character str; the order of such
# strings is the order of (a, b), which the smaller-id rule needs.
_SPARE = "\U0010ffff"  # marks the sites of a merge that reuses an existing id
MAX_VOCAB = 0x10FFFF


class _Trainer:
    """One training run's state; `run` fills merges, vocab and stop_reason."""

    def __init__(self, pieces, settings, on_progress, record, long_row=None):
        self.settings = settings
        self.on_progress = on_progress
        self.words = [piece.decode("latin-1") for piece, _ in pieces]  # row -> str of chr(id)
        self.counts = [count for _, count in pieces]  # [int]
        long_row = LONG_ROW if long_row is None else long_row
        long = [(row, w, c) for row, (w, c) in enumerate(zip(self.words, self.counts)) if len(w) >= long_row]
        # The long rows; their words are left empty.
        one_str = settings.tie_break != "first-seen"
        # Pieces trained as a table while no merge crosses a cut (cut_rows.py), else linked nodes from the start.
        self.long = cut_long_rows(long, record, one_str) if long else None
        if long and self.long is None:
            self.long = LongRows(long, record, one_str=one_str)
        for row, _, _ in long:
            self.words[row] = ""
        self.long_pieces = [pieces[row][0] for row, _, _ in long]
        self.boundaries = None
        self.vocab = {i: bytes([i]) for i in range(256)}  # int -> bytes
        self.ids_by_bytes = {token: i for i, token in self.vocab.items()}  # bytes -> int
        self.merges = []  # [(int, int)]
        self.merge_counts = []  # [int]
        self.stop_reason = "size"
        self.steps = [] if record else None
        self.tie_break = settings.tie_break
        self.sort_keys = {chr(i): _descending_key(token) for i, token in self.vocab.items()}
        self.floor = 0  # entries with a count below this wait in `waiting`, not in the heap
        self.waiting = defaultdict(list)  # count -> [pair], every count below the floor
        if 256 + settings.merge_budget() >= MAX_VOCAB:
            raise ValueError(f"at most {MAX_VOCAB - 257:,} merges are supported, got {settings.merge_budget():,}")

    # -- the heap ----------------------------------------------------------
    def entry(self, count, pair):
        """A heap entry: the smallest entry is the best pair; the pair is last."""
        if self.tie_break == "greater":
            return (-count, self.sort_keys[pair[0]], self.sort_keys[pair[1]], pair)
        return (-count, pair)  # smaller-id; first-seen breaks ties at pop time

    def requeue(self, pair, now):
        """Push a pair whose popped entry was stale back at its count `now`; a gone pair stays out."""
        if now:
            if now < self.floor:
                self.waiting[now].append(pair)
            else:
                heapq.heappush(self.heap, self.entry(now, pair))

    def lower_floor(self):
        """Halve the floor and move the entries now above it into the heap."""
        self.floor //= 2
        for count in [c for c in self.waiting if c >= self.floor]:
            for pair in self.waiting.pop(count):
                heapq.heappush(self.heap, self.entry(count, pair))

    def pop_best(self):
        """The best pair as (pair, count), or None when no pair is left."""
        heap, pair_counts, waiting = self.heap, self.pair_counts, self.waiting
        while heap or waiting:
            if waiting and (not heap or -heap[0][0] < self.floor):
                self.lower_floor()  # a waiting entry may beat the heap's top
                continue
            top = heap[0]
            now = pair_counts.get(top[-1])
            if now != -top[0]:  # stale: the pair lost count or is gone
                heapq.heappop(heap)
                self.requeue(top[-1], now)
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
            pair = heapq.heappop(heap)[-1]
            now = pair_counts.get(pair)
            if now == count:
                tied[pair] = True
            else:  # stale: goes back below this level, or out
                self.requeue(pair, now)
        best = min(tied, key=self.first_occurrence)
        for pair in tied:
            if pair != best:
                heapq.heappush(heap, self.entry(count, pair))
        return best, count

    def first_occurrence(self, pair):
        """(row, position) of the pair's first occurrence; positions are compared only within a row."""
        best = None
        for row in sorted(self.where.get(pair, ())):
            at = self.words[row].find(pair)
            if at >= 0:
                best = row, at
                break
        if self.long is not None:
            other = self.long.first_occurrence(pair)
            if other is not None and (best is None or other < best):
                best = other
        if best is None:
            raise AssertionError(f"pair {tuple(map(ord, pair))} has a count but no row holds it")
        return best

    # -- the run -----------------------------------------------------------
    def run(self):
        words, counts = self.words, self.counts
        where = defaultdict(list)  # pair -> rows that held it, once per occurrence
        for row, w in enumerate(words):
            for pair in map(add, w, w[1:]):  # the row's pairs, built in C
                where[pair].append(row)  # a repeat costs less than a set per row
        where = dict(where)
        # A pair's count is the sum of its rows' counts, a row once per
        # occurrence: summed in C, this is faster than counting row by row.
        sums = map(sum, map(map, repeat(counts.__getitem__), where.values()))
        pair_counts = dict(zip(where, sums))  # pair -> count
        if self.long is not None:
            for pair, c in self.long.pair_counts().items():
                pair_counts[pair] = pair_counts.get(pair, 0) + c
        self.pair_counts, self.where = pair_counts, where
        self.heap = [self.entry(c, pair) for pair, c in pair_counts.items()]
        heapq.heapify(self.heap)
        if self.steps is None and self.heap:  # top_pairs reads the heap alone, so records keep no floor
            self.floor = -self.heap[0][0] // 2
        self.tokens = sum(len(w) * c for w, c in zip(words, counts))
        if self.long is not None:
            self.tokens += self.long.tokens()
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
            pair, count = best
            if count < settings.min_count:
                self.stop_reason = "min_count"
                break
            step = self.merge(pair, count)
            if self.steps is not None:
                step["top"], step["ties"], step["picks"] = top
                self.steps.append(step)
            done = len(self.merges)
            if done % report_every == 0:
                self.progress(done, budget)
        self.progress(len(self.merges), budget)
        self.release()

    def release(self):
        """Drop the pair index and the rows: the result needs neither.

        They hold most of a run's objects; freed here, while the cycle
        collector is still paused, it does not walk them all once it resumes.
        """
        if self.long is not None and self.long.record:
            gone = self.long.gone_by_row()
            self.boundaries = {piece: gone[row] for piece, row in zip(self.long_pieces, self.long.rows)}
        self.words = self.where = self.pair_counts = self.heap = self.waiting = self.long = None

    def progress(self, done, total):
        if self.on_progress is not None and self.on_progress(done, total) is False:
            raise TrainingCancelled(f"training cancelled after {done} of {total} merges")

    def merge(self, pair, count):
        """Merge the pair everywhere; returns the step record (or None)."""
        a_char, b_char = pair
        a, b = ord(a_char), ord(b_char)
        new_bytes = self.vocab[a] + self.vocab[b]
        # Two different pairs can spell the same bytes; like HF tokenizers we
        # then reuse the existing id rather than add a duplicate token.
        new = self.ids_by_bytes.get(new_bytes)
        reused = new is not None
        if not reused:
            new = len(self.vocab)
            self.vocab[new] = new_bytes
            self.ids_by_bytes[new_bytes] = new
            # The key of a + b: a's key without its end mark, then b's key.
            self.sort_keys[chr(new)] = self.sort_keys[a_char][:-1] + self.sort_keys[b_char]
        self.merges.append((a, b))
        self.merge_counts.append(count)
        new_char = chr(new)
        # The merge sites are found by a character that occurs nowhere else.
        mark = _SPARE if reused else new_char

        # Replace the pair in every row that holds it, all in C. str.replace
        # goes left to right without overlap, which is BPE's rule for aaa.
        words, pair_counts, where = self.words, self.pair_counts, self.where
        rows = list(dict.fromkeys(where.pop(pair, ())))  # a row is listed once per site that made the pair
        before = list(map(words.__getitem__, rows))
        after = list(map(str.replace, before, repeat(pair), repeat(mark)))
        sites = list(map(sub, map(len, before), map(len, after)))  # merges per row
        if 0 in sites:  # rows that no longer hold the pair: a merge since they were listed took it
            hit = list(compress(rows, sites))
            before = list(compress(before, sites))
            after = list(compress(after, sites))
            sites = list(filter(None, sites))
        else:
            hit = rows
        weights = list(map(self.counts.__getitem__, hit))
        merged_total = sum(map(mul, weights, sites))
        holders = _new_pairs(hit, after, sites, mark)
        if reused:  # the mark stood in for the existing id
            after = [row.replace(_SPARE, new_char) for row in after]
        deque(map(words.__setitem__, hit, after), 0)  # store the rows, in C

        # Each new pair took the place of one pair: x N of x a, N y of b y,
        # and N N of b a. A pair that loses count keeps its heap entry, now
        # too high (pop_best corrects it if it comes up); a pair that gains
        # gets a new entry, in the heap or, below the floor, in `waiting`.
        recording = self.steps is not None
        olds = {pair: count} if recording else None  # counts before the merge, for the record
        heap, push = self.heap, heapq.heappush
        floor, waiting = self.floor, self.waiting
        sort_keys = self.sort_keys if self.tie_break == "greater" else None
        get = pair_counts.get
        count_of = self.counts.__getitem__
        for k, held in holders.items():
            c = sum(map(count_of, held))  # a row is listed once per site
            x, y = k
            if y != mark:
                lost = b_char + y
            else:
                lost = b_char + a_char if x == mark else x + a_char
            if recording:
                olds.setdefault(lost, pair_counts[lost])
            now = pair_counts[lost] - c
            if now:
                pair_counts[lost] = now
            else:
                del pair_counts[lost]
            if reused:
                k = k.replace(_SPARE, new_char)
                now = get(k, 0) + c
            else:
                now = c
            if recording:
                olds.setdefault(k, now - c)
            pair_counts[k] = now
            if now < floor:
                waiting[now].append(k)
            elif sort_keys is not None:  # self.entry, inlined: this loop is hot
                push(heap, (-now, sort_keys[k[0]], sort_keys[k[1]], k))
            else:
                push(heap, (-now, k))
        long_rows, long_hit = [], 0
        if self.long is not None:
            merged, long_delta, long_rows, long_hit = self.long.merge(
                pair, new_char, len(self.merges) - 1, _ROWS_KEPT if recording else 0, len(self.vocab[a]))
            merged_total += merged
            long_where = self.long.where  # None while the long rows are one str
            for k, d in long_delta.items():
                if not d or k == pair:  # a pair that came and went; the merged pair goes below
                    continue
                old = get(k, 0)
                if recording:
                    olds.setdefault(k, old)
                now = old + d
                if now:
                    pair_counts[k] = now
                else:
                    del pair_counts[k]
                    if long_where is not None:
                        long_where.pop(k, None)  # only stale nodes are left: freed (most of the index's arrays)
                if d < 0:
                    continue
                if now < floor:
                    waiting[now].append(k)
                elif sort_keys is not None:  # self.entry, inlined
                    push(heap, (-now, sort_keys[k[0]], sort_keys[k[1]], k))
                else:
                    push(heap, (-now, k))
        self.tokens -= merged_total
        self.token_counts.append(self.tokens)
        pair_counts.pop(pair, None)  # gone, with the (a, a) neighbours of an (a, a) merge
        if reused:
            for k, rows in holders.items():
                k = k.replace(_SPARE, new_char)
                where[k] = where.get(k, []) + rows
        else:
            where.update(holders)

        if not recording:
            return None
        # (-count, pair) sorts as (-count, a, b) does (a 2-character str sorts as its two ids): only the kept
        # ones are found (nsmallest) and spelled as ids, where a frequent pair changes thousands.
        vanished, appeared = [], []
        get = pair_counts.get
        for k, old in olds.items():
            now = get(k, 0)
            if old and not now:
                vanished.append((-old, k))
            elif now and not old:
                appeared.append((-now, k))
        vanished, appeared = ([(ord(k[0]), ord(k[1]), -c) for c, k in heapq.nsmallest(_PAIRS_KEPT, found)]
                              for found in (vanished, appeared))
        # The most frequent rows first; only the kept ones are sorted (a frequent pair changes thousands).
        # A long row is kept as an excerpt around its first change, with its byte span ("cut").
        candidates = [*zip(hit, weights, before, after, repeat(None)), *long_rows]
        changed_rows = heapq.nsmallest(_ROWS_KEPT, candidates, key=lambda r: (-r[1], r[0]))
        return {
            "rank": len(self.merges) - 1,
            "pair": (a, b),
            "id": new,
            "count": count,
            "merged": merged_total,  # below count when occurrences overlap, as in aaa
            "rows_changed": len(hit) + long_hit,
            "rows": [
                {"row": row, "count": c, "before": list(map(ord, old)), "after": list(map(ord, now))}
                | ({"cut": cut} if cut else {})
                for row, c, old, now, cut in changed_rows
            ],
            "vanished": vanished,
            "appeared": appeared,
            "tokens_after": self.tokens,
        }

    def top_pairs(self):
        """The best pairs before a merge, and what each tie-break makes of a tie at the top.

        Returns (top, ties, picks): top is [(a, b, count)] in tie-break order;
        ties is how many pairs share the top count ("over" beyond _TIES_KEPT);
        picks is {rule: (a, b)} each rule's choice among them when ties > 1,
        else None. Records read the whole heap (they keep no floor), so every
        tied pair is in it.
        """
        heap, pair_counts = self.heap, self.pair_counts
        popped, seen = [], set()
        best = None
        while heap:
            item = heap[0]
            now = pair_counts.get(item[-1])
            if now != -item[0]:  # stale: corrected, it may still be a top pair
                heapq.heappop(heap)
                self.requeue(item[-1], now)
                continue
            if len(seen) >= _TOP_PAIRS and (now != best or len(seen) > _TIES_KEPT):
                break  # the top ten, and every pair tied with the best (up to the cap) are in
            heapq.heappop(heap)
            if best is None:
                best = now
            if item[-1] not in seen:
                seen.add(item[-1])
                popped.append(item)
        for item in popped:
            heapq.heappush(heap, item)
        top = [item[-1] for item in popped]  # popped valid, so in the heap's order: best first
        if self.tie_break == "first-seen":
            top.sort(key=lambda k: (-pair_counts[k], self.first_occurrence(k)))
        tied = [k for k in top if pair_counts[k] == best]
        picks = None
        if len(tied) > _TIES_KEPT:
            ties = "over"
        else:
            ties = len(tied)
            if ties > 1:
                vocab = self.vocab
                chosen = {
                    "greater": max(tied, key=lambda k: (vocab[ord(k[0])], vocab[ord(k[1])])),
                    "smaller-id": min(tied),  # 2-character strings sort as (a, b)
                    "first-seen": min(tied, key=self.first_occurrence),
                }
                picks = {rule: (ord(k[0]), ord(k[1])) for rule, k in chosen.items()}
        return [(ord(k[0]), ord(k[1]), pair_counts[k]) for k in top[:_TOP_PAIRS]], ties, picks


def _new_pairs(rows, after, sites, mark):
    """The pairs holding `mark` in the changed rows: {pair: [row]}, a row once per site."""
    holders = defaultdict(list)
    for row, w, n in zip(rows, after, sites):
        i = w.find(mark)
        if n == 1:  # most rows: one site, so no N N and no second search
            if i:
                holders[w[i - 1] + mark].append(row)
            if i + 1 < len(w):
                holders[mark + w[i + 1]].append(row)
            continue
        last = len(w) - 1
        while i >= 0:
            if i:  # x N, or N N after an adjacent site
                holders[w[i - 1] + mark].append(row)
            if i < last and w[i + 1] != mark:
                holders[mark + w[i + 1]].append(row)
            i = w.find(mark, i + 1)
    return holders
