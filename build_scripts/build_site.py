"""Build the static site: dist/ from web/, Pyodide's core, the bpelab package and the data.

Usage: .venv/bin/python build_scripts/build_site.py [--out dist] [--no-snapshot]

The result is one folder of static files that fetches nothing from anywhere
but its own origin:
  dist/index.html, css/, js/, samples/      copied from web/
  dist/pyodide/                             Pyodide's core files, from node_modules/pyodide
  dist/py/bpelab.<hash>.zip                 the Python package, unpacked in the worker
  dist/py/snapshot.<hash>.bin.gz            Python's memory after importing bpelab (issue 16),
                                            made in Node by make_snapshot.mjs; the worker boots from it.
                                            Stored as its XOR with pyodide.asm.wasm's data segments
                                            (web/js/snapshot-delta.js), free memory zeroed (issue 23)
  dist/py/stdlib.<hash>.zip                 the standard library of the snapshot path: the modules
                                            bpelab may import that the snapshot lacks (often none);
                                            the fallback path loads Pyodide's full python_stdlib.zip
  dist/ranks/<name>.<hash>.tiktoken         reference vocabularies, when they have been built
  dist/build.json                           versions and file names, read by the worker
Pyodide's packages are left out on purpose: bpelab needs only the standard library.

<hash> is the first 16 hex digits of the file's sha256: a name that changes with
the content can be cached for ever (`bpelab serve` says so). build.json, which
names them, is revalidated on every load.

The snapshot takes a few seconds to make; it is cached in .cache/snapshots/ under
a key of everything it depends on (Pyodide's files, the package zip, the script,
Node's version), so a rebuild of unchanged sources reuses it.
"""

import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
PACKAGE = ROOT / "py" / "bpelab"
PYODIDE = ROOT / "node_modules" / "pyodide"
RANKS = PACKAGE / "data" / "ranks"
MAKE_SNAPSHOT = ROOT / "build_scripts" / "make_snapshot.mjs"
SNAPSHOT_DELTA = WEB / "js" / "snapshot-delta.js"  # imported by make_snapshot.mjs
SNAPSHOT_CACHE = ROOT / ".cache" / "snapshots"
SNAPSHOTS_KEPT = 12
NODE = os.environ.get("BPELAB_NODE", "node")

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


def hashed_name(name, data):
    """`name` with the first 16 hex digits of the sha256 of `data` before its extension.

    >>> hashed_name("bpelab.zip", b"")
    'bpelab.e3b0c44298fc1c14.zip'
    >>> hashed_name("snapshot.bin.gz", b"")
    'snapshot.e3b0c44298fc1c14.bin.gz'
    """
    stem, _, ext = name.partition(".")
    return f"{stem}.{hashlib.sha256(data).hexdigest()[:16]}.{ext}"


def _node_version():
    try:
        done = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        raise SystemExit(f"cannot run Node ({NODE!r}: {error}); the snapshot needs Node 20 or later, "
                         "or build with --no-snapshot") from None
    return done.stdout.strip()


def make_snapshot(pyodide_dir, zip_path, package_sha256):
    """(gzip bytes, stdlib zip bytes, info) of the memory snapshot, made by make_snapshot.mjs or from the cache."""
    key = hashlib.sha256()
    for name in PYODIDE_CORE:
        key.update(name.encode() + b"\0" + hashlib.sha256((pyodide_dir / name).read_bytes()).digest())
    key.update(package_sha256.encode() + MAKE_SNAPSHOT.read_bytes() + SNAPSHOT_DELTA.read_bytes()
               + _node_version().encode())
    cached = SNAPSHOT_CACHE / f"{key.hexdigest()[:32]}.bin.gz"
    cached_stdlib = cached.with_suffix(".zip")
    cached_info = cached.with_suffix(".json")
    try:
        info = json.loads(cached_info.read_text("utf-8"))
        data, stdlib = cached.read_bytes(), cached_stdlib.read_bytes()
        os.utime(cached)  # recently used: pruned last
        info["cached"] = True
        return data, stdlib, info
    except (OSError, ValueError):
        pass  # not made yet (or pruned by a parallel build a moment ago)
    SNAPSHOT_CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=SNAPSHOT_CACHE) as tmp:
        out, stdlib_out = Path(tmp) / "snapshot.bin.gz", Path(tmp) / "stdlib.zip"
        # (Node warns on stderr that web/js/snapshot-delta.js, an ES module without a package.json
        # saying so, was parsed as one; stderr is shown only when the script fails.)
        command = [NODE, str(MAKE_SNAPSHOT), str(pyodide_dir), str(zip_path), str(out), str(stdlib_out),
                   package_sha256]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            tail = "\n".join(done.stderr.strip().splitlines()[-15:])[-3000:]
            raise SystemExit(f"make_snapshot.mjs failed (exit {done.returncode}):\n{tail}\n"
                             "fix the error above, or build with --no-snapshot (the site then boots without one)")
        info = json.loads(done.stdout.strip().splitlines()[-1])
        data, stdlib = out.read_bytes(), stdlib_out.read_bytes()
        # Written under temporary names, then renamed: parallel builds never read half a file.
        # The info goes last: a reader that finds it finds the other two.
        out.replace(cached)
        stdlib_out.replace(cached_stdlib)
        (Path(tmp) / "info.json").write_text(json.dumps(info) + "\n", "utf-8")
        (Path(tmp) / "info.json").replace(cached_info)
    _prune(SNAPSHOT_CACHE, keep=SNAPSHOTS_KEPT)
    info["cached"] = False
    return data, stdlib, info


