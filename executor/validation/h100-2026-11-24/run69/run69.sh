#!/usr/bin/env bash
# Run 69: GPU tests, two calibrates back to back (traced launch overhead per probe process).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 110 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
for i in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 230 $S calibrate -o $O/calibrate-$i.json > $O/calibrate-$i.log 2>&1
  echo "calibrate $i rc=$? $(date -u +%T) $(grep wall $O/calibrate-$i.log)"
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run69.tgz -C $O .
