#!/usr/bin/env bash
# Run 27: the carveout model. GPU tests with the spin kernel free of static shared memory; a quick
# calibrate (its carveout table and allocation unit); then the beside matrix (a 132-block grid of B
# threads running, 4 blocks of F threads on another stream): measured fg_done (streamlab-plain, 2 fresh
# processes) against streamlab sim with the quick profile and with the bundled one.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
timeout 240 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; grep -E "FAILED|PASSED|tests from" $O/gpu-tests.txt | tail -8
timeout 200 $C/bin/streamlab calibrate --quick -o $O/quick.json > $O/quick.log 2>&1; echo "calibrate rc=$?"; grep -i "carveout\|traced spans" $O/quick.log
P=$C/bin/streamlab-plain
mkdir -p $O/w
for b in 32 64 128 256 512 1024; do
  for f in 32 64 128 256 512 1024; do
    args="bg_grid=132 bg_block=$b fg_grid=4 fg_block=$f"
    m1=$(timeout 30 $P beside $args | python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["sync_ns"]["fg_done"]/1e3))')
    m2=$(timeout 30 $P beside $args | python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["sync_ns"]["fg_done"]/1e3))')
    $P beside $args --emit $O/w/b$b-f$f.json --name b$b-f$f
    $C/bin/streamlab sim $O/w/b$b-f$f.json --device $O/quick.json -o $O/w/b$b-f$f.quick.trace.json > /dev/null 2>&1
    $C/bin/streamlab sim $O/w/b$b-f$f.json -o $O/w/b$b-f$f.bundled.trace.json > /dev/null 2>&1
    q=$(python3 $C/beside_predict.py $O/w/b$b-f$f.quick.trace.json); u=$(python3 $C/beside_predict.py $O/w/b$b-f$f.bundled.trace.json)
    echo "bg=$b fg=$f measured=$m1,$m2 sim_calibrated=$q sim_bundled=$u" | tee -a $O/matrix.txt
  done
done
rm -f $O/w/*.trace.json
