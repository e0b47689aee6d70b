#!/usr/bin/env bash
# Run 61: calibrate repeatability with the host API costs sampled in 32 fresh processes over 90 s
# (default: 8 processes over 60 s): two calibrates back to back on one machine.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
for i in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 280 $S calibrate --host-processes 32 --host-seconds 90 -o $O/calibrate-$i.json > $O/calibrate-$i.log 2>&1
  echo "calibrate $i rc=$? $(date -u +%T) $(grep wall $O/calibrate-$i.log)"
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run61.tgz -C $O .
