#!/usr/bin/env bash
# Quick start, step 1: installs the Debian packages hloroof needs (if missing), configures and
# builds it, then runs the main job on a bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libabsl-dev libre2-dev libeigen3-dev catch2
          nlohmann-json3-dev librsvg2-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

cmake -S . -B build -G Ninja -DHLOROOF_WERROR=ON >/dev/null
cmake --build build -j2

# The main job.
build/tools/hloroof shape 'bf16[4,512,512,64]{3,0,2,1:T(4,128)(2,1)}'
