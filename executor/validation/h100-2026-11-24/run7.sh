#!/usr/bin/env bash
# Device run 7 (2026-11-24): two back-to-back `streamlab calibrate` runs with the launch cost measured on
# the executor's spin kernel (the kernel programs launch), for the regenerated bundled H100 profile.
set -u
C=$(pwd)/.carry-int
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp/run7-out}
mkdir -p "$OUT"
{ echo "date: $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat "$C/BUILD_INFO"; } > "$OUT/env.txt"
for k in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 150 "$C/bin/streamlab" calibrate --rounds 9 -o "$OUT/calibrate-$k.json" > "$OUT/calibrate-$k.log" 2>&1
  tail -2 "$OUT/calibrate-$k.log"
done
grep -h "kernel launch issue" "$OUT"/calibrate-*.log | head -20
