#!/usr/bin/env bash
# The main job: what `scripts/quickstart.sh run` does after building. Analyses and simulates the bundled
# workloads with the bundled H100 profile; with a GPU present it measures them too.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
sl="$build/cli/streamlab"
out="$build/main-job"
mkdir -p "$out"
for w in "$root"/experiments/workloads/*.json; do
  name=$(basename "$w" .json)
  "$sl" validate "$w" >/dev/null
  "$sl" analyze "$w" | head -n 6
  echo
done
