#!/usr/bin/env bash
# Run 21: does a second grid start beside a running one? The hand-written program (streamlab-plain beside,
# no streamlab in the process), 5 fresh processes per case: when the second grid's stream synchronize
# returned (fg_done, ns since the first call).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain
cases=(
 "room bg_grid=132 bg_block=1024"
 "room-same bg_grid=132 bg_block=1024 same_stream=1"
 "full bg_grid=264 bg_block=1024"
 "one-block bg_grid=1 bg_block=32"
 "tiny-second bg_grid=132 bg_block=1024 fg_grid=4 fg_block=32"
 "half-threads bg_grid=132 bg_block=512"
)
for rep in 1 2 3 4 5; do
  for c in "${cases[@]}"; do
    set -- $c; name=$1; shift
    echo "$name rep=$rep $(timeout 30 $P beside "$@")" >> $O/beside.txt
  done
done
python3 - $O/beside.txt <<'PY'
import json,sys,collections
r=collections.defaultdict(list)
for line in open(sys.argv[1]):
    name=line.split()[0]; d=json.loads(line[line.index("{"):]); r[name].append(d["sync_ns"]["fg_done"]/1e3)
for n,v in r.items(): print("%-14s fg_done us: %s" % (n, " ".join("%.1f" % x for x in sorted(v))))
PY
