#!/usr/bin/env bash
# Run 30: where V1's breadth-first chains (8 streams x 8 one-block 20 us kernels, 8 connections) lose time
# against the simulator: streamlab run traces with every block's start (3 processes each) and the plain
# program's call times.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
export CUDA_DEVICE_MAX_CONNECTIONS=8
for k in 1 2 3; do
  for w in b8 d8; do
    timeout 60 $C/bin/streamlab run $C/shapes/chains/$w.json -o $O/$w-run$k.json --blocks > $O/$w-run$k.log 2>&1; echo "$w run $k rc=$?"
  done
  echo "plain b8 $k $($C/bin/streamlab-plain chains streams=8 order=breadth --call-times)" >> $O/plain.txt
  echo "plain d8 $k $($C/bin/streamlab-plain chains streams=8 order=depth --call-times)" >> $O/plain.txt
done
cut -c1-300 $O/plain.txt
