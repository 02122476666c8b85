"""`bpelab count --engine dask`: the word-count table counted on a Dask cluster.

Each file is cut into blocks, each block is moved to safe cuts and counted by
a worker (counting.count_range), and the tables are added here in file and
block order: the same table, in the same first-seen order, as one process
gives. The workers open the files themselves, so on a real cluster they must
see the same paths (a shared file system) and have bpelab installed.

CPython only, with the optional extra `bpelab[dask]`; nothing else imports this.
"""

import contextlib
import logging

from .counting import DEFAULT_BLOCK_SIZE, combine, count_range, range_jobs

DEFAULT_TIMEOUT = 10.0  # seconds to reach a scheduler


class DaskError(Exception):
    """Dask is missing, or the cluster cannot be reached or fails: one line saying what to do."""


def _import_distributed():
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise DaskError("--engine dask needs Dask: install it with pip install 'bpelab[dask]' "
                        "(or dask and distributed), or count with --engine local") from None
    return distributed


@contextlib.contextmanager
def _quiet():
    """Dask logs retries and shutdowns to stderr; the command's own messages are the ones that count."""
    loggers = [logging.getLogger(name) for name in ("distributed", "tornado", "asyncio")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


@contextlib.contextmanager
def connect(scheduler=None, workers=2, timeout=DEFAULT_TIMEOUT):
    """A Client of the scheduler at `scheduler`, or of a local cluster of `workers` processes."""
    distributed = _import_distributed()
    with _quiet():
        if scheduler:
            try:
                client = distributed.Client(scheduler, timeout=timeout)
            except (OSError, TimeoutError, ValueError, TypeError) as error:
                reason = str(error).splitlines()[0] if str(error) else type(error).__name__
                raise DaskError(
                    f"cannot reach the Dask scheduler at {scheduler!r} within {timeout:g} s ({reason[:120]}); "
                    "check that it runs and the address (like tcp://HOST:8786), "
                    "or leave out --scheduler to count on a local cluster"
                ) from None
            with client:
                yield client
            return
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            scheduler_port=0, silence_logs=logging.CRITICAL,
        )
        with cluster, distributed.Client(cluster) as client:
            yield client


def count_files(paths, settings, *, scheduler=None, workers=2, block_size=DEFAULT_BLOCK_SIZE,
                timeout=DEFAULT_TIMEOUT):
    """The table of the files (each a document) under TrainSettings' pre-tokenizer and boundaries, on Dask."""
    spec = (settings.pretokenizer, settings.pattern, tuple(settings.special_tokens), settings.document_separator)
    jobs = range_jobs(paths, block_size)
    with connect(scheduler, workers, timeout) as client:
        futures = client.map(count_range, *zip(*jobs), spec=spec, pure=False)
        try:
            results = client.gather(futures)
        except (OSError, ValueError) as error:
            raise DaskError(f"a Dask worker could not count the corpus: {str(error)[:200]}") from None
    return combine(jobs, results)
