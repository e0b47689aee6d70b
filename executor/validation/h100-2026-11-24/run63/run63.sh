#!/usr/bin/env bash
# Run 63: the copy directions' split when each streams 8 copies of 8 MiB back to back (not one pair), with and
# without a 132-block spin kernel running beside them (V1's chunked programs have both).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
mkdir -p $O/traces
for w in $C/run63/stream-*.json $C/run62/bidir-8m-h2d-first.json; do
  n=$(basename $w .json)
  for i in 1 2 3; do timeout 60 $S run $w -o $O/traces/$n-$i.json 2>&1 | head -1; done
done > $O/runs.log 2>&1
echo "traces: $(ls $O/traces | wc -l)"; tail -2 $O/runs.log
tar czf $O0/run63.tgz -C $O .
