#!/usr/bin/env bash
# Run HERE (the CPU machine) before a device call: builds the executor's programs with CUDA for sm_90 and
# copies them, their non-system shared libraries and the GPU tests' ctest files into .devcarry/ (ignored
# by git, named in the device call's `carry`). The device image may lack the Debian dev packages
# (Boost, Eigen, GTest, benchmark, CLI11, nlohmann-json) that a build there needs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build-executor}
cmake -S "$root" -B "$build" -DSTREAMLAB_VIZ=OFF -DSTREAMLAB_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$build" -j2 --target streamlab streamlab_gpu_tests bench_executor bench_tracer
carry=$root/.devcarry
rm -rf "$carry"
mkdir -p "$carry/bin" "$carry/lib" "$carry/gpu"
cp "$build/cli/streamlab" "$build/tests/bench/bench_executor" "$build/tests/bench/bench_tracer" "$carry/bin/"
cp "$build/tests/gpu/streamlab_gpu_tests" "$carry/gpu/"
cp "$build/tests/gpu/streamlab_gpu_tests[1]_tests.cmake" "$carry/gpu/tests.cmake.in"
sed -i "s#$build/tests/gpu#@GPU_DIR@#g" "$carry/gpu/tests.cmake.in"
for lib in libcudart.so.13 libcupti.so.13; do cp -L "/usr/local/cuda/lib64/$lib" "$carry/lib/"; done
cp -L /lib/x86_64-linux-gnu/libbenchmark.so.1debian "$carry/lib/"
echo "source commit: $(git -C "$root" rev-parse HEAD)$(git -C "$root" diff --quiet || echo ' (+ uncommitted changes)')" > "$carry/BUILD_INFO"
echo "built: $(date -u +%FT%TZ) on $(uname -n), $(/usr/local/cuda/bin/nvcc --version | tail -1)" >> "$carry/BUILD_INFO"
du -sh "$carry"
