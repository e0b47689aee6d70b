#!/usr/bin/env bash
# Run 102: GPU tests; two default calibrates back to back (kernel start latency and completion seen
# now also measured in every probe process).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
timeout 100 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt; grep -A5 FAILED $O/gpu-tests.txt | head
for i in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 230 $S calibrate -o $O/calibrate-$i.json > $O/calibrate-$i.log 2>&1
  echo "calibrate $i rc=$? $(date -u +%T)"; grep -E "kernel start latency|completion seen" $O/calibrate-$i.log | head -3 | cut -c1-300
  tar czf $O0/run102.tgz -C $O .
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run102.tgz -C $O .
