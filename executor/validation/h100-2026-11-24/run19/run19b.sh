#!/usr/bin/env bash
# Run 19b: why the priority scenario's foreground kernel (132 x 256 threads, 50 us per block) spans ~83 us:
# the foreground kernel behind or beside full-GPU grids (fg.json: cases A-E, see the generator),
# through streamlab run (gpu-timer: the kernels' own block clock reads), 3 processes.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
for k in 1 2 3; do
  timeout 60 $C/bin/streamlab run $C/shapes/fg.json -o $O/fg-$k.json --timing gpu-timer > $O/fg-$k.log 2>&1; echo "run $k rc=$?"
done
python3 - $O <<'PY'
import json,sys
for k in (1,2,3):
    d=json.load(open(f"{sys.argv[1]}/fg-{k}.json"))
    ev={e["name"]:(e["ts"],e["ts"]+e["dur"]) for e in d["traceEvents"] if e.get("ph")=="X" and e["name"][:1] in "ABCDE" and "_r" in e["name"]}
    for case in "ABCDE":
        for r in range(3):
            row=[(n,v) for n,v in ev.items() if n.startswith(case+"_") and n.endswith("_r%d"%r)]
            row.sort(key=lambda x:x[1][0])
            t0=row[0][1][0]
            print(k,case,r,"  ".join("%s[%.1f,%.1f]%.1f"%(n.split("_")[1],a-t0,b-t0,b-a) for n,(a,b) in row))
PY
