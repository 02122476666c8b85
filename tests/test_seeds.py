"""The seeds' worked examples, as exact-value tests. Each docstring names its seed."""

import pytest

from bpelab import DisallowedSpecialError, Tokenizer, train
from bpelab.artifacts import from_gpt2_files, to_gpt2_files
from bpelab.byte_unicode import BYTE_TO_CHAR
from bpelab.reference import reference_train

SEED003_CORPUS = (
    "low low low low low\n"
    "lower lower widest widest widest\n"
    "newest newest newest newest newest newest\n"
)


@pytest.fixture(scope="module")
def toy():
    """Seed 003: vocabulary 265 = 256 bytes + 8 merges + <|endoftext|>."""
    return train(SEED003_CORPUS, vocab_size=265, record=True)


def names(tokenizer, ids):
    return [tokenizer.token_bytes(i) for i in ids]


def test_seed003_merges_and_counts(toy):
    """Seed 003 'Step 3': the eight merges, with counts 9, 9, 7, 7, 6, 6, 6, 5."""
    tok = toy.tokenizer
    assert [(tok.vocab[a], tok.vocab[b]) for a, b in toy.merges] == [
        (b"s", b"t"), (b"e", b"st"), (b"o", b"w"), (b"l", b"ow"),
        (b"w", b"est"), (b"n", b"e"), (b"ne", b"west"), (b" ", b"newest"),
    ]
    assert toy.merge_counts == [9, 9, 7, 7, 6, 6, 6, 5]


def test_seed003_vocabulary(toy):
    """Seed 003 'What training produced': ids 256..264."""
    tok = toy.tokenizer
    assert {i: tok.token_bytes(i) for i in range(256, 265)} == {
        256: b"st", 257: b"est", 258: b"ow", 259: b"low", 260: b"west",
        261: b"ne", 262: b"newest", 263: b" newest", 264: b"<|endoftext|>",
    }
    assert tok.special_tokens == {"<|endoftext|>": 264}


def test_seed003_pretoken_table(toy):
    """Seed 003 'Step 1': 8 distinct pre-tokens, 19 occurrences, with their counts."""
    table = {piece: count for piece, count in toy.pieces}
    assert len(table) == 8 and sum(table.values()) == 19
    assert table[b" newest"] == 5 and table[b" low"] == 4 and table[b"\n"] == 3 and table[b"low"] == 1


def test_seed003_first_step_record(toy):
    """Seed 003 'Merge 1, st': the three rows holding (s, t) change; (e, s) vanishes, (e, st) appears at 9."""
    step = toy.steps[0]
    assert step["top"][:2] == [(ord("s"), ord("t"), 9), (ord("e"), ord("s"), 9)]
    assert step["rows_changed"] == 3
    assert (ord("e"), ord("s"), 9) in step["vanished"]
    assert (ord("e"), 256, 9) in step["appeared"]
    assert step["tokens_after"] == sum(len(p) * c for p, c in toy.pieces) - 9


def test_seed003_whole_string(toy):
    """Seed 003: 46 bytes -> 21 tokens, with the special token in the middle."""
    text = "the lowest widest fox<|endoftext|>newest lower"
    ids = toy.tokenizer.encode(text, allowed_special="all")
    assert ids == [116, 104, 101, 32, 259, 257, 32, 119, 105, 100, 257, 32, 102, 111, 120, 264, 262, 32, 259, 101, 114]
    assert len(text.encode()) == 46
    assert toy.tokenizer.decode(ids) == text


def test_seed003_unseen_words(toy):
    """Seed 003: newer -> (ne, w, e, r); zzqq stays four bytes; ␣newest is one token."""
    tok = toy.tokenizer
    assert tok.encode("newer") == [261, 119, 101, 114]
    assert tok.encode("zzqq") == [122, 122, 113, 113]
    assert tok.encode(" newest") == [263]


def test_seed003_encode_lowest_trace(toy):
    """Seed 003 "encode 'lowest'": four iterations, rank decides, result low + est."""
    trace = toy.tokenizer.encode_trace("lowest")
    o, w, s, t, l, e = (ord(c) for c in "owstle")
    assert [step["candidates"] for step in trace[:-1]] == [
        [(o, w, 2), (s, t, 0)],
        [(o, w, 2), (e, 256, 1)],
        [(o, w, 2), (w, 257, 4)],
        [(l, 258, 3)],
    ]
    assert [step["applied"][2] for step in trace[:-1]] == [0, 1, 2, 3]
    assert trace[-1] == {"parts": [259, 257], "candidates": [], "applied": None}


