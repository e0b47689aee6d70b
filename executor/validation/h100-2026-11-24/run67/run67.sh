#!/usr/bin/env bash
# Run 67: why E4's query-type calls read 1.4-1.5 us in run 59 against calibrate's 0.39-0.46: bench_tracer
# (host cost per op and of one cudaEventQuery per CUPTI variant, interleaved), then E4 alone as the
# experiments run it.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 120 $C/bin/bench_tracer > $O/bench_tracer.txt 2>&1; echo "bench_tracer rc=$?"; cat $O/bench_tracer.txt | tail -20
timeout 120 $C/bin/streamlab experiment E4 --repeats 5 --out $O/e4 -q > $O/e4.log 2>&1; echo "e4 rc=$?"; grep -E "query|verdict" $O/e4.log | cut -c1-200 | head -8
tar czf $O0/run67.tgz -C $O .
