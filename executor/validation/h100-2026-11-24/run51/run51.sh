#!/usr/bin/env bash
# Run 51: where streamlab run's first calls cost more than the plain program's: small chains (1 stream;
# 4 and 8 streams breadth-first) under plain (with per-call times) and run (traces kept), 5 rounds.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain; D=/tmp/suite
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 200 python3 $C/program_suite.py measure --plain $P --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run --plain-call-times --keep-traces $O/traces \
  --only "chains_streams=1_order=depth,chains_streams=4_order=breadth,chains_streams=8_order=breadth" > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"
tar czf $O0/run51.tgz -C $O .
