"""OpenAI's real vocabularies through our encoder: exactly tiktoken's ids.

The oracle is tiktoken itself, loaded offline by the `tiktoken_encoding`
fixture (conftest.py) from the same rank files under tiktoken's own hash
checks, with tiktoken's own patterns and special tokens. Nothing here
hard-codes an id except the three `hello world` rows that RESOURCES.md lists.
"""

import hashlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpelab import openai_vocab
from bpelab.openai_vocab import REFERENCES, gpt2_files, load_ranks, load_reference
from bpelab.ranks import RankFileError, bpe_parts, dump_tiktoken, parse_tiktoken, recover_merges

KEYS = tuple(REFERENCES)  # ("gpt2", "cl100k", "o200k")
TIKTOKEN_NAME = {"gpt2": "r50k_base", "cl100k": "cl100k_base", "o200k": "o200k_base"}


@pytest.fixture(scope="module")
def pair(reference_ranks, tiktoken_encoding):
    """key -> (our Tokenizer, tiktoken.Encoding)."""
    return lambda key: (load_reference(key), tiktoken_encoding(TIKTOKEN_NAME[key]))


def first_difference(ours, theirs):
    """Index of the first differing id, or None."""
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return i
    return None if len(ours) == len(theirs) else min(len(ours), len(theirs))


def assert_same_ids(key, text, ours, theirs, enc):
    """Equal id lists, or a failure that shows where the texts' tokens part ways."""
    if ours == theirs:
        return
    i = first_difference(ours, theirs)
    before = enc.decode_bytes(theirs[max(0, i - 5):i])
    raise AssertionError(
        f"{key}: ids differ at token {i} of {len(theirs)} (text of {len(text)} chars)\n"
        f"  context before: {before!r}\n"
        f"  tiktoken: {theirs[i:i + 8]} = {[enc.decode_single_token_bytes(t) for t in theirs[i:i + 8]]}\n"
        f"  bpelab:   {ours[i:i + 8]} = {[enc.decode_single_token_bytes(t) if t < enc.n_vocab else t for t in ours[i:i + 8]]}"
    )


def assert_parity(key, tok, enc, text):
    assert_same_ids(key, text, tok.encode_ordinary(text), enc.encode_ordinary(text), enc)


# --------------------------------------------------------------- rank files

def test_committed_hashes_are_tiktokens(tiktoken_sources):
    """Each rank file's committed sha256 is the expected_hash in tiktoken_ext.openai_public."""
    expected = {url.rsplit("/", 1)[-1]: digest for url, digest in tiktoken_sources}
    for info in REFERENCES.values():
        assert info.sha256 == expected[info.npm_file], info.key


@pytest.mark.parametrize("key", KEYS)
def test_built_file_is_openais(reference_ranks, key):
    data = reference_ranks[key].read_bytes()
    info = REFERENCES[key]
    assert hashlib.sha256(data).hexdigest() == info.sha256
    assert len(data) == info.size


@pytest.mark.parametrize("key", KEYS)
def test_parser_equals_tiktokens_loader(reference_ranks, key):
    """Our fast parser gives tiktoken's dict, and writing it back gives the file byte for byte."""
    from tiktoken.load import load_tiktoken_bpe

    path = reference_ranks[key]
    ours = parse_tiktoken(path.read_bytes())
    assert ours == load_tiktoken_bpe(str(path))
    assert dump_tiktoken(ours) == path.read_bytes()
    assert parse_tiktoken(path.read_bytes(), canonical=True) == ours
    assert load_ranks(key) == ours


def test_parser_errors_name_the_line():
    with pytest.raises(RankFileError, match=r"line 2: expected 'base64 rank'"):
        parse_tiktoken(b"YQ== 0\nYg==1\n")
    with pytest.raises(RankFileError, match=r"line 2: .* is not valid base64"):
        parse_tiktoken(b"YQ== 0\nY 1\n")
    with pytest.raises(RankFileError, match=r"line 2: token b'a' already has rank 0"):
        parse_tiktoken(b"YQ== 0\nYQ== 1\n")
    with pytest.raises(RankFileError, match=r"line 2: rank 0 is already used on line 1"):
        parse_tiktoken(b"YQ== 0\nYg== 0\n")
    with pytest.raises(RankFileError, match=r"line 1: rank '-1'"):
        parse_tiktoken(b"YQ== -1\n")


