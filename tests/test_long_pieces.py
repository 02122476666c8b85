"""Long pieces (long_pieces.py and Tokenizer._merge_heap): exact ids, work and memory that grow linearly."""

import random
import tracemalloc

import pytest
from hypothesis import given, settings, strategies as st

from bpelab import train
from bpelab.long_pieces import LongPieces
from bpelab.openai_vocab import load_reference
from bpelab.tokenizer import _ONE_BYTE

from test_tokenizer import _random_merge_tokenizer

TIKTOKEN_NAME = {"gpt2": "r50k_base", "cl100k": "cl100k_base", "o200k": "o200k_base"}
# One row per kind of long piece: runs of one byte or character (whitespace of
# each kind, a letter, punctuation, a digit, CJK, Thai, Devanagari, an emoji),
# short periods, and a long word of mixed letters.
UNITS = [" ", "\n", "\t", "\u3000", "a", "Z", "=", "-=", "0", "ab", "abc", "Ab", "é", "中", "ก", "नम", "🙂",
         "\r\n", "  \n", "xyz1"]


def _bpe_by_list_scan(tok, data):
    """Plain BPE of bytes, the reference: the list-scan merger on the whole piece."""
    if tok.merge_rule == "ranks":
        return tok._merge_by_ranks(list(map(_ONE_BYTE.__getitem__, data)))
    return tok._merge_by_pairs([tok._byte_ids[b] for b in data])


def _bpe_by_heap(tok, data):
    if tok.merge_rule == "ranks":
        return list(map(tok._ranks.__getitem__, tok._merge_heap(list(map(_ONE_BYTE.__getitem__, data)))))
    return tok._merge_heap([tok._byte_ids[b] for b in data])


_alphabets = st.sampled_from(["ab", "a", "abc", "a é", "aab", "ab新", " \n", "xyz"])


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), alphabet=_alphabets, merges=st.integers(1, 40), by_ranks=st.booleans(),
       shuffled=st.booleans(), window=st.integers(2, 9), reach=st.integers(1, 9), max_joined=st.sampled_from([20, 60, 1000]),
       periodic=st.booleans())
def test_windows_give_the_ids_of_bpe_on_the_whole_piece(seed, alphabet, merges, by_ranks, shuffled, window, reach,
                                                       max_joined, periodic):
    """Random vocabularies (merges across and inside characters, ranks in any order), tiny windows:
    every checked cut gives exactly BPE's ids, or the piece is handed back (None)."""
    rng = random.Random(seed)
    corpus = ["".join(rng.choice(alphabet) for _ in range(rng.randint(3, 30))) for _ in range(3)]
    tok = _random_merge_tokenizer(rng, corpus, merges, by_ranks, shuffled)
    pieces = LongPieces(tok, window=window, reach=min(reach, window), max_joined=max_joined)
    if periodic:
        unit = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
        text = unit * rng.randint(5, 60)
    else:
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(5, 150)))
    data = text.encode("utf-8")
    expected = _bpe_by_list_scan(tok, data)
    assert _bpe_by_heap(tok, data) == expected
    got = pieces.encode(data)
    assert got is None or got == expected


def test_most_cuts_hold_on_runs():
    """The windows are not a detour that always gives up: on runs of trained vocabularies they hold."""
    tok = train(" ".join("a" * n for n in range(1, 40)) + " " + "=" * 300, num_merges=60, pretokenizer="bytes").tokenizer
    pieces = LongPieces(tok)  # its window holds two of the longest token (608 bytes of "=")
    assert pieces.window == 2 * 608
    for text in ("a" * 10_000, "=" * 9_999, "a=" * 4_000):
        assert pieces.encode(text.encode()) == _bpe_by_list_scan(tok, text.encode())


@pytest.fixture(scope="module")
def pair(reference_ranks, tiktoken_encoding):
    return lambda key: (load_reference(key), tiktoken_encoding(TIKTOKEN_NAME[key]))


