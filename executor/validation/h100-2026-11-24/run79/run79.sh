#!/usr/bin/env bash
# Run 79: is the copy directions' sharing (and the host's call speed) set by which NUMA node the process runs
# on? Topology; V1's chunked 8-stream program (plain) pinned to each node's CPUs and unpinned; bench_tracer
# (host cost per launch and per copy, CUPTI off vs copy records) per node; bench_tracer --pinned-records.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab; P=$C/bin/streamlab-plain; D=/tmp/suite
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
{ lscpu; echo; nvidia-smi topo -m; echo; ls /sys/devices/system/node/ ; for n in /sys/devices/system/node/node*; do echo "$n cpus $(cat $n/cpulist)"; done;
  command -v numactl && numactl -H; cat /proc/self/status | grep -i allowed; } > $O/topology.txt 2>&1
cat $O/topology.txt | grep -E "NUMA|node[0-9]+ cpus|Model name|Socket|GPU0" | head -12
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
for n in /sys/devices/system/node/node*; do
  nn=$(basename $n); cpus=$(cat $n/cpulist)
  timeout 60 taskset -c $cpus python3 $C/program_suite.py measure --plain $P --streamlab $S --dir $D --only chunked_streams=8_order=depth,chunked_streams=8_order=breadth \
    --out $O/chunked-$nn.json --repeats 5 --variants plain > $O/chunked-$nn.log 2>&1; echo "$nn ($cpus) rc=$?"; tail -2 $O/chunked-$nn.log
  timeout 40 taskset -c $cpus $C/bin/bench_tracer > $O/bench_tracer-$nn.txt 2>&1; grep -E "CUPTI off|copy \+ memset" $O/bench_tracer-$nn.txt | cut -c1-80
done
timeout 40 $C/bin/bench_tracer --pinned-records > $O/bench_tracer-pinned.txt 2>&1; echo "pinned rc=$?"; tail -3 $O/bench_tracer-pinned.txt
timeout 40 $C/bin/bench_tracer > $O/bench_tracer-default.txt 2>&1; tail -3 $O/bench_tracer-default.txt
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run79.tgz -C $O .
