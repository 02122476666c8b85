"""Word counts: the table's formats, their errors, and train(counts=...)."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from bpelab import train
from bpelab.artifacts import export_files
from bpelab.counts import (
    MAX_COUNT,
    CountsError,
    check_counts,
    parse_json,
    parse_lines,
    read_counts,
    to_json,
    to_lines,
    to_tsv,
)
from bpelab.reference import reference_train
from bpelab.train import TIE_BREAKS

CS336 = {"low": 5, "lower": 2, "widest": 3, "newest": 6}


# ------------------------------------------------------------------ reading


@pytest.mark.parametrize("text, table", [
    ("low 5\nlower 2\n", {"low": 5, "lower": 2}),
    ("low\t5\nlower\t2", {"low": 5, "lower": 2}),
    ("new york 3\n", {"new york": 3}),  # the last field is the count
    (" low\t5\nlow \t2\n", {" low": 5, "low ": 2}),  # a tab keeps the spaces at the piece's ends
    ("\ufefflow 5\r\nlower 2\r\n", {"low": 5, "lower": 2}),  # BOM and CRLF
    ("low 5\n\n   \nlower 2\n", {"low": 5, "lower": 2}),  # blank lines carry nothing
    ("\\n 3\n\\t\t4\n\\\\ 1\n\\r\\n 2\n", {"\n": 3, "\t": 4, "\\": 1, "\r\n": 2}),  # escapes
    ("C:\\path 1\n\\d 2\n", {"C:\\path": 1, "\\d": 2}),  # any other backslash is itself
    ("low 0005  \n", {"low": 5}),  # leading zeros, trailing spaces
    ("lower 2\nlow 5\n", {"lower": 2, "low": 5}),  # order kept
    ("日本 7\n🙂 1\n", {"日本": 7, "🙂": 1}),
    (f"x {MAX_COUNT}\n", {"x": MAX_COUNT}),
])
def test_lines_are_read(text, table):
    got = parse_lines(text, "t.tsv")
    assert got == table and list(got) == list(table)


@pytest.mark.parametrize("text, line, words", [
    ("low 5\nlower -2\n", 2, "negative"),
    ("low -0\n", 1, "negative"),
    ("low five\n", 1, "not a number"),
    ("low 5x\n", 1, "not a number"),
    ("low ٥\n", 1, "not a number"),  # an Arabic-Indic digit: int() would take it
    ("low 1_000\n", 1, "not a number"),
    ("low 2.5\n", 1, "not a whole number"),
    ("low 1e3\n", 1, "not a whole number"),
    ("low +5\n", 1, "not a whole number"),
    ("low 0\n", 1, "below 1"),
    ("a 1\nlow 00\n", 2, "below 1"),
    (f"low {MAX_COUNT + 1}\n", 1, "too large"),
    ("low " + "9" * 5000 + "\n", 1, "too large"),
    ("\t5\n", 1, "piece is empty"),
    ("a 1\n\\n 1\nlow 5\nlow 3\n", 4, "already on line 3"),
    ("\\n 1\n\\n 2\n", 2, "already on line 1"),  # a duplicate after unescaping
    ("low\n", 1, "no count"),
    ("lo\nw 5\n", 1, "a newline inside a piece is written \\n"),  # a piece with a raw newline breaks its line
    ("x\ry 3\n", 1, "carriage return"),  # a piece with a raw CR (not a CRLF line end)
    ("a\tb\t3\n", 1, "more than one tab"),
    ('{"low": 5}\n', 1, ".json"),  # JSON in a .tsv: say so
])
def test_bad_lines_get_one_line_with_the_line_and_a_fix(text, line, words):
    with pytest.raises(CountsError) as caught:
        parse_lines(text, "words.tsv")
    message = str(caught.value)
    assert message.startswith(f"words.tsv line {line}: ") and words in message and "\n" not in message
    assert caught.value.line == line
    assert len(message) < 300  # a user's value is quoted short


@pytest.mark.parametrize("text, table", [
    ('{"hug": 10, "pug": 5}', {"hug": 10, "pug": 5}),
    ('{\n  "pun": 12,\n  "bun": 4\n}\n', {"pun": 12, "bun": 4}),
    ('\ufeff{"a": 1}', {"a": 1}),
    ('{"lo\\nw": 2, "\\t": 1, "\\u00e9": 3}', {"lo\nw": 2, "\t": 1, "é": 3}),
    ('{"b": 1, "a": 2}', {"b": 1, "a": 2}),  # key order kept
    ("{}", {}),
])
def test_json_is_read_in_key_order(text, table):
    got = parse_json(text, "t.json")
    assert got == table and list(got) == list(table)


@pytest.mark.parametrize("text, line, words", [
    ('{"low": 5,\n "low": 2}', 2, "already on line 1"),
    ('{"a": -1}', 1, "negative"),
    ('{"a":\n "5"}', 2, "a string, not a number"),
    ('{"a": 5.0}', 1, "not a whole number"),
    ('{"a": 1e2}', 1, "not a whole number"),
    ('{"a": true}', 1, "not a number"),
    ('{"a": null}', 1, "not a number"),
    ('{"a": [[[[1]]]]}', 1, "not a number"),
    ('{"a": 0}', 1, "below 1"),
    ('{"a": ' + "1" * 400 + "}", 1, "too large"),
    ('{"": 3}', 1, "piece is empty"),
    ('{"a\\ud800": 1}', 1, "lone surrogate"),
    ('{"a": 1,\n\n "b" 2}', 3, "':' after the piece"),
    ('{"a": 1', 1, "',' or '}'"),
    ('{"a": 1} {"b": 2}', 1, "end of the file"),
    ("[1, 2]", 1, "a JSON object"),
    ('{"a\nb": 1}', 1, "broken string"),  # a raw newline inside a JSON string is not JSON
])
def test_bad_json_gets_one_line_with_the_line_and_a_fix(text, line, words):
    with pytest.raises(CountsError) as caught:
        parse_json(text, "words.json")
    message = str(caught.value)
    assert message.startswith(f"words.json line {line}: ") and words in message and "\n" not in message


def test_files_pick_their_format_by_name_and_must_be_utf8():
    assert read_counts(b'{"a": 2}', "x.JSON") == {"a": 2}
    assert read_counts(b"a 2\n", "x.txt") == {"a": 2}
    with pytest.raises(CountsError, match=r"^x\.tsv line 2: invalid UTF-8 at byte 5"):
        read_counts(b"ab 1\n\xffb 2\n", "x.tsv")
    with pytest.raises(CountsError, match=r"^x\.tsv: holds no counts"):
        read_counts(b"\n \n", "x.tsv")
    with pytest.raises(CountsError, match=r"^x\.json: holds no counts"):
        read_counts(b"{}", "x.json")


def test_a_piece_holding_a_special_token_is_refused():
    with pytest.raises(CountsError, match=r"line 2: the piece 'a<\|e\|>' holds the special token '<\|e\|>'"):
        parse_lines("low 1\na<|e|> 2\n", "t.tsv", specials=["<|e|>"])


pieces = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
tables = st.dictionaries(pieces, st.integers(1, MAX_COUNT), max_size=12)


@settings(max_examples=300, deadline=None)
@given(tables)
def test_every_table_survives_each_format(table):
    for text, parse in ((to_tsv(table), parse_lines), (to_lines(table), parse_lines), (to_json(table), parse_json)):
        got = parse(text, "t")
        assert got == table and list(got) == list(table)


# ------------------------------------------------------------------ the Python API


def test_check_counts_takes_a_dict_or_pairs_in_order():
    assert list(check_counts([("b", 1), ("a", 2)])) == ["b", "a"]
    assert list(check_counts({"b": 1, "a": 2})) == ["b", "a"]


@pytest.mark.parametrize("counts, words", [
    ({"a": 0}, "entry 0: the count 0 is below 1"),
    ({"a": 1, "b": -4}, "entry 1: the count -4 is below 1"),
    ({"a": 2.0}, "entry 0: the count of 'a' must be a whole number"),
    ({"a": True}, "must be a whole number"),
    ({"a": "3"}, "must be a whole number"),
    ({"": 1}, "entry 0: the piece is empty"),
    ({b"a": 1}, "the piece must be a str"),
    ([("a", 1), ("a", 2)], "entry 1: the piece 'a' is already on entry 0"),
    ([("a", 1, 2)], "entry 0: must be a (piece, count) pair"),
    ("low 5", "must be a {piece: count} dict"),
    ({"x\udc80": 1}, "lone surrogate"),
    ({"x<|endoftext|>": 1}, "holds the special token"),
    ({"a": MAX_COUNT + 1}, "too large"),
])
def test_train_refuses_bad_counts(counts, words):
    with pytest.raises(ValueError, match="^counts") as caught:
        train(counts=counts, num_merges=1)
    assert words in str(caught.value)


def test_train_needs_a_corpus_or_counts_not_both():
    with pytest.raises(ValueError, match="not both"):
        train("low", counts={"low": 1}, num_merges=1)
    with pytest.raises(ValueError, match="not neither"):
        train(num_merges=1)


def test_counts_train_as_the_text_they_stand_for():
    """Each piece is one pre-token: counts give the merges of documents that are the pieces, each as often."""
    counts = {"low": 5, " lower": 2, "wid est": 3, "newest\n": 6, "日本": 2}
    documents = [piece for piece, n in counts.items() for _ in range(n)]
    for tie in TIE_BREAKS:
        from_counts = train(counts=counts, num_merges=30, pretokenizer="bytes", tie_break=tie)
        from_text = train(documents, num_merges=30, pretokenizer="bytes", tie_break=tie)
        assert from_counts.merges == from_text.merges and from_counts.merge_counts == from_text.merge_counts
        merges, counts_of_merges, _vocab = reference_train(documents, num_merges=30, pretokenizer="bytes",
                                                           tie_break=tie)
        assert (from_counts.merges, from_counts.merge_counts) == (merges, counts_of_merges)


def test_no_pretokenizer_runs_on_counts():
    """A piece with spaces stays one row whatever the pre-tokenizer: (o, space) would never pair under gpt2."""
    result = train(counts={"lo w": 4}, num_merges=1, pretokenizer="gpt2", special_tokens=())
    assert result.tokenizer.vocab[256] == b"o "  # (l, o), (o, space), (space, w) tie at 4: the greater pair
    assert result.pieces == [(b"lo w", 4)]
    assert train("lo w " * 4, num_merges=1, pretokenizer="gpt2").tokenizer.vocab[256] != b"o "


@pytest.mark.parametrize("order", [["ab", "cd"], ["cd", "ab"]])
def test_first_seen_follows_the_order_of_the_entries(order):
    """ab and cd tie at 3: first-seen merges the pair of the first entry, whichever it is; greater does not care."""
    counts = {piece: 3 for piece in order}
    first = train(counts=counts, num_merges=1, tie_break="first-seen")
    assert first.tokenizer.vocab[256] == order[0].encode()
    assert train(counts=counts, num_merges=1, tie_break="greater").tokenizer.vocab[256] == b"cd"


def test_the_manifest_records_counts_as_the_input():
    result = train(counts=CS336, num_merges=12, pretokenizer="whitespace")
    manifest = json.loads(export_files(result, char_limit=None)["manifest.json"])
    assert manifest["input"] == "counts" and manifest["char_limit"] is None
    assert manifest["corpus"] == {
        "pieces": 4, "occurrences": 16, "characters": 5 * 3 + 2 * 5 + 3 * 6 + 6 * 6, "bytes": 79,
        "sha256": __import__("hashlib").sha256(to_tsv(CS336).encode()).hexdigest(),
    }
    text = json.loads(export_files(train("low lower", num_merges=2))["manifest.json"])
    assert text["input"] == "text" and set(text["corpus"]) == {"documents", "characters", "bytes", "sha256"}
