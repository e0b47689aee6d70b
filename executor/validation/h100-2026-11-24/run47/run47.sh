#!/usr/bin/env bash
# Run 47: per-call host times of the plain chains program (--call-times) by order, streams, kernel length
# and connections, in fresh processes, the combinations interleaved over 6 rounds (shuffled per round).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain
combos=()
for order in depth breadth; do for n in 8 64; do for ns in 0 20000 2000000; do for conn in 1 8 32; do
  [ $n = 64 ] && [ $ns = 2000000 ] && [ $conn = 1 ] && continue
  combos+=("$order $n $ns $conn"); done; done; done; done
for r in 1 2 3 4 5 6; do
  printf '%s\n' "${combos[@]}" | shuf --random-source=<(yes $r) > $O/order-$r.txt
  while read -r order n ns conn; do
    out=$(CUDA_DEVICE_MAX_CONNECTIONS=$conn timeout 20 $P chains streams=$n order=$order kernel_ns=$ns --call-times 2>&1)
    echo "{\"round\":$r,\"order\":\"$order\",\"streams\":$n,\"kernel_ns\":$ns,\"conn\":$conn,\"out\":$out}" >> $O/calls.jsonl
  done < $O/order-$r.txt
  echo "round $r done $(date -u +%T)"
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run47.tgz -C $O .
