#!/usr/bin/env bash
# Device run 2 (2026-11-23): GPU tests with self-timed kernels; E4 (event call costs, tracer as in a
# measured run); two back-to-back calibrates (9 rounds); the issue benchmarks (program replay traced vs
# hand-written); the program validation suite: plain program vs `streamlab run` (5 rounds, fresh processes).
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
sec "E4"
timeout 60 "$C/bin/streamlab" experiment E4 --repeats 5 --out "$W/e4" 2>&1 | tail -11
for k in 1 2; do
  sec "streamlab calibrate (#$k)"
  /usr/bin/time -f "calibrate wall %e s" timeout 100 "$C/bin/streamlab" calibrate -o "$W/calibrate-$k.json" > "$W/calibrate-$k.log" 2>&1
  tail -3 "$W/calibrate-$k.log"
done
sec bench_executor
timeout 120 "$C/bin/bench_executor" --benchmark_filter='ProgramReplay|IssueDag10k' 2>&1 | grep -v "^\*\*\*\|^Load\|^  L[123]\|^CPU\|^Run on" | tail -10
sec "program suite: plain vs streamlab run"
timeout 400 python3 "$C/scripts/program_suite.py" measure --plain "$C/bin/streamlab-plain" --streamlab "$C/bin/streamlab" \
  --dir "$C/suite" --out "$W/suite-measured.json" --variants plain,run --repeats "${REPEATS:-5}" 2>&1 | tail -68
sec pack
cp "$W"/e4/E4.json "$W/e4.json" 2>/dev/null
tar czf "$OUT/results.tar.gz" -C "$OUT" w && ls -la "$OUT"
sec done
