#!/usr/bin/env bash
# Checks the Python way of installing hloroof from this tree, as a new user would: a fresh
# virtual environment (from /usr/bin/python3, with tools/setup.sh's Debian packages present),
# `pip install .`, then the command and the module from it; with --wheel, `pip wheel .` too.
# Not part of tools/test.sh (a full Release build: 6-7 minutes on 2 cores).
#   tools/check_pip.sh [--wheel]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv "$work/venv"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
command -v ccache >/dev/null && export CMAKE_CXX_COMPILER_LAUNCHER=ccache
echo "pip install $root"
"$work/venv/bin/pip" install -q --disable-pip-version-check "$root"
"$work/venv/bin/hloroof" --version
cd "$work"  # not the source tree: the installed package must be the one imported
"$work/venv/bin/python" - "$root/examples/tpu_v5e_train_step.hlo" <<'PY'
import pathlib, sys
import hloroof
p = hloroof.predict(pathlib.Path(sys.argv[1]).read_text(), "tpu_v5e:2x2")
assert hloroof.__file__.startswith(sys.prefix), hloroof.__file__
print(f"hloroof {hloroof.__version__} from {pathlib.Path(hloroof.__file__).parent}")
print(f"predicted step: {p.step_time_s * 1e3:.1f} ms")
PY
if [[ ${1:-} == --wheel ]]; then
  "$work/venv/bin/pip" wheel -q --no-deps -w "$work/wheels" "$root"
  ls -l "$work/wheels"
fi
