#!/usr/bin/env bash
# Run 17: the profile to bundle (one calibrate: 9 rounds, host speed sampled for 60 s, pageable copy rates
# with their rounds' range), then the whole V1 suite (plain vs streamlab run, 5 rounds on fresh processes).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
/usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate --rounds 9 --host-seconds 60 -o $O/calibrate.json > $O/calibrate.log 2>&1
echo "calibrate rc=$? $(date -u +%T)"; tail -1 $O/calibrate.log; grep "host speed: kernel_launch\|kernel start latency" $O/calibrate.log | head -3
D=/tmp/suite
python3 $C/program_suite.py emit --plain $C/bin/streamlab-plain --dir $D > /dev/null
timeout 380 python3 $C/program_suite.py measure --plain $C/bin/streamlab-plain --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; tail -5 $O/suite.log
