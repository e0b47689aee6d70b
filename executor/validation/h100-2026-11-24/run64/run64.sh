#!/usr/bin/env bash
# Run 64: GPU tests, then two calibrates back to back with the new defaults (host API costs in 32 fresh
# processes over 90 s; busy-queue and queue-switch costs read side by side; sync wake-up the median round).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 120 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
for i in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 260 $S calibrate -o $O/calibrate-$i.json > $O/calibrate-$i.log 2>&1
  echo "calibrate $i rc=$? $(date -u +%T) $(grep wall $O/calibrate-$i.log)"
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run64.tgz -C $O .
