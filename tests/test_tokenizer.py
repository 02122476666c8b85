"""Tokenizer: round trips, the special-token policy, decoding and errors."""

import pytest
from hypothesis import given, settings, strategies as st

from bpelab import DisallowedSpecialError, InvalidTextError, Tokenizer, train
from bpelab import tokenizer as tokenizer_module

TRAINING = (
    "The quick brown fox jumps over the lazy dog. Xin chào thế giới! 新しい日本語のテキスト。"
    " Привет, мир! 12345 67890 don't WON'T we'll\n\n\tindented\r\n 🙂👍🏽 café naïve e\u0301\n"
) * 3


@pytest.fixture(scope="module", params=["bytes", "whitespace", "gpt2", "cl100k", "o200k"])
def tok(request):
    return train(TRAINING, num_merges=120, pretokenizer=request.param).tokenizer


@settings(max_examples=200, deadline=None)
@given(text=st.text())
def test_round_trip_any_text(tok, text):
    assert tok.decode(tok.encode_ordinary(text)) == text


@pytest.mark.parametrize("text", ["", "a", "  two  spaces", "🙂 emoji\n", "\r\n\r\n", "x" * 1000, "新" * 300])
def test_round_trip_odd_strings(tok, text):
    ids = tok.encode(text)
    assert tok.decode(ids) == text and tok.decode_bytes(ids) == text.encode("utf-8")


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab ç新🙂"))), threshold=st.integers(2, 6))
def test_long_piece_merger_equals_the_list_scan(text, threshold):
    tok = train("ab ab aab çç 新新 🙂🙂 " * 5, num_merges=30, pretokenizer="bytes").tokenizer
    short = tok.encode_piece(text.encode())
    saved = tokenizer_module._LONG_PIECE
    tokenizer_module._LONG_PIECE = threshold
    try:
        assert tok.encode_piece(text.encode()) == short
    finally:
        tokenizer_module._LONG_PIECE = saved


def test_ranks_rule_equals_pairs_rule_on_trained_vocab():
    tok = train(TRAINING, num_merges=150).tokenizer
    ranks = {token: i for i, token in tok.vocab.items()}
    by_ranks = Tokenizer.from_ranks(ranks, special_tokens=tok.special_tokens, pretokenizer=tok.pretokenizer)
    text = TRAINING + "unseen words: lowering, Приветствую, 日本語"
    assert by_ranks.encode(text) == tok.encode(text)


def test_special_policy():
    tok = train("hello world", num_merges=3, special_tokens=("<|endoftext|>", "<|end|>")).tokenizer
    eot, end = tok.special_tokens["<|endoftext|>"], tok.special_tokens["<|end|>"]
    text = "a<|endoftext|>b<|end|>"
    with pytest.raises(DisallowedSpecialError, match=r"'<\|endoftext\|>' at character 1"):
        tok.encode(text)
    assert tok.encode(text, allowed_special="all") == [97, eot, 98, end]
    # Allowing one and not disallowing the other: the other is plain text.
    assert tok.encode(text, allowed_special={"<|end|>"}, disallowed_special=()) == (
        tok.encode_ordinary("a<|endoftext|>b") + [end]
    )
    with pytest.raises(DisallowedSpecialError, match="<\\|end\\|>"):
        tok.encode(text, allowed_special={"<|endoftext|>"})
    with pytest.raises(ValueError, match="lacks"):
        tok.encode("x", allowed_special={"<|nope|>"})


def test_longest_special_wins():
    tok = Tokenizer.bytes_only(special_tokens={"<a>": 256, "<a><b>": 257}, pretokenizer="gpt2")
    assert tok.encode("<a><b><a>", allowed_special="all") == [257, 256]


def test_lone_surrogate_is_a_clear_error(tok):
    with pytest.raises(InvalidTextError, match=r"lone surrogate U\+DC00 at character 5"):
        tok.encode("hello\udc00world")
    with pytest.raises(InvalidTextError):
        tok.encode_ordinary("\ud800")
    with pytest.raises(InvalidTextError, match=r"lone surrogate U\+DC00 at character 2"):
        tok.encode_trace("ab\udc00")


def test_decode_errors_and_unknown_ids(tok):
    with pytest.raises(UnicodeDecodeError):
        tok.decode([0xE2, 0x82])
    assert tok.decode([0xE2, 0x82], errors="replace") == "\ufffd"
    with pytest.raises(ValueError, match="unknown token id 999999"):
        tok.decode([999999])
    with pytest.raises(ValueError, match="errors must be"):
        tok.decode([65], errors="ignore")