def test_parser_refuses_a_partial_line_on_every_python():
    """CPython before 3.11.5 matched b"/" with the possessive shape check (gh-106052); the slow path must name it."""
    with pytest.raises(RankFileError, match=r"line 1: expected 'base64 rank'"):
        parse_tiktoken(b"/")
    from bpelab import ranks

    assert ranks._CANONICAL_FILE.fullmatch(b"/") is None
    assert ranks._CANONICAL_FILE.fullmatch(b"YQ== 0\n") is not None


def test_parser_accepts_what_tiktoken_accepts():
    """Blank lines, no final newline and out-of-order ranks take the slow path to the same dict."""
    assert parse_tiktoken(b"YQ== 0\n\nYg== 1") == {b"a": 0, b"b": 1}
    assert parse_tiktoken(b"Yg== 7\r\nYQ== 3\r\n") == {b"b": 7, b"a": 3}


def test_missing_rank_file_says_how_to_build(tmp_path, monkeypatch):
    monkeypatch.setattr(openai_vocab, "RANKS_DIR", tmp_path)
    monkeypatch.setattr(openai_vocab, "_RANKS_CACHE", {})
    monkeypatch.setattr(openai_vocab, "_TOKENIZER_CACHE", {})
    with pytest.raises(openai_vocab.ReferenceVocabError, match=r"missing; build it with .*build_ranks\.py"):
        load_reference("cl100k")


def test_wrong_rank_file_is_refused(reference_ranks, tmp_path, monkeypatch):
    """A file that is not OpenAI's (here: one token dropped) fails its sha256 check."""
    data = reference_ranks["gpt2"].read_bytes()
    (tmp_path / "gpt2.tiktoken").write_bytes(data.split(b"\n", 1)[1])
    monkeypatch.setattr(openai_vocab, "RANKS_DIR", tmp_path)
    monkeypatch.setattr(openai_vocab, "_RANKS_CACHE", {})
    monkeypatch.setattr(openai_vocab, "_TOKENIZER_CACHE", {})
    with pytest.raises(openai_vocab.ReferenceVocabError, match=r"not OpenAI's file. Rebuild it with"):
        load_ranks("gpt2")
    with pytest.raises(openai_vocab.ReferenceVocabError, match=r"sha256"):
        load_ranks("gpt2", data=b"YQ== 0\n")


def test_rank_bytes_from_the_browser(reference_ranks, tiktoken_encoding, monkeypatch):
    """The page passes the fetched file's bytes; no file on disk is needed."""
    monkeypatch.setattr(openai_vocab, "_RANKS_CACHE", {})
    monkeypatch.setattr(openai_vocab, "_TOKENIZER_CACHE", {})
    monkeypatch.setattr(openai_vocab, "RANKS_DIR", reference_ranks["gpt2"].parent / "absent")
    tok = load_reference("gpt2", data=reference_ranks["gpt2"].read_bytes())
    text = "Bytes from the browser: 1234 ü"
    assert tok.encode(text) == tiktoken_encoding("r50k_base").encode(text)


def test_unknown_name_lists_the_choices():
    with pytest.raises(ValueError, match=r"unknown reference tokenizer 'gpt5'; choose one of 'gpt2', 'cl100k'"):
        load_reference("gpt5")


def test_loads_are_memoized(reference_ranks):
    assert load_reference("o200k") is load_reference("o200k_base")
    assert load_ranks("gpt2") is load_ranks("r50k_base")


# --------------------------------------------------------------- the tokenizers

@pytest.mark.parametrize("key", KEYS)
def test_same_pattern_special_tokens_and_size(pair, key):
    from bpelab.pretokenize import PATTERNS, TIKTOKEN_PATTERNS, get_pretokenizer

    tok, enc = pair(key)
    name = REFERENCES[key].pretokenizer
    assert TIKTOKEN_PATTERNS[name] == enc._pat_str
    # tiktoken's spelling of the pattern names our built-in pre-tokenizer (for gpt2,
    # the original GPT-2 spelling, which splits the same way: the parity tests show it).
    assert get_pretokenizer("custom", pattern=enc._pat_str).name == tok.pretokenizer.name == name
    assert tok.pretokenizer.pattern == PATTERNS[name]
    assert tok.special_tokens == enc._special_tokens
    assert tok.n_vocab == enc.n_vocab


