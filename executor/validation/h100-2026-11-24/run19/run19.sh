#!/usr/bin/env bash
# Run 19: why the priority scenario's foreground kernel (132 x 256 threads, 50 us per block) spans ~83 us:
# 50 us spin kernels of several shapes, one at a time on an idle GPU (each followed by a device sync),
# through streamlab run (gpu-timer: the kernels' own block clock reads), 3 processes.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
for k in 1 2 3; do
  timeout 60 $C/bin/streamlab run $C/shapes/shapes.json -o $O/shapes-$k.json --timing gpu-timer > $O/shapes-$k.log 2>&1; echo "run $k rc=$?"
done
python3 - $O <<'PY'
import json,sys,collections
spans=collections.defaultdict(list)
for k in (1,2,3):
    d=json.load(open(f"{sys.argv[1]}/shapes-{k}.json"))
    for e in d["traceEvents"]:
        if e.get("ph")=="X" and e["name"].startswith("k"):
            spans[e["name"].rsplit("_r",1)[0]].append(round(e["dur"],1))
for n,v in spans.items(): print(n, sorted(v))
PY
