#!/usr/bin/env bash
# Run 78: GPU tests; bench_tracer (copy issue cost with CUPTI copy records, profiling buffers in device vs
# pinned host memory); calibrate with event_destroy_ns and the streaming bidirectional factors; V1's chunked
# copy/compute programs and triple buffering (plain and streamlab run, 5 rounds) on the same machine; E4 with
# that calibrate; a second calibrate back to back if time allows.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab; P=$C/bin/streamlab-plain; D=/tmp/suite
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 100 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt
timeout 40 $C/bin/bench_tracer > $O/bench_tracer.txt 2>&1; echo "bench_tracer rc=$?"; tail -4 $O/bench_tracer.txt
timeout 40 $C/bin/bench_tracer --pinned-records > $O/bench_tracer-pinned.txt 2>&1; echo "bench_tracer pinned rc=$?"; tail -3 $O/bench_tracer-pinned.txt
/usr/bin/time -f "calibrate wall %e s" timeout 200 $S calibrate -o $O/calibrate-1.json > $O/calibrate-1.log 2>&1
echo "calibrate 1 rc=$? $(date -u +%T)"; grep -E "streaming_factor|event create / destroy" $O/calibrate-1.log | tail -3 | cut -c1-220
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 150 python3 $C/program_suite.py measure --plain $P --streamlab $S --dir $D --only chunked,triple \
  --out $O/suite-measured.json --repeats 5 --variants plain,run > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; tail -3 $O/suite.log
timeout 40 $S experiment E4 --repeats 5 --out $O/results --device $O/calibrate-1.json -q > $O/E4.log 2>&1; echo "E4 rc=$?"; grep -i "destroy" $O/E4.log | head -3 | cut -c1-200
left=$(( 560 - SECONDS ))
if [ $left -gt 150 ]; then
  /usr/bin/time -f "calibrate wall %e s" timeout $((left - 10)) $S calibrate -o $O/calibrate-2.json > $O/calibrate-2.log 2>&1
  echo "calibrate 2 rc=$? $(date -u +%T)"; grep -E "streaming_factor|event create / destroy" $O/calibrate-2.log | tail -3 | cut -c1-220
else echo "no time for calibrate 2 ($left s left)"; fi
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run78.tgz -C $O .
