#!/usr/bin/env bash
# Run 23b: the GPU tests after the calibrate clean-up, and one quick calibrate (its ranges).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
timeout 200 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; grep -E "FAILED|PASSED|tests from" $O/gpu-tests.txt | tail -5
timeout 120 $C/bin/streamlab calibrate --quick -o $O/quick.json > $O/quick.log 2>&1; echo "calibrate rc=$?"; grep "host speed: kernel_launch\|sampling passes" $O/quick.log
