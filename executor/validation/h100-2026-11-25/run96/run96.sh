#!/usr/bin/env bash
# Run 96: GPU tests; a quick calibrate and a default one (the copy-queue arbitration per run).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
timeout 100 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt; grep -A5 FAILED $O/gpu-tests.txt | head
timeout 150 $S calibrate --quick -o $O/calibrate-quick.json > $O/calibrate-quick.log 2>&1; echo "quick rc=$? $(date -u +%T)"; grep -E "copy queues" $O/calibrate-quick.log | cut -c1-300
tar czf $O0/run96.tgz -C $O .
/usr/bin/time -f "calibrate wall %e s" timeout 230 $S calibrate -o $O/calibrate.json > $O/calibrate.log 2>&1; echo "calibrate rc=$? $(date -u +%T)"; grep -E "copy queues" $O/calibrate.log | cut -c1-300
python3 -c "
import json;p=json.load(open('$O/calibrate.json'))['params']
for k in ('copy_queues_per_engine','copy_queue_bit_reversed'): print(k, p.get(k,{}).get('value'))"
tar czf $O0/run96.tgz -C $O .
