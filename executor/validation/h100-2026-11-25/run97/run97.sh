#!/usr/bin/env bash
# Run 97: GPU tests on the final code; a quick calibrate (the copy-queue orders no model explains, logged).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
timeout 100 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt; grep -A5 FAILED $O/gpu-tests.txt | head
timeout 150 $S calibrate --quick -o $O/calibrate-quick.json > $O/calibrate-quick.log 2>&1; echo "quick rc=$? $(date -u +%T)"; grep -E "copy queues" $O/calibrate-quick.log | cut -c1-300
tar czf $O0/run97.tgz -C $O .
