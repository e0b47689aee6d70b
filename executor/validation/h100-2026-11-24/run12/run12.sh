#!/usr/bin/env bash
# Run 12: two back-to-back calibrates (9 rounds) with traced_launch_overhead_ns measured against the
# untraced launches of each round (before CUPTI was first attached).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt
for k in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate --rounds 9 -o $O/calibrate-$k.json > $O/calibrate-$k.log 2>&1
  tail -1 $O/calibrate-$k.log; grep -h "traced launch overhead" $O/calibrate-$k.log | tail -3
done
