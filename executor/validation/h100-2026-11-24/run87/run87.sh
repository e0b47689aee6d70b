#!/usr/bin/env bash
# Run 87: GPU tests; V1's copy programs (chunked, triple buffering) plain, `streamlab run` (CUPTI times the
# copies) and `streamlab run --timing gpu-timer` (copies untimed), 5 rounds on fresh processes.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab; P=$C/bin/streamlab-plain; D=/tmp/suite
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
timeout 110 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt; grep -A5 FAILED $O/gpu-tests.txt | head
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 400 python3 $C/program_suite.py measure --plain $P --streamlab $S --dir $D --only chunked,triple \
  --out $O/suite-measured.json --repeats 5 --variants plain,run,run-gpu-timer > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; tail -30 $O/suite.log | cut -c1-200
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run87.tgz -C $O .
