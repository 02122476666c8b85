"""`bpelab train` starts worker processes only for inputs large enough to pay for them (issue 16).

multiprocessing.Pool is replaced by a recorder that runs the jobs in this
process, so each test sees whether a pool would have started, and how big.
The threshold itself was measured with build_scripts/bench_workers.py.
"""

import pytest

from bpelab import cli, parallel
from bpelab.train import CHAR_LIMIT, TrainSettings, train


class PoolRecorder:
    """Stands in for multiprocessing.Pool: records each pool, runs its jobs here."""

    def __init__(self):
        self.started = []

    def __call__(self, processes):
        self.started.append(processes)
        return self

    def map_async(self, function, jobs):
        return DoneResult(list(map(function, jobs)))

    def terminate(self):
        pass

    def join(self):
        pass


class DoneResult:
    """What map_async returns, for jobs already run."""

    def __init__(self, values):
        self.values = values

    def ready(self):
        return True

    def wait(self, timeout=None):
        pass

    def get(self):
        return self.values


@pytest.fixture
def pools(monkeypatch):
    recorder = PoolRecorder()
    monkeypatch.setattr(parallel.multiprocessing, "Pool", recorder)
    return recorder


def story(chars):
    """Plain text of exactly `chars` characters with many cut points (spaces after words)."""
    text = " ".join(f"The cat sat on mat {i}, then ran." for i in range(chars // 20 + 1))
    return text[:chars]


def test_a_text_at_the_clis_default_limit_starts_no_worker_processes(pools):
    # bench_workers.py: on 2 CPUs, 2 workers lost at every size up to 4M characters (see parallel.py).
    train(story(CHAR_LIMIT), num_merges=1, workers=2)
    assert pools.started == []


def test_a_small_input_starts_no_worker_processes(pools):
    train(story(50_000), num_merges=20, workers=8)
    assert pools.started == []


def test_the_cli_on_a_small_file_starts_no_worker_processes(pools, tmp_path, capsys):
    source = tmp_path / "small.txt"
    source.write_text(story(200_000), encoding="utf-8")
    code = cli.main(["train", str(source), "--merges", "20", "--workers", "4", "--out", str(tmp_path / "out"), "--quiet"])
    assert code in (0, None), capsys.readouterr().err
    assert pools.started == []
    assert (tmp_path / "out" / "tokenizer.json").exists()


def test_the_pool_starts_exactly_at_the_threshold(pools, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PARALLEL_CHARS", 30_000)
    below = train(story(29_999), num_merges=20, workers=2)
    assert pools.started == []
    at = train(story(30_000), num_merges=20, workers=2)
    assert pools.started == [2]
    # The same tokenizer either way, as one worker makes it.
    assert at.merges == train(story(30_000), num_merges=20, workers=1).merges
    assert below.merges == train(story(29_999), num_merges=20, workers=1).merges


def test_one_worker_or_first_seen_never_starts_a_pool(pools, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PARALLEL_CHARS", 0)
    train(story(30_000), num_merges=5, workers=1)
    train(story(30_000), TrainSettings(num_merges=5, tie_break="first-seen"), workers=4)
    assert pools.started == []


def test_count_pieces_parallel_itself_counts_in_process_below_the_threshold(pools):
    settings = TrainSettings(num_merges=5)
    table = parallel.count_pieces_parallel([story(10_000)], settings, 4)
    assert pools.started == [] and sum(table.values()) > 0
