#!/usr/bin/env bash
# Run 34: after the carveout rows became one list (model::carveout_fields): the GPU tests and a quick
# calibrate (its carveout table).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
timeout 240 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; grep -E "FAILED|PASSED|tests from" $O/gpu-tests.txt | tail -8
timeout 200 $C/bin/streamlab calibrate --quick -o $O/quick.json > $O/quick.log 2>&1; echo "calibrate rc=$?"; grep "carveout by" $O/quick.log | tail -1
