#!/usr/bin/env bash
# Run HERE (the CPU machine) before the device call: builds `streamlab` with the CUDA executor for sm_90 and
# copies it and the CUDA runtime libraries it loads into build-experiments/devcarry/ (ignored by git; name
# it in the device call's `carry`). The device image may lack the Debian dev packages a build there needs;
# device-run.sh builds there only when no carried binary is present (or BUILD_ON_DEVICE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build-experiments}
cmake -S "$root" -B "$build" -DSTREAMLAB_VIZ=OFF -DSTREAMLAB_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$build" -j2 --target streamlab
carry=$build/devcarry
rm -rf "$carry"
mkdir -p "$carry/bin" "$carry/lib"
cp "$build/cli/streamlab" "$carry/bin/"
for lib in $(ldd "$build/cli/streamlab" | awk '/libcudart|libcupti/ {print $3}'); do cp -L "$lib" "$carry/lib/"; done
git -C "$root" rev-parse HEAD > "$carry/COMMIT"
if ! git -C "$root" diff --quiet -- experiments cli; then echo "(+ uncommitted changes in experiments/ or cli/)" >> "$carry/COMMIT"; fi
echo "built $(date -u +%FT%TZ) on $(uname -n) with $(/usr/local/cuda/bin/nvcc --version | tail -1)" > "$carry/BUILD_INFO"
du -sh "$carry"
