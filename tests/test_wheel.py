"""The wheel carries everything: built from a clean copy of the repository, installed offline.

The copy holds the files git tracks (and new ones not ignored) plus node_modules, as a
checkout after `npm ci` does: no rank files, no widget bundle. `python -m build` makes
the sdist there (the backend copies the rank files and runs esbuild), then the wheel from
the unpacked sdist, where node_modules is absent and the backend can only check. The
wheel goes into a fresh venv with `pip install --no-index`, and that venv's Python, with
no npm on its PATH and the repository out of its sys.path, loads each reference.

The check vectors are tiktoken's ids (the oracle, loaded offline by conftest.py) for
RESOURCES.md's `hello world`, seed 003's Vietnamese phrase and the multilingual edge
cases in tests/data; the fresh venv's bpelab must give exactly those.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bpelab.openai_vocab import REFERENCES
from seed003_vietnamese import XIN_CHAO

ROOT = Path(__file__).resolve().parent.parent
TIKTOKEN_NAME = {"gpt2": "r50k_base", "cl100k": "cl100k_base", "o200k": "o200k_base"}
EDGE = (ROOT / "tests" / "data" / "multilingual_edge.txt").read_text(encoding="utf-8")
CHECK_TEXTS = ["hello world", XIN_CHAO, *[line for line in EDGE.splitlines() if line.strip()], EDGE]


def clean_copy(dest, *, node_modules=True):
    """The repository as a fresh checkout holds it (tracked and new, not ignored), with node_modules linked."""
    dest.mkdir(parents=True)
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    if node_modules:
        (dest / "node_modules").symlink_to(ROOT / "node_modules")
    return dest


def build(source, out, *args):
    """`python -m build` without isolation (offline: the dev venv has setuptools and build)."""
    return subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), *args, str(source)],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    source = clean_copy(base / "src")
    assert not any((source / "py" / "bpelab" / "data" / "ranks").glob("*.tiktoken")), "the copy must start without them"
    run = build(source, base / "dist")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    wheels = list((base / "dist").glob("bpelab-*.whl"))
    assert len(wheels) == 1 and list((base / "dist").glob("bpelab-*.tar.gz")), sorted((base / "dist").iterdir())
    return {"wheel": wheels[0], "base": base, "log": run.stderr}


@pytest.fixture(scope="module")
def fresh_venv(built):
    venv = built["base"] / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    run = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-index", str(built["wheel"])],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return python


def run_in(python, code, cwd):
    """Run code in the fresh venv: only its own bin on PATH (no npm, no node), no PYTHONPATH."""
    env = {"PATH": str(python.parent), "HOME": str(cwd), "LANG": "C.UTF-8"}
    run = subprocess.run([str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_the_wheel_holds_the_rank_files_and_the_bundle(built):
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = set(wheel.namelist())
        for info in REFERENCES.values():
            data = wheel.read(f"bpelab/data/ranks/{info.filename}")
            assert hashlib.sha256(data).hexdigest() == info.sha256, info.key
        bundle = wheel.read("bpelab/widgets/static/widget.js")
        stamp = json.loads(wheel.read("bpelab/widgets/static/widget.json"))
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert hashlib.sha256(bundle).hexdigest() == stamp["sha256"]
    assert bundle.startswith(b"var ") or b"export" in bundle
    # Pure Python, no required dependency: anywidget only behind the widgets extra.
    assert built["wheel"].name.endswith("-py3-none-any.whl")
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert requires and all("extra ==" in line for line in requires), requires
    print(f"\nwheel {built['wheel'].name}: {built['wheel'].stat().st_size:,} bytes")


def test_the_wheel_bundle_is_the_one_the_notebook_tests_run(built):
    """The e2e notebook tests use the checkout's bundle: the wheel's is the same bytes."""
    local = ROOT / "py" / "bpelab" / "widgets" / "static" / "widget.js"
    with zipfile.ZipFile(built["wheel"]) as wheel:
        assert hashlib.sha256(wheel.read("bpelab/widgets/static/widget.js")).hexdigest() == \
            hashlib.sha256(local.read_bytes()).hexdigest()


def test_load_reference_in_a_fresh_venv_gives_tiktokens_ids(fresh_venv, built, tiktoken_encoding):
    code = f"""
import json, bpelab
from bpelab.openai_vocab import load_reference
texts = json.loads({json.dumps(json.dumps(CHECK_TEXTS))})
out = {{"file": bpelab.__file__}}
for key in ("gpt2", "cl100k", "o200k"):
    tok = load_reference(key)
    out[key] = [tok.encode_ordinary(text) for text in texts]
