"""`python -m bpelab` is the `bpelab` command."""

from .cli import main

if __name__ == "__main__":  # a worker process that re-imports this module (Dask's spawn) must not run the command
    raise SystemExit(main())
