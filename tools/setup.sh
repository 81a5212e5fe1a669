#!/usr/bin/env bash
# Quick start, step 1: installs the Debian packages hloroof needs (if missing), configures and
# builds it, then runs the main job on a bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ lld pkg-config libabsl-dev libre2-dev libeigen3-dev catch2
          nlohmann-json3-dev librsvg2-bin libprotobuf-dev protobuf-compiler zlib1g-dev
          # The Python module and its tests (to_pandas() is tested where pandas is installed).
          python3-dev pybind11-dev python3-pytest python3-pandas
          # tools/test.sh makes the tests' virtual environment (python/requirements-test.txt).
          python3-venv)
tools/install_packages.sh "${packages[@]}"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build -G Ninja -DHLOROOF_WERROR=ON "${launcher[@]}" >/dev/null
# The library and the command only (about 15 minutes on 2 cores): the first prediction does
# not wait for the tests, which tools/test.sh builds (about 10 minutes more; build/ then takes
# about 1.3 GB).
start=$SECONDS
cmake --build build -j2 --target hloroof_cli
echo "built hloroof in $((SECONDS - start)) s"

# The main job: predict one train step of the bundled example on the default device.
build/tools/hloroof predict examples/tpu_v5e_train_step.hlo --device tpu_v5e:2x2 --top 10
