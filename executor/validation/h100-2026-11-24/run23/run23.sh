#!/usr/bin/env bash
# Run 23: the GPU tests on the session's final main.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
timeout 200 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; grep -E "FAILED|PASSED|tests from" $O/gpu-tests.txt | tail -5
timeout 60 $C/bin/streamlab run $C/shapes/fg.json -o $O/fg.json --blocks > $O/fg.log 2>&1; echo "run --blocks rc=$?"; tail -2 $O/fg.log
