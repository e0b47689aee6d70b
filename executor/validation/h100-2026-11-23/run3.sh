#!/usr/bin/env bash
# Device run 3: GPU tests after the origin-event placement fix (event-timed spans) and the self-timed span tolerances.
set -u
C=$(pwd)/.carry-measure
export LD_LIBRARY_PATH=$C/lib
OUT=${OUT:-/tmp/measure-out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/device.log") 2>&1
echo "=== ctest -L gpu [$(date -u +%T)]"
sed "s#@GPU_DIR@#$C/gpu#g" "$C/gpu/tests.cmake.in" > "$C/gpu/tests.cmake"
echo 'include("tests.cmake")' > "$C/gpu/CTestTestfile.cmake"
(cd "$C/gpu" && timeout 150 ctest -L gpu --output-on-failure --timeout 60) > "$OUT/ctest-gpu.log" 2>&1
echo "exit $?"; grep -E "tests passed|Failed|rep [0-9]" "$OUT/ctest-gpu.log" | tail -12
