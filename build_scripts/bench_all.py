"""Every figure of issue 23 ("Performance, round 2") next to its goal, in one table, from one run.

Usage: .venv/bin/python build_scripts/bench_all.py [--quick] [--only encode,train,site] [--no-run]
       [--out bench_results/bench_all.json]
       (npm run bench; npm run bench -- --quick)

Runs the benchmarks one after another, each in a process of its own (run side by side they
would time each other): bench_encode.py (the encoders against tiktoken in CPU time, long pieces,
memory, the 1 GB stream),
bench.py (the trainer against HF tokenizers) and bench_site.py --boot-only (the first visit
and the start-up). Each writes its JSON to bench_results/; this reads them and prints one
table: figure, goal, measured, met. A figure no bench produced says "not measured", with the
reason, never a number. --quick gives each bench its short form (fewer repeats, shorter
texts, fewer loads) and says so above the table; --no-run reads the JSON already there.
The table and the machine line go to --out as JSON too.

Where a figure comes from. A bench's JSON may hold `figures`, a map from the figure ids
below to numbers (or true/false for the checks); that is read first. Otherwise the readers
below take it from the fields the bench writes today.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench_results"


@dataclass
class Bench:
    script: str
    output: str        # its JSON, under bench_results/
    args: list         # the full run
    quick: list        # --quick
    out_flag: str = "--out"
    runs: dict = field(default_factory=dict)

    @property
    def name(self):
        return Path(self.script).name


BENCHES = {
    "encode": Bench("bench_encode.py", "bench_encode.json", [],
                    ["--repeat", "1", "--max-bytes", "300000", "--scripts", "", "--stream-mb", "64"]),
    "train": Bench("bench.py", "bench.json", [], ["--repeat", "1", "--skip-slow"], out_flag="--json"),
    "site": Bench("bench_site.py", "bench_site.json", ["--boot-only"], ["--boot-only", "--loads", "2"]),
    "bytes": Bench("bench_bytes.py", "bench_bytes.json", [], ["--chars", "200000", "--vocab", "2000"],
                   out_flag="--json"),
}


@dataclass
class Figure:
    id: str
    label: str
    goal: str        # as printed
    op: str          # ">=", "<=", or "==" (a check that must be true)
    target: object
    bench: str       # which bench's JSON holds it
    unit: str = ""
    digits: int = 2

    def met(self, value):
        if self.op == ">=":
            return value >= self.target
        if self.op == "<=":
            return value <= self.target
        return value == self.target


FIGURES = [
    *[Figure(f"encode.{enc}.{text}", f"encoder speed / tiktoken's, {enc}, {label}", f">= {goal}", ">=", goal, "encode")
      for enc in ("gpt2", "cl100k", "o200k")
      for text, label, goal in (("english", "English prose", 0.85), ("mixed", "mixed scripts", 0.5))],
    Figure("encode.ids_equal", "encoder ids equal tiktoken's (every row above)", "yes", "==", True, "encode"),
    Figure("stream.peak_mb", "streaming encode, peak memory for a 1 GB input (1 and 2 workers)", "<= 200 MB", "<=",
           200, "encode", unit=" MB", digits=0),
    Figure("long.cl100k_spaces.speed", "one piece of 5 MB of spaces, cl100k: speed / tiktoken's", ">= 0.5", ">=", 0.5,
           "encode"),
    Figure("long.cl100k_spaces.scaling", "the same: CPU time at n / at n/4 (linear 4, quadratic 16)", "<= 5", "<=", 5,
           "encode"),
    Figure("long.cl100k_spaces.peak_mb", "the same: peak memory of the process", "<= 150 MB", "<=", 150, "encode",
           unit=" MB", digits=0),
    Figure("long.gpt2_a.speed", "one piece of 2 MB of `a`, gpt2: speed / tiktoken's", ">= 0.5", ">=", 0.5, "encode"),
    Figure("long.gpt2_a.scaling", "the same: CPU time at n / at n/4", "<= 5", "<=", 5, "encode"),
    Figure("long.gpt2_a.peak_mb", "the same: peak memory of the process", "<= 150 MB", "<=", 150, "encode",
           unit=" MB", digits=0),
    Figure("long.ids_equal", "long pieces' ids equal tiktoken's", "yes", "==", True, "encode"),
    Figure("memory.encode_20mb_mb", "`bpelab encode` of 20 MB to standard output, peak memory", "<= 150 MB", "<=", 150,
           "encode", unit=" MB", digits=0),
    Figure("memory.decode_10m_mb", "`bpelab decode --ids` of 10 million ids, peak memory", "<= 150 MB", "<=", 150,
           "encode", unit=" MB", digits=0),
    Figure("train.mixed.5000", "trainer time / HF's, mixed scripts, vocabulary 5,000", "<= 1.0", "<=", 1.0, "train"),
    Figure("train.mixed.20000", "trainer time / HF's, mixed scripts, vocabulary 20,000", "<= 1.0", "<=", 1.0, "train"),
    Figure("train.english.5000", "trainer time / HF's, English, vocabulary 5,000", "<= 0.9", "<=", 0.9, "train"),
    Figure("train.merges_identical", "trainer merges equal the references' (bench.py's checks)", "yes", "==", True,
           "train"),
    Figure("train.bytes.time", "`bytes` pre-tokenizer time / gpt2's, 1M characters, vocabulary 5,000", "<= 3.0",
           "<=", 3.0, "bytes"),
    Figure("train.bytes.memory", "`bytes` pre-tokenizer memory / gpt2's, 1M characters, vocabulary 5,000",
           "<= 3.0", "<=", 3.0, "bytes"),
    Figure("train.bytes.time_recorded", "the same, time, recording every step (as the site trains)", "<= 3.0",
           "<=", 3.0, "bytes"),
    Figure("train.bytes.memory_recorded", "the same, memory, recording every step", "<= 3.0", "<=", 3.0, "bytes"),
    Figure("site.first_visit_mb", "first visit, bytes sent until Python is ready (gzip host)", "<= 9.0 MB", "<=",
           9.0, "site", unit=" MB"),
    Figure("site.ready_ratio", "cold ready with the snapshot / a bare loadPyodide()", "<= 0.50", "<=", 0.5, "site"),
]

# ---------------------------------------------------------------- readers of what the benches write today

ENCODE_TEXTS = {"english": ("kjv", "english"), "mixed": ("multilingual", "mixed")}
TRAIN_CORPORA = {"english": ("kjv",), "mixed": ("multilingual", "mixed")}


def read_encode(data, figure_id):
    rows = data.get("encode", [])
    if figure_id == "encode.ids_equal":
        return all(row.get("ids_equal") for row in rows) if rows else None
    parts = figure_id.split(".")
    if len(parts) != 3 or parts[0] != "encode" or parts[2] not in ENCODE_TEXTS:
        return None
    _, enc, text = parts
    for row in rows:
        if row.get("encoding") == enc and row.get("text") in ENCODE_TEXTS[text]:
            return row.get("cold_over_tiktoken")
    return None


def read_train(data, figure_id):
    if figure_id == "train.merges_identical":
        return not data["failures"] if "failures" in data else None
    parts = figure_id.split(".")
    if len(parts) != 3 or parts[1] not in TRAIN_CORPORA:
        return None
    _, corpus, vocab = parts
    for entry in data.get("corpora", []):
        if entry.get("name") in TRAIN_CORPORA[corpus] and str(entry.get("vocab_size")) == vocab:
            return entry.get("rows", {}).get("bpelab", {}).get("vs_hf")
    return None


def read_site(data, figure_id):
    if figure_id == "site.first_visit_mb":
        sent = data.get("first_visit", {}).get("bytes")
        return None if sent is None else sent / 1e6
    if figure_id == "site.ready_ratio":
        return data.get("ready_ratio")
    return None


READERS = {"encode": read_encode, "train": read_train, "site": read_site,
           "bytes": lambda data, figure_id: None}  # bench_bytes.py writes `figures`


def measured(figure, loaded):
    """(value, None) or (None, why it is not measured)."""
    bench = BENCHES[figure.bench]
    if figure.bench not in loaded:
        return None, loaded.get(f"{figure.bench}:why", f"{bench.name} has not run")
    data = loaded[figure.bench]
    value = data.get("figures", {}).get(figure.id)
    if value is None:
        value = READERS[figure.bench](data, figure.id)
    if value is None:
        why = data.get("not_measured", {}).get(figure.id)  # a bench may say why it left a figure out
        return None, f"{bench.name}: {why}" if why else f"{bench.name} does not measure it yet"
    return value, None


def shown(figure, value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:.{figure.digits}f}{figure.unit}"


# ---------------------------------------------------------------- running

def run(name, bench, quick):
    out = RESULTS / bench.output
    command = [sys.executable, str(ROOT / "build_scripts" / bench.script), *(bench.quick if quick else bench.args),
               bench.out_flag, str(out)]
    print(f"[bench_all] {' '.join(command[1:])}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT)
    bench.runs = {"command": command[1:], "exit": done.returncode, "seconds": round(time.perf_counter() - started, 1)}
    return done.returncode


def load(names, ran):
    loaded = {}
    for name in names:
        bench = BENCHES[name]
        path = RESULTS / bench.output
        if name in ran and ran[name] != 0 and not path.exists():
            loaded[f"{name}:why"] = f"{bench.name} failed (exit {ran[name]})"
            continue
        try:
            loaded[name] = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            loaded[f"{name}:why"] = f"{bench.name} wrote no {path.relative_to(ROOT)}"
        except ValueError as error:
            loaded[f"{name}:why"] = f"{path.relative_to(ROOT)} is not JSON ({error})"
        if name in ran and ran[name] != 0 and name in loaded:
            loaded[name]["_exit"] = ran[name]
    return loaded


def table(loaded):
    rows = []
    lines = ["| figure | goal | measured | met? |", "|---|---|--:|---|"]
    for figure in FIGURES:
        value, why = measured(figure, loaded)
        if value is None:
            met = None
            lines.append(f"| {figure.label} | {figure.goal} | not measured: {why} | — |")
        else:
            met = figure.met(value)
            lines.append(f"| {figure.label} | {figure.goal} | {shown(figure, value)} | {'yes' if met else '**no**'} |")
        rows.append({"id": figure.id, "label": figure.label, "goal": figure.goal, "value": value, "met": met,
                     "why_not_measured": why})
    return lines, rows


def machine_line(load_before, load_after, quick):
    cpus = os.cpu_count()
    return (f"{platform.machine()}, {cpus} CPUs, CPython {platform.python_version()}; load average "
            f"{load_before:.1f} before, {load_after:.1f} after; {time.strftime('%Y-%m-%d %H:%M')}"
            f"{'; --quick (short runs: indicative only)' if quick else ''}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each bench's short form")
    parser.add_argument("--only", default=",".join(BENCHES), help=f"benches to run, of {','.join(BENCHES)}")
    parser.add_argument("--no-run", action="store_true", help="run nothing; read the JSON in bench_results/")
    parser.add_argument("--out", type=Path, default=RESULTS / "bench_all.json")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in names if name not in BENCHES]
    if unknown:
        parser.error(f"--only: unknown bench {unknown[0]!r}; the benches are {', '.join(BENCHES)}")

    RESULTS.mkdir(exist_ok=True)
    load_before = os.getloadavg()[0]
    ran = {}
    if not args.no_run:
        for name in names:
            # A stale file from an earlier run must not pass for this run's figures.
            (RESULTS / BENCHES[name].output).unlink(missing_ok=True)
            ran[name] = run(name, BENCHES[name], args.quick)
    loaded = load(BENCHES if args.no_run else names, ran)
    lines, rows = table(loaded)
    machine = machine_line(load_before, os.getloadavg()[0], args.quick)
    print()
    print(f"Issue 23's figures ({machine}):")
    print()
    print("\n".join(lines))
    args.out.write_text(json.dumps({"machine": machine, "quick": args.quick, "figures": rows,
                                    "runs": {name: BENCHES[name].runs for name in ran}}, indent=1) + "\n", "utf-8")
    print(f"\nwritten to {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0 if all(code == 0 for code in ran.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
