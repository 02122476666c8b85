r"""Tests for bpelab.pretokenize and the generated bpelab.unicode_classes.

Oracles: the `regex` package running the ORIGINAL pattern strings, and
tiktoken's Rust regex running tiktoken's own strings. tiktoken does not expose
its pieces, so `tiktoken_pieces` builds an Encoding whose ranks make each piece
come back as exactly one token (see its docstring for why that is sound).

All three agree on Unicode 16.0 (the generator pins `regex` 2025.9.18), and a
test checks that every code point is classed as tiktoken classes it. Lone
surrogates are left out of tiktoken comparisons: tiktoken replaces them with
U+FFFD before splitting.

Run this file directly to print count() speed on real text:
    .venv/bin/python tests/test_pretokenize.py [FILE ...]
"""

import functools
import importlib.util
import pathlib
import re
import sys
import time
import unicodedata
from collections import Counter

import pytest
import regex
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpelab import pretokenize, unicode_classes
from bpelab.pretokenize import (
    PATTERNS,
    PRETOKENIZER_NAMES,
    TIKTOKEN_PATTERNS,
    PretokenizeError,
    get_pretokenizer,
    split_special,
    translate,
)

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "data" / "pretokenize_sample.txt"
REGEX_PATTERNS = [name for name in PRETOKENIZER_NAMES if PATTERNS[name] is not None]
TIKTOKEN_NAMES = ["gpt2", "cl100k", "o200k"]
SINGLE_BYTES = {bytes([b]): b for b in range(256)}

# (class name in pretokenize/unicode_classes, the same class in regex syntax)
CLASS_EXPRESSIONS = [(name, r"\p{%s}" % name) for name in unicode_classes.CLASSES]
CLASS_EXPRESSIONS += [("space", r"\s"), ("word", r"\w")]


def sample_text():
    """The multilingual sample without its licence header (ends at the first blank line)."""
    return SAMPLE.read_text(encoding="utf-8").split("\n\n", 1)[1]


def code_points(ranges):
    return {chr(cp) for first, last in ranges for cp in range(first, last + 1)}


@functools.lru_cache(maxsize=None)
def every_code_point():
    return "".join(map(chr, range(0x110000)))


@functools.lru_cache(maxsize=None)
def tiktoken_class(expression):
    """The characters tiktoken's Rust regex puts in a one-character class.

    With only the 256 bytes as ranks and the class as the whole pattern,
    tiktoken encodes exactly the matching characters (the rest of the text is
    skipped), so decoding gives them back.
    """
    text = "".join(c for c in every_code_point() if not "\ud800" <= c <= "\udfff")
    enc = tiktoken.Encoding("probe", pat_str=expression, mergeable_ranks=SINGLE_BYTES, special_tokens={})
    return frozenset(enc.decode(enc.encode(text, disallowed_special=())))


@functools.lru_cache(maxsize=None)
def tiktoken_disagrees():
    """Code points whose class differs between our tables and tiktoken's (Unicode versions)."""
    out = set()
    for name, expression in CLASS_EXPRESSIONS:
        if name in ("word", "Nd", "P", "S", "Z"):  # not used by the built-in patterns
            continue
        out |= tiktoken_class(expression) ^ code_points(pretokenize._class_ranges(name))
    return frozenset(out)


