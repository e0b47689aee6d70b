#!/usr/bin/env bash
# Device run 1 (2026-11-23): GPU tests with the call-order CUPTI join; E4 with the new tracer vs the
# previous one (runtime-API records on); two back-to-back calibrates of 5 rounds; the issue benchmarks;
# the plain suite with and without a completion record after every work call (5 rounds, fresh processes).
set -u
C=$(pwd)/.carry-measure
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp/measure-out}
W=$OUT/w
mkdir -p "$W"
exec > >(tee -a "$OUT/device.log") 2>&1
sec() { echo; echo "=== $* [$(date -u +%T)]"; }
sec environment
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,pstate,compute_mode --format=csv
echo "cores: $(nproc); CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-unset}; CUDA_MODULE_LOADING=${CUDA_MODULE_LOADING:-unset}"
cat "$C/BUILD_INFO"
sec "ctest -L gpu"
sed "s#@GPU_DIR@#$C/gpu#g" "$C/gpu/tests.cmake.in" > "$C/gpu/tests.cmake"
echo 'include("tests.cmake")' > "$C/gpu/CTestTestfile.cmake"
(cd "$C/gpu" && timeout 150 ctest -L gpu --output-on-failure --timeout 60) > "$W/ctest-gpu.log" 2>&1
echo "exit $?"; grep -E "tests passed|Failed|SEGFAULT|Timeout|Exception" "$W/ctest-gpu.log" | tail -15
sec "E4 (new tracer)"
timeout 60 "$C/bin/streamlab" experiment E4 --repeats 5 --out "$W/e4-new" 2>&1 | tail -12
if [[ -x "$C/bin/streamlab-old" ]]; then
  sec "E4 (previous tracer: runtime-API records + external ids)"
  timeout 60 "$C/bin/streamlab-old" experiment E4 --repeats 5 --out "$W/e4-old" 2>&1 | tail -12
fi
for k in 1 2; do
  sec "streamlab calibrate --rounds 5 (#$k)"
  /usr/bin/time -f "calibrate wall %e s" timeout 120 "$C/bin/streamlab" calibrate -o "$W/calibrate-$k.json" --rounds 5 > "$W/calibrate-$k.log" 2>&1
  tail -4 "$W/calibrate-$k.log"; grep "spread over rounds" "$W/calibrate-$k.log" | head -30
done
sec bench_executor
timeout 90 "$C/bin/bench_executor" --benchmark_filter='IssueDag10k|NullBackend' 2>&1 | tail -12
sec bench_tracer
timeout 60 "$C/bin/bench_tracer" 2>&1 | tail -14
sec "plain suite: plain vs completion records"
timeout 330 python3 "$C/scripts/program_suite.py" measure --plain "$C/bin/streamlab-plain" --streamlab "$C/bin/streamlab" \
  --dir "$C/suite" --out "$W/plain-records.json" --variants plain,records --repeats 5 2>&1 | tail -70
sec pack
tar czf "$OUT/results.tar.gz" -C "$OUT" w && ls -la "$OUT"
sec done
