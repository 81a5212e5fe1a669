#!/usr/bin/env bash
# Screenshots of XProf showing hloroof's predicted runs, for docs/xspace.md: the HLO op profile
# and the trace viewer of the predicted TPU v5e train step, and the op profile of the v6e
# profile's log directory with the measured and the predicted run side by side.
#   tools/xprof_screenshots.sh [HLOROOF] [OUT_DIR]
# Needs `xprof` (python/requirements-test.txt; tools/venv.sh installs it) and Debian's
# `chromium`; HLOROOF defaults to build/tools/hloroof, OUT_DIR to docs/.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:-build/tools/hloroof}")
out=$(realpath "${2:-docs}")
xprof=${XPROF:-$(dirname "$(tools/venv.sh)")/xprof}
work=$(mktemp -d)
port=$((8700 + RANDOM % 200))
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT

"$cli" predict examples/tpu_v5e_train_step.hlo --device tpu_v5e:2x2 --xspace "$work/log" >/dev/null
if [[ -f ../shared/profiles/tpu_v6e/tpu_inference_2.xplane.pb ]]; then
  "$cli" profile ../shared/profiles/tpu_v6e/tpu_inference_2.xplane.pb --xspace "$work/log" \
    >/dev/null
fi
"$xprof" --logdir "$work/log" --port "$port" >"$work/xprof.log" 2>&1 &
server=$!
for _ in $(seq 1 60); do
  curl -s -o /dev/null "http://localhost:$port/" && break
  sleep 1
done

shot() {  # shot FILE RUN TOOL
  timeout 180 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=1400,800 --virtual-time-budget=30000 --screenshot="$1" \
    "http://localhost:$port/data/plugin/profile/$3?run=$2&tag=$3" >/dev/null 2>&1
  echo "$1"
}
shot "$out/xprof-op-profile.png" predicted_tpu_v5e op_profile
shot "$out/xprof-trace-viewer.png" predicted_tpu_v5e trace_viewer@
if [[ -d $work/log/plugins/profile/predicted_tpu_v6e ]]; then
  shot "$out/xprof-side-by-side.png" predicted_tpu_v6e op_profile
fi
