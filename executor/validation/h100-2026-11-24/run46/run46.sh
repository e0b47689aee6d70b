#!/usr/bin/env bash
# Run 46: the GPU tests and a quick calibrate after the busy-queue measurements share their helpers.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
timeout 200 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; grep -E "FAILED|PASSED|tests from" $O/gpu-tests.txt | tail -4
timeout 120 $C/bin/streamlab calibrate --quick -o $O/quick.json > $O/quick.log 2>&1; echo "quick calibrate rc=$?"; grep -E "first call|launch with k|gap with k|queue switch|stream first use: [0-9]" $O/quick.log | tail -6