def test_seed003_special_token_is_refused_by_default(toy):
    """Seed 003 / tiktoken policy: a special spelling in user text needs a decision."""
    with pytest.raises(DisallowedSpecialError, match="allowed_special"):
        toy.tokenizer.encode("a<|endoftext|>")
    assert 264 not in toy.tokenizer.encode_ordinary("a<|endoftext|>")


def test_seed000_weighted_words():
    """Seed 000 §2: low:5 lower:2 newest:2 widest:3; (l,o)=7 beats (e,s)=5 on the lexicographic tie rule."""
    words = ["low"] * 5 + ["lower"] * 2 + ["newest"] * 2 + ["widest"] * 3
    result = train(words, num_merges=2, pretokenizer="bytes", tie_break="smaller-id", special_tokens=())
    assert result.merges == [(ord("l"), ord("o")), (256, ord("w"))]
    assert result.merge_counts == [7, 7]


def test_seed000_abab_abac():
    """Seed 000 §3: train(['abab','abac'], 4) learns only (97,98)->256, then stops below count 2."""
    result = train(["abab", "abac"], num_merges=4, pretokenizer="bytes", tie_break="smaller-id",
                   min_count=2, special_tokens=())
    assert result.merges == [(97, 98)] and result.merge_counts == [3]
    assert result.stop_reason == "min_count"
    tok = result.tokenizer
    assert tok.encode("abab") == [256, 256] and tok.encode("abac") == [256, 97, 99]
    for text in ["", "abab", "café", "తెలుగు 🙂", "a\n  b"]:
        assert tok.decode(tok.encode(text)) == text


def test_seed000_document_boundary():
    """Seed 000 §3: no pair between one document's last byte and the next one's first."""
    result = train(["ab", "ba"], num_merges=5, pretokenizer="bytes", special_tokens=())
    assert (ord("b"), ord("b")) not in result.merges and len(result.merges) == 2


def test_seed000_rank_counterexample():
    """Seed 000 §4: ranks bc before ab; 'abc' encodes as [a, bc], not longest-match [ab, c]."""
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"bc", 257: b"ab"}
    tok = Tokenizer(vocab, [(98, 99), (97, 98)], pretokenizer="bytes")
    assert tok.encode("abc") == [97, 256]


def test_seed000_aaa_overlap():
    """Seed 000 §1: in aaa the pair count is 2 but only one merge happens."""
    result = train("aaa", num_merges=1, pretokenizer="bytes", special_tokens=(), record=True)
    assert result.merge_counts == [2] and result.steps[0]["merged"] == 1
    assert result.tokenizer.encode("aaa") == [256, 97]


def test_seed000_qx_control():
    """Seed 000 §4: qx repeated beats a rare morphological boundary; ranked encode equals replay."""
    training = ["qx " * 30, "unhappiness", "ababab café café", "తెలుగు 🙂 తెలుగు 🙂"]
    settings = dict(num_merges=30, pretokenizer="bytes", tie_break="smaller-id", min_count=2, special_tokens=())
    result = train(training, **settings)
    assert result.merges[0] == (113, 120)
    assert result.merges == reference_train(training, **settings)[0]
    tok = result.tokenizer
    for text in training + ["new text", "", "a\n  b", "12345", " Hello"]:
        ids = list(text.encode("utf-8"))
        for rank, pair in enumerate(result.merges):  # replay every merge in order
            ids = _merge(ids, pair, tok._merge_result[rank])
        assert tok.encode(text) == ids
        assert tok.decode(tok.encode(text)) == text


