"""The gallery "From the textbooks": each bundled example reproduces its source's numbers through the Python API.

The samples are read as the site reads them (web/samples/index.json and each
file); the numbers are the sources' own (tests/textbooks.py, which says where
each is printed). tests/e2e/test_textbooks_site.py checks the same numbers on the site.
"""

import re

import pytest

import textbooks
from bpelab import train
from bpelab.byte_unicode import bytes_to_visible
from bpelab.counts import read_counts
from bpelab.openai_vocab import load_reference
from bpelab.train import TIE_BREAKS, TrainSettings

INDEX = textbooks.index()
SEPARATORS = {"none": None, "line": "\n", "blank": "\n\n"}


def settings_of(entry, **overrides):
    s = entry["settings"]
    size = {"num_merges": s["size"]} if s["size_mode"] == "merges" else {"vocab_size": s["size"]}
    values = dict(pretokenizer=s["pretokenizer"], tie_break=s["tie_break"], min_count=s["min_count"],
                  special_tokens=tuple(s["special_tokens"]), document_separator=SEPARATORS[s["separator"]], **size)
    return TrainSettings(**(values | overrides))


def train_sample(sample_id, **overrides):
    """Train on a bundled sample with its own settings (or some changed), as the site does."""
    entry = INDEX[sample_id]
    data = (textbooks.SAMPLES / entry["file"]).read_bytes()
    settings = settings_of(entry, **overrides)
    if entry["input"] == "counts":
        return train(counts=read_counts(data, entry["file"], settings.special_tokens), settings=settings, record=True)
    return train(data.decode("utf-8"), settings, record=True)


def pieces(tokenizer, text):
    return [bytes_to_visible(tokenizer.token_bytes(i)) for i in tokenizer.encode(text)]


def test_the_gallery_lists_every_textbook_and_seed_example_with_its_source():
    gallery = [entry for entry in INDEX.values() if entry["group"] == "From the textbooks"]
    assert [e["id"] for e in gallery] == textbooks.SEED_IDS + [item["id"] for item in textbooks.ALL]
    for entry in gallery:
        assert (textbooks.SAMPLES / entry["file"]).is_file()
        assert entry["source"] and entry["licence"]
        if not entry["id"].startswith("seed"):
            assert entry["section"] and entry["link"] and not re.search(r"https?:|//", entry["link"])
            assert entry["view"] in ("explorer", "encode")


def test_cs336_handout():
    """CS336 handout §2.4 (Example bpe_example): its twelve merges in order, the first round's pair counts,
    (e, st) at 9, and with six merges the new tokens and newest -> [ne, west]."""
    item = textbooks.CS336
    result = train_sample(item["id"])
    assert textbooks.merge_names(result.tokenizer, result.merges) == item["merges"]
    assert result.merge_counts[1] == item["second_merge_count"]
    first = {bytes_to_visible(bytes([a, b])): c for a, b, c in result.steps[0]["top"]}
    assert first == {k: v for k, v in item["first_pairs"].items() if v > 2}  # the ten the record keeps
    table = {piece: count for piece, count in result.pieces}
    every = {}
    for piece, count in table.items():
        for pair in zip(piece, piece[1:]):
            key = bytes(pair).decode()
            every[key] = every.get(key, 0) + count
    assert every == item["first_pairs"]  # all eleven, from the table the merge loop starts with
    six = train_sample(item["id"], num_merges=6)
    assert [six.tokenizer.vocab[i].decode() for i in range(256, 262)] == item["six_merge_tokens"]
    assert six.tokenizer.special_tokens == {"<|endoftext|>": 262}
    assert pieces(six.tokenizer, "newest") == item["newest_after_six"]


def test_hf_course_toy_counts():
    """HF course ch. 6 §5: u + g (20), u + n (16), h + ug (15); bug -> b ug, and m, t where the course has [UNK]."""
    item = textbooks.HF_TOY
    result = train_sample(item["id"])
    assert textbooks.merge_names(result.tokenizer, result.merges) == item["merges"]
    assert result.merge_counts == item["merge_counts"]
    first = {bytes_to_visible(bytes([a, b])): c for a, b, c in result.steps[0]["top"]}
    assert {k: first[k] for k in item["first_round"]} == item["first_round"]
    for word, expected in item["tokenize"].items():
        assert pieces(result.tokenizer, word) == expected
        if word in item["unknown"]:  # the same cut; the course's [UNK] is the one letter its alphabet lacks
            assert [p if p in "bghnpsu" or len(p) > 1 else "[UNK]" for p in expected] == item["unknown"][word]


