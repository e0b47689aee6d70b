#!/usr/bin/env bash
# Device run 6 (2026-11-24): what a kernel launch costs the host in the V1 chains programs. `streamlab run
# --timing none` (no CUPTI, no events) records every API call's host span; each chains configuration
# runs 3 times (fresh processes), plus the same programs with 1 us kernels (device nearly idle).
set -u
C=$(pwd)/.carry-int
export LD_LIBRARY_PATH=$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp/run6-out}
mkdir -p "$OUT"
S=$C/bin/streamlab
D=$(mktemp -d)
python3 experiments/scripts/program_suite.py emit --plain "$C/bin/streamlab-plain" --dir "$D/suite" > /dev/null
mkdir -p "$D/t"
{ echo "date: $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat "$C/BUILD_INFO"
  for cfg in chains_streams=1_order=depth chains_streams=16_order=depth chains_streams=64_order=depth \
             chains_streams=16_order=breadth chains_streams=64_order=breadth chains_streams=64_order=breadth_conn=1; do
    conn=8; case $cfg in *conn=1) conn=1;; esac
    for r in 1 2 3; do
      CUDA_DEVICE_MAX_CONNECTIONS=$conn timeout 60 "$S" run "$D/suite/$cfg.json" --timing none -o "$D/t/$cfg-r$r.json" 2>&1 | head -1
      # the same calls with 1 us kernels: the device keeps up, no work piles up in the queues
      python3 -c "
import json,sys; w=json.load(open(sys.argv[1]))
for o in w['ops']:
    if o.get('kind')=='kernel': o['duration']={'per_block_ns':1000}
json.dump(w,open(sys.argv[2],'w'))" "$D/suite/$cfg.json" "$D/short.json"
      CUDA_DEVICE_MAX_CONNECTIONS=$conn timeout 60 "$S" run "$D/short.json" --timing none -o "$D/t/$cfg-short-r$r.json" 2>&1 | head -1
    done
  done
} > "$OUT/run6.log" 2>&1
tar -C "$D/t" -czf "$OUT/run6-traces.tgz" .
cat "$OUT/run6.log" | cut -c1-160
