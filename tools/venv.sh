#!/usr/bin/env bash
# Creates (or reuses) the Python virtual environment of the tests and the oracle corpus, with the
# pinned packages of python/requirements-test.txt, and prints its python's path.
#   tools/venv.sh            the environment in $HLOROOF_VENV, or .venv in the repository root
# It is made from the system Python (/usr/bin/python3, whose headers the module builds against),
# and refreshed only when the requirements file changed since the last install.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${HLOROOF_VENV:-$root/.venv}"
requirements="$root/python/requirements-test.txt"
base_python=/usr/bin/python3
[[ -x $base_python ]] || base_python="$(command -v python3)"

if [[ ! -x $venv/bin/python ]]; then
  "$base_python" -m venv "$venv" >&2
fi
stamp="$venv/.hloroof-requirements"
if ! cmp -s "$requirements" "$stamp"; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" >&2
  cp "$requirements" "$stamp"
fi
echo "$venv/bin/python"