def test_hf_course_four_sentences():
    """HF course ch. 6 §5, Implementing BPE: its word_freqs, alphabet and first pairs, its 19 merges (the course's
    vocabulary of 50), and tokenize("This is not a token.")."""
    item = textbooks.HF_CORPUS
    result = train_sample(item["id"])
    assert {bytes_to_visible(p): c for p, c in result.pieces} == item["word_freqs"]
    assert [bytes_to_visible(p) for p, _ in result.pieces] == list(item["word_freqs"])  # in the course's order
    alphabet = sorted({c for piece, _ in result.pieces for c in bytes_to_visible(piece)})
    assert alphabet == item["alphabet"]
    assert 1 + len(alphabet) + len(result.merges) == item["vocab_size"]
    in_order = {}  # the course's pair_freqs: pairs in the order the table first shows them
    for piece, count in result.pieces:
        visible = bytes_to_visible(piece)
        for pair in zip(visible, visible[1:]):
            in_order[" ".join(pair)] = in_order.get(" ".join(pair), 0) + count
    assert list(in_order.items())[:6] == item["first_pairs"]
    top = {bytes_to_visible(bytes([a, b])): c for a, b, c in result.steps[0]["top"]}  # what the explorer shows
    assert {name: top[name.replace(" ", "")] for name, count in item["first_pairs"] if count > 3} == {
        name: count for name, count in item["first_pairs"] if count > 3}
    assert result.merges[0] == (32, ord("t")) and result.merge_counts[0] == 7  # ('Ġ', 't') 7
    assert textbooks.merge_names(result.tokenizer, result.merges) == item["merges"]
    text, expected = item["tokenize"]
    assert pieces(result.tokenizer, text) == expected


def test_minbpe_wikipedia_example():
    """minbpe README, quick start: aaabdaaabac with 3 merges encodes to [258, 100, 258, 97, 99] and back."""
    item = textbooks.MINBPE_WIKIPEDIA
    result = train_sample(item["id"])
    assert result.tokenizer.encode(item["text"]) == item["ids"]
    assert result.tokenizer.decode(item["ids"]) == item["text"]


def test_minbpe_cl100k_example():
    """minbpe README, GPT-4 comparison: cl100k_base's twelve ids, and the special token with allowed_special."""
    item = textbooks.MINBPE_CL100K
    entry = INDEX[item["id"]]
    text = (textbooks.SAMPLES / entry["file"]).read_text("utf-8")
    assert text == item["text"] and entry["tokenizer"] == "cl100k" and entry["view"] == "encode"
    cl100k = load_reference("cl100k")
    assert cl100k.encode(text) == item["ids"]
    special, ids = item["special"]
    assert cl100k.encode(special, allowed_special="all") == ids


def test_d2l_subword_section():
    """D2L §15.6.2: the ten merges, the training words' segmentations, tallest_ and fatter_."""
    item = textbooks.D2L
    result = train_sample(item["id"])
    assert textbooks.merge_names(result.tokenizer, result.merges) == item["merges"]
    for word, expected in item["training_words"].items():
        assert pieces(result.tokenizer, word) == expected
    for word, expected in item["segment"].items():
        assert " ".join(pieces(result.tokenizer, word)) == expected


# Which of the three tie rules gives each source's merges, and the first merge where each other rule differs.
# A source's rule is its own (CS336: the greater pair; the HF course, D2L and minbpe's code: the pair found first,
# by a dict's insertion order); none needs a rule of its own.
RULES = {
    "cs336-bpe-example": {"greater": None, "smaller-id": 1, "first-seen": 1},
    "hf-course-toy": {"greater": None, "smaller-id": None, "first-seen": None},
    "hf-course-corpus": {"greater": 5, "smaller-id": 2, "first-seen": None},
    "minbpe-wikipedia": {"greater": None, "smaller-id": 2, "first-seen": None},
    "d2l-bpe": {"greater": 4, "smaller-id": 1, "first-seen": None},
}


@pytest.mark.parametrize("sample_id", RULES)
def test_each_source_is_one_of_the_three_tie_rules(sample_id):
    """None = the rule gives the source's merges; k = it differs first at merge k (1-based)."""
    expected = {item["id"]: item for item in textbooks.TRAINED}[sample_id]
    own = train_sample(sample_id)
    names = textbooks.merge_names(own.tokenizer, own.merges)
    if "merges" in expected:
        assert names == expected["merges"]
    for rule in TIE_BREAKS:
        other = textbooks.merge_names(*(lambda r: (r.tokenizer, r.merges))(train_sample(sample_id, tie_break=rule)))
        first_difference = next((k + 1 for k, (a, b) in enumerate(zip(other, names)) if a != b), None)
        assert first_difference == RULES[sample_id][rule], rule
    assert RULES[sample_id][INDEX[sample_id]["settings"]["tie_break"]] is None


def test_minbpe_ids_hold_under_every_rule():
    """Merge 2 of aaabdaaabac is a tie (aa + a or a + b, both 2): each rule ends in the README's ids."""
    for rule in TIE_BREAKS:
        result = train_sample("minbpe-wikipedia", tie_break=rule)
        assert result.tokenizer.encode("aaabdaaabac") == textbooks.MINBPE_WIKIPEDIA["ids"]
    smaller = train_sample("minbpe-wikipedia", tie_break="smaller-id")
    assert smaller.merges == [(97, 97), (97, 98), (256, 257)]  # Z = aa, Y = ab, X = ZY: the README's story
    assert train_sample("minbpe-wikipedia").merges == [(97, 97), (256, 97), (257, 98)]  # minbpe's code
