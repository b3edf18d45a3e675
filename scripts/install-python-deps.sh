#!/usr/bin/env bash
# Installs the Python packages of the test helpers (scripts/oauth-server.py: Authlib and Flask)
# into a virtual environment of the repository, .build-venv/ (git-ignored through ".build*/").
#
#   install-python-deps.sh [VENV_DIR]      (default: .build-venv/ at the repository's root;
#                                           STREAMPLAY_VENV=DIR does the same)
#
# Then run the helpers with VENV_DIR/bin/python (scripts/oauth-server.py also re-executes itself
# with .build-venv/bin/python when started by another python).
#
# Debian 12's python3 is "externally managed" (PEP 668): pip refuses to install into it, and
# packages must not be mixed into the system's. So they go into a venv made by
# `python3 -m venv`, which on Debian needs the package python3-venv (its ensurepip puts pip into
# the venv; python3-pip is not needed). pip then fetches wheels from PyPI (through the machine's
# pip configuration, if it has one). Every version is pinned, dependencies included: the set was
# checked together on Debian 12 (Python 3.11). Only wheels are accepted (--only-binary), so no
# compiler is ever needed: cryptography and cffi ship manylinux wheels for CPython 3.11.
#
# Idempotent: when the venv already holds exactly these versions it does nothing (no pip, no
# network) and prints nothing. What it does is printed on stderr. A venv that is broken (its
# python gone, or no pip in it, e.g. left by a failed earlier attempt) is made again.
set -euo pipefail

PYTHON=${PYTHON:-python3}

# name==version; the first two are what we use, the rest their dependencies as resolved.
PINS=(
  Authlib==1.9.9
  Flask==3.1.3
  Werkzeug==3.1.9
  Jinja2==3.1.6
  MarkupSafe==3.0.4
  itsdangerous==2.2.0
  click==8.5.1
  blinker==1.9.0
  cryptography==50.0.2
  cffi==2.1.1
  pycparser==3.12
  joserfc==1.8.0
)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${1:-${STREAMPLAY_VENV:-$root/.build-venv}}

log() { echo "install-python-deps: $*" >&2; }

# True when VENV's python runs and has every pinned version installed.
pins_installed() {
  [[ -x $venv/bin/python ]] || return 1
  "$venv/bin/python" - "${PINS[@]}" <<'EOF' 2>/dev/null
import sys
from importlib import metadata
for pin in sys.argv[1:]:
    name, version = pin.split("==")
    try:
        if metadata.version(name) != version:
            sys.exit(1)
    except metadata.PackageNotFoundError:
        sys.exit(1)
EOF
}

if pins_installed; then
  exit 0
fi

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  log "no $PYTHON: install the Debian package python3 (scripts/install-deps.sh)"
  exit 1
fi
if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  log "$PYTHON cannot make a virtual environment (no ensurepip):" \
    "install the Debian package python3-venv (scripts/install-deps.sh)"
  exit 1
fi

# A venv whose python no longer runs, or without pip, is made again. Only ever remove a
# directory that is a venv (has pyvenv.cfg).
if [[ -e $venv ]] && ! { "$venv/bin/python" -m pip --version >/dev/null 2>&1; }; then
  if [[ -f $venv/pyvenv.cfg ]]; then
    log "removing the broken virtual environment $venv"
    rm -rf -- "$venv"
  else
    log "$venv exists and is not a virtual environment; remove it or choose another directory"
    exit 1
  fi
fi

if [[ ! -e $venv ]]; then
  log "creating a virtual environment in $venv ($("$PYTHON" --version 2>&1))"
  "$PYTHON" -m venv "$venv"
fi

log "installing ${PINS[*]}"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-virtualenv \
  --only-binary=:all: "${PINS[@]}"

if ! pins_installed; then
  log "the pinned versions are still not all installed in $venv"
  "$venv/bin/python" -m pip freeze >&2 || true
  exit 1
fi
log "done: $venv/bin/python has Authlib and Flask"
