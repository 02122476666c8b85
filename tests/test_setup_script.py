"""build_scripts/setup.sh: one line a step, a failed step's own output shown, Chromium only for the tests."""

import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tree(tmp_path):
    """A copy of what setup.sh reads, with node_modules, .venv and .cache linked from the worktree (already set up)."""
    tree = tmp_path / "repo"
    (tree / "build_scripts").mkdir(parents=True)
    shutil.copy(ROOT / "build_scripts" / "setup.sh", tree / "build_scripts" / "setup.sh")
    for name in ("package.json", "package-lock.json", "pyproject.toml"):
        shutil.copy2(ROOT / name, tree / name)  # their old times: npm and pip are not run again
    for name in ("node_modules", ".venv", ".cache"):
        (tree / name).symlink_to(ROOT / name)
    return tree


def _fake_bin(tmp_path, scripts):
    """A PATH folder of small shell scripts (name -> body); each records its call in calls.log."""
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "calls.log"
    for tool in ("mktemp", "cat", "rm", "touch", "env", "dirname", "sh"):  # what setup.sh and the fakes run
        (folder / tool).symlink_to(shutil.which(tool))
    for name, body in scripts.items():
        path = folder / name
        path.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n{body}\n')
        path.chmod(0o755)
    return folder, log


def _run(tree, path_folder, *args):
    env = {k: v for k, v in os.environ.items() if k != "BPELAB_CHROMIUM"}
    env["PATH"] = str(path_folder)  # only the fakes and a few coreutils: no chromium, npm or apt-get
    return subprocess.run([shutil.which("bash"), str(tree / "build_scripts" / "setup.sh"), *args], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=300)


def test_each_step_prints_one_line_and_a_failed_step_prints_its_log(tmp_path):
    tree = _tree(tmp_path)
    (tree / "build_scripts" / "build_ranks.py").write_text(
        "import sys\nfor i in range(100): print('noise line', i)\nprint('the real reason: rank file missing', file=sys.stderr)\nsys.exit(3)\n")
    folder, _ = _fake_bin(tmp_path, {})
    result = _run(tree, folder)
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    # The step's line, then its whole captured output, then which step failed.
    assert lines[0] == "[setup] checking OpenAI's rank files"
    assert "the real reason: rank file missing" in lines
    assert sum(line.startswith("noise line") for line in lines) == 100
    assert lines[-1] == "[setup] failed: checking OpenAI's rank files (its output is above)"


def test_steps_that_work_print_only_their_names(tmp_path):
    tree = _tree(tmp_path)
    (tree / "build_scripts" / "build_ranks.py").write_text("for i in range(100): print('pip-like warning', i)\n")
    (tree / "build_scripts" / "build_widget.py").write_text("import sys\nprint('warning', file=sys.stderr)\n")
    folder, _ = _fake_bin(tmp_path, {})
    result = _run(tree, folder)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == ["[setup] checking OpenAI's rank files", "[setup] building the notebook widgets' front end"]
    assert result.stdout == ""


def test_npm_start_does_not_install_chromium_and_npm_test_does(tmp_path):
    scripts = json.loads((ROOT / "package.json").read_text())["scripts"]
    assert scripts["start"].startswith("bash build_scripts/setup.sh && ")
    assert scripts["test"].startswith("bash build_scripts/setup.sh --tests && ")
    tree = _tree(tmp_path)
    for name in ("build_ranks.py", "build_widget.py"):
        (tree / "build_scripts" / name).write_text("")
    # apt-get and id are fakes: the script believes it is root on Debian, with no chromium on PATH.
    folder, log = _fake_bin(tmp_path, {"apt-get": "exit 0", "id": "echo 0"})
    start = _run(tree, folder)
    assert start.returncode == 0, start.stderr
    assert "chromium" not in start.stderr
    assert not log.exists() or "apt-get" not in log.read_text()
    test = _run(tree, folder, "--tests")
    assert test.returncode == 0, test.stderr
    assert "[setup] installing Debian's chromium for the browser tests" in test.stderr.splitlines()
    assert "apt-get install -y -qq chromium" in log.read_text()


def test_an_unknown_option_is_refused(tmp_path):
    tree = _tree(tmp_path)
    folder, _ = _fake_bin(tmp_path, {})
    result = _run(tree, folder, "--test")
    assert result.returncode == 2
    assert result.stderr.strip() == "[setup] unknown option --test (the only one is --tests)"
