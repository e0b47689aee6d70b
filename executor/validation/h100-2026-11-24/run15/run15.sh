#!/usr/bin/env bash
# Run 15: calibrate with the host's speed sampled (--host-seconds 60 after 9 rounds), twice back to back,
# then the GPU tests.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
for k in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 240 $C/bin/streamlab calibrate --rounds 9 --host-seconds 60 -o $O/calibrate-$k.json > $O/calibrate-$k.log 2>&1
  echo "calibrate $k rc=$? $(date -u +%T)"; tail -1 $O/calibrate-$k.log; grep "host speed: kernel_launch\|sampling passes" $O/calibrate-$k.log
done
timeout 150 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -4 $O/gpu-tests.txt
