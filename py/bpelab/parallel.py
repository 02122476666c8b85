"""Parallel pre-tokenization for large corpora (CPython only; Pyodide has no processes).

The text is cut only where no pre-token can cross: at document boundaries,
around special tokens (seed 003), and, for the built-in patterns, at their cut
points (a space after a non-space; see Pretokenizer.segments). Each worker
counts its share; the tables are added in text order, so the result equals one
worker's.
"""

import contextlib
import multiprocessing
import os
import signal

from .pretokenize import get_pretokenizer, split_special

# Below this many characters a pool costs more than it saves: starting the processes,
# sending them the text and adding their tables back. Measured with
# build_scripts/bench_workers.py on the project's 2-CPU machine (KJV + Python docs, 2 workers
# against 1, medians of 3, three runs with 200 and 1000 merges): 2 workers took 1.01-3.9x the
# time of one at every size up to 4M characters, and 0.83x, 0.95x and 1.08x at 8M, so the
# pool starts at 8M. train() and count_pieces_parallel both check it, so a smaller input
# never starts a process (and the CLI's default --char-limit, 1M, stays far below it).
MIN_PARALLEL_CHARS = 8_000_000


def _count_batch(args):
    name, pattern, chunks = args
    pretokenizer = get_pretokenizer(name, pattern)
    table = {}
    for chunk in chunks:
        for piece, count in pretokenizer.count(chunk).items():
            table[piece] = table.get(piece, 0) + count
    return table


def batches(chunks, n):
    """Chunks grouped, in order, into at most n batches of similar size.

    >>> batches(["aa", "b", "cc", "d"], 2)
    [['aa', 'b'], ['cc', 'd']]
    """
    total = sum(map(len, chunks))
    target = max(1, -(-total // n))
    out, current, size = [], [], 0
    for chunk in chunks:
        current.append(chunk)
        size += len(chunk)
        if size >= target and len(out) < n - 1:
            out.append(current)
            current, size = [], 0
    if current:
        out.append(current)
    return out


def count_pieces_parallel(documents, settings, workers):
    """The same table as train.count_pieces, counted by `workers` processes."""
    chunks = [
        chunk
        for doc in documents
        for chunk, _start, is_special in split_special(doc, settings.special_tokens)
        if not is_special
    ]
    pretokenizer = get_pretokenizer(settings.pretokenizer, settings.pattern)
    share = max(1, sum(map(len, chunks)) // workers)
    if pretokenizer.chunkable:
        chunks = [part for chunk in chunks for part in pretokenizer.segments(chunk, share)]
    groups = batches(chunks, workers)  # one table per worker: returning tables is the cost
    jobs = [(settings.pretokenizer, settings.pattern, group) for group in groups]
    if sum(map(len, chunks)) < MIN_PARALLEL_CHARS or len(groups) < 2:
        tables = map(_count_batch, jobs)
        return _add(tables)
    return _add(_count_in_pool(jobs))


def _count_in_pool(jobs):
    """One table per job, in order, counted by one process per job; Ctrl-C ends the pool at once.

    SIGINT is held for the whole life of the pool and polled for. Let through, a
    KeyboardInterrupt could land anywhere inside Pool: between a fork and the pool's
    record of that child (the worker outlived bpelab and held its stderr open, so
    whoever waited on the pipe hung; seen in CI), inside terminate(), or in a weakref
    callback that swallows it. Held, it is delivered here, after the pool is gone.
    """
    with _sigint_held():
        # The workers inherit the held SIGINT, so a Ctrl-C (sent to the whole process
        # group) reaches only the parent, which ends them.
        pool = multiprocessing.Pool(len(jobs))
        try:
            counting = pool.map_async(_count_batch, jobs)
            while not counting.ready() and not _interrupt_held():
                counting.wait(0.05)
        finally:
            pool.terminate()  # not close(): Ctrl-C must not wait for the workers' sums
            pool.join()
    # A held Ctrl-C has been raised as KeyboardInterrupt by now; otherwise every job is done.
    return counting.get()


# POSIX only; elsewhere (Windows) a Ctrl-C is raised where it lands, as before.
_CAN_HOLD_SIGNALS = hasattr(signal, "pthread_sigmask") and hasattr(signal, "sigpending")


def _interrupt_held():
    return _CAN_HOLD_SIGNALS and signal.SIGINT in signal.sigpending()


@contextlib.contextmanager
def _sigint_held():
    if not _CAN_HOLD_SIGNALS:
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def usable_workers(requested):
    """The processes worth starting for `requested`: at least 1, at most one per core."""
    return max(1, min(requested, os.cpu_count() or 1))


def _add(tables):
    total = {}
    for table in tables:
        for piece, count in table.items():
            total[piece] = total.get(piece, 0) + count
    return total