def tiktoken_pieces(pattern, text, expected):
    """tiktoken's split of `text`, as bytes, checked against our split `expected`.

    Ranks: the 256 bytes, every piece of `expected` and every two neighbouring
    pieces joined. If tiktoken's pieces equal `expected`, each is a rank and
    comes back as one token. If they differ, the tokens cannot equal
    `expected`: tokens never cross tiktoken's piece boundaries, so a boundary
    we lack shows; and a tiktoken piece spanning several of ours is either a
    rank itself (one token) or goes through BPE, which never stops with two
    neighbours whose join is a rank.
    """
    if not text:
        return []
    ranks = dict(SINGLE_BYTES)
    for piece in expected:
        ranks.setdefault(piece.encode(), len(ranks))
    for left, right in zip(expected, expected[1:]):
        ranks.setdefault((left + right).encode(), len(ranks))
    enc = tiktoken.Encoding("probe", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return [enc.decode_single_token_bytes(t) for t in enc.encode(text, disallowed_special=())]


# ---------------------------------------------------------------- text strategies

WHITESPACE = [" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e",
              "\x1f", "\x85", "\xa0", "\u1680", "\u2000", "\u2007", "\u200a", "\u2028", "\u2029", "\u202f",
              "\u205f", "\u3000", "\u180e", "\u200b", "\ufeff", " \n", "\n ", " \r\n ", "\t\t "]
CONTRACTIONS = ["'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'rE", "'ve", "'VE", "'m", "'M", "'ll", "'LL",
                "'Ll", "'lL", "'d", "'D", "'\u017f", "'\u212a", "'x", "'", "''", "\u2019s", "'İ", "'ı"]
WORDS = ["Hello", "HELLO", "hello", "don", "I", "ÉCOLE", "ǅemal", "ǈ", "straße", "STRASSE", "İstanbul",
         "ıi", "Ελληνικά", "ΣΊΣΥΦΟΣ", "Привет", "мир", "مرحبا", "بالعربية", "שָׁלוֹם", "नमस्ते", "हिन्दी",
         "日本語", "中文", "한국어", "한", "\u1100\u1161\u11a8", "カタカナ", "ﾊﾝｶｸ", "e\u0301", "\u0301",
         "a\u0308\u0323", "ﷺ", "ʕ", "\u0295", "ไทย", "ქართული", "𝐀𝐁𝐂", "𐐀𐐨", "𞤀𞤢", "𠀀𠀁", "x"]
NUMBERS = ["0", "7", "42", "123", "1234", "12345", "1234567", "٣٤٥", "१२३", "１２３", "²³", "Ⅻ", "½",
           "𝟎𝟏", "𐒠𐒡", "3.14", "1,000"]
SYMBOLS = ["!", "?", ".", ",", ";", ":", "-", "—", "…", "«", "»", "“", "”", '"', "(", ")", "[", "]", "{",
           "}", "<", ">", "/", "\\", "@", "#", "$", "%", "^", "&", "*", "_", "+", "=", "|", "~", "`",
           "€", "©", "™", "°", "§", "•", "...", "?!", ".\n", "/\n", "!\r\n", "\x00", "\x7f", "\u200d",
           "\U000e0001", "\U0010fffd", "\ue000"]
EMOJI = ["😀", "👍🏽", "👨\u200d👩\u200d👧", "🇫🇷", "❤️", "1️⃣", "🏳️\u200d🌈", "🙂"]


def fragments(exclude=frozenset()):
    """Pieces of text that stress the patterns; `exclude` characters are left out."""
    def keep(items):
        return [s for s in items if not set(s) & exclude]

    any_char = st.characters(exclude_categories=("Cs",)).filter(lambda c: c not in exclude)
    return st.one_of(
        st.sampled_from(keep(WHITESPACE)),
        st.sampled_from(keep(CONTRACTIONS)),
        st.sampled_from(keep(WORDS)),
        st.sampled_from(keep(NUMBERS)),
        st.text("0123456789", min_size=1, max_size=9),
        st.sampled_from(keep(SYMBOLS)),
        st.sampled_from(keep(EMOJI)),
        any_char,
        st.text(any_char, max_size=4),
    )


texts = st.lists(fragments(), max_size=30).map("".join)
# Few distinct words, so chunks repeat and count() joins chunks of equal count.
repetitive_texts = st.lists(st.sampled_from(["the", " the", " cat", "'s", ",", "  ", " ", "\n", "😀", " 12",
                                             "𝐀", "\u3000", "\t"]), max_size=60).map("".join)


@functools.lru_cache(maxsize=None)
def tiktoken_texts():
    return st.lists(fragments(tiktoken_disagrees()), max_size=30).map("".join)


def check_split_properties(pretokenizer, text):
    pieces = pretokenizer.split(text)
    assert "".join(pieces) == text
    assert all(pieces)
    assert pretokenizer.count(text) == Counter(pieces)
    offsets = pretokenizer.split_with_offsets(text)
    assert [piece for piece, _ in offsets] == pieces
    assert all(text[start:end] == piece for piece, (start, end) in offsets)
    return pieces


# ---------------------------------------------------------------- generated classes


def test_generated_module_is_up_to_date():
    """Regenerating unicode_classes.py with the installed regex gives the committed file."""
    spec = importlib.util.spec_from_file_location("gen_unicode_classes",
                                                  ROOT / "build_scripts" / "gen_unicode_classes.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    committed = pathlib.Path(unicode_classes.__file__).read_text(encoding="utf-8")
    assert generator.generate() == committed
    assert unicode_classes.REGEX_VERSION == regex.__version__


@pytest.mark.parametrize("name, expression", CLASS_EXPRESSIONS)
def test_classes_match_regex_on_every_code_point(name, expression):
    """Each generated class holds exactly what `regex` matches, over all 1,114,112 code points."""
    ours = code_points(pretokenize._class_ranges(name))
    assert ours == set(regex.findall(expression, every_code_point()))


def test_whitespace_is_regex_and_tiktoken_not_re():
    r"""U+001C-U+001F are \s for `re` but not for `regex` or tiktoken; we follow the latter."""
    separators = "\x1c\x1d\x1e\x1f"
    assert re.findall(r"\s", separators) == list(separators)
    assert regex.findall(r"\s", separators) == []
    assert not set(separators) & tiktoken_class(r"\s")
    assert not set(separators) & code_points(pretokenize._class_ranges("space"))
    assert tiktoken_class(r"\s") == code_points(pretokenize._class_ranges("space"))
    # So gpt2 treats them as punctuation, as regex and tiktoken do.
    assert get_pretokenizer("gpt2").split("a\x1c\x1d b") == ["a", "\x1c\x1d", " b"]


def test_tables_agree_with_tiktoken_on_every_code_point():
    """Our classes are tiktoken's, code point for code point: both are Unicode 16.0.

    The generator runs on `regex` 2025.9.18, the last release on Unicode
    16.0, which is also tiktoken's and Pyodide's `unicodedata` version. A newer
    `regex` (Unicode 17+) would make letters of ~17,500 new code points and
    change splits such as "\u0558's" against tiktoken.
    """
    from bpelab.unicode_classes import UNICODE_VERSION

    assert UNICODE_VERSION == "16.0.0"
    assert regex.fullmatch(r"\p{L}", "\U0001e5d0")  # Ol Onal, new in 16.0
    assert not regex.fullmatch(r"\p{L}", "\U00010940")  # Sidetic, new in 17.0
    assert tiktoken_disagrees() == frozenset()


# ---------------------------------------------------------------- case folding


def test_case_groups_are_simple_case_folding():
    r"""(?i) classes follow simple case folding, like tiktoken: s~S~ſ, k~K~K, but not i~İ.

    `regex` also pairs i with U+0130 and I with U+0131 (Turkic); tiktoken's
    Rust regex does not, and we follow tiktoken.
    """
    variants = pretokenize._case_variants()
    assert set(map(chr, variants[ord("s")])) == {"s", "S", "\u017f"}
    assert set(map(chr, variants[ord("k")])) == {"k", "K", "\u212a"}
    assert set(map(chr, variants[ord("i")])) == {"i", "I"}
    assert ord("\u0130") not in variants
    assert regex.fullmatch("(?i)i", "\u0130")  # the divergence, for the record
    candidates = "iIİısSſkKKdDmMtTlLvVeErRßẞσςΣ"
    for letter in "sdmtlveriß":
        pattern = "(?i:%s)" % letter
        ours = re.findall(translate(pattern), candidates)
        ranks = dict(SINGLE_BYTES)
        enc = tiktoken.Encoding("probe", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
        theirs = list(enc.decode(enc.encode(candidates)))
        assert ours == theirs, letter


def test_contractions_are_case_insensitive_in_cl100k_and_o200k():
    """'S and 'ſ are contractions in cl100k/o200k ((?i:...)), only lower case in gpt2."""
    text = "IT'S HE'LL 'ſ"
    assert get_pretokenizer("gpt2").split(text) == ["IT", "'", "S", " HE", "'", "LL", " '", "ſ"]
    assert get_pretokenizer("cl100k").split(text) == ["IT", "'S", " HE", "'LL", " '", "ſ"]
    assert get_pretokenizer("o200k").split(text) == ["IT'S", " HE'LL", " '", "ſ"]
    for name in TIKTOKEN_NAMES:
        pieces = get_pretokenizer(name).split(text)
        assert tiktoken_pieces(TIKTOKEN_PATTERNS[name], text, pieces) == [p.encode() for p in pieces]


# ---------------------------------------------------------------- built-in patterns


def test_tiktoken_patterns_are_tiktokens_strings(monkeypatch):
    """TIKTOKEN_PATTERNS are byte for byte tiktoken_ext.openai_public's pat_str values."""
    from tiktoken_ext import openai_public

    # The constructors download rank files; only their pattern is wanted here.
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: {})
    monkeypatch.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks", lambda *args, **kwargs: {})
    assert TIKTOKEN_PATTERNS["gpt2"] == openai_public.gpt2()["pat_str"] == openai_public.r50k_pat_str
    assert TIKTOKEN_PATTERNS["cl100k"] == openai_public.cl100k_base()["pat_str"] == PATTERNS["cl100k"]
    assert TIKTOKEN_PATTERNS["o200k"] == openai_public.o200k_base()["pat_str"] == PATTERNS["o200k"]


@pytest.mark.parametrize("name", REGEX_PATTERNS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_split_equals_regex_on_the_original_pattern(name, text):
    pretokenizer = get_pretokenizer(name)
    pieces = check_split_properties(pretokenizer, text)
    assert pieces == regex.findall(PATTERNS[name], text)
    if name in TIKTOKEN_PATTERNS:
        assert pieces == regex.findall(TIKTOKEN_PATTERNS[name], text)


@pytest.mark.parametrize("name", TIKTOKEN_NAMES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_split_equals_tiktoken(name, data):
    """Our split equals tiktoken's own (Rust) split with tiktoken's pattern string.

    For gpt2 this also proves seed 003's pattern splits like tiktoken's r50k string.
    """
    text = data.draw(tiktoken_texts())
    pieces = get_pretokenizer(name).split(text)
    assert tiktoken_pieces(TIKTOKEN_PATTERNS[name], text, pieces) == [p.encode() for p in pieces]


@pytest.mark.parametrize("name", REGEX_PATTERNS)
@settings(max_examples=100, deadline=None)
@given(text=repetitive_texts)
def test_count_equals_counter_of_split(name, text):
    """count() equals Counter of regex's split, also chunked (astral text) with many repeated chunks."""
    pretokenizer = get_pretokenizer(name)
    for variant in (text, "😀" + text, text + " 𝐀", text.replace("the", "th𝐞")):
        expected = regex.findall(PATTERNS[name], variant)
        assert pretokenizer.count(variant) == Counter(expected)
        assert pretokenizer.split(variant) == expected


@pytest.mark.parametrize("name", REGEX_PATTERNS)
def test_every_code_point_alone_and_after_a_space(name):
    """All 1,114,112 code points (surrogates too), side by side and each after a space, split like regex."""
    pretokenizer = get_pretokenizer(name)
    for text in (every_code_point(), " ".join(every_code_point()[::7])):
        assert pretokenizer.split(text) == regex.findall(PATTERNS[name], text)


@pytest.mark.parametrize("name", REGEX_PATTERNS)
def test_multilingual_sample(name):
    """62 KB of real text in 12 languages splits like regex and (where it applies) tiktoken."""
    text = sample_text()
    pretokenizer = get_pretokenizer(name)
    pieces = check_split_properties(pretokenizer, text)
    assert pieces == regex.findall(PATTERNS[name], text)
    if name in TIKTOKEN_PATTERNS:
        assert tiktoken_pieces(TIKTOKEN_PATTERNS[name], text, pieces) == [p.encode() for p in pieces]
    # With astral characters sprinkled in, the exact-pattern path runs too.
    salted = text.replace("e ", "e 😀 ").replace("的", "的𠀀")
    assert pretokenizer.split(salted) == regex.findall(PATTERNS[name], salted)
    assert pretokenizer.count(salted) == Counter(regex.findall(PATTERNS[name], salted))


@pytest.mark.parametrize("name", REGEX_PATTERNS)
def test_multilingual_corpus(corpora, name):
    """The shared 2 MB corpus (8 languages, tests/conftest.py) splits like regex and tiktoken."""
    text = corpora["multilingual"].read_text(encoding="utf-8")
    assert not set(text) & tiktoken_disagrees()  # so tiktoken's older Unicode tables apply unchanged
    pretokenizer = get_pretokenizer(name)
    pieces = pretokenizer.split(text)
    assert pieces == regex.findall(PATTERNS[name], text)
    assert pretokenizer.count(text) == Counter(pieces)
    if name in TIKTOKEN_PATTERNS:
        assert tiktoken_pieces(TIKTOKEN_PATTERNS[name], text, pieces) == [p.encode() for p in pieces]


def test_seed_003_toy_corpus():
    """Seed 003: the Sennrich corpus gives 8 distinct pre-tokens, 19 occurrences, as tabled."""
    corpus = ("low low low low low\n"
              "lower lower widest widest widest\n"
              "newest newest newest newest newest newest\n")
    pretokenizer = get_pretokenizer("gpt2")
    pieces = pretokenizer.split(corpus)
    assert pieces == ["low", " low", " low", " low", " low", "\n",
                      "lower", " lower", " widest", " widest", " widest", "\n",
                      "newest", " newest", " newest", " newest", " newest", " newest", "\n"]
    counts = pretokenizer.count(corpus)
    assert (len(counts), sum(counts.values())) == (8, 19)
    assert counts == {" newest": 5, " low": 4, "\n": 3, " widest": 3, " lower": 1, "low": 1, "lower": 1,
                      "newest": 1}


def test_seed_004_buggy_pattern_raises_instead_of_dropping():
    r"""Seed 004: ' ?[^\s]+|\n' drops one space of each pair in "  two  spaces" (13 chars -> 11).

    The seed's string is 13 characters, so its spaces are doubled (the blog's
    rendering collapsed them). re.findall loses two; we raise and name them.
    """
    buggy = r" ?[^\s]+|\n"
    text = "  two  spaces"
    assert len(text) == 13
    assert len("".join(re.findall(buggy, text))) == 11
    pretokenizer = get_pretokenizer("custom", buggy)
    with pytest.raises(PretokenizeError, match=r"skips 1 character\(s\) ' ' at position 0"):
        pretokenizer.split(text)
    with pytest.raises(PretokenizeError, match="at position 3 "):
        pretokenizer.count("two  spaces")
    # The seed's other strings have no doubled spaces, and pass.
    for ok in ["café ☕", "🙂 emoji\n", "", "a", " two spaces"]:
        assert "".join(pretokenizer.split(ok)) == ok


def test_seed_004_fixed_pattern_round_trips():
    r"""Seed 004: ' ?[^\s]+|\s+' keeps every character; the seed's table of lengths."""
    pretokenizer = get_pretokenizer("custom", r" ?[^\s]+|\s+")
    table = {"café ☕": (6, 9), "  two  spaces": (13, 13), "🙂 emoji\n": (8, 11), "": (0, 0), "a": (1, 1)}
    for text, (chars, utf8_bytes) in table.items():
        pieces = pretokenizer.split(text)
        assert "".join(pieces) == text
        assert (len(text), len(text.encode())) == (chars, utf8_bytes)
    # It is the built-in "whitespace" pattern.
    assert pretokenizer is get_pretokenizer("whitespace")


# ---------------------------------------------------------------- custom patterns and the translator


CUSTOM_PATTERNS = [
    r"\w+|[^\w\s]+|\s+",  # Hugging Face's Whitespace pre-tokenizer
    r"\p{L}+|\p{N}+|[^\p{L}\p{N}]+",
    r" ?\p{Lu}?\p{Ll}+| ?\p{Lu}+| ?\p{Nd}+|\s+|(?s:.)",
    r"(?i:the)|\pL+|\PL",
    r"[\p{P}\p{S}]+|\P{Z}+|\p{Z}+|\s",
    r"(?<name>\p{L}+)|(\s+)|(?:(?>\p{N}{1,2}))|[^\s\p{L}\p{N}]|\s",
    r"(?s)\b\w+\b|.",
]


@pytest.mark.parametrize("pattern", CUSTOM_PATTERNS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_custom_patterns_equal_regex(pattern, text):
    """Custom patterns (groups, aliases, \\w, \\b, flags) split like regex; capturing groups don't leak."""
    pretokenizer = get_pretokenizer("custom", pattern)
    expected = [m.group() for m in regex.finditer(pattern, text)]
    assert "".join(expected) == text  # these patterns cover everything
    assert check_split_properties(pretokenizer, text) == expected


@pytest.mark.parametrize(
    "pattern, text",
    [
        (r"x(?:ab?c)*+a|.", "xa xabca"),  # gh-106052: old re lets (?:ab?c)*+ take the lone "a"
        (r"(?:.(?!C))++|.", "ABCDABD"),  # gh-100061: old re runs past the failed lookahead
        (r"(?:\p{L}\p{N}?)++|\s+|.", "a1b c22 d"),
    ],
)
def test_possessive_repeats_of_groups_split_like_regex(pattern, text):
    """Possessive repeats of groups match as in regex, also on CPython 3.11.0-3.11.4, whose re gets them wrong."""
    expected = regex.findall(pattern, text)
    assert get_pretokenizer("custom", pattern).split(text) == expected


@settings(max_examples=150, deadline=None)
@given(text=texts)
def test_skipping_pattern_raises_naming_the_first_gap(text):
    r"""A pattern that skips text either covers `text` or raises naming exactly the first skipped run."""
    pattern = r" ?[^\s]+|\n"
    pretokenizer = get_pretokenizer("custom", pattern)
    matches = list(regex.finditer(pattern, text))
    position, gap_end = 0, len(text)
    for match in matches:
        if match.start() != position:
            gap_end = match.start()
            break
        position = match.end()
    if position == len(text):
        assert pretokenizer.split(text) == [m.group() for m in matches]
    else:
        with pytest.raises(PretokenizeError) as error:
            pretokenizer.split(text)
        skipped = text[position:gap_end]
        assert f"at position {position} " in str(error.value)
        assert f"skips {len(skipped)} character(s)" in str(error.value)


def test_dollar_is_end_of_text_like_tiktoken():
    """$ means the end of the text (tiktoken); regex's $ also matches before a final newline."""
    pattern = r"[a-z]+$|[a-z]|\n"
    text = "ab\n"
    ours = get_pretokenizer("custom", pattern).split(text)
    assert ours == ["a", "b", "\n"]
    assert tiktoken_pieces(pattern, text, ours) == [p.encode() for p in ours]
    assert regex.findall(pattern, text) == ["ab", "\n"]  # the divergence we do not follow
    multiline = r"(?m:[a-z]+$)|[a-z]|\n"
    assert get_pretokenizer("custom", multiline).split("ab\ncd") == regex.findall(multiline, "ab\ncd")


@pytest.mark.parametrize("pattern, message", [
    (r"\p{Han}+|.", "unsupported Unicode property"),
    (r"(?i:\p{Lt})+|(?s:.)", "'\\p{Lt}' under the i flag is not supported"),
    (r"(?i)\p{Lowercase_Letter}+|.", "under the i flag is not supported"),
    (r"\p{L", "missing '}'"),
    (r"(ab", "missing ')'"),
    (r"ab)", "unbalanced ')'"),
    (r"[ab", "unterminated character set"),
    (r"*a", "nothing to repeat"),
    (r"a**", "multiple repeat"),
    (r"a{3,2}", "maximum below its minimum"),
    (r"[z-a]", "end before start"),
    (r"[\s-z]", "bad character range"),
    (r"(a)\1", "backreference"),
    (r"(?P=x)", "unsupported group syntax"),
    (r"(?x) a", "unsupported inline flag"),
    (r"a(?i)b", "only supported at the start"),
    (r"[[a]]", "ambiguous"),
    (r"[a&&b]", "ambiguous"),
    (r"\h", "unsupported escape"),
    (r"\N{NO SUCH NAME}", "unknown character name"),
    (r"(?<=a+)b", "not supported by Python's re"),
    ("", "pattern is empty"),
    (r"a*", "can match the empty string"),
    (r"a|", "can match the empty string"),
    (r"(?:)", "can match the empty string"),
    (r"\b", "can match the empty string"),
    (r"$", "can match the empty string"),
    (r"x?|y", "can match the empty string"),
    (r"(?=a)", "can match the empty string"),
    (r"a{0}", "can match the empty string"),
])
def test_invalid_patterns_raise_clear_errors(pattern, message):
    with pytest.raises(PretokenizeError, match=re.escape(message)) as error:
        get_pretokenizer("custom", pattern)
    assert isinstance(error.value, ValueError)
    assert repr(pattern) in str(error.value) or not pattern


def test_translation_keeps_no_property_escapes_or_case_flags():
    """The translated built-ins use only what `re` means the same everywhere: explicit classes, no (?i)."""
    for name in REGEX_PATTERNS:
        source = translate(PATTERNS[name])
        assert not re.search(r"\\[pPsSdDwW]|\(\?[a-z]*i", source), name
        assert source == get_pretokenizer(name).translated


def test_property_spellings_agree():
    text = sample_text()[:3000] + "ǅ 𝐀 ʕ"
    letters = regex.findall(r"\p{L}", text)
    for spelling in [r"\p{L}", r"\pL", r"\p{Letter}", r"\p{gc=L}", r"\p{General_Category=Letter}", r"[\p{L}]",
                     r"[^\P{L}]", r"[^\p{^L}]"]:
        assert re.findall(translate(spelling), text) == letters, spelling
    cased = regex.findall(r"\p{LC}", text)
    assert re.findall(translate(r"\p{L&}"), text) == cased == re.findall(translate(r"\p{Cased_Letter}"), text)


# ---------------------------------------------------------------- the API


def test_get_pretokenizer_api():
    gpt2 = get_pretokenizer()
    assert gpt2 is get_pretokenizer("gpt2")  # memoized
    assert (gpt2.name, gpt2.pattern) == ("gpt2", PATTERNS["gpt2"])
    assert get_pretokenizer("r50k_base") is gpt2
    assert get_pretokenizer("custom", TIKTOKEN_PATTERNS["gpt2"]) is gpt2
    assert get_pretokenizer("cl100k_base") is get_pretokenizer("cl100k")
    custom = get_pretokenizer("custom", r"\S+|\s+")
    assert (custom.name, custom.pattern) == ("custom", r"\S+|\s+")
    assert custom is get_pretokenizer("custom", pattern=r"\S+|\s+")
    assert [get_pretokenizer(name).name for name in PRETOKENIZER_NAMES] == list(PRETOKENIZER_NAMES)
    with pytest.raises(PretokenizeError, match="unknown pre-tokenizer 'gpt3'"):
        get_pretokenizer("gpt3")
    with pytest.raises(PretokenizeError, match="needs a pattern"):
        get_pretokenizer("custom")
    with pytest.raises(PretokenizeError, match="use name='custom'"):
        get_pretokenizer("gpt2", r"\S+|\s+")
    with pytest.raises(PretokenizeError, match="must be a str"):
        get_pretokenizer("custom", [r"\S+"])


def test_bytes_pretokenizer_does_not_split():
    pretokenizer = get_pretokenizer("bytes")
    assert pretokenizer.pattern is None and PATTERNS["bytes"] is None
    text = "Hello  world 😀\n"
    assert pretokenizer.split(text) == [text]
    assert pretokenizer.split_with_offsets(text) == [(text, (0, len(text)))]
    assert pretokenizer.count(text) == {text: 1}
    assert pretokenizer.split("") == [] and pretokenizer.count("") == {}


@pytest.mark.parametrize("name", PRETOKENIZER_NAMES)
def test_empty_text(name):
    pretokenizer = get_pretokenizer(name)
    assert pretokenizer.split("") == []
    assert pretokenizer.split_with_offsets("") == []
    assert pretokenizer.count("") == {}


def test_split_with_offsets_are_character_offsets():
    assert get_pretokenizer("gpt2").split_with_offsets("héllo 😀!") == [
        ("héllo", (0, 5)), (" 😀!", (5, 8))]


def test_split_special():
    specials = ["<|end|>", "<|endoftext|>", "a.b"]
    text = "<|endoftext|>x<|end|><|end|>axb a.b"
    assert split_special(text, specials) == [
        ("<|endoftext|>", 0, True), ("x", 13, False), ("<|end|>", 14, True), ("<|end|>", 21, True),
        ("axb ", 28, False), ("a.b", 32, True)]
    assert split_special("plain", []) == [("plain", 0, False)]
    assert split_special("plain", None) == [("plain", 0, False)]
    assert split_special("", ["<|end|>"]) == [] and split_special("", []) == []
    assert split_special("[x]", {"[x]": 5}) == [("[x]", 0, True)]
    with pytest.raises(PretokenizeError, match="non-empty strings"):
        split_special("a", [""])


@settings(max_examples=100, deadline=None)
@given(parts=st.lists(st.one_of(st.sampled_from(["<|a|>", "<|ab|>", "<|a", "|>", "<|"]), st.text(max_size=5)),
                      max_size=12))
def test_split_special_properties(parts):
    text = "".join(parts)
    specials = ["<|a|>", "<|ab|>"]
    chunks = split_special(text, specials)
    assert "".join(chunk for chunk, _, _ in chunks) == text
    assert all(chunk and text[start:start + len(chunk)] == chunk for chunk, start, _ in chunks)
    assert all((chunk in specials) == is_special for chunk, _, is_special in chunks)
    assert all(not (a[2] is False and b[2] is False) for a, b in zip(chunks, chunks[1:]))


# ---------------------------------------------------------------- benchmark


def benchmark(paths):
    """Print count() speed against Counter(re.findall) and Counter(regex.findall), in MB/s of UTF-8.

    "naive re" is Counter(findall) with the exact translated pattern alone;
    each text also runs with an emoji after every fifth word ("+emoji").
    """
    def best(function, repeat=3):
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            function()
            times.append(time.perf_counter() - start)
        return min(times)

    for path in paths:
        text = sample_text() if path == str(SAMPLE) else pathlib.Path(path).read_text(encoding="utf-8")
        words = text.split(" ")
        salted = " ".join(w + "😀" if i % 5 == 0 else w for i, w in enumerate(words))
        for label, body in ((path, text), (path + " +emoji", salted)):
            megabytes = len(body.encode()) / 1e6
            print(f"{label}: {megabytes:.2f} MB")
            for name in REGEX_PATTERNS:
                pretokenizer = get_pretokenizer(name)
                exact = pretokenizer.compiled
                original = regex.compile(PATTERNS[name])
                ours = best(lambda: pretokenizer.count(body))
                naive = best(lambda: Counter(exact.findall(body)))
                oracle = best(lambda: Counter(original.findall(body)))
                print(f"  {name:10} count {megabytes / ours:6.1f} MB/s | naive re {megabytes / naive:5.1f}"
                      f" | regex {megabytes / oracle:5.1f}")


if __name__ == "__main__":
    benchmark(sys.argv[1:] or [str(SAMPLE), *sorted(map(str, pathlib.Path("/usr/share/common-licenses").glob("*")))])
