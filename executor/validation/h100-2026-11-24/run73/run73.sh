#!/usr/bin/env bash
# Run 73: GPU tests; two calibrates back to back (sync_wakeup_ns against the kernel's end on correlated
# clocks, completion_seen_ns); E8 predicted with the first calibrate.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 110 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
for i in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 220 $S calibrate -o $O/calibrate-$i.json > $O/calibrate-$i.log 2>&1
  echo "calibrate $i rc=$? $(date -u +%T) $(grep wall $O/calibrate-$i.log)"; grep -E "sync_wakeup_ns:|completion_seen|sync wake-up" $O/calibrate-$i.log | tail -3 | cut -c1-200
done
timeout 60 $S experiment E8 --repeats 5 --out $O/results --device $O/calibrate-1.json -q > $O/E8.log 2>&1; echo "E8 rc=$?"; grep "E8 \[" $O/E8.log | cut -c1-150
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run73.tgz -C $O .
