#!/usr/bin/env bash
# The viewer's opening cost on large traces, end to end: writes a pair of synthetic traces of N spans each
# (viz_make_big_pair), opens them in streamlab-viz under Xvfb with --frames 1 --timing, and prints one
# table row per size: CPU seconds of reading (the model's trace reader), of preparing (op matching), of the
# first frame (viewer set-up: lanes, summary, op table, and the frame itself), their total against the
# 2 s target, the peak resident memory and its ratio to the input size, and the CPU time of each later
# frame at fit (10 frames; under Xvfb this includes Mesa's software rasterizer). Baseline in the same run:
# CPU time of Python's json.load on the same two files (a plain parse that checks nothing).
#   tests/viz/bench_first_frame.sh BUILD_DIR [SPANS_PER_TRACE...]     (default 100000 1000000)
# Needs xvfb-run, GNU time (/usr/bin/time) and a build with STREAMLAB_BENCHMARKS=ON.
set -euo pipefail
build=${1:?usage: bench_first_frame.sh BUILD_DIR [SPANS_PER_TRACE...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
make_pair=$build/tests/viz/viz_make_big_pair
viz=$build/viz/streamlab-viz
for exe in "$make_pair" "$viz"; do
  [ -x "$exe" ] || { echo "bench_first_frame.sh: error: $exe not built (cmake --build $build --target viz_make_big_pair streamlab-viz)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); CPU seconds"
echo "# viewer_s = prepare_s + frame_s: everything after reading (op matching, lanes, summary, op table, the frame)"
printf '%-11s %9s %8s %8s %9s %8s %9s %8s %7s %9s %9s %9s %10s\n' spans/trace input_MB json_s read_s prepare_s frame_s viewer_s total_s target peak_MiB RSS/input read/json later_ms
for n in "${sizes[@]}"; do
  "$make_pair" "$tmp" "$n"
  bytes=$(( $(stat -c %s "$tmp/big.a.json") + $(stat -c %s "$tmp/big.b.json") ))
  cat_s=$( { /usr/bin/time -f '%U %S' /usr/bin/python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' \
             "$tmp/big.a.json" "$tmp/big.b.json"; } 2>&1 | tail -1 | awk '{print $1 + $2}')
  # The viewer reports its own CPU split and peak RSS once the first frame is drawn.
  out=$(xvfb-run -a -s '-screen 0 1920x1200x24' "$viz" "$tmp/big.a.json" "$tmp/big.b.json" --frames 11 --timing \
           --screenshot "$tmp/first.png" 2>&1)
  line=$(grep 'timing: read' <<< "$out")
  later=$(grep 'timing: frames' <<< "$out" | sed -E 's/.*: ([0-9.]+) ms CPU per frame.*/\1/')
  read_s=$(sed -E 's/.*read ([0-9.]+) s.*/\1/' <<< "$line")
  prep_s=$(sed -E 's/.*prepare ([0-9.]+) s.*/\1/' <<< "$line")
  frame_s=$(sed -E 's/.*, first frame ([0-9.]+) s .*/\1/' <<< "$line")
  total_s=$(sed -E 's/.*total to first frame ([0-9.]+) s.*/\1/' <<< "$line")
  rss=$(sed -E 's/.*peak RSS ([0-9]+) MiB.*/\1/' <<< "$line")
  awk -v l="$later" -v n="$n" -v b="$bytes" -v c="$cat_s" -v r="$read_s" -v p="$prep_s" -v f="$frame_s" -v t="$total_s" -v m="$rss" 'BEGIN {
    printf "%-11d %9.1f %8.3f %8.3f %9.3f %8.3f %9.3f %8.3f %7s %9d %8.2fx %8.2fx %10.1f\n", n, b / 1e6, c, r, p, f, p + f, t,
           (t < 2.0 ? "met" : "MISSED"), m, m * 1048576 / b, (c > 0 ? r / c : 0), l }'
  rm -f "$tmp"/big.*.json "$tmp/first.png"
done
