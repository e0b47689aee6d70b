#!/usr/bin/env bash
# Run 18: calibrate twice back to back, longer: 30 rounds and the host speed sampled for 120 s
# (the first becomes the bundled profile).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
for k in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 290 $C/bin/streamlab calibrate --rounds 30 --host-seconds 120 -o $O/calibrate-$k.json > $O/calibrate-$k.log 2>&1
  echo "calibrate $k rc=$? $(date -u +%T)"; tail -1 $O/calibrate-$k.log; grep "host speed: kernel_launch\|sampling passes" $O/calibrate-$k.log
done
grep "kernel start latency" $O/calibrate-*.log | head -4
