#!/usr/bin/env bash
# The documented long run: every fuzz target for SECONDS, one at a time under `nice` (one core; a shared
# machine keeps building), each on the working corpus it grew before (BUILD/tests/fuzz/corpus/NAME).
#   tests/fuzz/long_run.sh [BUILD_DIR] [SECONDS] [OUT_DIR] [TARGET...]
# defaults: build-ubsan-clang, 600, tests/fuzz/long-runs/DATE, every target built. For each target OUT_DIR gets
# NAME.log: a header (date, commit, machine) and libFuzzer's output without its per-input NEW/REDUCE
# lines (the pulses, the final DONE line with cov/ft/corp and the final stats stay). A finding leaves its
# reproducer in BUILD/tests/fuzz/corpus (NAME-crash-*, -leak-, -timeout-, -oom-) and the run goes on with the next
# target; the exit status is non-zero when any target failed. tests/fuzz/long_run_table.py turns the logs
# into README.md's table.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build-ubsan-clang}
seconds=${2:-600}
out=${3:-$here/long-runs/$(date -u +%F)}
shift $(($# < 3 ? $# : 3))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for bin in "$build"/tests/fuzz/fuzz_*; do [ -x "$bin" ] && targets+=("$(basename "$bin" | sed 's/^fuzz_//')"); done
fi
mkdir -p "$out"
# The fuzzed code: the libraries the targets link and the targets themselves (the last commit that
# changed them, so the row stays true when later commits touch only docs or CI).
code=(../../model ../../import ../../sim ../../policies '*.cpp' '*.hpp')
commit=$(cd "$here" && git log -1 --format=%h --abbrev=12 -- "${code[@]}")
dirty=$(cd "$here" && git status --porcelain --untracked-files=no -- "${code[@]}" | head -1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
status=0
for name in "${targets[@]}"; do
  bin="$build/tests/fuzz/fuzz_$name"
  log="$out/$name.log"
  {
    echo "# target: $name"
    echo "# date: $(date -u +'%F %T UTC')"
    echo "# commit: $commit${dirty:+ (with uncommitted changes)}"
    echo "# machine: $cpu, $(nproc) cores, $(uname -sr); load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# seconds: $seconds"
    echo "# seeds: $(find "$here/corpus/$name" -type f | wc -l); working corpus at start: $(find "$build/tests/fuzz/corpus/$name" -type f 2>/dev/null | wc -l)"
  } >"$log"
  echo "fuzz_$name: $seconds s -> $log"
  nice "$here/run_fuzz.sh" "$bin" "$name" "$here" "$build/tests/fuzz/corpus/$name" "$seconds" 2>&1 |
    grep -Ev '^#[0-9]+[[:space:]]+(NEW|REDUCE)|^[[:space:]]+NEW_FUNC' >>"$log"
  rc=${PIPESTATUS[0]}
  echo "# exit: $rc" >>"$log"
  [ "$rc" = 0 ] || { status=1; echo "fuzz_$name: FAILED (exit $rc), see $log"; }
done
exit $status
