"""Counting a corpus into its table, whole and in byte ranges: the same table, in first-seen order.

The byte ranges are what `bpelab count --engine dask` hands its workers; here
they are counted one after another in this process, so every cut rule is
checked without a cluster (tests/test_count_cli.py runs the cluster).
"""

import pytest
from hypothesis import HealthCheck, given, settings as hyp_settings, strategies as st

from bpelab.cli import read_text_file
from bpelab.counting import InvalidUTF8, block_starts, combine, count_documents, count_range, range_jobs
from bpelab.train import TrainSettings, count_pieces, split_documents

TEXT = ("The lowest  widest fox<|endoftext|> newest lower\n\nXin chào thế giới 新しい 🙂🙂 don't 1234 "
        "tab\there<|endoftext|><|endoftext|>a||b|| ||\r\n  end   ")


def write(tmp_path, texts, bom=()):
    paths = []
    for k, text in enumerate(texts):
        path = tmp_path / f"part{k}.txt"
        path.write_bytes((b"\xef\xbb\xbf" if k in bom else b"") + text.encode("utf-8"))
        paths.append(str(path))
    return paths


def by_ranges(paths, settings, block_size):
    spec = (settings.pretokenizer, settings.pattern, settings.special_tokens, settings.document_separator)
    jobs = range_jobs(paths, block_size)
    return combine(jobs, [count_range(*job, spec) for job in jobs])


def as_train_counts(paths, settings):
    """The table `train` builds for the files, first-seen order (what the first-seen tie-break reads)."""
    documents = split_documents([read_text_file(p) for p in paths], settings.document_separator)
    return count_pieces(documents, settings.get_pretokenizer(), settings.special_tokens, first_seen_order=True)


SETTINGS = [
    dict(pretokenizer="gpt2"),
    dict(pretokenizer="cl100k"),
    dict(pretokenizer="o200k"),
    dict(pretokenizer="whitespace"),
    dict(pretokenizer="bytes", document_separator="\n"),
    dict(pretokenizer="custom", pattern=r"\w+|\W"),
    dict(pretokenizer="gpt2", document_separator="||"),
    dict(pretokenizer="gpt2", document_separator=" "),  # a separator that is a cut point's own space
    dict(pretokenizer="bytes", special_tokens=("<|endoftext|>", "text|>")),  # specials that overlap
    dict(pretokenizer="gpt2", special_tokens=("<|endoftext|>", "<|endoftext|><|e")),  # one inside another
    dict(pretokenizer="cl100k", special_tokens=("d  w", "<|endoftext|>")),  # a special that holds spaces
    dict(pretokenizer="bytes", special_tokens=(), document_separator="||"),
    dict(pretokenizer="bytes", document_separator="aa"),  # in "aaa" only the first "aa" separates
    dict(pretokenizer="bytes", special_tokens=("<|aa|>", "aa|>x")),
    dict(pretokenizer="gpt2", special_tokens=(), document_separator="|| |"),
]


@pytest.mark.parametrize("overrides", SETTINGS, ids=lambda o: "-".join(str(v) for v in o.values()))
@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 8, 13, 40, 1000])
def test_ranges_give_trains_table_in_its_order(tmp_path, overrides, block_size):
    settings = TrainSettings(num_merges=0, **overrides)
    paths = write(tmp_path, [TEXT, TEXT[17:], "", "<|endoftext|>", "ünïcödé wörds " * 20,
                             "xaaay b aaaa c<|aa|>x aa|>x<|aa|>"], bom={1, 2})
    expected = as_train_counts(paths, settings)
    whole = count_documents([read_text_file(p) for p in paths], settings)
    assert list(whole.items()) == list(expected.items())
    ranged = by_ranges(paths, settings, block_size)
    assert list(ranged.items()) == list(expected.items())


def test_the_ranges_are_really_cut(tmp_path):
    """With small blocks a long file is counted in many ranges, each ending at a space after a word."""
    settings = TrainSettings(num_merges=0)
    text = "word " * 2000
    (path,) = write(tmp_path, [text])
    spec = ("gpt2", None, (), None)
    results = [count_range(*job, spec) for job in range_jobs([path], 100)]
    filled = [r for r in results if r["table"]]
    assert len(filled) > 50
    assert sum(r["table"].get(" word", 0) for r in filled) == 1999
    assert by_ranges([path], settings, 100) == as_train_counts([path], settings)


def test_a_file_without_cut_points_is_one_range(tmp_path):
    """The bytes pre-tokenizer has no cut inside a document: every block but the first is empty."""
    (path,) = write(tmp_path, ["abc def ghi " * 50])
    results = [count_range(*job, ("bytes", None, (), None)) for job in range_jobs([path], 16)]
    assert [bool(r["table"]) for r in results] == [True] + [False] * (len(results) - 1)


@pytest.mark.parametrize("block_size", [1, 4, 9, 1000])
@pytest.mark.parametrize("bom", [False, True])
def test_invalid_utf8_is_reported_where_the_whole_file_reader_reports_it(tmp_path, block_size, bom):
    data = (b"\xef\xbb\xbf" if bom else b"") + b"ab cd\nef gh\nij \xff kl\nmn\n"
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    other = write(tmp_path, ["fine text\n" * 3])
    with pytest.raises(Exception) as whole:
        read_text_file(str(path))
    with pytest.raises(InvalidUTF8) as ranged:
        by_ranges(other + [str(path)], TrainSettings(num_merges=0), block_size)
    assert str(ranged.value) == str(whole.value)


def test_block_starts():
    assert block_starts(0, 5) == [0]
    assert block_starts(11, 5) == [0, 5, 10]
    with pytest.raises(ValueError, match="at least 1 byte"):
        block_starts(10, 0)


ALPHABET = st.sampled_from(["a", "b", " ", "  ", "\n", "\t", "é", "日", "🙂", "'s", "1", "<|x|>", "<|", "|>", "::"])


@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(st.lists(ALPHABET, max_size=40).map("".join), min_size=1, max_size=3),
    block_size=st.integers(1, 12),
    pretokenizer=st.sampled_from(["gpt2", "o200k", "whitespace", "bytes"]),
    separator=st.sampled_from([None, "::", "\n", " "]),
)
def test_any_text_counts_the_same_in_ranges(tmp_path_factory, texts, block_size, pretokenizer, separator):
    tmp_path = tmp_path_factory.mktemp("c")
    settings = TrainSettings(num_merges=0, pretokenizer=pretokenizer, special_tokens=("<|x|>",),
                             document_separator=separator)
    paths = write(tmp_path, texts)
    assert list(by_ranges(paths, settings, block_size).items()) == list(as_train_counts(paths, settings).items())
