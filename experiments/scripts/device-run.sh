#!/usr/bin/env bash
# Runs on the lent GPU (the `run` device tool) from the repository root. Measures the whole experiment suite
# and packs the results into $OUT/experiment-results.tar.gz (the device tool returns at most 8 files).
#   EXPERIMENTS: what to run (default "all"); REPEATS: measured runs per configuration (default 3);
#   SUITE_TIMEOUT: seconds for the suite (default 420); BUILD_ON_DEVICE=1: build here even with a carried binary.
#   TRACES=1: also keep every configuration's workload, predicted and measured traces (experiment --traces),
#   packed under traces/ in the same archive.
set -u
OUT=${OUT:-/tmp/streamlab-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/experiments-device.log") 2>&1
root=$(pwd)
carry=$root/build-experiments/devcarry
section() { echo; echo "=== $* [$(date -u +%T)]"; }

section environment
nvidia-smi --query-gpu=name,driver_version,memory.used,clocks.sm,clocks.max.sm,pstate --format=csv
echo "cores: $(nproc); CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-unset}"

BIN=""
if [[ -x "$carry/bin/streamlab" && "${BUILD_ON_DEVICE:-0}" != 1 ]]; then
  export LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  BIN=$carry/bin/streamlab
  cat "$carry/BUILD_INFO" 2>/dev/null
  export STREAMLAB_GIT_COMMIT=$(head -1 "$carry/COMMIT" 2>/dev/null)
else
  section "build here"
  if timeout 300 cmake -S . -B build-gpu -DSTREAMLAB_VIZ=OFF -DSTREAMLAB_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
       > "$OUT/configure.log" 2>&1 && timeout 300 cmake --build build-gpu -j16 --target streamlab > "$OUT/build.log" 2>&1; then
    BIN=$root/build-gpu/cli/streamlab
  else
    tail -20 "$OUT/configure.log" "$OUT/build.log" 2>/dev/null
    echo "build failed and no carried binary"; exit 1
  fi
fi

section "streamlab experiment ${EXPERIMENTS:-all}"
work=/tmp/streamlab-experiments
rm -rf "$work" && mkdir -p "$work/experiments"
cp -r "$root/experiments/results" "$work/experiments/" 2>/dev/null || true  # so the report sees the sim-only results
cd "$work"
start=$(date +%s)
traces=()
[[ "${TRACES:-0}" == 1 ]] && traces=(--traces "$work/traces")
timeout "${SUITE_TIMEOUT:-420}" "$BIN" experiment "${EXPERIMENTS:-all}" --repeats "${REPEATS:-3}" "${traces[@]}" ${EXTRA_ARGS:-}
echo "exit $? after $(( $(date +%s) - start )) s"

section pack
"$BIN" experiment report --out "$work/REPORT.md" || true
packed=(experiments/results REPORT.md)
[[ -d "$work/traces" ]] && packed+=(traces)
tar czf "$OUT/experiment-results.tar.gz" -C "$work" "${packed[@]}"
ls -la "$OUT"
