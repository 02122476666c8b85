"""Where worker processes start to pay: train() with 1 and with N workers on growing prefixes of real text.

Usage: .venv/bin/python build_scripts/bench_workers.py [--merges 1000] [--workers 2] [--repeat 3]

The text is the KJV followed by Python's documentation (build_scripts/corpora.py).
The pool is forced on at every size (parallel.MIN_PARALLEL_CHARS = 0), runs are
interleaved, and the medians are printed with the difference: the threshold in
parallel.py is the size from which N workers are faster. Only pre-tokenization
runs in the workers; merging takes the same time either way.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "build_scripts"))

SIZES = (250_000, 500_000, 1_000_000, 2_000_000, 4_000_000, 8_000_000)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--merges", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    import corpora
    from bpelab import parallel
    from bpelab.train import train

    paths = corpora.build()
    text = paths["kjv"].read_text("utf-8") + "\n" + paths["pydocs"].read_text("utf-8")
    threshold = parallel.MIN_PARALLEL_CHARS
    parallel.MIN_PARALLEL_CHARS = 0
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; {args.merges} merges; "
          f"median of {args.repeat}; parallel.MIN_PARALLEL_CHARS is {threshold:,}")
    for size in SIZES:
        part = text[:size]
        times = {1: [], args.workers: []}
        for _ in range(args.repeat):
            for workers in times:
                started = time.perf_counter()
                train(part, num_merges=args.merges, workers=workers)
                times[workers].append(time.perf_counter() - started)
        one, many = (statistics.median(times[w]) for w in times)
        print(f"{size / 1e6:5.2f} M chars: 1 worker {one:6.2f} s, {args.workers} workers {many:6.2f} s, "
              f"difference {many - one:+6.2f} s ({many / one:.2f}x)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
