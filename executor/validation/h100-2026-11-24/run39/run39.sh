#!/usr/bin/env bash
# Run 39 (right after run 38, same machine while it stays warm): a second default calibrate (the
# repeatability pair, and the host after the suite), then the GPU tests.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
/usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate -o $O/calibrate-2.json > $O/calibrate-2.log 2>&1
echo "calibrate 2 rc=$? $(date -u +%T)"; grep -E "busy queues|stream first use: [0-9]|host speed: kernel|wall" $O/calibrate-2.log | tail -5
timeout 300 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; grep -E "FAILED|PASSED|tests from" $O/gpu-tests.txt | tail -8
tar czf $O0/run39.tgz -C $O .
