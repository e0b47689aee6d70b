#!/usr/bin/env bash
# Checks every exit code of README.md's "Exit codes" table against the built `streamlab`:
#   tests/cli/exit_codes.sh path/to/streamlab
# 0 success, 1 failure that is not the input's, 2 input error (arguments included; one
# `streamlab: error:` line), 3 no CUDA GPU, 4 missing optional dependency (matplotlib for charts).
set -uo pipefail
streamlab=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect CODE DESCRIPTION -- COMMAND...: runs it, checks the code and, for non-zero codes, that stderr is
# exactly one line starting with "streamlab: error: ".
expect() {
  local want=$1 what=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL ($what): exit $got, expected $want: $*"; sed 's/^/  stderr: /' "$tmp/err"; failures=$((failures + 1)); return
  fi
  if [ "$want" != 0 ]; then
    if [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q '^streamlab: error: ' "$tmp/err"; then
      echo "FAIL ($what): stderr is not one 'streamlab: error:' line: $*"; sed 's/^/  stderr: /' "$tmp/err"
      failures=$((failures + 1)); return
    fi
  fi
  echo "ok   exit $got  $what"
}

"$streamlab" gen chunked --chunks 4 --streams 2 -o "$tmp/w.json" >/dev/null || { echo "FAIL: gen"; exit 1; }

# 0
expect 0 "--version" -- "$streamlab" --version
expect 0 "--help" -- "$streamlab" --help
expect 0 "sim writes a trace" -- "$streamlab" sim "$tmp/w.json" -o "$tmp/p.json"
expect 0 "stats of two traces" -- "$streamlab" stats "$tmp/p.json" "$tmp/p.json"
expect 0 "stats --csv to a file" -- "$streamlab" stats --csv -o "$tmp/stats.csv" "$tmp/p.json"
[ "$(head -c 6 "$tmp/stats.csv")" = "trace," ] || { echo "FAIL: stats --csv wrote no CSV header"; failures=$((failures + 1)); }
# sim --timing: a line per phase on stderr, and the same trace as without it.
expect 0 "sim --timing" -- "$streamlab" sim "$tmp/w.json" -o "$tmp/t.json" --date 2026-01-01 --timing
for phase in read policy simulate "drop ops" write metrics; do
  grep -q "^streamlab: timing: $phase " "$tmp/err" || { echo "FAIL: sim --timing printed no '$phase' line"; failures=$((failures + 1)); }
done
"$streamlab" sim "$tmp/w.json" -o "$tmp/u.json" --date 2026-01-01 >/dev/null 2>&1
cmp -s "$tmp/t.json" "$tmp/u.json" || { echo "FAIL: sim --timing changed the trace"; failures=$((failures + 1)); }
# compare --timing: a line per phase on stderr, and the same report on stdout as without it.
expect 0 "compare --timing" -- "$streamlab" compare "$tmp/t.json" "$tmp/p.json" --timing
cp "$tmp/out" "$tmp/compare-timed.txt"
for phase in "read a" "read b" compare print; do
  grep -q "^streamlab: timing: $phase .* s CPU (.* user + .* sys)" "$tmp/err" ||
    { echo "FAIL: compare --timing printed no '$phase' line"; failures=$((failures + 1)); }
done
"$streamlab" compare "$tmp/t.json" "$tmp/p.json" >"$tmp/compare-plain.txt" 2>/dev/null
cmp -s "$tmp/compare-timed.txt" "$tmp/compare-plain.txt" ||
  { echo "FAIL: compare --timing changed the report"; failures=$((failures + 1)); }

# 2: the parser's errors, for every subcommand, and input files
expect 2 "unknown subcommand" -- "$streamlab" bogus
expect 2 "no subcommand" -- "$streamlab"
for sub in $("$streamlab" --help | awk '/^Subcommands:/{on=1; next} on && NF {print $1}'); do
  expect 2 "$sub --bogus-flag" -- "$streamlab" "$sub" --bogus-flag
done
expect 2 "sim --bogus-flag after the workload" -- "$streamlab" sim "$tmp/w.json" -o "$tmp/q.json" --bogus-flag
expect 2 "option without its value" -- "$streamlab" sim "$tmp/w.json" -o
expect 2 "non-numeric value" -- "$streamlab" gen chunked --chunks many -o "$tmp/x.json"
expect 2 "missing file" -- "$streamlab" validate "$tmp/none.json"
printf '{"format": "streamlab-workload", "ops": [' >"$tmp/bad.json"
expect 2 "malformed JSON" -- "$streamlab" sim "$tmp/bad.json" -o "$tmp/r.json"
expect 2 "deadlocking workload" -- "$streamlab" sim "$root/tests/golden/inputs/deadlock.json" -o "$tmp/d.json"
[ -e "$tmp/d.json" ] && { echo "FAIL: a trace was written for a refused workload"; failures=$((failures + 1)); }
expect 2 "stats of a workload, not a trace" -- "$streamlab" stats "$tmp/w.json"
expect 2 "unknown experiment" -- "$streamlab" experiment E99 --sim-only

# 3: no GPU (CUDA_VISIBLE_DEVICES=-1 hides every device; a build without CUDA says so with the same code)
expect 3 "run without a GPU" -- env CUDA_VISIBLE_DEVICES=-1 "$streamlab" run "$tmp/w.json" -o "$tmp/m.json"
expect 3 "calibrate without a GPU" -- env CUDA_VISIBLE_DEVICES=-1 "$streamlab" calibrate -o "$tmp/c.json"

# 4 and 1: charts. A results folder to draw, then an interpreter whose matplotlib import fails (4) and one
# that fails outright (1).
mkdir -p "$tmp/results"
"$streamlab" experiment E1 --sim-only --quick --out "$tmp/results" >/dev/null 2>&1 || true
[ -f "$tmp/results/E1.csv" ] || { echo "FAIL: experiment E1 wrote no results"; failures=$((failures + 1)); }
mkdir -p "$tmp/nompl/matplotlib"
echo 'raise ImportError("hidden for the test")' >"$tmp/nompl/matplotlib/__init__.py"
expect 4 "render without matplotlib" -- env PYTHONPATH="$tmp/nompl" "$streamlab" experiment render "$tmp/results"
expect 1 "render when the chart program fails" -- env STREAMLAB_PYTHON=/bin/false "$streamlab" experiment render "$tmp/results"
expect 2 "render a folder without results" -- "$streamlab" experiment render "$tmp/nompl"

if [ "$failures" -gt 0 ]; then echo "$failures exit-code check(s) failed"; exit 1; fi
echo "every documented exit code checked"
