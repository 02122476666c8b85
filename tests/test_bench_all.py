"""build_scripts/bench_all.py: one table of issue 23's figures from the benches' JSON, never a made-up number."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def bench_all(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_all_under_test", ROOT / "build_scripts" / "bench_all.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "RESULTS", tmp_path)
    monkeypatch.setattr(module, "ROOT", tmp_path)
    return module


def write(folder, name, data):
    (folder / name).write_text(json.dumps(data), "utf-8")


ENCODE = {"encode": [
    {"encoding": "gpt2", "text": "kjv", "cold_over_tiktoken": 0.91, "ids_equal": True},
    {"encoding": "gpt2", "text": "multilingual", "cold_over_tiktoken": 0.37, "ids_equal": True},
    {"encoding": "o200k", "text": "kjv", "cold_over_tiktoken": 0.52, "ids_equal": True},
]}
TRAIN = {"failures": [], "corpora": [
    {"name": "kjv", "vocab_size": 5000, "rows": {"bpelab": {"vs_hf": 0.88}, "hf": {}}},
    {"name": "multilingual", "vocab_size": 5000, "rows": {"bpelab": {"vs_hf": 1.42}}},
]}
SITE = {"first_visit": {"bytes": 8_160_000}, "ready_ratio": 0.31}


def rows_by_id(bench_all, tmp_path):
    lines, rows = bench_all.table(bench_all.load(bench_all.BENCHES, {}))
    return {row["id"]: row for row in rows}, lines


def test_figures_come_from_what_each_bench_writes_today(bench_all, tmp_path):
    write(tmp_path, "bench_encode.json", ENCODE)
    write(tmp_path, "bench.json", TRAIN)
    write(tmp_path, "bench_site.json", SITE)
    rows, lines = rows_by_id(bench_all, tmp_path)
    expected = {
        "encode.gpt2.english": (0.91, True), "encode.gpt2.mixed": (0.37, False), "encode.o200k.english": (0.52, False),
        "encode.ids_equal": (True, True), "train.english.5000": (0.88, True), "train.mixed.5000": (1.42, False),
        "train.merges_identical": (True, True), "site.first_visit_mb": (8.16, True), "site.ready_ratio": (0.31, True),
    }
    for figure_id, (value, met) in expected.items():
        assert (rows[figure_id]["value"], rows[figure_id]["met"]) == (pytest.approx(value), met), figure_id
    # What no bench wrote is "not measured", with no number.
    for figure_id in ("encode.cl100k.english", "encode.o200k.mixed", "train.mixed.20000", "stream.peak_mb"):
        assert rows[figure_id]["value"] is None and rows[figure_id]["met"] is None
        line = next(line for line in lines if line.startswith(f"| {rows[figure_id]['label']} |"))
        assert "not measured: " in line and "does not measure it yet" in line
    assert "bench_bytes.py wrote no bench_bytes.json" in rows["train.bytes.time"]["why_not_measured"]
    assert any("| 8.16 MB | yes |" in line for line in lines)
    assert any("| 0.37 | **no** |" in line for line in lines)


def test_a_benchs_named_figures_come_first(bench_all, tmp_path):
    write(tmp_path, "bench_encode.json", {**ENCODE, "figures": {"encode.gpt2.english": 0.5, "stream.peak_mb": 180.4}})
    write(tmp_path, "bench.json", {**TRAIN, "figures": {"train.merges_identical": False}})
    write(tmp_path, "bench_bytes.json", {"figures": {"train.bytes.memory": 3.5}})
    rows, lines = rows_by_id(bench_all, tmp_path)
    assert (rows["encode.gpt2.english"]["value"], rows["encode.gpt2.english"]["met"]) == (0.5, False)
    assert (rows["stream.peak_mb"]["value"], rows["stream.peak_mb"]["met"]) == (180.4, True)
    assert (rows["train.bytes.memory"]["value"], rows["train.bytes.memory"]["met"]) == (3.5, False)
    assert rows["train.merges_identical"]["met"] is False
    assert any("| 180 MB | yes |" in line for line in lines)


def test_a_missing_or_broken_file_says_why(bench_all, tmp_path):
    (tmp_path / "bench.json").write_text("{not json", "utf-8")
    rows, _lines = rows_by_id(bench_all, tmp_path)
    assert "bench_encode.py wrote no bench_encode.json" in rows["encode.gpt2.english"]["why_not_measured"]
    assert "bench.json is not JSON" in rows["train.english.5000"]["why_not_measured"]
    loaded = bench_all.load(["site"], {"site": 3})
    _lines, site_rows = bench_all.table(loaded)
    assert next(r for r in site_rows if r["id"] == "site.ready_ratio")["why_not_measured"] == \
        "bench_site.py failed (exit 3)"


def test_a_run_deletes_stale_results_and_reports_a_failed_bench(bench_all, tmp_path, monkeypatch, capsys):
    """Each bench runs in its own process; one that fails leaves its rows 'not measured' and the exit code 1."""
    good = tmp_path / "good_bench.py"
    good.write_text("import json, sys\nopen(sys.argv[-1], 'w').write(json.dumps({'ready_ratio': 0.4, "
                    "'first_visit': {'bytes': 9_500_000}}))\n")
    bad = tmp_path / "bad_bench.py"
    bad.write_text("import sys\nsys.exit(2)\n")
    write(tmp_path, "bench_encode.json", ENCODE)  # stale: must not be read as this run's
    write(tmp_path, "bench.json", TRAIN)  # not run (--only): not read either
    monkeypatch.setitem(bench_all.BENCHES, "site", bench_all.Bench(str(good), "bench_site.json", [], []))
    monkeypatch.setitem(bench_all.BENCHES, "encode", bench_all.Bench(str(bad), "bench_encode.json", [], []))
    assert bench_all.main(["--only", "site,encode", "--out", str(tmp_path / "all.json")]) == 1
    out = capsys.readouterr().out
    assert "| first visit, bytes sent until Python is ready (gzip host) | <= 9.0 MB | 9.50 MB | **no** |" in out
    assert "| 0.40 | yes |" in out
    assert "not measured: bad_bench.py failed (exit 2)" in out
    assert "0.91" not in out and "0.88" not in out
    assert "not measured: bench.py has not run" in out
    saved = json.loads((tmp_path / "all.json").read_text("utf-8"))
    assert saved["runs"]["encode"]["exit"] == 2 and saved["quick"] is False


def test_only_names_known_benches(bench_all):
    with pytest.raises(SystemExit):
        bench_all.main(["--only", "encode,trian", "--no-run"])


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))


def test_a_bench_can_say_why_a_figure_is_not_measured(bench_all, tmp_path):
    """bench_encode.py --stream-mb 64 (npm run bench -- --quick) streams 64 MB, not the 1 GB the figure is about."""
    write(tmp_path, "bench_encode.json", {**ENCODE, "figures": {"long.gpt2_a.peak_mb": 49.0},
                                          "not_measured": {"stream.peak_mb": "--stream-mb 64: 64 MB is not a 1 GB input"}})
    rows, lines = rows_by_id(bench_all, tmp_path)
    assert rows["stream.peak_mb"]["value"] is None
    assert rows["stream.peak_mb"]["why_not_measured"] == "bench_encode.py: --stream-mb 64: 64 MB is not a 1 GB input"
    assert (rows["long.gpt2_a.peak_mb"]["value"], rows["long.gpt2_a.peak_mb"]["met"]) == (49.0, True)
    assert rows["memory.decode_10m_mb"]["why_not_measured"] == "bench_encode.py does not measure it yet"