@pytest.mark.parametrize("key", ["gpt2", "cl100k", "o200k"])
@pytest.mark.parametrize("unit", UNITS)
def test_long_runs_have_tiktokens_ids(pair, key, unit):
    tok, enc = pair(key)
    for size in (700, 1537, 6000):
        text = unit * (size // len(unit.encode("utf-8")))
        tok.clear_cache()
        assert tok.encode_ordinary(text) == enc.encode_ordinary(text), (unit, size)


@pytest.mark.parametrize("key", ["gpt2", "cl100k", "o200k"])
def test_long_random_words_have_tiktokens_ids(pair, key):
    """Long pieces with no period: each window is new, and most cuts must still hold."""
    tok, enc = pair(key)
    rng = random.Random(key)
    for alphabet in ("abcdefgh", "aeiouxyz", "中文字日本", "กขคง", "नमसत", "xX"):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(600, 4000)))
        tok.clear_cache()
        assert tok.encode_ordinary(text) == enc.encode_ordinary(text), alphabet


class _Work:
    """Counts what a long piece costs: the bytes of the windows encoded (each window is at most
    max_joined bytes, so its list scan is bounded), the merges replayed to check cuts, and the
    parts handed to the heap."""

    def __init__(self, monkeypatch, pieces):
        self.units = 0
        self.largest_window = 0
        for name in ("_encode_window_by_pairs", "_encode_window_by_ranks"):
            monkeypatch.setattr(pieces, name, self._counted(getattr(pieces, name), self._window))
        monkeypatch.setattr(pieces, "_replay", self._counted(pieces._replay, self._replay))

    def _counted(self, function, count):
        def wrapper(*args):
            count(*args)
            return function(*args)
        return wrapper

    def _window(self, data):
        self.units += len(data)
        self.largest_window = max(self.largest_window, len(data))

    def _replay(self, left, right):
        self.units += len(left[2]) + len(right[2])