def _merge(ids, pair, new):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def test_seed000_artifact_round_trip():
    """Seed 000 §5: GPT-2-shaped files round-trip the rules and vocabulary; Ġ is the space byte."""
    training = ["qx " * 30, "unhappiness", "ababab café café", "తెలుగు 🙂 తెలుగు 🙂"]
    tok = train(training, num_merges=30, pretokenizer="bytes", tie_break="smaller-id", min_count=2,
                special_tokens=()).tokenizer
    encoder_json, vocab_bpe = to_gpt2_files(tok)
    assert vocab_bpe.startswith("#version: 0.2\n") and vocab_bpe.endswith("\n")
    back = from_gpt2_files(encoder_json, vocab_bpe, pretokenizer="bytes")
    assert back.merges == tok.merges and back.vocab == tok.vocab
    assert BYTE_TO_CHAR[32] == "Ġ" and len(set(BYTE_TO_CHAR.values())) == 256


def test_seed000_unicode_and_noncanonical_ids():
    """Seed 000 §6: unseen text round-trips; [255] is invalid UTF-8; [97,98] and [256] spell the same bytes."""
    tok = train(["abab", "abac"], num_merges=4, pretokenizer="bytes", tie_break="smaller-id", min_count=2,
                special_tokens=()).tokenizer
    assert tok.decode(tok.encode("新しい🙂")) == "新しい🙂"
    with pytest.raises(UnicodeDecodeError):
        tok.decode([255])
    assert tok.decode([97, 98]) == tok.decode([256]) == "ab"
    assert tok.encode(tok.decode([97, 98])) != [97, 98]


def test_seed000_structural_token_isolation():
    """Seed 000 §6: literal '<|endoftext|>' in user text stays text unless explicitly allowed."""
    tok = train("hello world", num_merges=3, special_tokens=("<|endoftext|>",)).tokenizer
    special = tok.special_tokens["<|endoftext|>"]
    assert special not in tok.encode_ordinary("<|endoftext|>")
    assert special not in tok.encode("<|endoftext|>", disallowed_special=())
    assert tok.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}) == [special]


WALK_TEXT = " walk" * 5 + " walking" * 4 + " walked" * 3 + " talks" * 2


def test_seed004_walk_trace():
    """Seed 004 'The algorithm by hand': a+l (14) first, then alk, ␣w, walk, walki, walkin, walking."""
    result = train(WALK_TEXT, num_merges=7, pretokenizer="whitespace", tie_break="first-seen",
                   special_tokens=(), record=True)
    tok = result.tokenizer
    made = [tok.vocab[a] + tok.vocab[b] for a, b in result.merges]
    assert made == [b"al", b"alk", b" w", b" walk", b" walki", b" walkin", b" walking"]
    assert result.merge_counts[0] == 14

    # The table's "top pairs (count)" column, step by step (seed 004).
    expected = [
        [(b"a", b"l", 14), (b"l", b"k", 14), (b" ", b"w", 12)],
        [(b"al", b"k", 14), (b" ", b"w", 12), (b"w", b"al", 12)],
        [(b" ", b"w", 12), (b"w", b"alk", 12), (b"alk", b"i", 4)],
        [(b" w", b"alk", 12), (b"alk", b"i", 4), (b"i", b"n", 4)],
        [(b" walk", b"i", 4), (b"i", b"n", 4), (b"n", b"g", 4)],
        [(b" walki", b"n", 4), (b"n", b"g", 4), (b" walk", b"e", 3)],
        [(b" walkin", b"g", 4), (b" walk", b"e", 3), (b"e", b"d", 3)],
    ]
    for step, want in zip(result.steps, expected):
        got = [(tok.vocab[a], tok.vocab[b], c) for a, b, c in step["top"][:3]]
        assert got == want, f"step {step['rank']}"
    # talks is never built: it stays ␣, t, alk, s.
    assert [tok.token_bytes(i) for i in tok.encode(" talks")] == [b" ", b"t", b"alk", b"s"]


def test_seed004_odd_strings_round_trip():
    """Seed 004 'A bug found by a round-trip test': the fixed pattern round-trips every odd string."""
    tok = train(WALK_TEXT, num_merges=7, pretokenizer="whitespace", tie_break="first-seen",
                special_tokens=()).tokenizer
    for text, chars, nbytes in [("café ☕", 6, 9), ("  two  spaces", 13, 13), ("🙂 emoji\n", 8, 11), ("", 0, 0), ("a", 1, 1)]:
        ids = tok.encode(text)
        assert len(text) == chars and len(text.encode()) == nbytes
        assert tok.decode(ids) == text
        assert len(ids) == nbytes  # nothing learned from walk/talk applies: one token per byte
