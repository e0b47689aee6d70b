#!/usr/bin/env bash
# Run 14: what a kernel launch costs the host inside a program, against calibrate's tight loop.
# streamlab-plain chains with --call-times: launch-to-launch pace over 512 launches, by streams (1, 8, 64),
# issue order (depth, breadth) and kernel length (0 ns: the GPU keeps up; 20 us: work piles up in the
# streams), 3 fresh processes each; then the same 1-stream 0 ns program pinned to each CPU in turn, twice.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; nproc; lscpu | grep -i "model name\|MHz\|Thread\|Socket\|NUMA"; } > $O/env.txt
P=$C/bin/streamlab-plain
for rep in 1 2 3; do
 for ns in 0 20000; do
  for s in 1 8 64; do
   for order in depth breadth; do
    [ $s = 1 ] && [ $order = breadth ] && continue
    len=$((512 / s))
    echo "streams=$s order=$order kernel_ns=$ns rep=$rep $(timeout 60 $P chains streams=$s order=$order length=$len kernel_ns=$ns --call-times)" >> $O/pace.txt
   done
  done
 done
done
for pass in 1 2; do
 for cpu in $(seq 0 $(( $(nproc) - 1 ))); do
  echo "cpu=$cpu pass=$pass $(timeout 60 taskset -c $cpu $P chains streams=1 order=depth length=512 kernel_ns=0 --call-times)" >> $O/pinned.txt
 done
done
echo done; wc -l $O/*.txt
