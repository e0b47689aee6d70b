#!/usr/bin/env bash
# Run 86 (the same script, bench_tracer with the event variants): bench_tracer: do CUPTI copy records (or events after copies) cost the host per call or the copy engine?
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
for i in 1 2; do timeout 200 $C/bin/bench_tracer > $O/bench_tracer-$i.txt 2>&1; echo "bench_tracer $i rc=$? $(date -u +%T)"; done
cat $O/bench_tracer-1.txt | tail -22; tail -8 $O/bench_tracer-2.txt
tar czf $O0/run85.tgz -C $O .
