#!/usr/bin/env bash
# Run 29: the whole V1 suite again (plain vs streamlab run, 5 rounds on fresh processes) with the spin
# kernel free of static shared memory (its carveout changed: run 27).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
D=/tmp/suite
python3 $C/program_suite.py emit --plain $C/bin/streamlab-plain --dir $D > /dev/null
timeout 560 python3 $C/program_suite.py measure --plain $C/bin/streamlab-plain --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; tail -5 $O/suite.log
