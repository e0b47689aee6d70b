#!/usr/bin/env bash
# Run 49: why a plain program's launches cost more than calibrate's probes read. Eight rounds, each: a
# host probe (1 s), then plain chains with per-call times: 1 stream x 512 launches of 0 ns kernels (what
# the probe times), 1 stream x 512 of 20 us kernels (the stream holds queued work), 64 streams x 8
# breadth-first of 20 us kernels (V1's chains), 8 streams x 64 breadth-first of 0 ns kernels.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain
for r in 1 2 3 4 5 6 7 8; do
  timeout 60 $C/bin/streamlab calibrate --host-probe -o $O/probe-$r.json --host-seconds 1 > $O/probe-$r.log 2>&1
  for v in "1 depth 512 0" "1 depth 512 20000" "64 breadth 8 20000" "8 breadth 64 0"; do
    set -- $v
    out=$(timeout 20 $P chains streams=$1 order=$2 length=$3 kernel_ns=$4 --call-times 2>&1)
    echo "{\"round\":$r,\"streams\":$1,\"order\":\"$2\",\"length\":$3,\"kernel_ns\":$4,\"out\":$out}" >> $O/calls.jsonl
  done
  echo "round $r $(date -u +%T)"
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run49.tgz -C $O .