@pytest.mark.parametrize("key,expected", [("gpt2", [31373, 995]), ("cl100k", [15339, 1917]), ("o200k", [24912, 2375])])
def test_hello_world(pair, key, expected):
    """The ids RESOURCES.md lists, from both encoders."""
    tok, enc = pair(key)
    assert enc.encode("hello world") == expected
    assert tok.encode("hello world") == expected


@pytest.mark.parametrize("key", KEYS)
def test_every_token_decodes_to_tiktokens_bytes(pair, key):
    tok, enc = pair(key)
    ids = sorted(set(load_ranks(key).values()) | set(enc._special_tokens.values()))
    assert [tok.token_bytes(i) for i in ids] == [enc.decode_single_token_bytes(i) for i in ids]


# --------------------------------------------------------------- edge cases

EDGE_CASES = [
    # whitespace
    "", " ", "  ", "   ", "\n", "\n\n", "\r\n", "\r\n\r\n", "\t", "\t\t", " \t\n\r\n  x", "a  b", "a   \n\n  b",
    "x\r\n\r\n\ty", "hello   ", "   leading", "trailing \n", "end\n  ", " \n \n \n", "\n \n\t\n  \r\n x",
    "a\u00a0b", "a\u00a0\u00a0b", "\u3000中\u3000", "a\u2028b\u2029c", "a\x0b\x0cb", "a\x1c\x1d\x1e\x1fb", " \x1c x",
    "\x85", "a\x85 b", "\u200b\u200c\u200d\ufeff", "\u2003\u2009x", " " * 100, "\n" * 50, "\t" * 33, " \n" * 20,
    "x" + " " * 37 + "y", "x" + "\r\n" * 9 + "y", "\r", "\r\r\n", "a\rb", "  \r\n\t  ", "word\t\tword",
    # numbers of every length, and other digits
    *["".join(str((i * 7 + 3) % 10) for i in range(n)) for n in range(1, 25)],
    " 1", " 12", " 123", " 1234", "a1234b", "3.14159265358979", "-42", "+7", "1,000,000", "1.000.000,00",
    "1e-10", "0x1F", "007", "2024-12-31T23:59:59Z", "٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "๐๑๒๓", "１２３４５",
    "½²³⁴①Ⅻ", "x²", "Ⅳ2", "1" * 100, "10" * 40,
    # contractions in mixed case, and apostrophes that are not contractions
    "don't", "DON'T", "Don'T", "dOn't", "we'll", "WE'LL", "We'Ll", "I'm", "I'M", "they've", "THEY'VE",
    "you'd", "YOU'D", "it's", "IT'S", "It'S", "'s", "'S", "''s", "'''", "’s", "it’s", "y'all", "rock'n'roll",
    "O'Neil's", "'re'", " 're", "x'll've", "'tis", "ǅ's", "ÀÉ'S", "Σ's", "1's", " 's", "\n's", "'",
    # (?i:...) folds 's' with U+017F LATIN SMALL LETTER LONG S, and 'k' with U+212A KELVIN SIGN
    "it'ſ", "'ſ", "IT'ſ", "they'ſ'ſ", "'ſſ", "'\u212a", "we'LL",
    # letters, cases and marks
    "HTMLParser", "camelCaseWord", "ABCdef", "abcDEF", "ǅungla", "ʰʲ", "ÀÉÎõü", "ﬁﬂ", "ŉ", "İstanbul", "ß ẞ",
    "e\u0301", "Tie\u0302\u0301ng Vie\u0323\u0302t", "Z̴̡̢a̷l̸g̵o̶", "a\u0301\u0301\u0301\u0301", "\u0301a", " \u0301",
    "क्षत्रिय", "मुहम्मद", "مُحَمَّد", "\u1100\u1161\u11a8", "ภาษาไทย", "한국어Korean", "日本語とEnglish",
    "中文English混合123", "ｶﾀｶﾅ", "Ｆｕｌｌ", "A̐", "x\u20dd", "\U0001d400\U0001d401", "\U00020000\U0002a6d6",
    # emoji, flags, modifiers, joiners
    "👍", "👍🏽", "👍🏿👍🏻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "❤️", "🇻🇳🇯🇵", "1️⃣", "#️⃣", "😀😀😀", "🧑🏽‍💻", " 😀", "a😀b",
    "\ufe0f", "\U000e0067", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    # punctuation runs, paths and code
    "!!!", "!!!!!!!!!!" * 20, "...", "?!", "/usr/bin//", "foo/bar//\n", " //\n\n", "--- \n", ")\r\n\r\n",
    "    return x**2\n", "if (a != b) {\n\treturn;\n}\n", "def f(x):\n    \n    return x\n\n\n",
    "https://example.com/a/b?c=d&e=f#g", "<html><body class=\"x\">\n  <p>Hi</p>\n</body></html>",
    "{\n  \"a\": [1, 2, 3],\n  \"b\": null\n}", "x = {'k': \"v\"}  # comment\r\n", "C:\\Users\\me\\",
    "a" * 1000, "ab" * 300, "中" * 300, "é" * 200, "😀" * 100, " a" * 300, "\u0301" * 150,
    # specials spelled as text
    "<|endoftext|>", "a<|endoftext|>b", "<|endoftext|><|endoftext|>", "<|endoftext", "|endoftext|>",
    "<|fim_prefix|>x<|fim_suffix|>", "<|endofprompt|>", "< |endoftext|>", "<|ENDOFTEXT|>",
]


