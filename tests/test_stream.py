"""Streaming (stream.py): cut points, and encode_iterable against encoding the whole text at once."""

import itertools
import random

import pytest
from hypothesis import given, settings, strategies as st

from bpelab import DisallowedSpecialError, InvalidTextError, Tokenizer, stream, train
from bpelab.openai_vocab import load_reference
from bpelab.pretokenize import get_pretokenizer
from bpelab.stream import CutPoints, segments

BUILT_IN = ["gpt2", "whitespace", "cl100k", "o200k"]
# Characters each rule is about: every kind of whitespace (a space, CR, LF, a
# tab, U+0085, U+00A0, U+2028, U+3000), U+001C (not \s for regex, but for re),
# a slash (o200k's punctuation takes `/` after newlines), letters, a mark,
# digits, CJK, an astral character, punctuation and contractions.
_PIECES = list("ab Z1 \n\r\t!/.'s") + ["\r\n", "  ", "\u3000", "\x85", "\xa0", "é", "\u0301", "中", "。", "'t",
                                       "🙂", "\x1c", "\u2028", "ll", "\n\n", " \n"]
_texts = st.lists(st.sampled_from(_PIECES), max_size=24).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=_texts, name=st.sampled_from(BUILT_IN))
def test_every_cut_point_splits_like_the_whole_text(text, name):
    """At every cut point, the two sides pre-tokenized alone give the whole text's pieces."""
    pretokenizer = get_pretokenizer(name)
    cuts = CutPoints(pretokenizer)
    whole = pretokenizer.split(text)
    points = []
    p = cuts.first(text, 1)
    while p >= 0:
        points.append(p)
        assert pretokenizer.split(text[:p]) + pretokenizer.split(text[p:]) == whole, (p, whole)
        p = cuts.first(text, p + 1)
    # last() finds the same points, from the right.
    for hi in range(1, len(text) + 1):
        before = [q for q in points if q < hi]
        assert cuts.last(text, 1, hi) == (before[-1] if before else -1)


_runs = st.lists(st.tuples(st.sampled_from(_PIECES), st.integers(1, 40)), max_size=8).map(
    lambda runs: "".join(piece * count for piece, count in runs))


@settings(max_examples=300, deadline=None)
@given(text=_runs, name=st.sampled_from(BUILT_IN), scan=st.sampled_from([1, 2, 3, 7, 4096]))
def test_first_skips_runs_and_finds_the_rules_first_cut(text, name, scan):
    """first() skips runs of one kind (whitespace or not) and searches the rules a window at a time
    (_RULE_SCAN characters); from every start it finds what one search of the rules finds."""
    pretokenizer = get_pretokenizer(name)
    cuts = CutPoints(pretokenizer)
    rules = stream._finders(pretokenizer)[0]
    saved, stream._RULE_SCAN = stream._RULE_SCAN, scan
    try:
        for lo in range(0, len(text) + 1):
            match = rules.search(text, max(lo, 1))
            assert cuts.first(text, lo) == (match.start() if match else -1), (lo, text)
            hi = min(len(text), lo + 5)
            match = rules.search(text, max(lo, 1), hi)
            assert cuts.first(text, lo, hi) == (match.start() if match else -1), (lo, hi, text)
    finally:
        stream._RULE_SCAN = saved


@pytest.mark.parametrize("name, text, expected", [
    # The rules, one row each (| marks a cut point; other boundaries are not cut points).
    ("gpt2", "a b", [1]),                  # NW|WS
    ("gpt2", "a\nb", [1, 2]),              # NW|WS, and a one-character run before a non-space
    ("gpt2", "a  b", [1]),                 # a longer run: `\s+(?!\S)` leaves its last space to " b"
    ("gpt2", "a\r\nb", [1]),               # CR LF is a run of two
    ("whitespace", "a\tb", [1, 2]),
    ("whitespace", "a \tb", [1, 3]),
    ("cl100k", "a\nb", [2]),               # punctuation may take newlines: not before LF, after it
    ("cl100k", "!\r\nb", [3]),
    ("cl100k", "a\tb", [1]),
    ("o200k", "a\n/b", []),                # `[\r\n/]*` after punctuation: never before a slash
    ("o200k", "a\nb c", [2, 3]),
    ("gpt2", "中文。\n日本", [3, 4]),
    ("cl100k", "中文。\n日本", [4]),
    ("o200k", "中文。\n日本", [4]),
])
def test_cut_points_by_rule(name, text, expected):
    cuts = CutPoints(get_pretokenizer(name))
    points, p = [], cuts.first(text, 1)
    while p >= 0:
        points.append(p)
        p = cuts.first(text, p + 1)
    assert points == expected


