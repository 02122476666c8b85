"""`python -m bpelab` is the `bpelab` command."""

from .cli import main

raise SystemExit(main())