@pytest.mark.parametrize("key", KEYS)
def test_edge_cases(pair, key):
    tok, enc = pair(key)
    for text in EDGE_CASES:
        assert_parity(key, tok, enc, text)
        assert tok.decode(tok.encode_ordinary(text)) == text


@pytest.mark.parametrize("key", KEYS)
def test_edge_cases_joined(pair, key):
    """The same strings run together, so each one's edges meet another's."""
    tok, enc = pair(key)
    assert_parity(key, tok, enc, "".join(EDGE_CASES))
    assert_parity(key, tok, enc, "\n".join(EDGE_CASES))
    assert_parity(key, tok, enc, " ".join(EDGE_CASES))


@pytest.mark.parametrize("key", KEYS)
def test_committed_multilingual_sample(pair, key):
    """tests/data/multilingual_edge.txt: eight languages and more, needs no download."""
    from pathlib import Path

    text = (Path(__file__).parent / "data" / "multilingual_edge.txt").read_text("utf-8")
    tok, enc = pair(key)
    assert_parity(key, tok, enc, text)
    for line in text.splitlines(keepends=True):
        assert_parity(key, tok, enc, line)


def code_point_probe(cp):
    """One code point in the spots where the patterns ask "letter? number? mark? space?"."""
    c = chr(cp)
    return f"{c}'s{c}1 {c}A{c}\n"


@pytest.mark.parametrize("key", KEYS)
def test_code_points_across_unicode(pair, key):
    """Every 13th code point (all planes) classifies as in tiktoken: its Unicode version, not ours.

    A code point that `regex` calls a letter but tiktoken's Unicode tables leave
    unassigned (or the reverse) splits `X's` differently, so the ids differ.
    """
    tok, enc = pair(key)
    points = [cp for cp in range(0, 0x110000, 13) if not 0xD800 <= cp <= 0xDFFF]
    failing_blocks = 0
    examples = []
    for start in range(0, len(points), 4000):
        block = points[start:start + 4000]
        text = "".join(map(code_point_probe, block))
        if tok.encode_ordinary(text) == enc.encode_ordinary(text):
            continue
        failing_blocks += 1
        for cp in block:
            probe = code_point_probe(cp)
            if len(examples) < 10 and tok.encode_ordinary(probe) != enc.encode_ordinary(probe):
                examples.append(f"U+{cp:04X} {probe!r}: tiktoken {enc.encode_ordinary(probe)}, "
                                f"bpelab {tok.encode_ordinary(probe)}")
    assert not failing_blocks, (
        f"{failing_blocks} blocks of 4000 code points split differently, e.g.\n" + "\n".join(examples)
    )


