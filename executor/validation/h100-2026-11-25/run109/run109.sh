#!/usr/bin/env bash
# Run 109: two default calibrates back to back on the session's final code (c14bcae binaries; calibrate
# unchanged since run 102), to compare again which parameters two calibrates on one machine agree on.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
for i in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 250 $S calibrate -o $O/calibrate-$i.json > $O/calibrate-$i.log 2>&1
  echo "calibrate $i rc=$? $(date -u +%T)"; tail -1 $O/calibrate-$i.log
  tar czf $O0/run109.tgz -C $O .
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run109.tgz -C $O .