def test_stream_decoder_buffers_partial_utf8():
    tok = Tokenizer.bytes_only()
    ids = tok.encode("a€🙂")
    decoder = tok.stream_decoder()
    pieces = [decoder.feed([i]) for i in ids]
    assert "".join(pieces) + decoder.flush() == "a€🙂"
    assert pieces[:3] == ["a", "", ""]
    unfinished = tok.stream_decoder()
    unfinished.feed([0xF0, 0x9F])
    with pytest.raises(UnicodeDecodeError):
        unfinished.flush()


def test_vocab_validation():
    with pytest.raises(ValueError, match="needs a token for each of the 256 bytes; missing 1, first 0xFF"):
        Tokenizer({i: bytes([i]) for i in range(255)}, [], pretokenizer="bytes")
    vocab = {i: bytes([i]) for i in range(256)}
    with pytest.raises(ValueError, match="makes b'ab', which is not in the vocabulary"):
        Tokenizer(vocab, [(97, 98)])
    with pytest.raises(ValueError, match="also ordinary token ids"):
        Tokenizer(vocab, [], special_tokens={"<s>": 5})


_spacey = st.lists(st.sampled_from(list("ab é新🙂'\n\t\r\u3000\x1c") + ["  ", " \n ", "'s", "12345"])).map("".join)


@settings(max_examples=100, deadline=None)
@given(text=_spacey)
def test_cached_encoder_equals_plain_bpe_per_piece(text):
    tok = train("ab ab  é新 🙂 'sa\n\t 12345 " * 3, num_merges=40).tokenizer
    plain = [i for piece in tok.pretokenizer.split(text) for i in tok.encode_piece(piece.encode("utf-8"))]
    assert tok.encode_ordinary(text) == plain
    assert tok.encode_ordinary(text) == plain  # again, from the caches


_cjk = st.lists(st.sampled_from(list("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴具存底住")
                + list("こんにちは世界、トークナイザーを学ぶ。안녕하세요 세계Привет ёж") + list(" ,.'")),
               max_size=60).map("".join)


@settings(max_examples=150, deadline=None)
@given(text=_cjk)
def test_segments_never_change_the_ids(text):
    """Cutting long pieces where no token can span gives the ids of BPE on the whole piece."""
    from bpelab.openai_vocab import load_reference

    for tok in (load_reference("o200k"), train("中国人民 日本語 中文 的的 " * 5, num_merges=60).tokenizer):
        for piece in tok.pretokenizer.split(text):
            assert tok._encode_piece_text(piece) == tok.encode_piece(piece.encode("utf-8")), piece


@settings(max_examples=150, deadline=None)
@given(text=_spacey, size=st.integers(1, 12), name=st.sampled_from(["whitespace", "gpt2", "cl100k", "o200k"]))
def test_segments_split_like_the_whole_text(text, size, name):
    """Pretokenizer.segments (used to count long texts and to share them among processes) never moves a split."""
    from bpelab.pretokenize import get_pretokenizer

    pretokenizer = get_pretokenizer(name)
    parts = pretokenizer.segments(text, size)
    assert "".join(parts) == text
    assert [piece for part in parts for piece in pretokenizer.split(part)] == pretokenizer.split(text)


def test_clear_cache_forgets_every_encoding():
    tok = train("新しい日本語のテキスト hello world " * 3, num_merges=30).tokenizer
    text = "hello 新しい日本語のテキストです world"
    ids = tok.encode(text)
    assert tok._cache and tok._segment_cache and tok._chars
    tok.clear_cache()
    assert not (tok._cache or tok._segment_cache or tok._chars)
    assert tok.encode(text) == ids


def test_caches_restart_when_full(monkeypatch):
    tok = train("新しい日本語のテキスト hello world " * 3, num_merges=30).tokenizer
    text = "hello 新しい日本語のテキストです world"
    ids = tok.encode(text)
    monkeypatch.setattr(tokenizer_module, "_CACHE_LIMIT", 3)
    assert len(tok._chars) > 3
    assert tok.encode("x") == [ord("x")]  # the next call starts by emptying every cache
    assert len(tok._cache) == 1 and not tok._segment_cache and not tok._chars
    assert tok.encode(text) == ids


