#!/usr/bin/env bash
# Run 35: where does the host's speed move? The machine's identity; fresh processes of the plain chains
# program (launch-to-launch times), unpinned and pinned to each CPU; then two default calibrates around
# V1's chunked and chains configurations (plain program only, 5 rounds), all on this one machine.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; echo "hostname $(hostname)"; lscpu | grep -E "Model name|^CPU\(s\)|NUMA|MHz|Thread|Socket"
  nvidia-smi topo -m; cat /proc/loadavg; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain
t0=$(date +%s)
for k in $(seq 1 16); do
  echo "free $k $($P chains streams=8 order=breadth --call-times)" >> $O/procs.txt
  echo "launch $k $($P chains streams=1 order=depth length=64 kernel_ns=0 --call-times)" >> $O/procs.txt
done
ncpu=$(nproc)
for c in $(seq 0 $((ncpu-1))); do
  echo "pin$c launch $(taskset -c $c $P chains streams=1 order=depth length=64 kernel_ns=0 --call-times)" >> $O/procs.txt
  echo "pin$c free $(taskset -c $c $P chains streams=8 order=breadth --call-times)" >> $O/procs.txt
done
echo "process study $(( $(date +%s) - t0 )) s"
/usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate -o $O/calibrate-1.json > $O/calibrate-1.log 2>&1
echo "calibrate 1 rc=$? $(date -u +%T)"
D=/tmp/suite
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 200 python3 $C/program_suite.py measure --plain $P --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain --only chunked,chains > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"
/usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate -o $O/calibrate-2.json > $O/calibrate-2.log 2>&1
echo "calibrate 2 rc=$? $(date -u +%T)"
for k in $(seq 1 8); do
  echo "after $k $($P chains streams=1 order=depth length=64 kernel_ns=0 --call-times)" >> $O/procs.txt
done
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run35.tgz -C $O .
grep -E "hostname|GPU-|Model name|NUMA node" $O/env.txt
