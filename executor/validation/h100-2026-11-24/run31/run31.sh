#!/usr/bin/env bash
# Run 31: the GPU tests and one default calibrate with the bidirectional copy factors' run-to-run range.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
timeout 240 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; grep -E "FAILED|PASSED|tests from" $O/gpu-tests.txt | tail -8
/usr/bin/time -f "calibrate wall %e s" timeout 280 $C/bin/streamlab calibrate -o $O/calibrate.json > $O/calibrate.log 2>&1
echo "calibrate rc=$?"; tail -1 $O/calibrate.log
python3 -c "
import json; p=json.load(open('$O/calibrate.json'))['params']
for k in ('h2d_bidirectional_factor','d2h_bidirectional_factor'): print(k, p[k]['value'], p[k].get('range'))"
