#!/usr/bin/env bash
# Runs one fuzz target for a fixed time on a working corpus seeded from the repository's seeds.
# usage: run_fuzz.sh BINARY NAME SOURCE_DIR WORK_CORPUS SECONDS [extra libFuzzer flags...]
# Exit status: libFuzzer's (non-zero on a crash, leak, sanitizer report, timeout or out-of-memory; the
# reproducer is left as crash-*/leak-*/timeout-*/oom-* in the working corpus's parent folder).
set -euo pipefail
bin=$1 name=$2 src=$3 work=$4 seconds=$5
shift 5
mkdir -p "$work"
# Absolute paths: libFuzzer runs from the working corpus's parent folder (where its artifacts go).
bin=$(realpath "$bin") src=$(realpath "$src") work=$(realpath "$work")
# A target whose input is not JSON has its own dictionary (NAME.dict); the JSON readers share one.
dict="$src/$name.dict"
[[ -f $dict ]] || dict="$src/streamlab.dict"
cd "$(dirname "$work")"
exec "$bin" "$work" "$src/corpus/$name" -dict="$dict" -max_total_time="$seconds" \
  -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$(pwd)/$name-" "$@"
