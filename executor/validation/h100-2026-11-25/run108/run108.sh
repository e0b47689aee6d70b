#!/usr/bin/env bash
# Run 108: GPU tests on the session's final code (c14bcae: the readers' validate path, the workload line
# reader, the predicted-range changes; the viewer's later changes are not in these binaries).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
timeout 120 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt; grep -A5 FAILED $O/gpu-tests.txt | head
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run108.tgz -C $O .
