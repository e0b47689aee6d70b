#!/usr/bin/env bash
# Run 65: the whole V1 suite (plain and streamlab run, 5 rounds of fresh processes) on another machine, to
# predict again with the bundled profile (calibrated on run 58's machine).
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
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run65.tgz -C $O .
