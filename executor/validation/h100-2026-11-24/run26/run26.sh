#!/usr/bin/env bash
# Run 26: the carveout the driver picks, from shared-memory sweeps: a 132-block grid of B threads with S
# bytes of shared memory a block running (300 us), then 4 blocks of F threads with their own shared
# memory on another stream: beside (fg_done < 150 us) or after? 2 fresh processes per cell.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain
one() { echo "$* $(timeout 30 $P beside bg_grid=132 fg_grid=4 "$@")" >> $O/sweep.txt; }
for rep in 1 2; do
  for s in 0 1024 2048 3072 4096 6144 8192 12288; do
    for f in 256 128; do one bg_block=1024 bg_shared=$s fg_block=$f; done
  done
  for s in 0 512 1024 2048 4096 8192; do
    for f in 128 64; do one bg_block=512 bg_shared=$s fg_block=$f; done
  done
  for s in 0 256 512 1024 2048 4096; do one bg_block=512 fg_block=256 fg_shared=$s; done
  for s in 0 512 1024 2048 4096; do one bg_block=1024 fg_block=512 fg_shared=$s; done
  for s in 0 256 1024; do one bg_block=128 fg_block=128 fg_shared=$s; done
  for s in 0 256 1024; do one bg_block=256 fg_block=128 fg_shared=$s; done
done
python3 - $O/sweep.txt <<'PY'
import json,sys,collections
r=collections.defaultdict(list)
for line in open(sys.argv[1]):
    k=" ".join(line[:line.index("{")].split())
    try: r[k].append(json.loads(line[line.index("{"):])["sync_ns"]["fg_done"]/1e3)
    except Exception: r[k].append(float("nan"))
for k,v in r.items(): print("%-52s %s  %s" % (k, " ".join("%.0f" % x for x in v), "beside" if max(v) < 150 else ("after" if min(v) > 250 else "mixed")))
PY
