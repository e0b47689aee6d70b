#!/usr/bin/env bash
# Run 40: GPU tests; a default calibrate whose stream first use follows a program's order; the plain
# program's own first use beside it (64 streams, two breadth-first passes of 0 ns kernels, 8 processes).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 300 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; grep -E "FAILED|PASSED|tests from" $O/gpu-tests.txt | tail -4
P=$C/bin/streamlab-plain
for k in $(seq 1 8); do echo "plain64 $k $($P chains streams=64 order=breadth length=2 kernel_ns=0 --call-times)" >> $O/first-use.txt; done
/usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate -o $O/calibrate.json > $O/calibrate.log 2>&1
echo "calibrate rc=$? $(date -u +%T)"; grep -E "host probe|stream first use: [0-9]|wall" $O/calibrate.log | tail -10
for k in $(seq 1 8); do echo "plain64 after $k $($P chains streams=64 order=breadth length=2 kernel_ns=0 --call-times)" >> $O/first-use.txt; done
python3 - $O/first-use.txt <<'PY'
import json,sys,statistics as st
for line in open(sys.argv[1]):
    c=json.loads(line.split(' ',2 if 'after' not in line else 3)[-1])['call_start_ns']
    iv=[b-a for a,b in zip(c,c[1:])]
    print(line.split('{')[0], 'first pass', round(st.median(iv[:64])), 'second pass', round(st.median(iv[64:128])), 'extra', round(st.median(iv[:64])-st.median(iv[64:128])))
PY
tar czf $O0/run40.tgz -C $O .
