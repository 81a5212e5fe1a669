#!/usr/bin/env bash
# An input rewritten while commands read it (tests/hostile/README.md): `cp` puts one module, then
# another, over the file in a loop while `hloroof predict` reads it 200 times. A file read
# through a mapping killed 17 runs of 300 with SIGBUS; every run must now end with exit 0 (the old
# module or the new) or 1 with an `error:` line (the file changed while being read, or a module
# cut short by cp), never a signal.
#   rewrite_while_reading.sh HLOROOF SMALL_HLO WORK_DIR
set -u
cli=$1 small=$2 work=$3
mkdir -p "$work"
a=$work/rewrite_a.hlo b=$work/rewrite_b.hlo target=$work/rewrite_target.hlo
cp "$small" "$a"
# The second module: the first with 2,000 more instructions, so the two differ in size.
{
  sed '$d' "$small" | sed '$d'
  for i in $(seq 1 2000); do echo "  %pad$i = f32[256,256] negate(%a)"; done
  tail -n 2 "$small"
} >"$b"
cp "$a" "$target"
(while :; do cp "$b" "$target"; cp "$a" "$target"; done) &
writer=$!
trap 'kill $writer 2>/dev/null' EXIT
signals=0 errors=0 ok=0
for i in $(seq 1 200); do
  "$cli" predict "$target" --device h100 >/dev/null 2>"$work/rewrite_err.txt"
  rc=$?
  if ((rc == 0)); then
    ok=$((ok + 1))
  elif ((rc == 1)) && grep -q "error: " "$work/rewrite_err.txt"; then
    errors=$((errors + 1))
  else
    signals=$((signals + 1))
    echo "run $i ended with $rc:" >&2
    head -c 500 "$work/rewrite_err.txt" >&2
  fi
done
echo "200 runs: $ok ok, $errors errors, $signals other endings"
((signals == 0))
