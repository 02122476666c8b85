"""The `bytes` pre-tokenizer against gpt2 on the same text: time and peak memory, with and without recording.

Usage: .venv/bin/python build_scripts/bench_bytes.py [--chars 1000000] [--vocab 5000] [--repeat 3] [--json out.json]

Issue 25's goal: `bytes` (each document one pre-token) at the site's 1,000,000-character limit and
vocabulary 5,000 within 3 times gpt2's time and memory, with recording (as the site trains) and
without. Each run is a fresh interpreter (so peak memory is that run's alone: ru_maxrss of the child,
the interpreter's own ~20 MB included in both); the reference, gpt2, is measured in the same run. The
text is the bundled Genesis sample, repeated to the length asked. The two are run in turn, --repeat times,
and each figure is the fastest run (the smallest peak) of each: on a loaded machine the slowest runs measure the
load. CPU time (the child's own) is printed next to wall time; it is the steadier of the two under load.
"""

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "web" / "samples" / "kjv-genesis.txt"

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from bpelab.train import TrainSettings, train
text = open(sys.argv[2], encoding="utf-8").read()
text = (text * (int(sys.argv[3]) // len(text) + 1))[: int(sys.argv[3])]
started, cpu = time.perf_counter(), time.process_time()
result = train(text, TrainSettings(vocab_size=int(sys.argv[4]), pretokenizer=sys.argv[5]), record=sys.argv[6] == "1")
print(json.dumps({"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu,
                  "merges": len(result.merges)}))
"""


def run(pretokenizer, record, chars, vocab):
    proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "py"), str(SAMPLE), str(chars), str(vocab),
                           pretokenizer, "1" if record else "0"], capture_output=True, text=True, check=True)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = json.loads(proc.stdout)
    out["peak_mb"] = peak_kb / 1024  # this helper's only child: the run's own peak
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=1_000_000)
    parser.add_argument("--vocab", type=int, default=5000)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rows, figures = {}, {}
    for record in (False, True):
        runs = {"gpt2": [], "bytes": []}
        for _ in range(max(1, args.repeat)):
            for name in runs:
                # Every run in a helper process of its own: a parent's ru_maxrss of children is the largest child's.
                runs[name].append(json.loads(subprocess.run(
                    [sys.executable, __file__, "--one", name, "1" if record else "0", str(args.chars), str(args.vocab)],
                    capture_output=True, text=True, check=True).stdout))
        one = {name: {"seconds": min(r["seconds"] for r in got), "cpu_seconds": min(r["cpu_seconds"] for r in got),
                      "peak_mb": min(r["peak_mb"] for r in got), "merges": got[0]["merges"], "runs": len(got)}
               for name, got in runs.items()}
        gpt2, raw = one["gpt2"], one["bytes"]
        key = "with recording" if record else "without recording"
        rows[key] = {"gpt2": gpt2, "bytes": raw, "time_ratio": raw["seconds"] / gpt2["seconds"],
                     "cpu_ratio": raw["cpu_seconds"] / gpt2["cpu_seconds"],
                     "memory_ratio": raw["peak_mb"] / gpt2["peak_mb"]}
        suffix = "_recorded" if record else ""
        figures[f"train.bytes.time{suffix}"] = round(rows[key]["time_ratio"], 3)
        figures[f"train.bytes.memory{suffix}"] = round(rows[key]["memory_ratio"], 3)
        print(f"{key:>18}: gpt2 {gpt2['seconds']:.2f} s (CPU {gpt2['cpu_seconds']:.2f} s) {gpt2['peak_mb']:.0f} MB; "
              f"bytes {raw['seconds']:.2f} s (CPU {raw['cpu_seconds']:.2f} s) {raw['peak_mb']:.0f} MB; "
              f"time x{rows[key]['time_ratio']:.2f} (CPU x{rows[key]['cpu_ratio']:.2f}; goal <= 3), memory "
              f"x{rows[key]['memory_ratio']:.2f} (goal <= 3)", flush=True)
    result = {"chars": args.chars, "vocab_size": args.vocab, "rows": rows, "figures": figures}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--one":
        print(json.dumps(run(sys.argv[2], sys.argv[3] == "1", int(sys.argv[4]), int(sys.argv[5]))))
        sys.exit(0)
    sys.exit(main())
