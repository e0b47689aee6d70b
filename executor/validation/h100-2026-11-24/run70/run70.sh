#!/usr/bin/env bash
# Run 70: GPU tests; E4 and E8 each in a process of their own (probes on a backend that starts no CUPTI);
# the whole suite in quick mode once, to see the probes go to a fresh child after E1-E3 started CUPTI.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 110 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
mkdir -p $O/results
for e in E4 E8; do
  /usr/bin/time -f "$e wall %e s" timeout 150 $S experiment $e --repeats 5 --out $O/results -q > $O/$e.log 2>&1
  echo "$e rc=$? $(date -u +%T)"; grep -E "verdict|wall|\[" $O/$e.log | cut -c1-180
done
mkdir -p $O/quick
/usr/bin/time -f "quick all wall %e s" timeout 240 $S experiment all --quick --repeats 1 --out $O/quick > $O/quick-all.log 2>&1
echo "quick all rc=$? $(date -u +%T)"; grep -E "child|E4 \[|E8 \[|wall" $O/quick-all.log | cut -c1-200
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run70.tgz -C $O .