@pytest.mark.parametrize("name", ["bytes", "custom"])
def test_no_cut_points_without_a_proof(name):
    pretokenizer = get_pretokenizer(name, r" ?\w+|\s+" if name == "custom" else None)
    cuts = CutPoints(pretokenizer)
    assert not cuts.any and cuts.first("a b c", 1) == -1 and cuts.last("a b c", 1, 5) == -1
    assert list(segments(pretokenizer, "a b " * 10, 3)) == ["a b " * 10]


@pytest.mark.parametrize("special", ["<|end of text|>", "a b", " x"])
def test_no_cut_inside_a_special_spelling(special):
    cuts = CutPoints(get_pretokenizer("gpt2"), {special})
    text = f"one {special} two {special}"
    inside = {i for start in (4, 9 + len(special)) for i in range(start + 1, start + len(special))}
    p = cuts.first(text, 1)
    while p >= 0:
        assert p not in inside, p
        p = cuts.first(text, p + 1)
    assert cuts.last(text, 1, len(text)) not in inside


@settings(max_examples=200, deadline=None)
@given(text=_texts, size=st.integers(1, 12), name=st.sampled_from(BUILT_IN))
def test_segments_split_like_the_whole_text(text, size, name):
    pretokenizer = get_pretokenizer(name)
    parts = list(segments(pretokenizer, text, size))
    assert "".join(parts) == text
    assert [piece for part in parts for piece in pretokenizer.split(part)] == pretokenizer.split(text)


# ------------------------------------------------------------- encode_iterable

_CORPUS = ("Hello wörld, ça va? 中文。\n日本語のテキスト。\r\n Привет,  мир!\t12345 don't 🙂👍🏽 e\u0301 "
           "<|endoftext|> x<|endoftext|>y\n\n")


@pytest.fixture(scope="module", params=["gpt2", "cl100k", "o200k", "trained-whitespace", "trained-bytes",
                                        "trained-custom"])
def tok(request):
    name = request.param
    if not name.startswith("trained"):
        return load_reference(name)
    pretokenizer = name.split("-")[1]
    pattern = r" ?\p{L}+|\s+|." if pretokenizer == "custom" else None
    return train(_CORPUS * 3, num_merges=80, pretokenizer=pretokenizer, pattern=pattern).tokenizer


def _chunked(text, edges):
    edges = sorted(set(e for e in edges if 0 < e < len(text)))
    return [text[a:b] for a, b in zip([0] + edges, edges + [len(text)])]


def _edges_around(text, needle):
    """Every position inside or at the edge of each occurrence of needle."""
    out, at = [], text.find(needle)
    while at >= 0:
        out += range(at, at + len(needle) + 1)
        at = text.find(needle, at + 1)
    return out


@pytest.mark.parametrize("window", [1, 3, 8, 64])
@pytest.mark.parametrize("case, text, needle", [
    ("special token split across part edges", "a <|endoftext|> b<|endoftext|><|endoftext|>c " * 3, "<|endoftext|>"),
    ("CR LF split across part edges", "one\r\ntwo\r\n\r\nthree \r\n four\r\n" * 3, "\r\n"),
    ("multibyte characters split across part edges", "é中🙂 👍🏽 ж e\u0301 中文。\n日本 " * 3, "🙂"),
    ("spaces and newlines at the edges", "  a  \n\n b \t\n c\n" * 3, "\n"),
])
def test_encode_iterable_equals_encode(tok, monkeypatch, window, case, text, needle):
    """The ids do not depend on where the parts or the windows end."""
    monkeypatch.setattr(stream, "WINDOW_CHARS", window)
    for policy in ({"allowed_special": "all"}, {"disallowed_special": ()}):
        if not tok.special_tokens and policy.get("allowed_special"):
            continue
        whole = tok.encode(text, **policy)
        for edges in ([i] for i in _edges_around(text, needle)):  # one edge at each place near the needle
            assert list(tok.encode_iterable(_chunked(text, edges), **policy)) == whole, (case, edges)
        assert list(tok.encode_iterable(list(text), **policy)) == whole  # a character at a time
        rng = random.Random(window)
        for _ in range(5):
            edges = [rng.randrange(len(text)) for _ in range(rng.randint(1, 12))]
            assert list(tok.encode_iterable(_chunked(text, edges), **policy)) == whole, (case, edges)


