#!/usr/bin/env bash
# Run 28: two default calibrates back to back (9 rounds, 60 s of host sampling each) with the carveout and
# CUPTI record pad measured: the profile to predict with, and how far two runs agree.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
for k in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 280 $C/bin/streamlab calibrate -o $O/calibrate-$k.json > $O/calibrate-$k.log 2>&1
  echo "calibrate $k rc=$? $(date -u +%T)"; tail -1 $O/calibrate-$k.log; grep "carveout by\|traced spans" $O/calibrate-$k.log | tail -2
done
