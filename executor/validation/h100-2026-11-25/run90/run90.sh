#!/usr/bin/env bash
# Run 90: GPU tests; the host clock (TSC flags, clocksource, what a read costs); bench_executor's host-cost
# ratio; V1's chain programs, 5 rounds on fresh processes: plain, `streamlab run` (one clock read per call)
# and main's `streamlab run` (two per call), interleaved.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab; P=$C/bin/streamlab-plain; D=/tmp/suite
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
timeout 100 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt; grep -A5 FAILED $O/gpu-tests.txt | head
{ echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) (available: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource))"
  echo "tsc flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E 'tsc|hypervisor' | tr '\n' ' ')"
  grep -m1 "model name" /proc/cpuinfo; nproc; } > $O/clock.txt 2>&1; cat $O/clock.txt
timeout 120 $C/bin/bench_executor --benchmark_filter='ProgramReplay|SteadyClock|TimeStamp' > $O/bench.txt 2>&1; echo "bench rc=$? $(date -u +%T)"; grep -E "ratio|ns per call|BM_Steady|BM_Time" $O/bench.txt | cut -c1-220
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 420 python3 $C/program_suite.py measure --plain $P --streamlab $S --streamlab-b $C/bin/streamlab-main --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run,run@b --only chains_ > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; grep round $O/suite.log | tail -1; grep FAILED $O/suite.log | head -5
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run90.tgz -C $O .
