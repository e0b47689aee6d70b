#!/usr/bin/env bash
# Run 55: streamlab run's dearer first call. Small chains (1 stream; 4 and 8 streams breadth-first, 8
# connections), 6 rounds, each: the plain program (call times), the plain program with its streams made
# after its set-up's synchronize, and streamlab run (its own code pages mapped in prepare) with the default timing (gpu-timer: the clock-link
# mapped memory now made before the set-up synchronize and kept, not freed before time 0; traces *-new-*) and with --timing none (no clock link, no
# events; traces *-old-*).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d); mkdir -p $O/traces
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain; D=/tmp/suite
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
for r in 1 2 3 4 5 6; do
  for cfg in "1 depth" "4 breadth" "8 breadth"; do
    set -- $cfg; L="chains_streams=$1_order=$2"
    echo "{\"round\":$r,\"label\":\"$L\",\"variant\":\"plain\",\"out\":$($P chains streams=$1 order=$2 --call-times)}" >> $O/plain.jsonl
    echo "{\"round\":$r,\"label\":\"$L\",\"variant\":\"late\",\"out\":$($P chains streams=$1 order=$2 --call-times --streams-after-sync)}" >> $O/plain.jsonl
    $C/bin/streamlab run $D/$L.json --timing none -o $O/traces/$L-old-r$r.json > /dev/null 2>&1 || echo "old run failed $L"
    $C/bin/streamlab run $D/$L.json -o $O/traces/$L-new-r$r.json > /dev/null 2>&1 || echo "new run failed $L"
  done
done
echo "done $(date -u +%T)"
tar czf $O0/run55.tgz -C $O .
