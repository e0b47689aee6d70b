#!/usr/bin/env bash
# Run 74: E9 with traces: why fork-join's measured traces start hundreds of us before time 0.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
mkdir -p $O/results $O/traces
timeout 200 $S experiment E9 --repeats 3 --out $O/results --traces $O/traces -q > $O/E9.log 2>&1; echo "E9 rc=$?"; grep "fork-join" $O/E9.log | cut -c1-160
cd $O/traces/E9 2>/dev/null && ls | head -40
tar czf $O0/run74.tgz -C $O .
