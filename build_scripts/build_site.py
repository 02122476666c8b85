"""Build the static site: dist/ from web/, Pyodide's core, the bpelab package and the data.

Usage: .venv/bin/python build_scripts/build_site.py [--out dist]

The result is one folder of static files that fetches nothing from anywhere
but its own origin:
  dist/index.html, css/, js/, samples/      copied from web/
  dist/pyodide/                             Pyodide's core files, from node_modules/pyodide
  dist/py/bpelab.zip                        the Python package, unpacked in the worker
  dist/ranks/*.tiktoken                     reference vocabularies, when they have been built
  dist/build.json                           versions and file hashes, read by the worker
Pyodide's packages are left out on purpose: bpelab needs only the standard library.
"""

import argparse
import hashlib
import io
import json
import shutil
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
PACKAGE = ROOT / "py" / "bpelab"
PYODIDE = ROOT / "node_modules" / "pyodide"
RANKS = PACKAGE / "data" / "ranks"

# Exactly the files loadPyodide() reads when no package is loaded.
PYODIDE_CORE = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)

# A fixed timestamp keeps the zip byte-identical between builds of the same sources.
ZIP_DATE = (2020, 1, 1, 0, 0, 0)


def package_zip(package_dir):
    """The package as zip bytes with paths like bpelab/train.py (no caches, no ranks).

    >>> data = package_zip(PACKAGE)
    >>> zipfile.ZipFile(io.BytesIO(data)).namelist()[0].startswith("bpelab/")
    True
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(package_dir.rglob("*")):
            relative = path.relative_to(package_dir.parent)
            if path.is_dir() or "__pycache__" in relative.parts:
                continue
            # The rank files are served on their own, fetched only when a view needs them.
            if "ranks" in relative.parts or path.suffix in (".pyc", ".tiktoken"):
                continue
            info = zipfile.ZipInfo(relative.as_posix(), ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def sha256_file(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pyodide_version():
    return json.loads((PYODIDE / "package.json").read_text("utf-8"))["version"]


def bpelab_version():
    for line in (ROOT / "pyproject.toml").read_text("utf-8").splitlines():
        if line.startswith("version"):
            return line.split("=", 1)[1].strip().strip('"')
    return "unknown"


def build(out):
    if not (WEB / "index.html").exists():
        raise SystemExit(f"web/index.html is missing under {ROOT}")
    missing = [name for name in PYODIDE_CORE if not (PYODIDE / name).exists()]
    if missing:
        raise SystemExit(
            f"node_modules/pyodide lacks {', '.join(missing)}: run `bash build_scripts/setup.sh` first"
        )
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(WEB, out, ignore=shutil.ignore_patterns("*~", ".*", "README.md"))

    (out / "pyodide").mkdir()
    for name in PYODIDE_CORE:
        shutil.copy2(PYODIDE / name, out / "pyodide" / name)

    (out / "py").mkdir()
    zip_bytes = package_zip(PACKAGE)
    (out / "py" / "bpelab.zip").write_bytes(zip_bytes)

    ranks = []
    if RANKS.is_dir():
        (out / "ranks").mkdir()
        for path in sorted(RANKS.glob("*.tiktoken")):
            shutil.copy2(path, out / "ranks" / path.name)
            ranks.append(path.name)

    files = {}
    for path in sorted(out.rglob("*")):
        if path.is_file():
            files[path.relative_to(out).as_posix()] = path.stat().st_size
    build_info = {
        "bpelab": bpelab_version(),
        "pyodide": pyodide_version(),
        # The worker appends this to the zip URL so a rebuilt package is never served stale.
        "package_sha256": hashlib.sha256(zip_bytes).hexdigest(),
        "ranks": ranks,
        "files": files,
    }
    (out / "build.json").write_text(json.dumps(build_info, indent=1, sort_keys=True) + "\n", "utf-8")
    total = sum(files.values())
    print(f"built {out} : {len(files)} files, {total / 1e6:.1f} MB "
          f"(pyodide {build_info['pyodide']}, bpelab {build_info['bpelab']}, {len(ranks)} rank files)")
    return build_info


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    args = parser.parse_args(argv)
    build(args.out.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
