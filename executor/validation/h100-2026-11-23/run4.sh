#!/usr/bin/env bash
# Device run 4 (2026-11-23): why CudaBackend.EveryOpKindRunsAndGetsASpan failed, and the GPU tests after
# the fix. .carry-gpufix/diag_before_fix is main at 61d507b plus temporary stderr prints (env
# STREAMLAB_CLOCK_DEBUG) of the anchors, the scale, every event's raw time from the origin event, and an
# extra event recorded behind every op; gpu/streamlab_gpu_tests is the fixed build.
set -u
C=$(pwd)/.carry-gpufix
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp/gpufix-out}
mkdir -p "$OUT"
env_lines() {
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/device, driver: /'
  nvidia-smi | grep -o "CUDA Version: [0-9.]*" | sed 's/^/driver /'
  echo "cudart carried: $(ls "$C/lib" | grep cudart)"
  cat "$C/BUILD_INFO"
}
{ env_lines; echo
  for i in 1 2; do
    STREAMLAB_CLOCK_DEBUG=1 timeout 60 "$C/diag_before_fix" --gtest_filter=CudaBackend.EveryOpKindRunsAndGetsASpan 2>&1
  done; } > "$OUT/diagnosis-before-fix.log" 2>&1
{ env_lines; echo
  timeout 120 "$C/gpu/streamlab_gpu_tests" --gtest_filter=CudaBackend.EveryOpKindRunsAndGetsASpan --gtest_repeat=10 2>&1; } > "$OUT/every-op-kind-x10.log"
sed "s#@GPU_DIR@#$C/gpu#g" "$C/gpu/tests.cmake.in" > "$C/gpu/tests.cmake"
echo 'include("tests.cmake")' > "$C/gpu/CTestTestfile.cmake"
{ env_lines; echo
  (cd "$C/gpu" && timeout 200 ctest -L gpu --output-on-failure --timeout 60) 2>&1; echo "ctest exit $?"; } > "$OUT/ctest-gpu.log"
tail -5 "$OUT/diagnosis-before-fix.log"; grep -c "^\[       OK \]" "$OUT/every-op-kind-x10.log"; grep -E "FAILED|tests passed|ctest exit" "$OUT/ctest-gpu.log"
