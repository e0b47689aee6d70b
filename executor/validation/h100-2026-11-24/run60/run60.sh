#!/usr/bin/env bash
# Run 60: the whole V1 suite (plain and streamlab run, 5 rounds of fresh processes) and the host-cost
# benchmark, on the code of run 59. V1 is predicted with the bundled profile (calibrated on run 58's
# machine) and, as a check, with run 59's calibrate if the lease stayed on run 59's machine.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain; D=/tmp/suite
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 420 python3 $C/program_suite.py measure --plain $P --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"
timeout 60 $C/bin/bench_executor --benchmark_filter="SteadyClock|ProgramReplay" > $O/bench.txt 2>&1; echo "bench rc=$?"; grep -E "replay of" $O/bench.txt | head -2
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run60.tgz -C $O .
