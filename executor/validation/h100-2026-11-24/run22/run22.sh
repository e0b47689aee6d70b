#!/usr/bin/env bash
# Run 22: where between 512 and 1024 threads a running grid (132 blocks, one to an SM, 300 us) stops
# letting another stream's kernel (4 x 32 threads, 50 us) start beside it; and whether two blocks to an
# SM (264 blocks) of 512 threads do. streamlab-plain beside, 3 fresh processes per case: fg_done (us).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain
for rep in 1 2 3; do
  for b in 512 544 640 768 896 992 1024; do
    echo "block=$b grid=132 rep=$rep $(timeout 30 $P beside bg_grid=132 bg_block=$b fg_grid=4 fg_block=32)" >> $O/threshold.txt
  done
  echo "block=512 grid=264 rep=$rep $(timeout 30 $P beside bg_grid=264 bg_block=512 fg_grid=4 fg_block=32)" >> $O/threshold.txt
  echo "block=256 grid=528 rep=$rep $(timeout 30 $P beside bg_grid=528 bg_block=256 fg_grid=4 fg_block=32)" >> $O/threshold.txt
done
python3 - $O/threshold.txt <<'PY'
import json,sys,collections
r=collections.defaultdict(list)
for line in open(sys.argv[1]):
    key=" ".join(line.split()[:2]); d=json.loads(line[line.index("{"):]); r[key].append(d["sync_ns"]["fg_done"]/1e3)
for n,v in r.items(): print("%-22s fg_done us: %s" % (n, " ".join("%.1f" % x for x in sorted(v))))
PY
