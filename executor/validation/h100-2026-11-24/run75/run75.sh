#!/usr/bin/env bash
# Run 75: GPU tests; the research-note experiments E1-E9 measured again with barriers placed (no events)
# and the probes measured without CUPTI, predicted with the bundled profile.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 110 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt; grep -A5 FAILED $O/gpu-tests.txt | head
mkdir -p $O/results
/usr/bin/time -f "experiments wall %e s" timeout 400 $S experiment all --repeats 5 --out $O/results -q > $O/experiments.log 2>&1
echo "experiments rc=$? $(date -u +%T)"; grep -E "verdict|wall|fork-join" $O/experiments.log | cut -c1-160
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run75.tgz -C $O .
