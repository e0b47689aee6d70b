#!/usr/bin/env bash
# Run 8: where a traced replay's host time goes (clock cost, first call), plain vs run vs run-none, new
# replay loop vs the previous binary (streamlab-old).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep "CUDA Version";
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)";
  lscpu | grep -E "Model name|^CPU\(s\)|Hypervisor"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
$C/bin/bench_executor --benchmark_filter='SteadyClock|ProgramReplay' > $O/bench.txt 2>&1
echo "bench done $(date -u +%T)"
D=/tmp/suite
python3 $C/program_suite.py emit --plain $C/bin/streamlab-plain --dir $D > /dev/null
ONLY='chains_streams=1_order=depth,chains_streams=16_order=breadth,chains_streams=64_order=breadth,chunked_streams=8_order=breadth,priority_fg'
python3 $C/program_suite.py measure --plain $C/bin/streamlab-plain --streamlab $C/bin/streamlab --dir $D \
  --out $O/new.json --repeats 5 --variants plain,run,run-none --only "$ONLY" --keep-traces $O/traces-new \
  --plain-call-times > $O/new.log 2>&1
echo "new done $(date -u +%T)"
python3 $C/program_suite.py measure --plain $C/bin/streamlab-plain --streamlab $C/bin/streamlab-old --dir $D \
  --out $O/old.json --repeats 5 --variants plain,run-none --only "$ONLY" --keep-traces $O/traces-old > $O/old.log 2>&1
echo "old done $(date -u +%T)"
cd $O && tar czf traces.tgz traces-new traces-old && rm -rf traces-new traces-old
tail -15 $O/new.log; tail -14 $O/old.log; grep -E "replay of|clocked|SteadyClock" $O/bench.txt