@pytest.mark.parametrize("key", ["gpt2", "cl100k", "o200k", "trained"])
@pytest.mark.parametrize("kind", ["run", "period 3", "random letters", "random CJK"])
def test_work_and_memory_grow_linearly_with_the_piece(pair, monkeypatch, key, kind):
    """Work (counted, not timed) and peak memory for a piece of n and of 4n bytes: 4n costs about
    4 times n (the random texts' failed cuts vary a little), and memory stays within a few
    dozen bytes per input byte. (The heap merger before took 466 MB for a 2 MB run of `a`.)"""
    if key == "trained":
        tok = train("ab abc aaaa " * 50 + "中文字日本 " * 20, num_merges=200, pretokenizer="whitespace").tokenizer
    else:
        tok = pair(key)[0]
    rng = random.Random(kind)
    make = {
        "run": lambda n: "a" * n,
        "period 3": lambda n: "xyz" * (n // 3),
        "random letters": lambda n: "".join(rng.choice("abcdefgh") for _ in range(n)),
        "random CJK": lambda n: "".join(rng.choice("中文字日本") for _ in range(n // 3)),
    }[kind]
    heap_parts = []
    original_heap = tok._merge_heap
    monkeypatch.setattr(tok, "_merge_heap", lambda parts: heap_parts.append(len(parts)) or original_heap(parts))
    costs = []
    for n in (20_000, 80_000):
        data = make(n).encode("utf-8")
        if n == 20_000:
            expected = _bpe_by_heap(tok, data)
        heap_parts.clear()
        tok.clear_cache()
        work = _Work(monkeypatch, tok._long_pieces)
        tracemalloc.start()
        ids = tok._merge_bytes(data)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        if n == 20_000:
            assert ids == expected
        assert not heap_parts, "the windows gave up"
        assert work.largest_window <= tok._long_pieces.max_joined
        costs.append((work.units, peak, len(data)))
    (work_n, peak_n, size_n), (work_4n, peak_4n, size_4n) = costs
    assert work_4n <= 5 * work_n + 5_000, costs  # linear: 4; quadratic would be 16
    assert peak_4n <= 4.5 * peak_n + 100_000, costs
    assert peak_4n <= 40 * size_4n, costs


@pytest.mark.parametrize("key", ["gpt2", "o200k", "trained"])
def test_the_heap_fallback_is_bounded_too(pair, key):
    """A piece whose cuts keep failing is merged whole by the heap: O(n log n), and its memory per part stays small."""
    if key == "trained":
        tok = train("ab abc aaaa " * 50, num_merges=100, pretokenizer="bytes").tokenizer
    else:
        tok = pair(key)[0]
    peaks = []
    for n in (20_000, 80_000):
        data = ("ab" * (n // 2)).encode()
        tracemalloc.start()
        ids = _bpe_by_heap(tok, data)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        if n == 20_000:
            assert ids == _bpe_by_list_scan(tok, data)
    assert peaks[1] <= 4.5 * peaks[0] + 100_000, peaks
    assert peaks[1] <= 120 * 80_000, peaks


# Issue 25's long pieces, through the public encode: one pre-token of spaces (cl100k took over 60 s for
# 5 MB) and of one letter (gpt2: 23 s and 466 MB for 2 MB of `a`).
_LONG_CASES = [("cl100k", " "), ("gpt2", "a"), ("o200k", "\n"), ("gpt2", " ")]


@pytest.mark.parametrize("key, unit", _LONG_CASES)
def test_encoding_one_long_piece_takes_time_linear_in_its_length(pair, key, unit):
    """CPU time of encode_ordinary on a piece of 4n bytes against n (n = 1 MB), best of three each: linear
    is about 4, quadratic 16. A ratio, never an absolute time; the ids are tiktoken's."""
    import time

    tok, enc = pair(key)
    times = []
    for size in (1_000_000, 4_000_000):
        text = unit * size
        best = float("inf")
        for _ in range(3):
            tok.clear_cache()
            start = time.process_time()
            ids = tok.encode_ordinary(text)
            best = min(best, time.process_time() - start)
        times.append(best)
        if size == 1_000_000:  # tiktoken itself grows faster than linearly on such pieces
            assert ids == enc.encode_ordinary(text)
    assert times[1] <= 6 * times[0], times


_PEAK_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from bpelab.openai_vocab import load_reference
def peak():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) * 1024
tok = load_reference(sys.argv[2])
tok.encode_ordinary("warm up")
text = sys.argv[3] * int(sys.argv[4])
base = peak()
ids = tok.encode_ordinary(text)
print(json.dumps({"base": base, "peak": peak(), "count": len(ids)}))
"""


@pytest.mark.parametrize("key, unit, size", [("cl100k", " ", 5_000_000), ("gpt2", "a", 2_000_000)])
def test_encoding_one_long_piece_stays_within_a_few_bytes_per_byte(key, unit, size):
    """Peak memory (VmHWM, a fresh process) of encoding issue 25's pieces, above what the process held
    with the text made: at most 8 bytes per input byte and 16 MB (466 MB for 2 MB of `a` before)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    package = str(Path(__file__).resolve().parent.parent / "py")
    done = subprocess.run([sys.executable, "-c", _PEAK_CHILD, package, key, unit, str(size)],
                          capture_output=True, text=True, timeout=600, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["count"] > 0
    grown = report["peak"] - report["base"]
    assert grown <= 8 * size + 16 * 2**20, f"{grown / 2**20:.0f} MB for {size:,} bytes"


@pytest.mark.parametrize("key", ["gpt2", "cl100k", "o200k"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_long_texts_of_runs_and_scripts_are_cut_into_segments_with_tiktokens_ids(pair, monkeypatch, key, seed):
    """A long text is encoded a segment at a time, cut where stream.CutPoints.first finds a cut (it skips
    runs of whitespace or of non-space). Random texts of long runs and of words in several scripts, with
    segments of 300 characters so that every kind of cut and run is met; the ids are tiktoken's."""
    import functools

    from bpelab import stream, tokenizer

    monkeypatch.setattr(tokenizer, "SEGMENT_CHARS", 300)
    monkeypatch.setattr(tokenizer, "segments", functools.partial(stream.segments, size=300))
    monkeypatch.setattr(stream, "_RULE_SCAN", 7)
    tok, enc = pair(key)
    rng = random.Random(seed)
    words = ["the", " word", "Ünïcödé", " 中文字", "日本語の", " 한국어", " русский", " عربي", " नमस्ते", " tiếng",
             "1234", "!?", "/", "'s"]
    runs = [" ", "\n", "\r\n", "\t", "\u3000", "a", "中", "=", "🙂", " \n"]
    parts = []
    while sum(map(len, parts)) < 6000:
        if rng.random() < 0.3:
            parts.append(rng.choice(runs) * rng.randint(1, 900))
        else:
            parts.append(rng.choice(words))
    text = "".join(parts)
    tok.clear_cache()
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text)
