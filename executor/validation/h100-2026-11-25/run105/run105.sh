#!/usr/bin/env bash
# Run 105: what a kernel launch costs the host in the chain programs: every chain configuration (1-64
# streams, depth- and breadth-first, 1/8/32 connections), 3 rounds on fresh processes of the plain program
# with a clock read per call (--call-times) and of `streamlab run` (host API spans and self-timed kernels),
# traces kept.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab; P=$C/bin/streamlab-plain; D=/tmp/suite
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 420 python3 $C/program_suite.py measure --plain $P --streamlab $S --dir $D --out $O/suite-measured.json \
  --repeats 3 --variants plain,run --only chains --plain-call-times --keep-traces $O/traces > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; grep round $O/suite.log | tail -2; grep FAILED $O/suite.log | head -5
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run105.tgz -C $O .
