#!/usr/bin/env bash
# Run 84: GPU tests; E1-E9 measured again with --traces, so the committed traces are the results' own runs
# (repredict then compares every configuration per op against its measured trace).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
cat $O/env.txt | head -3
timeout 110 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt; grep -A5 FAILED $O/gpu-tests.txt | head
mkdir -p $O/results
/usr/bin/time -f "experiments wall %e s" timeout 420 $S experiment all --repeats 5 --out $O/results --traces $O/results/traces/experiments -q > $O/experiments.log 2>&1
echo "experiments rc=$? $(date -u +%T)"; grep -E "verdict|wall" $O/experiments.log | cut -c1-160
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run84.tgz -C $O .
