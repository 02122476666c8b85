"""Debian's Chromium for the benchmarks, as tests/e2e/site_harness.py launches it for the tests.

`playwright install` cannot download a browser here; these flags keep headless
Chromium from calling out to the network, which this machine does not reach.
"""

import os

CHROMIUM = os.environ.get("BPELAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
