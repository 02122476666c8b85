"""The vocabulary's entries and id range (bpelab.vocab_browse), and the page's fixed lines that quote them."""

import re
from pathlib import Path

import pytest

from bpelab.openai_vocab import load_reference
from bpelab.tokenizer import Tokenizer
from bpelab.vocab_browse import browse

WEB = Path(__file__).resolve().parent.parent / "web"


@pytest.mark.parametrize("name, size, last, unused", [
    ("gpt2", 50_257, 50_256, 0),
    ("cl100k", 100_261, 100_276, 16),
    ("o200k", 200_000, 200_018, 19),
])
def test_entries_and_ids_are_counted_apart(name, size, last, unused, tiktoken_encoding):
    enc = tiktoken_encoding({"gpt2": "gpt2", "cl100k": "cl100k_base", "o200k": "o200k_base"}[name])
    page = browse(load_reference(name), "all", "", 0, 1)
    assert (page["size"], page["first_id"], page["last_id"], page["unused"]) == (size, 0, last, unused)
    assert page["last_id"] + 1 == enc.n_vocab  # tiktoken's n_vocab counts ids, not entries
    # The line the Encode and Vocabulary views show for it says the same numbers.
    source = (WEB / "js" / "components" / "tokenizer-choice.js").read_text("utf-8")
    line = re.search(rf"^  {name}: {{.*$", source, re.M).group(0)
    assert f"{size:,} entries, ids 0–{last:,}" in line
    assert (f"({unused} of them unused)" in line) == bool(unused)


def test_a_dense_vocabulary_has_no_unused_ids():
    page = browse(Tokenizer.bytes_only(), "all")
    assert (page["size"], page["first_id"], page["last_id"], page["unused"]) == (256, 0, 255, 0)
