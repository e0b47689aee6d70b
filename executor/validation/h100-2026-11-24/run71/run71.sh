#!/usr/bin/env bash
# Run 71: why `streamlab run` of chunked copy/compute over 8 streams depth-first measured 2.7-3.0% longer
# than the plain program (runs 60, 65): plain vs run (CUPTI) vs run-events vs run-none, 7 rounds of fresh
# processes, chunked programs over 4 and 8 streams, depth- and breadth-first.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain; D=/tmp/suite
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
for only in chunked_streams=8_order=depth chunked_streams=4_order=depth chunked_streams=8_order=breadth; do
  timeout 150 python3 $C/program_suite.py measure --plain $P --streamlab $C/bin/streamlab --dir $D --only $only \
    --out $O/$only.json --repeats 7 --variants plain,run,run-events,run-none --keep-traces $O/traces > $O/$only.log 2>&1
  echo "$only rc=$? $(date -u +%T)"; tail -3 $O/$only.log
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run71.tgz -C $O .
