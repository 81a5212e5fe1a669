#!/usr/bin/env bash
# Quick start, step 2 (and CI): builds everything and runs every test.
#   tools/test.sh             the normal build in build/
#   tools/test.sh --sanitize  AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
options=(-DHLOROOF_WERROR=ON)
if [[ ${1:-} == --sanitize ]]; then
  build=build-asan
  options+=(-DHLOROOF_SANITIZE=ON -DHLOROOF_BUILD_BENCH=OFF)
fi
# A compiler cache, where one is installed, makes rebuilds in fresh clones fast.
command -v ccache >/dev/null && options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja "${options[@]}" >/dev/null
cmake --build "$build" -j2
ctest --test-dir "$build" --output-on-failure -j2