def _random_merge_tokenizer(rng, corpus, merges, by_ranks, shuffled):
    """A tokenizer whose merges join random neighbours in `corpus`, making tokens across and
    inside characters. `shuffled` puts the merges in random rank order, so a token may rank
    below the tokens it is made of: no trainer makes that, but a loaded file may say it."""
    vocab = {i: bytes([i]) for i in range(256)}
    ids_by_bytes = {token: i for i, token in vocab.items()}
    rows = [list(piece.encode("utf-8")) for piece in corpus]
    pairs = []
    for _ in range(merges):
        sites = [(r, i) for r, row in enumerate(rows) for i in range(len(row) - 1)]
        if not sites:
            break
        r, i = rng.choice(sites)
        a, b = rows[r][i], rows[r][i + 1]
        if (a, b) in pairs:
            continue
        token = vocab[a] + vocab[b]
        new = ids_by_bytes.setdefault(token, len(vocab))
        vocab[new] = token
        pairs.append((a, b))
        for row in rows:  # apply the merge everywhere, left to right
            j = 0
            while j < len(row) - 1:
                if (row[j], row[j + 1]) == (a, b):
                    row[j : j + 2] = [new]
                j += 1
    if shuffled:
        rng.shuffle(pairs)
    if by_ranks:
        made = [token for i, token in vocab.items() if i >= 256]
        if shuffled:
            rng.shuffle(made)
        tokens = [bytes([b]) for b in range(256)] + made
        return Tokenizer.from_ranks({token: rank for rank, token in enumerate(tokens)}, pretokenizer="bytes")
    return Tokenizer(vocab, pairs, pretokenizer="bytes")


_mixed = st.text(alphabet=st.sampled_from(list("a é新字ж🙂ك")), min_size=1, max_size=24)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), corpus=st.lists(_mixed, min_size=1, max_size=4), texts=st.lists(_mixed, max_size=4),
       merges=st.integers(1, 40), by_ranks=st.booleans(), shuffled=st.booleans())
def test_starting_from_characters_equals_bpe_from_bytes(seed, corpus, texts, merges, by_ranks, shuffled):
    """Pre-merged characters give the ids of BPE from bytes, even for vocabularies
    no trainer would make (the limits and the spanned boundaries must then catch it)."""
    import random

    tok = _random_merge_tokenizer(random.Random(seed), corpus, merges, by_ranks, shuffled)
    for text in corpus + texts:
        assert tok._encode_characters(text) == tok._merge_bytes(text.encode("utf-8")), text


def _ranks_tokenizer(tokens):
    """A ranks-rule tokenizer: the 256 bytes (ranked last, they never merge by rank) and `tokens`."""
    ranks = {bytes([b]): 10_000 + b for b in range(256)}
    ranks.update({text.encode("utf-8") if isinstance(text, str) else text: rank for text, rank in tokens.items()})
    return Tokenizer.from_ranks(ranks, pretokenizer="bytes")


@pytest.mark.parametrize("tokens, expected", [
    # "ж新" ranks below "新": from bytes, "éж" (50) is made while "新" is still
    # in bytes, and "ж新" never gets its chance. Starting "新" whole would give [é, ж新].
    ({"é": 10, "ж": 20, b"\xe6\x96": 30, "éж": 50, "ж新": 40, "新": 100}, [50, 100]),
    # "新" is made at 20 but only after its own merge at 30, so "éж" (28) comes
    # first; the limit must be the highest of a character's merges, not its last.
    ({"é": 10, "ж": 12, b"\x96\xb0": 30, "新": 20, "éж": 28, "ж新": 25}, [28, 20]),
    # The partial token "ж" + two bytes of "新" (35) ranks above the first of
    # "新"'s own merges (30) but below its last (45), so it is made: "新"
    # must start in bytes; judged by its first merge it would start whole.
    ({"é": 10, "ж": 12, b"\xe6\x96": 30, "新": 45, "ж".encode() + b"\xe6\x96": 35}, [10, 35, 10_176]),
    # Here it ranks above "新" (45), so "新" is whole before it could be made:
    # starting whole is exact although a partial token spans the boundary.
    ({"é": 10, "ж": 12, b"\xe6\x96": 30, "新": 45, "ж".encode() + b"\xe6\x96": 55}, [10, 12, 45]),
])
def test_a_character_starts_whole_only_when_that_is_exact(tokens, expected):
    tok = _ranks_tokenizer(tokens)
    assert tok._merge_bytes("éж新".encode()) == expected  # plain BPE from bytes
    assert tok._encode_characters("éж新") == expected
    assert tok.encode_ordinary("éж新") == expected


def test_trace_ends_where_encode_does_for_an_unreachable_whole_token():
    """tiktoken's rule takes a piece that is a token whole, even one no sequence of merges reaches."""
    ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257}  # "abc" = "ab" + "c": reachable
    ranks[b"xyz"] = 258  # no "xy" or "yz": merges never reach it
    tok = Tokenizer.from_ranks(ranks, pretokenizer="bytes")
    assert tok.encode("xyz") == [258]
    assert tok.encode_trace("xyz") == [{"parts": [258], "candidates": [], "applied": None, "whole_piece": True}]
    trace = tok.encode_trace("abc")  # reachable: the merges are shown
    assert [step["applied"] for step in trace] == [(97, 98, 256), (256, 99, 257), None]
    assert trace[-1]["parts"] == tok.encode("abc") == [257]


