#!/usr/bin/env bash
# Device run 5 (2026-11-24): (1) what `streamlab run` costs a host-bound program: a V1 subset with
# plain, run (CUPTI) and run-none (`--timing none`: no CUPTI, no events); (2) traces of chunked
# breadth-first programs (how copies of several streams share the copy engines); (3) the imported
# multi-stream PyTorch program (kernel block times with the SM wait taken out) run 5 times at the default
# connections and 5 times at CUDA_DEVICE_MAX_CONNECTIONS=1, for the what-if comparison with `sim`.
set -u
C=$(pwd)/.carry-int
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp/run5-out}
mkdir -p "$OUT"
S=$C/bin/streamlab
env_lines() {
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/device, driver: /'
  nvidia-smi | grep -o "CUDA Version: [0-9.]*" | sed 's/^/driver /'
  echo "cudart carried: $(ls "$C/lib" | grep cudart)"
  cat "$C/BUILD_INFO"
}
D=$(mktemp -d)
{ env_lines; echo
  python3 experiments/scripts/program_suite.py emit --plain "$C/bin/streamlab-plain" --dir "$D/suite" 2>&1 | tail -2
  timeout 300 python3 experiments/scripts/program_suite.py measure --plain "$C/bin/streamlab-plain" --streamlab "$S" \
    --dir "$D/suite" --out "$OUT/suite-measured.json" --repeats 5 --variants plain,run,run-none \
    --only "chunked_streams=2_order=breadth,chunked_streams=8_order=breadth,chunked_streams=2_order=depth,chains_streams=1_order=depth,chains_streams=16_order=breadth,priority_fg_priority=-5" 2>&1
} > "$OUT/suite.log" 2>&1
mkdir -p "$D/traces"
{ env_lines; echo
  for n in 2 8; do
    for o in breadth depth; do
      f="$D/suite/chunked_streams=${n}_order=${o}.json"
      [ -f "$f" ] && timeout 60 "$S" run "$f" -o "$D/traces/chunked-$n-$o.json" 2>&1 | head -1
    done
  done
  for i in 1 2 3 4 5; do
    timeout 60 "$S" run "$C/ms.json" -o "$D/traces/ms-default-$i.json" 2>&1 | head -1
    CUDA_DEVICE_MAX_CONNECTIONS=1 timeout 60 "$S" run "$C/ms.json" -o "$D/traces/ms-conn1-$i.json" 2>&1 | head -1
  done
} > "$OUT/runs.log" 2>&1
tar -C "$D/traces" -czf "$OUT/traces.tgz" .
tail -25 "$OUT/suite.log"; cat "$OUT/runs.log" | grep -v "^  "