def test_encode_iterable_on_real_text(corpora, monkeypatch):
    """A real multilingual text in lines (as a file yields them), with small windows, for each reference."""
    text = corpora["multilingual"].read_text("utf-8")[:200_000]
    monkeypatch.setattr(stream, "WINDOW_CHARS", 5_000)
    for name in ("gpt2", "cl100k", "o200k"):
        tok = load_reference(name)
        assert list(tok.encode_iterable(text.splitlines(keepends=True))) == tok.encode(text)


def test_encode_iterable_is_lazy_and_holds_a_window(monkeypatch):
    """From an endless source, ids come out after about a window of text has been read."""
    monkeypatch.setattr(stream, "WINDOW_CHARS", 1000)
    tok = load_reference("gpt2")
    read = []

    def endless():
        for i in itertools.count():
            read.append(i)
            yield "some words in a line\n"

    first = list(itertools.islice(tok.encode_iterable(endless()), 10))
    assert first == tok.encode("some words in a line\n" * 2)[:10]
    assert len(read) * len("some words in a line\n") < 2 * 1000


def test_a_text_without_cut_points_is_held_whole(monkeypatch):
    """No cut point: the window grows (by doubling, so each character is copied a few times) and the ids stay exact."""
    monkeypatch.setattr(stream, "WINDOW_CHARS", 16)
    tok = load_reference("cl100k")
    text = "中文字" * 500  # no spaces, no newlines
    assert list(tok.encode_iterable(text[i:i + 7] for i in range(0, len(text), 7))) == tok.encode(text)


@pytest.mark.parametrize("window", [1, 5, 1000])
def test_errors_name_the_place_in_the_whole_text(monkeypatch, window):
    monkeypatch.setattr(stream, "WINDOW_CHARS", window)
    tok = load_reference("cl100k")
    parts = ["hello ", "there <|endof", "text|> more"]
    with pytest.raises(DisallowedSpecialError, match=r"'<\|endoftext\|>' at character 12\b"):
        list(tok.encode_iterable(parts))
    with pytest.raises(InvalidTextError, match=r"U\+DC00 at character 8\b"):
        list(tok.encode_iterable(["abc ", "defg", "\udc00"]))


@pytest.mark.parametrize("window", [1, 4, 1000])
@pytest.mark.parametrize("special", ["<|end of text|>", " x y", "a\nb"])
def test_special_tokens_with_cut_points_inside(monkeypatch, window, special):
    """A special token whose spelling holds cut points: allowed, it is never cut; disallowed, it is
    found across a window's edge."""
    monkeypatch.setattr(stream, "WINDOW_CHARS", window)
    tok = Tokenizer.bytes_only(special_tokens={special: 256}, pretokenizer="gpt2")
    text = f"one two{special}three {special} four"
    parts = [text[i:i + 3] for i in range(0, len(text), 3)]
    assert list(tok.encode_iterable(parts, allowed_special="all")) == tok.encode(text, allowed_special="all")
    assert list(tok.encode_iterable(parts, disallowed_special=())) == tok.encode(text, disallowed_special=())
    with pytest.raises(DisallowedSpecialError, match=f"at character {len('one two')}\\b"):
        list(tok.encode_iterable(parts))


@pytest.mark.parametrize("texts, message", [
    (None, r"texts must be an iterable of str .*got None"),
    (5, r"texts must be an iterable of str .*got int 5"),
    (b"bytes", r"texts must be an iterable of str .*got bytes b'bytes'.*text mode"),
    ([b"line\n"], r"item 0 of texts must be a str, got bytes b'line\\n'; decode the bytes first"),
    (["ok", None], r"item 1 of texts must be a str, got None"),
    (["ok", 3.5], r"item 1 of texts must be a str, got float 3.5"),
])
def test_encode_iterable_refuses_what_is_not_text(texts, message):
    tok = Tokenizer.bytes_only(pretokenizer="gpt2")
    with pytest.raises(TypeError, match=message):
        list(tok.encode_iterable(texts))


def test_a_str_is_one_text():
    tok = load_reference("gpt2")
    assert list(tok.encode_iterable("hello world")) == tok.encode("hello world")
