"""What each textbook example prints, transcribed from its source: shared by the Python and the site tests.

The bundled samples (web/samples/, made by build_scripts/make_samples.py)
hold each example's corpus and settings; this file holds the numbers the
source itself shows, each with where it shows them. Tokens are written as
the sources write them: CS336, minbpe and D2L as plain text, the Hugging Face
course in GPT-2's visible characters (Ġ is a space).
"""

import json
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "web" / "samples"

# Stanford CS336 Assignment 1 handout v1.0.2 (Spring 2025), §2.4, "Example (bpe_example)".
CS336 = {
    "id": "cs336-bpe-example",
    # "the sequence of merges we get in the end will be ['s t', 'e st', ...]"
    "merges": ["s t", "e st", "o w", "l ow", "w est", "n e", "ne west", "w i", "wi d", "wid est", "low e", "lowe r"],
    # the first round's pair counts: "{lo: 7, ow: 7, we: 8, er: 2, wi: 3, id: 3, de: 3, es: 9, st: 9, ne: 6, ew: 6}"
    "first_pairs": {"lo": 7, "ow": 7, "we": 8, "er": 2, "wi": 3, "id": 3, "de": 3, "es": 9, "st": 9, "ne": 6, "ew": 6},
    "second_merge_count": 9,  # "(e, st) is the most common pair (with a count of 9)"
    # "If we take 6 merges ... our vocabulary elements would be [<|endoftext|>, [...256 BYTE CHARS], st, est, ow,
    # low, west, ne]" and "the word newest would tokenize as [ne, west]"
    "six_merge_tokens": ["st", "est", "ow", "low", "west", "ne"],
    "newest_after_six": ["ne", "west"],
}

# Hugging Face LLM Course, chapter 6 §5 "Byte-Pair Encoding tokenization", Training and Tokenization algorithm.
HF_TOY = {
    "id": "hf-course-toy",
    "merges": ["u g", "u n", "h ug"],  # ("u", "g") -> "ug", ("u", "n") -> "un", ("h", "ug") -> "hug"
    "merge_counts": [20, 16, 15],  # "a grand total of 20 times", "present 16 times", (h, ug) "present 15 times"
    "first_round": {"hu": 15, "ug": 20},  # ("h", "u") "15 times total", ("u", "g") 20
    # "bug" -> ["b", "ug"]; "mug" -> ["[UNK]", "ug"], "thug" -> ["[UNK]", "hug"]: m and t are not in the course's
    # seven-letter base vocabulary; in byte-level BPE every byte is, so [UNK] is that letter here.
    "tokenize": {"bug": ["b", "ug"], "mug": ["m", "ug"], "thug": ["t", "hug"]},
    "unknown": {"mug": ["[UNK]", "ug"], "thug": ["[UNK]", "hug"]},
}

# The same section, "Implementing BPE": the four-sentence corpus with GPT-2's pre-tokenizer.
HF_CORPUS = {
    "id": "hf-course-corpus",
    # print(word_freqs)
    "word_freqs": {"This": 3, "Ġis": 2, "Ġthe": 1, "ĠHugging": 1, "ĠFace": 1, "ĠCourse": 1, ".": 4, "Ġchapter": 1,
                   "Ġabout": 1, "Ġtokenization": 1, "Ġsection": 1, "Ġshows": 1, "Ġseveral": 1, "Ġtokenizer": 1,
                   "Ġalgorithms": 1, "Hopefully": 1, ",": 1, "Ġyou": 1, "Ġwill": 1, "Ġbe": 1, "Ġable": 1, "Ġto": 1,
                   "Ġunderstand": 1, "Ġhow": 1, "Ġthey": 1, "Ġare": 1, "Ġtrained": 1, "Ġand": 1, "Ġgenerate": 1,
                   "Ġtokens": 1},
    # print(alphabet): 30 characters; with <|endoftext|> the initial vocabulary has 31 entries
    "alphabet": [",", ".", "C", "F", "H", "T", "a", "b", "c", "d", "e", "f", "g", "h", "i", "k", "l", "m", "n", "o",
                 "p", "r", "s", "t", "u", "v", "w", "y", "z", "Ġ"],
    "vocab_size": 50,  # "Let's aim for a vocab size of 50": 1 + 30 + 19 merges
    # the first six pair_freqs printed, in dict order, and the best pair ('Ġ', 't') 7
    "first_pairs": [("T h", 3), ("h i", 3), ("i s", 5), ("Ġ i", 2), ("Ġ t", 7), ("t h", 3)],
    # print(merges): "we've learned 19 merge rules"
    "merges": ["Ġ t", "i s", "e r", "Ġ a", "Ġt o", "e n", "T h", "Th is", "o u", "s e", "Ġto k", "Ġtok en", "n d",
               "Ġ is", "Ġt h", "Ġth e", "i n", "Ġa b", "Ġtoken i"],
    # tokenize("This is not a token.")
    "tokenize": ("This is not a token.", ["This", "Ġis", "Ġ", "n", "o", "t", "Ġa", "Ġtoken", "."]),
}

# Andrej Karpathy's minbpe, README.md, "quick start": tokenizer.train(text, 256 + 3); print(tokenizer.encode(text)).
MINBPE_WIKIPEDIA = {
    "id": "minbpe-wikipedia",
    "text": "aaabdaaabac",
    "ids": [258, 100, 258, 97, 99],
}

# minbpe README.md, "inference: GPT-4 comparison": cl100k_base's ids, and the special-token example.
MINBPE_CL100K = {
    "id": "minbpe-cl100k",
    "text": "hello123!!!? (안녕하세요!) 😉",
    "ids": [15339, 4513, 12340, 30, 320, 31495, 230, 75265, 243, 92245, 16715, 57037],
    "special": ("<|endoftext|>hello world", [100257, 15339, 1917]),  # encode(text, allowed_special="all")
}

# Dive into Deep Learning, §15.6.2 "Byte Pair Encoding" (subword-embedding.md). The page's own text names the
# first two merges and the final segmentations; the full list and the two new words' segmentations are what
# its code cells print (run as given: num_merges = 10, then segment_BPE(['tallest_', 'fatter_'], symbols)).
D2L = {
    "id": "d2l-bpe",
    "merges": ["t a", "ta l", "tal l", "f a", "fa s", "fas t", "e r", "er _", "tall _", "fast _"],
    "training_words": {"fast_": ["fast_"], "faster_": ["fast", "er_"], "tall_": ["tall_"], "taller_": ["tall", "er_"]},
    "segment": {"tallest_": "tall e s t _", "fatter_": "fa t t er_"},
}

ALL = [CS336, HF_TOY, HF_CORPUS, MINBPE_WIKIPEDIA, MINBPE_CL100K, D2L]  # the gallery's order
TRAINED = [item for item in ALL if item is not MINBPE_CL100K]  # the ones that train a tokenizer
SEED_IDS = ["seed003-low-lower", "seed004-walk", "seed000-abab", "seed000-qx", "seed000-aaa"]


def index():
    """{id: entry} of web/samples/index.json."""
    return {entry["id"]: entry for entry in json.loads((SAMPLES / "index.json").read_text("utf-8"))["samples"]}


def merge_names(tokenizer, merges):
    """Merges as 'a b' strings of visible tokens (GPT-2's byte characters), the way vocab.bpe writes them."""
    from bpelab.byte_unicode import bytes_to_visible

    return [f"{bytes_to_visible(tokenizer.vocab[a])} {bytes_to_visible(tokenizer.vocab[b])}" for a, b in merges]
