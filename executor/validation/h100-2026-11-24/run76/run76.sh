#!/usr/bin/env bash
# Run 76: GPU tests on the session's final main (3382009), and the host-cost benchmark.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 150 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
timeout 60 $C/bin/bench_executor --benchmark_filter="SteadyClock|ProgramReplay" > $O/bench.txt 2>&1; echo "bench rc=$?"; grep -E "replay of" $O/bench.txt | head -2
tar czf $O0/run76.tgz -C $O .
