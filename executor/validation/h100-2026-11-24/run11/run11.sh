#!/usr/bin/env bash
# Run 11: GPU tests, the host-cost benchmark, and the whole V1 suite (plain vs streamlab run, 5 rounds)
# after the measurement changes (gpu-timer timing for programs without copies, stream warm-up, NVTX off).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
timeout 120 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -4 $O/gpu-tests.txt
grep -A3 "GpuTimer\|rep [0-9]" $O/gpu-tests.txt | head -14
$C/bin/bench_executor --benchmark_filter='SteadyClock|ProgramReplay' > $O/bench.txt 2>&1; grep -E "replay of" $O/bench.txt
D=/tmp/suite
python3 $C/program_suite.py emit --plain $C/bin/streamlab-plain --dir $D > /dev/null
timeout 420 python3 $C/program_suite.py measure --plain $C/bin/streamlab-plain --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run --keep-traces $O/traces > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; tail -62 $O/suite.log
cd $O && tar czf traces.tgz traces && rm -rf traces
