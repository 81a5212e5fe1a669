#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a bounded time.
#   tools/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# Needs Debian's clang and libclang-rt-14-dev (installed here when missing and running as root).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}

tools/install_packages.sh clang libclang-rt-14-dev
# Each target with its seed folder and dictionary (keep in step with tests/fuzz/CMakeLists.txt).
# -timeout flags any input that takes longer than that many seconds as a hang (a finding, like a
# crash).
targets=(
  "parse_module_fuzzer module tests/fuzz/hlo.dict"
  "parse_shape_fuzzer shape tests/fuzz/hlo.dict"
  "print_module_fuzzer module tests/fuzz/hlo.dict"
  "pipeline_fuzzer module tests/fuzz/hlo.dict"
  "device_spec_fuzzer device -"
  "profile_fuzzer profile -"
  "hlo_proto_fuzzer hlo_proto -"
)
# The build: build-fuzz/, or a sanitized tree that has the fuzz targets already (tools/test.sh
# --sanitize makes build-asan/ so): HLOROOF_FUZZ_BUILD=build-asan.
build=${HLOROOF_FUZZ_BUILD:-build-fuzz}
if grep -qs "^HLOROOF_FUZZ:BOOL=ON" "$build/CMakeCache.txt"; then
  cmake --build "$build" -j2 --target "${targets[@]%% *}"
else
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  CXX=clang++ cmake -S . -B "$build" -G Ninja -DHLOROOF_FUZZ=ON -DHLOROOF_BUILD_TESTS=OFF \
    -DHLOROOF_BUILD_TOOLS=OFF -DHLOROOF_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
  cmake --build "$build" -j2
fi

# Findings of earlier runs are not this run's: start without them.
shopt -s nullglob
rm -f "$build"/crash-* "$build"/leak-* "$build"/timeout-* "$build"/oom-*
for entry in "${targets[@]}"; do
  read -r target seeds dict <<<"$entry"
  # The fuzzer adds what it finds to its corpus folder: start from a copy of the seeds.
  corpus=$build/corpus/$target
  rm -rf "$corpus"
  mkdir -p "$corpus"
  cp tests/fuzz/seeds/$seeds/* "$corpus"/
  dict_option=()
  [[ $dict == - ]] || dict_option=(-dict="$dict")
  echo "fuzzing $target for $seconds s"
  "$build"/tests/fuzz/$target "$corpus" "${dict_option[@]}" -max_total_time="$seconds" \
    -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$build"/ 2>&1 |
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY|ERROR)" || true
  # libFuzzer exits non-zero on a finding; pipefail would hide it behind grep, so check again.
  # (`ls` of the four patterns failed whenever one of them matched nothing, so a finding
  # went unreported: the files themselves are counted.)
  found=("$build"/crash-* "$build"/leak-* "$build"/timeout-* "$build"/oom-*)
  if ((${#found[@]})); then
    echo "fuzzing $target found a failing input: ${found[*]}"
    exit 1
  fi
done
