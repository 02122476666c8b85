"""The example lessons run from top to bottom: examples/lesson.ipynb with nbclient, examples/lesson.py as a script.

nbclient executes the notebook in a real kernel (this venv's ipykernel) with no front end,
so every widget's Python side must work alone: `result` trains through the same dispatch
the view would use, `ids` and `export` read it. The checks are the lesson's own claims:
seed 003's eight merges, 15 / 9 / 5 tokens for the Vietnamese phrase, files that read back.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from seed003_vietnamese import XIN_CHAO  # noqa: F401  (the lesson's phrase, checked below)

ROOT = Path(__file__).resolve().parent.parent
SEED003_MERGES = ["st", "est", "ow", "low", "west", "ne", "newest", " newest"]  # seed 003's table, in order
SEED003_COUNTS = [9, 9, 7, 7, 6, 6, 6, 5]


def outputs(cell):
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def test_the_notebook_lesson_runs_with_nbclient(tmp_path):
    shutil.copy(ROOT / "examples" / "lesson.ipynb", tmp_path / "lesson.ipynb")
    nb = nbformat.read(tmp_path / "lesson.ipynb", as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
    by_source = {cell.source.splitlines()[0]: cell for cell in code}
    assert "step: 3" in outputs(by_source['print("step:", explorer.step)'])
    merges = [line.split(" ", 2)[2].rsplit(" ", 1) for line in outputs(by_source["result = explorer.result"]).splitlines()]
    assert [m for m, _ in merges] == SEED003_MERGES and [int(c) for _, c in merges] == SEED003_COUNTS
    assert outputs(by_source["{pane: len(ids) for pane, ids in compare.ids.items()}"]) == \
        "{'gpt2': 15, 'cl100k': 9, 'o200k': 5}"
    # The widgets are in the saved notebook as widget views, not as text.
    views = [o for cell in code for o in cell.outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(views) == 3
    exported = sorted(p.name for p in (tmp_path / "lesson-tokenizer").iterdir())
    assert exported == ["encoder.json", "manifest.json", "tokenizer.json", "tokenizer.tiktoken", "vocab.bpe"]
    manifest = json.loads((tmp_path / "lesson-tokenizer" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["vocab_size"] == 265 and manifest["merges"] == 8
    last = outputs(code[-1]).split()
    assert last[-2:] == ["True", "True"], last


def test_the_marimo_lesson_runs_as_a_script(tmp_path):
    shutil.copy(ROOT / "examples" / "lesson.py", tmp_path / "lesson.py")
    run = subprocess.run([sys.executable, "lesson.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "lesson-tokenizer" / "vocab.bpe").is_file()
