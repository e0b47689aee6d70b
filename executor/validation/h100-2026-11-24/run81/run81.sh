#!/usr/bin/env bash
# Run 81: GPU tests; two calibrates back to back with the streaming bidirectional probe rotating over 4
# pinned allocations (do its groups follow the allocation?) and the streaming factors' value the mean.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 100 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt
for i in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 220 $S calibrate -o $O/calibrate-$i.json > $O/calibrate-$i.log 2>&1
  echo "calibrate $i rc=$? $(date -u +%T)"; grep -E "h2d_bidirectional_streaming_factor:" $O/calibrate-$i.log | cut -c1-200
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run81.tgz -C $O .