# --------------------------------------------------------------- real text

@pytest.mark.parametrize("key", KEYS)
def test_multilingual_corpus(pair, corpora, key):
    """At least 1 MB of ar, en, hi, ja, ko, ru, vi and zh prose, whole and per language."""
    text = corpora["multilingual"].read_text("utf-8")
    assert len(text.encode("utf-8")) >= 1_000_000
    tok, enc = pair(key)
    assert_parity(key, tok, enc, text)


@pytest.mark.parametrize("key", KEYS)
def test_english_and_code_corpora(pair, corpora, key):
    """The whole KJV (4 MB) and 3M characters of Python's reST docs (indentation, code, long runs of spaces)."""
    tok, enc = pair(key)
    for name, size in (("kjv", None), ("pydocs", 3_000_000)):
        text = corpora[name].read_text("utf-8")[:size]
        assert_parity(key, tok, enc, text)


# --------------------------------------------------------------- generated text

# Fragments chosen to sit on the patterns' decision points, joined at random.
FRAGMENTS = [
    " ", "  ", "\n", "\r\n", "\t", "\r", "\u00a0", "\u3000", "\x1c", "'", "'s", "'S", "'ll", "'Ve", "’", "1", "12",
    "123", "1234", "٣", "a", "A", "ab", "Ab", "aB", "ǅ", "ʰ", "é", "e\u0301", "\u0301", "中文", "カナ", "한", "ह",
    "्", "ع", "я", "Я", "😀", "🏽", "\u200d", "\ufe0f", "!", "?!", "...", "/", "//", "\\", "-", "_", "$", "<|",
    "|>", "<|endoftext|>", "<|endofprompt|>", "<|fim_middle|>", "{", "}", "(", ")", "\"", "#",
]
generated_text = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=3)), max_size=30).map("".join),
)


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=generated_text)
def test_generated_text(pair, key, text):
    tok, enc = pair(key)
    assert_parity(key, tok, enc, text)
    assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    assert tok.decode(tok.encode_ordinary(text)) == text


# --------------------------------------------------------------- special tokens

def outcome(encode, text, **policy):
    """The ids, or the fact that a ValueError was raised (both libraries raise ValueError)."""
    try:
        return encode(text, **policy)
    except ValueError:
        return "ValueError"


ALL_SPECIALS = sorted({s for info in REFERENCES.values() for s, _ in info.special_tokens})


@pytest.mark.parametrize("key", KEYS)
def test_special_token_policies(pair, key):
    """raise (the default), allow and text behave as tiktoken's encode does, for every policy mix."""
    tok, enc = pair(key)
    own = sorted(tok.special_tokens)
    texts = [f"a{s}b" for s in ALL_SPECIALS] + ["".join(ALL_SPECIALS), f"x {own[0]} y {own[-1]}\n", "plain"]
    policies = [
        {},
        {"allowed_special": "all"},
        {"disallowed_special": ()},
        {"allowed_special": set(), "disallowed_special": ()},
        {"allowed_special": {own[0]}},
        {"allowed_special": {own[0]}, "disallowed_special": ()},
        {"allowed_special": {own[-1]}, "disallowed_special": {own[0]}},
        {"allowed_special": set(own)},
        {"allowed_special": "all", "disallowed_special": ()},
        {"disallowed_special": {own[0]}},
    ]
    for text in texts:
        for policy in policies:
            expected = outcome(enc.encode, text, **policy)
            assert outcome(tok.encode, text, **policy) == expected, (text, policy)
        assert tok.encode_ordinary(text) == enc.encode_ordinary(text)


@pytest.mark.parametrize("key", KEYS)
def test_disallowed_special_message_says_what_to_pass(pair, key):
    tok, _ = pair(key)
    with pytest.raises(ValueError, match=r"<\|endoftext\|>.*allowed_special"):
        tok.encode("before <|endoftext|> after")


# --------------------------------------------------------------- GPT-2's files and merges

