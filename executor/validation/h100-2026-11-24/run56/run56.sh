#!/usr/bin/env bash
# Run 56: streamlab run's first call, after the clock link's memory is kept (run 55). Small chains
# (1 stream; 4 and 8 streams breadth-first, 8 connections), 8 rounds, each: the plain program (call
# times), streamlab run of run 55 (traces *-old-*) and streamlab run whose set-up synchronize (after the
# streams are made) also calls cudaDeviceSynchronize (traces *-new-*).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d); mkdir -p $O/traces
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain; D=/tmp/suite
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
for r in 1 2 3 4 5 6 7 8; do
  for cfg in "1 depth" "4 breadth" "8 breadth"; do
    set -- $cfg; L="chains_streams=$1_order=$2"
    echo "{\"round\":$r,\"label\":\"$L\",\"variant\":\"plain\",\"out\":$($P chains streams=$1 order=$2 --call-times)}" >> $O/plain.jsonl
    $C/bin/streamlab-old run $D/$L.json -o $O/traces/$L-old-r$r.json > /dev/null 2>&1 || echo "old run failed $L"
    $C/bin/streamlab run $D/$L.json -o $O/traces/$L-new-r$r.json > /dev/null 2>&1 || echo "new run failed $L"
  done
done
echo "done $(date -u +%T)"
tar czf $O0/run56.tgz -C $O .
