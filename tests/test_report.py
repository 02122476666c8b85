"""Compression reports (seed 000 §8, seed 004 'How much to merge')."""

from bpelab import Tokenizer, train
from bpelab.report import compression, compression_report, curve_points, truncate_merges

TRAIN = ("the doctor was kicking the small house . the team walked to the green gate .\n") * 30
HELDOUT = "the doctor walked to the small gate .\n"


def test_bytes_only_tokenizer_is_one_token_per_byte():
    stats = compression(Tokenizer.bytes_only(), ["héllo wörld"])
    assert stats == {
        "documents": 1, "bytes": 13, "characters": 11, "words": 2, "tokens": 13,
        "bytes_per_token": 1.0, "characters_per_token": 11 / 13, "tokens_per_word": 6.5,
        "entries_used": 10, "vocab_size": 256,  # h l o w r d, space, C3 A9 B6
    }


def test_report_and_curve():
    result = train(TRAIN, num_merges=60, pretokenizer="whitespace")
    report = compression_report(result, HELDOUT)
    assert report["train"]["tokens"] < report["train"]["bytes"]
    curve = report["curve"]
    assert [p["merges"] for p in curve] == curve_points(len(result.merges))
    # No merges: one token per byte, so characters per token is characters / bytes.
    assert curve[0]["train"] == 1.0 and curve[0]["heldout"] == 1.0
    assert all(a["train"] <= b["train"] for a, b in zip(curve, curve[1:]))  # merges never lengthen training text
    assert curve[-1]["heldout"] == report["heldout"]["characters_per_token"]


def test_curve_x_axis_is_actual_merges():
    result = train("ab ab", num_merges=50, pretokenizer="whitespace", special_tokens=())
    assert len(result.merges) < 50
    assert compression_report(result)["curve"][-1]["merges"] == len(result.merges)


def test_truncate_merges_matches_training_fewer():
    full = train(TRAIN, num_merges=40).tokenizer
    short = train(TRAIN, num_merges=15).tokenizer
    cut = truncate_merges(full, 15)
    assert cut.merges == short.merges and cut.vocab == short.vocab
    assert cut.encode(HELDOUT) == short.encode(HELDOUT)


def test_training_curve_equals_encoding_with_fewer_merges():
    """The free training curve (the trainer's own counts) equals encoding with the first k merges."""
    from bpelab.report import _table_chars_per_token

    result = train(TRAIN + "Xin chào thế giới 新しい日本語 ", num_merges=50)
    for point in compression_report(result)["curve"]:
        encoded = _table_chars_per_token(truncate_merges(result.tokenizer, point["merges"]), result.pieces)
        assert point["train"] == encoded


def test_table_and_curve_agree_when_the_text_holds_special_tokens():
    """A special token is a boundary, not text: the table must not count <|endoftext|> as 13 characters in 1 token."""
    text = "the lowest widest fox<|endoftext|>newest lower " * 3
    heldout = "the newest fox<|endoftext|>lowest"
    result = train(text, num_merges=20)
    report = compression_report(result, heldout)
    assert report["curve"][-1]["train"] == report["train"]["characters_per_token"]
    assert report["curve"][-1]["heldout"] == report["heldout"]["characters_per_token"]
    assert report["heldout"]["characters"] == len(heldout) - len("<|endoftext|>")
    assert report["heldout"]["words"] == 4  # "fox" and "lowest" are two words either side of the token