def test_gpt2_files_are_openais_byte_for_byte(tiktoken_sources):
    """Rebuilt encoder.json and vocab.bpe hash to the sha256 that tiktoken's gpt2() expects."""
    expected = {url.rsplit("/", 1)[-1]: digest for url, digest in tiktoken_sources}
    encoder_json, vocab_bpe = gpt2_files()
    assert hashlib.sha256(encoder_json.encode("utf-8")).hexdigest() == expected["encoder.json"]
    assert hashlib.sha256(vocab_bpe.encode("utf-8")).hexdigest() == expected["vocab.bpe"]


def test_gpt2_files_structure():
    encoder_json, vocab_bpe = gpt2_files()
    encoder = json.loads(encoder_json)
    lines = vocab_bpe.split("\n")
    assert len(encoder) == 50257
    assert sorted(encoder.values()) == list(range(50257))
    assert encoder["<|endoftext|>"] == 50256
    assert lines[0] == "#version: 0.2" and lines[-1] == ""
    merges = lines[1:-1]
    assert len(merges) == 50000
    assert merges[0] == "Ġ t"
    # Each merge's result is the token whose id is 256 + its line.
    for rank, line in enumerate(merges[:2000]):
        a, b = line.split(" ")
        assert encoder[a + b] == 256 + rank


def test_tiktoken_reads_our_gpt2_files(tiktoken_encoding):
    """tiktoken's `gpt2` encoding, built from our encoder.json + vocab.bpe, equals r50k_base."""
    gpt2, r50k = tiktoken_encoding("gpt2"), tiktoken_encoding("r50k_base")
    assert gpt2._mergeable_ranks == r50k._mergeable_ranks
    text = "GPT-2's files, rebuilt: 123 ü 中文 😀\n"
    assert gpt2.encode(text) == r50k.encode(text)


def test_artifacts_round_trip_gpt2(pair):
    """artifacts writes the same GPT-2 files and reads them back to the same ids."""
    from bpelab import artifacts

    tok, enc = pair("gpt2")
    encoder_json, vocab_bpe = artifacts.to_gpt2_files(tok)  # the ranks are already in GPT-2's id layout
    assert (encoder_json, vocab_bpe) == gpt2_files()
    again = artifacts.from_gpt2_files(encoder_json, vocab_bpe, pretokenizer="gpt2")
    text = (__import__("pathlib").Path(__file__).parent / "data" / "multilingual_edge.txt").read_text("utf-8")
    assert again.encode_ordinary(text) == enc.encode_ordinary(text)


def test_recover_merges_worked_example():
    """'aaa' with ranks a=0, aa=1, aaa=2: BPE below rank 2 gives [aa, a], so the merge is (aa, a)."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"aa": 256, b"aaa": 257, b"ab": 258, b"aab": 259})
    assert bpe_parts(ranks, b"aaa", max_rank=257) == [b"aa", b"a"]
    # 'aab' below 259: 'aa' (256) merges before 'ab' (258), leaving [aa, b].
    assert recover_merges(ranks) == [(b"a", b"a"), (b"aa", b"a"), (b"a", b"b"), (b"aa", b"b")]


def test_recover_merges_refuses_a_table_that_is_not_bpe():
    ranks = {bytes([b]): b for b in range(256)} | {b"abc": 256}
    with pytest.raises(RankFileError, match=r"b'abc' \(rank 256\) is not a merge of two lower-ranked tokens"):
        recover_merges(ranks)


@pytest.mark.parametrize("key", ["cl100k", "o200k"])
def test_recovered_merges_encode_like_the_ranks(pair, key):
    """A pair-rule tokenizer from the recovered merges gives tiktoken's ids (cl100k, o200k)."""
    from bpelab.tokenizer import Tokenizer

    ranks = load_ranks(key)
    merges = recover_merges(ranks)
    assert len(merges) == len(ranks) - 256
    tok, enc = pair(key)
    by_pairs = Tokenizer(
        {rank: token for token, rank in ranks.items()},
        [(ranks[a], ranks[b]) for a, b in merges],
        special_tokens=tok.special_tokens,
        pretokenizer=tok.pretokenizer,
    )
    text = "\n".join(EDGE_CASES)
    assert by_pairs.encode_ordinary(text) == enc.encode_ordinary(text)