print(json.dumps(out))
"""
    got = run_in(fresh_venv, code, built["base"])
    assert Path(got["file"]).is_relative_to(fresh_venv.parent.parent), got["file"]
    for key, name in TIKTOKEN_NAME.items():
        enc = tiktoken_encoding(name)
        expected = [enc.encode_ordinary(text) for text in CHECK_TEXTS]
        for text, ours, theirs in zip(CHECK_TEXTS, got[key], expected):
            assert ours == theirs, (key, text[:40])
    assert [len(got[key][1]) for key in TIKTOKEN_NAME] == [15, 9, 5]  # seed 003's counts


def test_the_widgets_load_from_the_installed_wheel(fresh_venv, built):
    """anywidget (from the dev venv, appended to the fresh venv's path) sends the wheel's own bundle."""
    dev_site = next(p for p in map(Path, sys.path) if p.name == "site-packages" and (p / "anywidget").is_dir())
    site = next((fresh_venv.parent.parent / "lib").glob("python3*/site-packages"))
    (site / "zz_dev_packages.pth").write_text(f"{dev_site}\n", encoding="utf-8")
    try:
        got = run_in(fresh_venv, """
import json
from pathlib import Path
import bpelab.widgets as widgets
from bpelab.widgets import Explorer, Compare
w = Explorer("low low low low low\\nlower lower widest widest widest\\nnewest newest newest newest newest newest\\n",
             vocab_size=265, step=5)
bundle = Path(widgets.__file__).parent / "static" / "widget.js"
c = Compare("Xin chào thế giới")
print(json.dumps({"same": w._esm == bundle.read_text(encoding="utf-8"), "where": str(bundle),
                  "view": w._repr_mimebundle_()[0].get("application/vnd.jupyter.widget-view+json", {}).get("model_id") == w.model_id,
                  "merge5": list(w.result.tokenizer.merges[4]), "counts": [len(ids) for ids in c.ids.values()]}))
""", built["base"])
    finally:
        (site / "zz_dev_packages.pth").unlink()
    assert got["same"] and got["view"], got
    assert Path(got["where"]).is_relative_to(site), got["where"]
    assert got["merge5"] == [119, 257] and got["counts"] == [15, 9, 5]  # w + est; seed 003's 15 / 9 / 5


@pytest.mark.parametrize("damage, message", [
    ("no node_modules, no rank files", "is missing"),
    ("a rank file that is not OpenAI's", "has sha256"),
    ("no widget bundle", "widgets' front end"),
])
def test_a_build_without_the_files_stops_and_says_how_to_fix_it(tmp_path, damage, message):
    source = clean_copy(tmp_path / "src", node_modules=False)
    ranks = source / "py" / "bpelab" / "data" / "ranks"
    static = source / "py" / "bpelab" / "widgets" / "static"
    if damage != "no node_modules, no rank files":
        for info in REFERENCES.values():
            shutil.copy2(ROOT / "py" / "bpelab" / "data" / "ranks" / info.filename, ranks / info.filename)
        for name in ("widget.js", "widget.json"):
            shutil.copy2(ROOT / "py" / "bpelab" / "widgets" / "static" / name, static / name)
    if damage == "a rank file that is not OpenAI's":
        target = ranks / "cl100k.tiktoken"
        target.write_bytes(target.read_bytes()[:-10] + b"QQ== 99999\n")
    if damage == "no widget bundle":
        (static / "widget.js").unlink()
    run = build(source, tmp_path / "dist", "--wheel")
    assert run.returncode != 0, f"{damage}: the build went through"
    assert message in run.stdout + run.stderr, (run.stdout + run.stderr)[-2000:]
    assert not list(tmp_path.glob("dist/*.whl"))


MICROPIP_WHEEL = ROOT / ".cache" / "wheels" / "micropip-0.11.1-py3-none-any.whl"
MICROPIP_SHA256 = "768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3"  # PyPI's file


def test_micropip_installs_the_wheel_in_pyodide_and_o200k_encodes(built, tiktoken_encoding, tmp_path):
    assert MICROPIP_WHEEL.is_file(), f"{MICROPIP_WHEEL} is missing: run `bash build_scripts/setup.sh`"
    assert hashlib.sha256(MICROPIP_WHEEL.read_bytes()).hexdigest() == MICROPIP_SHA256
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps(CHECK_TEXTS), encoding="utf-8")
    run = subprocess.run(["node", str(ROOT / "tests" / "wheel_in_pyodide.mjs"), str(MICROPIP_WHEEL), str(built["wheel"]),
                          str(texts), "o200k"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout)
    assert got["file"].startswith("/lib/python3") and got["installed"] == "0.1.0", got
    enc = tiktoken_encoding("o200k_base")
    assert got["ids"] == [enc.encode_ordinary(text) for text in CHECK_TEXTS]
    assert len(got["ids"][1]) == 5  # seed 003: o200k_base, 5 tokens
