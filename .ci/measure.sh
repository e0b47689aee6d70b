#!/usr/bin/env bash
# Measures CI as a fresh machine runs it: .ci/run on a fresh clone of HEAD, without ccache
# (CCACHE_DISABLE=1) and without CUDA (/usr/local/cuda hidden in a private mount namespace: the CI machine
# is a plain Debian 12), under `nice`. Writes .ci/measurements/DATE-COMMIT.txt (header and the ci-step
# lines) and regenerates .ci/README.md's budget table from it (.ci/budget_table.py).
#   .ci/measure.sh [WORK_DIR]      (default: a new folder under /tmp; needs root for the mount namespace)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/streamlab-ci-measure.XXXXXX)}
commit=$(git -C "$repo" rev-parse --short=12 HEAD)
rm -rf "$work/clone"
git clone -q --no-local "$repo" "$work/clone"
git -C "$work/clone" checkout -q "$commit"
out="$repo/.ci/measurements/$(date -u +%F)-$commit.txt"
mkdir -p "$(dirname "$out")"
{
  echo "# date: $(date -u +'%F %T UTC')"
  echo "# commit: $commit"
  echo "# machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GB"
  echo "# load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# conditions: fresh clone, CCACHE_DISABLE=1, no CUDA, nice; the machine is shared (wall times are upper bounds)"
} >"$out"
empty=$(mktemp -d)
start=$SECONDS
status=0
CCACHE_DISABLE=1 PATH=$(echo "$PATH" | tr : '\n' | grep -v cuda | paste -sd:) \
  unshare -m bash -c 'mount --bind "$1" /usr/local/cuda 2>/dev/null || true; cd "$2" && exec nice .ci/run' \
  x "$empty" "$work/clone" >"$work/ci.log" 2>&1 || status=$?
grep '^ci-step: ' "$work/ci.log" >>"$out" || true
echo "# total wall: $((SECONDS - start)) s; exit status: $status" >>"$out"
rmdir "$empty"
echo "log: $work/ci.log; steps: $out"
[ "$status" = 0 ] && /usr/bin/python3 "$repo/.ci/budget_table.py" "$out" "$repo/.ci/README.md"
exit "$status"