# ------------------------------------------------------------- what the API refuses (issue 25)

_TYPE_ERRORS = [
    # (call, message); each on the bytes tokenizer and on a trained one
    (lambda t: t.decode([True]), r"ids\[0\] is True, a bool, which is not a token id"),
    (lambda t: t.decode([104, False]), r"ids\[1\] is False, a bool"),
    (lambda t: t.decode([104.0]), r"ids\[0\] must be an int \(a token id\), got float 104.0"),
    (lambda t: t.decode([104, "105"]), r"ids\[1\] must be an int \(a token id\), got str '105'"),
    (lambda t: t.decode([None]), r"ids\[0\] must be an int \(a token id\), got None"),
    (lambda t: t.decode([[1]]), r"ids\[0\] must be an int \(a token id\), got list \[1\]"),
    (lambda t: t.decode(b"hi"), r"ids must be a list of token ids \(ints\), got bytes b'hi'"),
    (lambda t: t.decode(bytearray(b"hi")), r"ids must be a list of token ids \(ints\), got bytearray"),
    (lambda t: t.decode(memoryview(b"hi")), r"ids must be a list of token ids \(ints\), got memoryview"),
    (lambda t: t.decode("104 105"), r"ids must be a list of token ids \(ints\), got str '104 105'"),
    (lambda t: t.decode(104), r"ids must be a list of token ids \(ints\), got int 104"),
    (lambda t: t.decode(None), r"ids must be a list of token ids \(ints\), got None"),
    (lambda t: t.decode_bytes([1.5]), r"ids\[0\] must be an int"),
    (lambda t: t.decode_bytes((True,)), r"ids\[0\] is True, a bool"),
    (lambda t: t.stream_decoder().feed([104.0]), r"ids\[0\] must be an int"),
    (lambda t: t.token_bytes(True), r"token_id must be an int \(a token id\), got bool True"),
    (lambda t: t.token_bytes(104.0), r"token_id must be an int \(a token id\), got float 104.0"),
    (lambda t: t.encode(None), r"text must be a str, got None"),
    (lambda t: t.encode(b"hi"), r"text must be a str, got bytes b'hi'; decode the bytes first"),
    (lambda t: t.encode(5), r"text must be a str, got int 5"),
    (lambda t: t.encode(["a", "b"]), r"text must be a str, got list \['a', 'b'\]; encode each text on its own"),
    (lambda t: t.encode_ordinary(None), r"text must be a str, got None"),
    (lambda t: t.encode_ordinary(bytearray(b"x")), r"text must be a str, got bytearray"),
    (lambda t: t.encode_trace(None), r"piece must be a str, got None"),
    (lambda t: t.encode_piece("hi"), r"piece must be bytes \(one pre-token in UTF-8\), got str 'hi'"),
    (lambda t: t.encode_piece(None), r"piece must be bytes"),
    (lambda t: t.encode("a", allowed_special="<|endoftext|>"),
     r"allowed_special must be 'all' or a collection of special tokens, got the str '<\|endoftext\|>'"),
    (lambda t: t.encode("a", disallowed_special="none"), r"disallowed_special must be 'all' or a collection"),
    (lambda t: t.encode("a", allowed_special=5), r"allowed_special must be 'all' or a collection .*got int 5"),
    (lambda t: t.encode("a", allowed_special={5}), r"allowed_special must hold special tokens as str, got int 5"),
]


@pytest.mark.parametrize("kind", ["bytes", "trained"])
@pytest.mark.parametrize("call, message", _TYPE_ERRORS)
def test_wrong_types_are_clear_type_errors(kind, call, message):
    tok = Tokenizer.bytes_only() if kind == "bytes" else train(TRAINING, num_merges=20).tokenizer
    with pytest.raises(TypeError, match=message):
        call(tok)


def test_a_huge_wrong_value_is_quoted_short():
    with pytest.raises(TypeError) as info:
        Tokenizer.bytes_only().encode(b"x" * 10_000_000)
    assert len(str(info.value)) < 200 and "of 10,000,000 bytes" in str(info.value)
    with pytest.raises(TypeError) as info:
        Tokenizer.bytes_only().decode([0.5] * 10_000_000)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("ids", [(104, 105), [104, 105], range(104, 106), iter([104, 105])])
def test_any_iterable_of_ints_decodes(ids):
    import array

    tok = Tokenizer.bytes_only()
    assert tok.decode(ids) == "hi"
    assert tok.decode(array.array("H", [104, 105])) == "hi"
