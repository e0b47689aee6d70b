#!/usr/bin/env bash
# Run on the CPU machine: gathers the CUDA build of this worktree (BUILD_DIR, default build-cuda), its
# runtime libraries, the validation suite's program workloads and this folder's device scripts into
# CARRY (default /work/main/.carry-measure), for the device tool's `carry`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD_DIR:-$root/build-cuda}
carry=${CARRY:-/work/main/.carry-measure}
rm -rf "$carry"
mkdir -p "$carry/bin" "$carry/lib" "$carry/gpu" "$carry/scripts"
cp "$build/cli/streamlab" "$build/tests/bench/bench_executor" "$build/tests/bench/bench_tracer" \
   "$build/experiments/plain/streamlab-plain" "$carry/bin/"
cp "$build/tests/gpu/streamlab_gpu_tests" "$carry/gpu/"
cp "$build/tests/gpu/streamlab_gpu_tests[1]_tests.cmake" "$carry/gpu/tests.cmake.in"
sed -i "s#$build/tests/gpu#@GPU_DIR@#g" "$carry/gpu/tests.cmake.in"
for lib in libcudart.so.13 libcupti.so.13; do cp -L "/usr/local/cuda/lib64/$lib" "$carry/lib/"; done
# Every non-system library the binaries link (the device image has the CUDA driver and little else).
for bin in "$carry"/bin/* "$carry/gpu/streamlab_gpu_tests"; do
  ldd "$bin" | awk '$3 ~ "^/(usr/)?lib/x86_64-linux-gnu/" {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libgcc_s|libstdc\+\+|libpthread|libdl|librt|libz|libutil)\.so' |
  while read -r lib; do cp -L "$lib" "$carry/lib/"; done
cp "$root/experiments/scripts/program_suite.py" "$here"/run*.sh "$carry/scripts/"
/usr/bin/python3 "$root/experiments/scripts/program_suite.py" emit --plain "$carry/bin/streamlab-plain" --dir "$carry/suite"
{
  echo "source commit: $(git -C "$root" rev-parse HEAD)$(git -C "$root" diff --quiet || echo ' (+ uncommitted changes)')"
  echo "built: $(date -u +%FT%TZ), $(/usr/local/cuda/bin/nvcc --version | tail -1)"
} > "$carry/BUILD_INFO"
du -sh "$carry"
