#!/usr/bin/env bash
# Run 62: how much each copy direction slows the other at 8 MiB and at 128 MiB (each direction alone,
# then both on two streams, either issued first; streamlab run, CUPTI copy records), and traces of the
# V1 chunked programs at 2 and 8 streams (depth-first), whose H2D copies the simulator predicts slower
# than measured and whose D2H copies faster.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
mkdir -p $O/traces
for w in $C/run62/bidir-*.json; do
  n=$(basename $w .json)
  for i in 1 2 3; do timeout 60 $S run $w -o $O/traces/$n-$i.json 2>&1 | head -1; done
done > $O/runs.log 2>&1
python3 $C/program_suite.py emit --plain $C/bin/streamlab-plain --dir /tmp/suite > /dev/null
for n in 2 8; do for i in 1 2 3; do
  timeout 60 $S run "/tmp/suite/chunked_streams=${n}_order=depth.json" -o $O/traces/chunked-$n-depth-$i.json 2>&1 | head -1
done; done >> $O/runs.log 2>&1
echo "traces: $(ls $O/traces | wc -l)"; tail -3 $O/runs.log
tar czf $O0/run62.tgz -C $O .
