"""The token display model (bpelab.display): parts, whole-character groups, counts, policies, windows."""

import pytest

from bpelab.display import MAX_WINDOW, DisplayError, display_ids, display_text, token_parts
from bpelab.openai_vocab import load_reference
from bpelab.tokenizer import Tokenizer

BYTES = Tokenizer.bytes_only(special_tokens={"<|endoftext|>": 256})


def test_a_split_character_is_one_group_with_byte_chips_and_no_replacement_char():
    model = display_text(BYTES, "aớb")  # ớ is E1 BB 9B: three byte tokens
    assert [t["parts"] for t in model["tokens"]] == [[["t", "a"]], [["b", "E1"]], [["b", "BB"]], [["b", "9B"]], [["t", "b"]]]
    assert model["groups"] == [{"index": 1, "start": 1, "stop": 4, "text": "ớ"}]
    assert [t["group"] for t in model["tokens"]] == [0, 1, 1, 1, 2]
    assert [t["span"] for t in model["tokens"]] == [[0, 1], [1, 2], [1, 2], [1, 2], [2, 3]]
    assert "\ufffd" not in repr(model)


def test_a_token_with_a_whole_character_and_half_of_the_next_groups_with_its_neighbour():
    # GPT-2 splits "🙂" into partial tokens; together they spell the whole emoji.
    gpt2 = load_reference("gpt2")
    model = display_text(gpt2, "a🙂")
    decoded = "".join(g["text"] for g in model["groups"])
    assert "🙂" in decoded
    for token in model["tokens"]:
        for kind, value in token["parts"]:
            assert kind in ("t", "b") and "\ufffd" not in value


def test_parts_keep_whitespace_raw_and_show_control_bytes_as_chips():
    assert token_parts(b" a\n\t") == [["t", " a\n\t"]]
    assert token_parts(b"\x00x\x7f") == [["b", "00"], ["t", "x"], ["b", "7F"]]


def test_counts_match_python():
    text = "naïve café, 12 words\n"
    model = display_text(load_reference("cl100k"), text)
    counts = model["counts"]
    assert counts["tokens"] == len(model["ids"]) == model["total"]
    assert counts["characters"] == len(text) and counts["bytes"] == len(text.encode())
    assert counts["words"] == 4
    assert counts["bytes_per_token"] == round(counts["bytes"] / counts["tokens"], 4)
    assert counts["chars_per_token"] == round(len(text) / counts["tokens"], 4)
    assert counts["tokens_per_word"] == round(counts["tokens"] / 4, 4)
    empty = display_text(BYTES, "")["counts"]
    assert empty["tokens"] == 0 and empty["bytes_per_token"] is None and empty["tokens_per_word"] is None


def test_the_ids_are_tiktokens_for_every_policy(tiktoken_encoding):
    enc = tiktoken_encoding("cl100k_base")
    tok = load_reference("cl100k")
    text = "Hello <|endoftext|> world"
    assert display_text(tok, text, "allow")["ids"] == enc.encode(text, allowed_special="all")
    assert display_text(tok, text, "text")["ids"] == enc.encode(text, disallowed_special=())
    allowed = display_text(tok, text, "allow")
    assert [t.get("special", False) for t in allowed["tokens"]].count(True) == 1
    assert allowed["counts"]["specials"] == 1
    with pytest.raises(DisplayError, match=r"special token '<\|endoftext\|>' at character 6.*Choose allow.*or text"):
        display_text(tok, text, "raise")
    with pytest.raises(DisplayError, match="policy must be one of raise, allow, text, got 'maybe'"):
        display_text(tok, text, "maybe")


def test_a_window_draws_part_of_the_text_and_never_cuts_a_character():
    text = "ab" + "ớ" + "cd"
    full = display_text(BYTES, text)
    assert full["total"] == 7
    window = display_text(BYTES, text, start=3, stop=4)  # the middle byte of ớ
    assert (window["start"], window["stop"]) == (2, 5)
    assert window["ids"] == full["ids"][2:5]
    assert window["tokens"][0]["group"] == 2 and window["groups"][0]["text"] == "ớ"
    assert window["counts"] == full["counts"]  # counts are for the whole text
    assert display_text(BYTES, text, start=99)["tokens"] == []


def test_a_long_text_without_a_window_draws_the_first_window_only():
    model = display_text(BYTES, "x" * (MAX_WINDOW + 5))
    assert model["total"] == MAX_WINDOW + 5 and len(model["tokens"]) == MAX_WINDOW
    with pytest.raises(DisplayError, match="too many to draw"):
        display_text(BYTES, "x" * (MAX_WINDOW + 5), start=0, stop=MAX_WINDOW + 5)
    with pytest.raises(DisplayError, match="start must be a whole number"):
        display_text(BYTES, "x", start=-1)


def test_display_ids_without_text_and_bidi_control_characters_stay_text():
    model = display_ids(BYTES, [97, 0xE2, 0x80, 0xAE, 98])  # U+202E RIGHT-TO-LEFT OVERRIDE between a and b
    assert model["groups"][0]["text"] == "\u202e"
    tok = Tokenizer.bytes_only()
    assert display_ids(tok, [0xE1])["groups"] == []  # a lone lead byte: one token, its own group
    assert display_ids(tok, [0xE1])["tokens"][0]["parts"] == [["b", "E1"]]
    with pytest.raises(ValueError, match="unknown token id 999"):
        display_ids(tok, [999])
