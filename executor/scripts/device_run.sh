#!/usr/bin/env bash
# Runs on the lent H100 (the `run` device tool), from the repository root, with .devcarry/ carried
# (executor/scripts/prepare_carry.sh). Everything it prints also goes to $OUT/device.log.
#   STEPS: any of env,ctest,sanitize,calibrate,bench,run (default: all)
#   BUILD_ON_DEVICE=1: also configure and build here when the dev packages are present.
set -u
OUT=${OUT:-/tmp/streamlab-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/device.log") 2>&1
STEPS=${STEPS:-env,ctest,sanitize,calibrate,bench,run}
has() { [[ ",$STEPS," == *",$1,"* ]]; }
section() { echo; echo "=== $* [$(date -u +%T)]"; }
root=$(pwd)
carry=$root/.devcarry
export LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
BIN=$carry/bin
GPU_TESTS=$carry/gpu/streamlab_gpu_tests
CTEST_DIR=$carry/gpu
cat "$carry/BUILD_INFO" 2>/dev/null

if has env; then
  section environment
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.sm,clocks.max.sm,pstate,compute_mode \
    --format=csv
  nvidia-smi -q | grep -i -E "persistence|MIG Mode" -A1 | head -8
  nvcc --version 2>/dev/null | tail -2
  cmake --version 2>/dev/null | head -1
  compute-sanitizer --version 2>/dev/null | tail -1
  echo "cores: $(nproc); CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-unset}"
  section "dependency check (cmake configure here)"
  if timeout 90 cmake -S . -B build-gpu -DSTREAMLAB_VIZ=OFF -DSTREAMLAB_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
      > /tmp/configure.log 2>&1; then
    grep -E "Found|CUDA executor" /tmp/configure.log
    echo "configure: OK (Boost, Eigen, nlohmann_json, CLI11, GTest, benchmark, CUDAToolkit/CUPTI found)"
    if [[ "${BUILD_ON_DEVICE:-0}" == 1 ]]; then
      section "build here"
      if timeout 240 cmake --build build-gpu -j16 --target streamlab streamlab_gpu_tests bench_executor > /tmp/build.log 2>&1; then
        echo "build: OK"; BIN=$root/build-gpu/cli; GPU_TESTS=$root/build-gpu/tests/gpu/streamlab_gpu_tests
        cp build-gpu/tests/bench/bench_executor "$BIN/" ; CTEST_DIR=$root/build-gpu/tests/gpu
      else
        tail -20 /tmp/build.log; echo "build: FAILED, using the carried binaries"
      fi
    fi
  else
    grep -E "Could NOT|Error|not found" /tmp/configure.log | head -8
    echo "configure: FAILED here (missing dev packages); using the binaries built on the CPU machine (.devcarry)"
  fi
fi

if [[ "$CTEST_DIR" == "$carry/gpu" ]]; then
  # ctest over the carried binary: the discovered test list with this machine's paths.
  sed "s#@GPU_DIR@#$carry/gpu#g" "$carry/gpu/tests.cmake.in" > "$carry/gpu/tests.cmake"
  echo 'include("tests.cmake")' > "$carry/gpu/CTestTestfile.cmake"
fi

if has ctest; then
  section "ctest -L gpu"
  (cd "$CTEST_DIR" && timeout 300 ctest -L gpu --output-on-failure --timeout 120) > "$OUT/ctest-gpu.log" 2>&1
  echo "exit $?"
  grep -E "tests passed|Failed|SEGFAULT|Timeout|Exception" "$OUT/ctest-gpu.log" | tail -20
  # The details of what failed, for the log.
  grep -E "Failure|Expected|Which is|actual|rep [0-9]|Skipped|exception" "$OUT/ctest-gpu.log" | head -60
fi

if has sanitize; then
  # Death tests fault on purpose (their child loses its context), and a few tests make CUDA calls fail on
  # purpose (64 TiB allocations); those are left out so the summaries speak about real defects.
  filter='-*DeathTest*:*Unsatisfiable*:*ManagedMemoryBeyond*'
  for tool in memcheck racecheck; do
    section "compute-sanitizer --tool $tool"
    STREAMLAB_UNDER_SANITIZER=1 timeout 300 compute-sanitizer --tool $tool --print-limit 20 "$GPU_TESTS" \
      --gtest_filter="$filter" > "/tmp/sanitizer-$tool.log" 2>&1
    echo "exit $?"
    { echo "===== compute-sanitizer --tool $tool"; cat "/tmp/sanitizer-$tool.log"; } >> "$OUT/sanitizer.log"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|Failure|Expected|exception" "/tmp/sanitizer-$tool.log" | tail -12
  done
fi

if has calibrate; then
  section "streamlab calibrate"
  timeout 240 "$BIN/streamlab" calibrate -o "$OUT/h100-sxm.json"
  echo "exit $?"
fi

if has bench; then
  section bench_executor
  timeout 180 "$BIN/bench_executor" --benchmark_counters_tabular=true
  echo "exit $?"
  section bench_tracer
  timeout 120 "$BIN/bench_tracer"
  echo "exit $?"
fi

if has run; then
  section "streamlab run"
  w=experiments/workloads
  timeout 60 "$BIN/streamlab" run $w/chunked-8x3.json --policy round-robin --streams 3 -o "$OUT/chunked-8x3.round-robin.json"
  timeout 60 "$BIN/streamlab" run $w/pipeline-triple-buffer.json --policy workload-aware -o "$OUT/pipeline-triple-buffer.workload-aware.json"
  timeout 60 "$BIN/streamlab" run $w/all-kinds.json --policy load-balanced --streams 4 --window 2 -o "$OUT/all-kinds.load-balanced.json"
  timeout 60 "$BIN/streamlab" run $w/fork-join-8x4.json --policy round-robin --streams 8 --graph -o "$OUT/fork-join-8x4.graph-replay.json"
fi
section done
