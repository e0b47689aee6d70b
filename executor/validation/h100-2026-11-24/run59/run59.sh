#!/usr/bin/env bash
# Run 59 (the bundled profile is now run 58's calibrate, h100-sxm-2026-11-24g.json): GPU tests; the
# research-note experiments E1-E9 measured with today's executor and predicted with the bundled profile
# (a machine other than the one it was calibrated on, unless the lease lands there again); the imported
# multi-stream PyTorch program (block times now recovered for grids of several waves too) run 5 times
# at the default connections and 5 times at CUDA_DEVICE_MAX_CONNECTIONS=1; a calibrate of this machine.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 120 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
mkdir -p $O/results $O/traces
/usr/bin/time -f "experiments wall %e s" timeout 330 $S experiment all --repeats 5 --out $O/results --traces $O/traces -q > $O/experiments.log 2>&1
echo "experiments rc=$? $(date -u +%T)"; grep -E "verdict|wall" $O/experiments.log | cut -c1-160
mkdir -p $O/ms
for i in 1 2 3 4 5; do
  timeout 60 $S run $C/ms.json -o $O/ms/ms-default-$i.json 2>&1 | head -1
  CUDA_DEVICE_MAX_CONNECTIONS=1 timeout 60 $S run $C/ms.json -o $O/ms/ms-conn1-$i.json 2>&1 | head -1
done > $O/ms.log 2>&1
echo "ms runs: $(ls $O/ms | wc -l) traces $(date -u +%T)"
/usr/bin/time -f "calibrate wall %e s" timeout 150 $S calibrate -o $O/calibrate.json > $O/calibrate.log 2>&1
echo "calibrate rc=$? $(date -u +%T)"
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run59.tgz -C $O .
