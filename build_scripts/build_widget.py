"""Build the notebook widgets' front end: one ES module, py/bpelab/widgets/static/widget.js.

Usage: .venv/bin/python build_scripts/build_widget.py [--check]

esbuild (a pinned npm devDependency, `npm ci`) bundles web/js/notebook/widget.js with
the site's views and stylesheets (build_widget.mjs says how). Beside the module,
widget.json records its sha256 and the sha256 of every input file, so that a build
without node_modules (a wheel made from the sdist) can prove the bundle is whole, and
a build from the repository can prove it is not stale. Both files are generated and
kept out of git.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "py" / "bpelab" / "widgets" / "static"
BUNDLE = STATIC / "widget.js"
STAMP = STATIC / "widget.json"
ESBUILD = ROOT / "node_modules" / "esbuild"
FIX = "install the npm packages (`npm ci`) and run `.venv/bin/python build_scripts/build_widget.py`"


class BundleError(SystemExit):
    """The widget bundle is missing, damaged or older than its sources."""


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _inputs_digest(inputs, root=ROOT):
    digest = hashlib.sha256()
    for name in inputs:
        digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    return digest.hexdigest()


def can_build(root=ROOT):
    """True when esbuild and the site's sources are here (a checkout after `npm ci`)."""
    return (root / "node_modules" / "esbuild").is_dir() and (root / "web" / "js" / "notebook" / "widget.js").is_file()


def build(log=print):
    """Bundle with esbuild; write widget.js and widget.json; return the bundle's path."""
    if not can_build():
        raise BundleError(f"[widget] esbuild is not installed ({ESBUILD} is missing): {FIX}")
    STATIC.mkdir(parents=True, exist_ok=True)
    partial = BUNDLE.with_suffix(".partial.js")
    run = subprocess.run(["node", str(ROOT / "build_scripts" / "build_widget.mjs"), str(partial)],
                         cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        raise BundleError(f"[widget] esbuild failed:\n{run.stderr.strip() or run.stdout.strip()}")
    meta = json.loads(run.stdout)
    os.replace(partial, BUNDLE)
    stamp = {"sha256": _sha256(BUNDLE), "bytes": BUNDLE.stat().st_size, "esbuild": meta["esbuild"],
             "inputs": meta["inputs"], "inputs_sha256": _inputs_digest(meta["inputs"])}
    STAMP.write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")
    log(f"[widget] {BUNDLE.relative_to(ROOT)}: {stamp['bytes']:,} bytes from {len(meta['inputs'])} files")
    return BUNDLE


def check(static=STATIC, root=ROOT):
    """Raise BundleError unless the bundle is whole (and, where its sources are, up to date)."""
    bundle, stamp_path = static / "widget.js", static / "widget.json"
    if not bundle.is_file() or not stamp_path.is_file():
        raise BundleError(f"[widget] the widgets' front end {bundle} is missing: {FIX}")
    stamp = json.loads(stamp_path.read_text(encoding="utf-8"))
    if _sha256(bundle) != stamp.get("sha256"):
        raise BundleError(f"[widget] {bundle} does not match the sha256 in {stamp_path.name}: {FIX}")
    if all((root / name).is_file() for name in stamp.get("inputs", [])) and (root / "web").is_dir():
        if _inputs_digest(stamp["inputs"], root) != stamp.get("inputs_sha256"):
            raise BundleError(f"[widget] {bundle} is older than its sources in web/: {FIX}")
    return stamp


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only verify the built bundle")
    args = parser.parse_args(argv)
    if not args.check:
        build()
    stamp = check()
    print(f"[widget] bundle ok: {stamp['bytes']:,} bytes, sha256 {stamp['sha256'][:12]}")


if __name__ == "__main__":
    sys.exit(main())