def _prune(folder, keep):
    """Delete all but the `keep` most recently used snapshots (6-7 MB each; every package change makes one)."""
    snapshots = sorted(folder.glob("*.bin.gz"), key=lambda path: path.stat().st_mtime, reverse=True)
    for path in snapshots[keep:]:
        for stale in (path, path.with_suffix(".json"), path.with_suffix(".zip")):
            stale.unlink(missing_ok=True)


def pyodide_version():
    return json.loads((PYODIDE / "package.json").read_text("utf-8"))["version"]


def bpelab_version():
    for line in (ROOT / "pyproject.toml").read_text("utf-8").splitlines():
        if line.startswith("version"):
            return line.split("=", 1)[1].strip().strip('"')
    return "unknown"


def build(out, snapshot=True):
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
    package_sha256 = hashlib.sha256(zip_bytes).hexdigest()
    package_file = "py/" + hashed_name("bpelab.zip", zip_bytes)
    (out / package_file).write_bytes(zip_bytes)

    snapshot_info = None
    snapshot_seconds = 0.0
    if snapshot:
        started = time.perf_counter()
        gz, stdlib, made = make_snapshot(out / "pyodide", out / package_file, package_sha256)
        snapshot_seconds = time.perf_counter() - started
        snapshot_file = "py/" + hashed_name("snapshot.bin.gz", gz)
        (out / snapshot_file).write_bytes(gz)
        stdlib_file = "py/" + hashed_name("stdlib.zip", stdlib)
        (out / stdlib_file).write_bytes(stdlib)
        if made["skipped"]:
            print(f"warning: the snapshot leaves out modules that fail to import in Pyodide: {made['skipped']}")
        # What the worker checks before using it: the same Pyodide, the same package.
        snapshot_info = {
            "file": snapshot_file,
            "pyodide": made["pyodide"],
            "python": made["python"],
            "bpelab": made["bpelab"],
            "package_sha256": package_sha256,
            "bytes": made["raw_bytes"],
            "gzip_bytes": len(gz),
            "modules": made["modules"],
            # How the worker turns the file back into memory: inflate, then XOR the wasm's data
            # segments back in, once it has checked that pyodide.asm.wasm's data section is the
            # one the snapshot was made against (a checksum; web/js/snapshot-delta.js).
            "format": "gzip, XOR pyodide.asm.wasm data segments",
            "wasm_data_checksum": made["wasm_data_checksum"],
            # The standard library Pyodide loads on this path, and what it holds; a module in
            # neither comes from the full one, pyodide/python_stdlib.zip (stdlib_names lists its
            # top-level names), fetched on first need (web/js/stdlib-fallback.js).
            "stdlib_file": stdlib_file,
            "stdlib_modules": made["stdlib"],
            "stdlib_names": made["stdlib_names"],
            "zeroed_bytes": made["zeroed_bytes"],
        }

    ranks = []
    rank_files = {}
    if RANKS.is_dir():
        (out / "ranks").mkdir()
        for path in sorted(RANKS.glob("*.tiktoken")):
            data = path.read_bytes()
            rank_files[path.name] = "ranks/" + hashed_name(path.name, data)
            (out / rank_files[path.name]).write_bytes(data)
            ranks.append(path.name)

    files = {}
    for path in sorted(out.rglob("*")):
        if path.is_file():
            files[path.relative_to(out).as_posix()] = path.stat().st_size
    build_info = {
        "bpelab": bpelab_version(),
        "pyodide": pyodide_version(),
        "package_sha256": package_sha256,
        "package_file": package_file,
        "snapshot": snapshot_info,
        "ranks": ranks,            # the reference names worker_api knows (gpt2.tiktoken, ...)
        "rank_files": rank_files,  # name -> the file that holds it, under its hashed name
        "files": files,
    }
    (out / "build.json").write_text(json.dumps(build_info, indent=1, sort_keys=True) + "\n", "utf-8")
    total = sum(files.values())
    if snapshot_info:
        note = (f"snapshot {snapshot_info['gzip_bytes'] / 1e6:.1f} MB gzipped "
                f"({'cached' if made['cached'] else f'made in {snapshot_seconds:.1f} s'})")
    else:
        note = "no snapshot"
    print(f"built {out} : {len(files)} files, {total / 1e6:.1f} MB "
          f"(pyodide {build_info['pyodide']}, bpelab {build_info['bpelab']}, {len(ranks)} rank files, {note})")
    return build_info


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    parser.add_argument("--no-snapshot", action="store_true",
                        help="make no memory snapshot (no Node needed; the site boots the slow way)")
    args = parser.parse_args(argv)
    build(args.out.resolve(), snapshot=not args.no_snapshot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
