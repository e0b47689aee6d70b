#!/usr/bin/env bash
# Run 72: GPU tests; a calibrate with completion_seen_ns; E8 in a process of its own, 5 repeats.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 110 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
mkdir -p $O/results
timeout 100 $S experiment E8 --repeats 5 --out $O/results -q > $O/E8.log 2>&1; echo "E8 rc=$?"; grep "E8 \[" $O/E8.log | cut -c1-150
/usr/bin/time -f "calibrate wall %e s" timeout 240 $S calibrate -o $O/calibrate.json > $O/calibrate.log 2>&1
echo "calibrate rc=$? $(date -u +%T)"; grep -E "completion seen|sync wake-up" $O/calibrate.log | head -20
timeout 100 $S experiment E8 --repeats 5 --out $O/results-own --device $O/calibrate.json -q > $O/E8-own.log 2>&1; echo "E8 own rc=$?"
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run72.tgz -C $O .
