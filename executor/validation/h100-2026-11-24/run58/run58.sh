#!/usr/bin/env bash
# Run 58: on the session's final main (after the helpers' Span text pool and simulator changes): GPU tests; a
# default calibrate; the whole V1 suite (plain and streamlab run, 5 rounds of fresh processes), then
# the host-cost benchmark. V1 is predicted from this calibrate.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 120 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
/usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate -o $O/calibrate-1.json > $O/calibrate-1.log 2>&1
echo "calibrate 1 rc=$? $(date -u +%T)"; grep -E "stream first use|queue first use|program first call|host speed: kernel|wall" $O/calibrate-1.log | tail -8
P=$C/bin/streamlab-plain; D=/tmp/suite
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 380 python3 $C/program_suite.py measure --plain $P --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"
timeout 60 $C/bin/bench_executor --benchmark_filter="SteadyClock|ProgramReplay" > $O/bench.txt 2>&1; echo "bench rc=$?"; grep -E "replay of" $O/bench.txt | head -2
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run58.tgz -C $O .
