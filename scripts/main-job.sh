#!/usr/bin/env bash
# The main job: what `scripts/quickstart.sh run` does after building. Runs the experiment suite E1-E9
# (simulated with the bundled H100 profile everywhere; measured too when a CUDA GPU is present), writes the
# results, charts and a report under build/main-job/, and prints each experiment's verdict.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
sl="$build/cli/streamlab"
out="$build/main-job"
rm -rf "$out"
mkdir -p "$out"
for w in "$root"/experiments/workloads/*.json; do
  "$sl" validate "$w" >/dev/null
done
"$sl" experiment all --out "$out/results" >"$out/experiment.log" 2>&1 || {
  echo "main job: streamlab experiment all failed; last lines of $out/experiment.log:" >&2
  tail -n 20 "$out/experiment.log" >&2
  exit 1
}
"$sl" experiment report --results "$out/results" --out "$out/REPORT.md" >/dev/null
grep -E "^(streamlab|E[0-9]) .*(verdict|no CUDA|sim-only)" "$out/experiment.log" | cut -c1-200 || true
echo "main job: results in $out/results, report in $out/REPORT.md"
