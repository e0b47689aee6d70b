#!/usr/bin/env bash
# Run 77: GPU tests after calibrate's clock-correlated measurements were factored into one helper, and one
# quick calibrate (the three measurements' notes).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 150 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
timeout 100 $C/bin/streamlab calibrate --quick -o $O/calibrate-quick.json > $O/calibrate-quick.log 2>&1; echo "calibrate rc=$?"
grep -E "kernel start latency|completion seen|sync wake-up" $O/calibrate-quick.log | head -4 | cut -c1-200
tar czf $O0/run77.tgz -C $O .
