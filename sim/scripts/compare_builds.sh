#!/usr/bin/env bash
# Checks that two builds of streamlab predict byte-identical traces: every generator (DAGs and programs),
# every policy, with and without block placements, traced, one connection, and every workload kept under
# experiments/results/*/traces; then the experiment tables of a simulator-only suite and of every committed
# GPU result folder re-predicted. For a change to the simulator that must not change what it predicts (a
# faster event loop, waves of blocks): run it with the build before and the build after.
#
#   sim/scripts/compare_builds.sh OLD_STREAMLAB NEW_STREAMLAB [WORKDIR]
#
# The printed summary (event and block counts), --explain's text and error messages must match too.
# Prints one line per difference and a count; exits 1 when any output differs (or one build fails where
# the other does not), 0 when all are identical.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 OLD_STREAMLAB NEW_STREAMLAB [WORKDIR]" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
work=${3:-$(mktemp -d)}
mkdir -p "$work/in" "$work/old" "$work/new"
repo=$(cd "$(dirname "$0")/../.." && pwd)

# Workloads: the generators at moderate sizes (grids that fill the device, task pools, copies, programs).
"$new" gen random-dag --ops 3000 --seed 3 -o "$work/in/random-dag.json" >/dev/null
"$new" gen random-dag --ops 2000 --min-ns 1000 --max-ns 4000 --seed 9 -o "$work/in/random-dag-short.json" >/dev/null
"$new" gen stream-chains -o "$work/in/stream-chains.json" >/dev/null
"$new" gen chunked -o "$work/in/chunked.json" >/dev/null
# Grids of 8 full waves (2 blocks of 1024 threads per SM): finishing blocks are replaced on a full device.
"$new" gen chunked --chunks 60 --blocks 2112 --threads 1024 --streams 8 -o "$work/in/chunked-full.json" >/dev/null
"$new" gen pipeline -o "$work/in/pipeline.json" >/dev/null
"$new" gen fork-join -o "$work/in/fork-join.json" >/dev/null
"$new" gen task-batch -o "$work/in/task-batch.json" >/dev/null
"$new" gen chunked-program -o "$work/in/chunked-program.json" >/dev/null
"$new" gen chains-program -o "$work/in/chains-program.json" >/dev/null
"$new" gen priority-program -o "$work/in/priority-program.json" >/dev/null
"$new" gen legacy-program -o "$work/in/legacy-program.json" >/dev/null
for f in "$repo"/examples/*.json "$repo"/experiments/workloads/*.json; do
  [[ -f $f ]] && cp "$f" "$work/in/example-$(basename "$f")"
done
n=0
while IFS= read -r f; do
  n=$((n + 1))
  cp "$f" "$work/in/kept-$n.json"
done < <(find "$repo"/experiments/results -name '*.workload.json' 2>/dev/null | sort)

runs=0
differ=0
run_both() {  # NAME ARGS...: run `sim` with both builds, compare output and exit status
  local name=$1
  shift
  local rc_old=0 rc_new=0
  "$old" sim "$@" --date 2026-01-01 -q -o "$work/old/$name.json" >"$work/old/$name.out" 2>&1 || rc_old=$?
  "$new" sim "$@" --date 2026-01-01 -q -o "$work/new/$name.json" >"$work/new/$name.out" 2>&1 || rc_new=$?
  runs=$((runs + 1))
  if [[ $rc_old != "$rc_new" ]]; then
    echo "DIFFERS (exit $rc_old vs $rc_new): sim $*"
    differ=$((differ + 1))
  elif [[ $rc_old == 0 ]] && ! cmp -s "$work/old/$name.json" "$work/new/$name.json"; then
    echo "DIFFERS (trace): sim $*"
    differ=$((differ + 1))
  elif ! diff -q <(grep -v '^  wrote ' "$work/old/$name.out") <(grep -v '^  wrote ' "$work/new/$name.out") >/dev/null; then
    echo "DIFFERS (summary, explanation or error): sim $*"  # event and block counts, --explain, messages
    differ=$((differ + 1))
  fi
}

for w in "$work"/in/*.json; do
  base=$(basename "$w" .json)
  if grep -q '"format_version": *2' "$w"; then
    run_both "$base-replay" "$w" --blocks
    run_both "$base-replay-traced" "$w" --traced --connections 1
    run_both "$base-rr" "$w" --policy round-robin
  else
    for p in round-robin load-balanced priority workload-aware work-stealing; do
      run_both "$base-$p" "$w" --policy "$p"
    done
    run_both "$base-blocks" "$w" --policy load-balanced --blocks --streams 8
    run_both "$base-wide" "$w" --policy load-balanced --hints ignore --streams 32 --blocks
    run_both "$base-traced" "$w" --policy round-robin --traced --connections 1 --blocks
    run_both "$base-explain" "$w" --policy priority --streams 6 --explain "$(grep -o '"id": *"[^"]*"' "$w" | tail -1 | sed 's/.*"\([^"]*\)"$/\1/')"
  fi
done
# The experiments: every prediction of a simulator-only suite, and the committed GPU results re-predicted
# (their CSVs hold every predicted and measured number; the JSON beside them also records when it ran).
for b in old new; do
  bin=$old
  [[ $b == new ]] && bin=$new
  "$bin" experiment all --sim-only --out "$work/$b/experiments-sim-only" -q >/dev/null 2>&1 || echo "experiment all --sim-only failed ($b)"
  for d in "$repo"/experiments/results/*/; do
    [[ -n $(find "$d" -maxdepth 1 -name '*.csv' -print -quit) ]] || continue
    grep -q '"measured' "$d"/*.json 2>/dev/null || continue
    cp -r "$d" "$work/$b/repredict-$(basename "$d")"
    "$bin" experiment repredict "$work/$b/repredict-$(basename "$d")" -q >/dev/null 2>&1 ||
      echo "experiment repredict $(basename "$d") failed ($b)"
  done
done
for f in "$work"/old/experiments-sim-only/*.csv "$work"/old/repredict-*/*.csv; do
  [[ -f $f ]] || continue
  runs=$((runs + 1))
  if ! cmp -s "$f" "$work/new/${f#$work/old/}"; then
    echo "DIFFERS: ${f#$work/old/}"
    differ=$((differ + 1))
  fi
done
echo "$runs runs and result tables, $differ differ (outputs in $work)"
[[ $differ == 0 ]]
