#!/usr/bin/env bash
# Run 107: GPU tests on e35e072; the whole V1 suite, 5 rounds on fresh processes: plain, `streamlab run`, and for the
# programs with copies `streamlab run --timing gpu-timer` (copies untimed).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab; P=$C/bin/streamlab-plain; D=/tmp/suite
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
timeout 60 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt; grep -A5 FAILED $O/gpu-tests.txt | head
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 470 python3 $C/program_suite.py measure --plain $P --streamlab $S --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run,run-gpu-timer > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; grep round $O/suite.log | tail -2; grep FAILED $O/suite.log | head -5
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run107.tgz -C $O .
