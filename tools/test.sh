#!/usr/bin/env bash
# Quick start, step 2 (and CI): builds everything and runs every test.
#   tools/test.sh             the normal build in build/
#   tools/test.sh --sanitize  clang with AddressSanitizer + UndefinedBehaviorSanitizer in
#                             build-asan/: the library, the command, the tests of the layers that
#                             read input (docs/development.md) and the libFuzzer targets, which
#                             `HLOROOF_FUZZ_BUILD=build-asan tools/fuzz.sh` then runs
# The normal build's Python module and its tests use the pinned environment of tools/venv.sh
# (jax, jaxlib, libtpu, pandas, pytest): created in .venv on first use (about 400 MB from PyPI),
# or reused from $HLOROOF_VENV. HLOROOF_VENV=off uses the system Python instead, where the tests
# that need JAX are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
options=(-DHLOROOF_WERROR=ON)
if [[ ${1:-} == --sanitize ]]; then
  build=build-asan
  # One sanitized build for the tests and the fuzzers: the library is compiled once, by clang
  # (libFuzzer needs it). Warnings are the normal build's to stop on.
  tools/install_packages.sh clang libclang-rt-14-dev
  export CXX=clang++
  cache=$build/CMakeCache.txt
  if [[ -f $cache ]] && ! grep -q "^CMAKE_CXX_COMPILER:.*clang" "$cache"; then
    echo "error: $build/ was configured with another compiler; remove it (rm -rf $build)" >&2
    exit 2
  fi
  options=(-DHLOROOF_SANITIZE=ON -DHLOROOF_FUZZ=ON -DHLOROOF_BUILD_BENCH=OFF)
elif [[ ${HLOROOF_VENV:-} != off ]]; then
  # The module is built for the environment's interpreter (made from /usr/bin/python3, so the
  # same headers and ABI), and pytest runs under it.
  options+=("-DPython3_EXECUTABLE=$(tools/venv.sh)")
fi
# A compiler cache, where one is installed, makes rebuilds in fresh clones fast.
command -v ccache >/dev/null && options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja "${options[@]}" >/dev/null
cmake --build "$build" -j2
ctest --test-dir "$build" --output-on-failure -j2
