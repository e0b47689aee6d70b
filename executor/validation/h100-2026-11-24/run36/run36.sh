#!/usr/bin/env bash
# Run 36: what makes a launch inside a program slower than calibrate's launch loop? 64 launches of the
# plain chains program per process with their call times, 8 processes per shape, shapes interleaved:
# one stream or eight (breadth-first: a different stream every call), kernels of 0, 20 or 200 us.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain
for k in $(seq 1 8); do
  for shape in "s1_k0 streams=1 order=depth length=64 kernel_ns=0" "s1_k20 streams=1 order=depth length=64 kernel_ns=20000" \
               "s1_k200 streams=1 order=depth length=64 kernel_ns=200000" "s8b_k0 streams=8 order=breadth length=8 kernel_ns=0" \
               "s8b_k20 streams=8 order=breadth length=8 kernel_ns=20000" "s8d_k20 streams=8 order=depth length=8 kernel_ns=20000" \
               "s8b_k200 streams=8 order=breadth length=8 kernel_ns=200000" "s64_k0 streams=64 order=breadth length=1 kernel_ns=0" \
               "s64_k200 streams=64 order=breadth length=1 kernel_ns=200000"; do
    set -- $shape; name=$1; shift
    echo "$name $k $($P chains "$@" --call-times)" >> $O/shapes.txt
  done
done
cat /proc/loadavg >> $O/env.txt
wc -l $O/shapes.txt
