#!/usr/bin/env bash
# Run 10: does touching each new stream once before time 0 remove the first-call cost of a traced replay?
# streamlab-warm reads STREAMLAB_WARM_STREAMS (query | event | kernel; experiment only).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
date -u +%FT%TZ > $O/env.txt; cat $C/BUILD_INFO >> $O/env.txt
D=/tmp/suite
python3 $C/program_suite.py emit --plain $C/bin/streamlab-plain --dir $D > /dev/null
ONLY='chains_streams=1_order=depth,chains_streams=64_order=breadth,priority_fg'
for w in none query event kernel; do
  STREAMLAB_WARM_STREAMS=$w python3 $C/program_suite.py measure --plain $C/bin/streamlab-plain --streamlab $C/bin/streamlab-warm \
    --dir $D --out $O/warm-$w.json --repeats 5 --variants plain,run,run-none --only "$ONLY" --keep-traces $O/traces-$w > $O/warm-$w.log 2>&1
  echo "== $w $(date -u +%T)"; tail -9 $O/warm-$w.log
done
timeout 200 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $O/gpu-tests.txt
cd $O && tar czf traces.tgz traces-* && rm -rf traces-*
