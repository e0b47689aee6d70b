#!/usr/bin/env bash
# Run 91: a quick calibrate, twice (fresh processes): the sync wake-up after the kernel's end by how long
# the host waited (2 us .. 5 ms), stream and device synchronize.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
for i in 1 2; do
  timeout 150 $C/bin/streamlab calibrate --quick -o $O/calibrate-quick-$i.json > $O/calibrate-quick-$i.log 2>&1; echo "calibrate $i rc=$? $(date -u +%T)"
  grep -E "sync wake-up" $O/calibrate-quick-$i.log | cut -c1-300
done
tar czf $O0/run91.tgz -C $O .
