#!/bin/sh
# Runs bench_io from an optimized build and writes its output, headed by the date, to
# tests/bench/bench_io.txt (atomically). Usage: tests/bench/run_bench_io.sh [BUILD_DIR] (default: build).
# Refuses a build that is not Release or RelWithDebInfo: its timings would say nothing about streamlab.
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt")
case "$type" in
  Release|RelWithDebInfo) ;;
  *) echo "run_bench_io.sh: error: $build is a '$type' build; configure one with -DCMAKE_BUILD_TYPE=Release" >&2; exit 2 ;;
esac
cmake --build "$build" --target bench_io -j2 >/dev/null
out="$root/tests/bench/bench_io.txt"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
{
  date -u +%Y-%m-%dT%H:%M:%S+00:00
  echo "Running $build/tests/bench/bench_io"
  "$build/tests/bench/bench_io" --benchmark_context=commit="$(git -C "$root" rev-parse --short HEAD)" 2>&1
} > "$tmp"
mv "$tmp" "$out"
cat "$out"
