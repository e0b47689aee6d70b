#!/usr/bin/env bash
# Run 13: the session's final main on the H100: GPU tests, a gpu-timer trace and a subset of V1 (3 rounds).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
timeout 150 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $O/gpu-tests.txt
D=/tmp/suite
python3 $C/program_suite.py emit --plain $C/bin/streamlab-plain --dir $D > /dev/null
$C/bin/streamlab run $D/chains_streams=8_order=depth.json -o $O/chains8-gpu-timer.json > $O/run-chains8.txt 2>&1; tail -2 $O/run-chains8.txt
$C/bin/streamlab run $D/chunked_streams=2_order=depth.json -o $O/chunked2-cupti.json > $O/run-chunked2.txt 2>&1; tail -2 $O/run-chunked2.txt
ONLY='chunked_streams=2_order=breadth,chains_streams=1_order=depth,chains_streams=16_order=depth_conn=1,priority_fg,task-pool,triple-buffer'
timeout 300 python3 $C/program_suite.py measure --plain $C/bin/streamlab-plain --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 3 --variants plain,run --only "$ONLY" > $O/suite.log 2>&1
echo "suite rc=$?"; tail -12 $O/suite.log
