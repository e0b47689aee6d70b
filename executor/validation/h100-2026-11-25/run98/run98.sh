#!/usr/bin/env bash
# Run 98: quick calibrates with a 256 MiB first copy (the copy-queue orders no model explains, logged).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
for i in 1 2; do timeout 150 $S calibrate --quick -o $O/calibrate-quick-$i.json > $O/calibrate-quick-$i.log 2>&1; echo "quick $i rc=$? $(date -u +%T)"; grep -E "copy queues" $O/calibrate-quick-$i.log | cut -c1-300; done
tar czf $O0/run98.tgz -C $O .
