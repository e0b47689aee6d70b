#!/usr/bin/env bash
# On the GPU machine: a measured sweep, then `streamlab run` of the same configurations as often, then
# compare.py (does each configuration's sweep median fall inside the spread of its `streamlab run`s?).
# Needs bin/streamlab and lib/ (CUDA runtime, CUPTI, toml++) next to this script. SPEC (default
# h100-measured.toml next to it) and REPEATS (default 5: the `streamlab run`s per configuration) choose the
# check; the spec's own `repeats` should match.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$here/lib:${LD_LIBRARY_PATH:-}
sl=$here/bin/streamlab
spec=${SPEC:-$here/h100-measured.toml}
repeats=${REPEATS:-5}
out=${OUT:-/tmp/out}
mkdir -p "$out"
{
  echo "== device"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvidia-smi | grep -o "CUDA Version: [0-9.]*"
  date -u +%FT%TZ
  cat "$here/BUILD_INFO"
  echo "== spec"
  cat "$spec"
  echo "== streamlab sweep (GPUs seen: the measuring workers, one per GPU)"
  start=$(date +%s%N)
  "$sl" sweep "$spec" -o "$out/sweep" --no-charts
  echo "sweep rc=$? wall $(( ($(date +%s%N) - start) / 1000000 )) ms"
  cat "$out/sweep/summary.md"
  echo "== streamlab run of the same configurations, $repeats times each, interleaved"
  for i in $(seq 1 "$repeats"); do
    for conn in 1 8; do
      for pol in round-robin load-balanced; do
        CUDA_DEVICE_MAX_CONNECTIONS=$conn "$sl" run "$here/chunked-8x3.json" --policy $pol --streams 4 \
               --window 0 --stream-kind non-blocking --hints ignore -o /tmp/run.json > /dev/null
        # the makespan from the trace (device spans: first start to last end), in us as compare.py reads it
        # (`streamlab run` prints durations in human units)
        line=$(python3 -c "import json; e=[x['args'] for x in json.load(open('/tmp/run.json'))['traceEvents'] if x.get('ph') == 'X' and not x['args'].get('host_call')]; print('makespan %.3f us' % ((max(int(a['end_ns']) for a in e) - min(int(a['start_ns']) for a in e)) / 1e3))")
        echo "run policy=$pol connections=$conn repeat=$i $line"
      done
    done
  done
  echo "== compare"
  python3 "$here/compare.py" "$out/sweep/sweep.csv" "$out/sweep.log.tmp"
} > "$out/sweep.log.tmp" 2>&1
mv "$out/sweep.log.tmp" "$out/sweep-h100.log"
cp "$out/sweep/sweep.csv" "$out/sweep-h100.csv"
cat "$out/sweep-h100.log"
