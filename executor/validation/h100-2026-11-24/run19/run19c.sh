#!/usr/bin/env bash
# Run 19c: fg.json again with every block's SM and times (streamlab run --blocks): where the foreground
# kernel's extra ~30 us goes when it is dispatched as another stream's grid ends.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
timeout 60 $C/bin/streamlab run $C/shapes/fg.json -o $O/fg-blocks.json --timing gpu-timer --blocks > $O/fg-blocks.log 2>&1; echo "rc=$?"
python3 - $O <<'PY'
import json,sys,collections
d=json.load(open(sys.argv[1]+"/fg-blocks.json"))
names={}
for e in d["traceEvents"]:
    if e.get("ph")=="X" and "args" in e and "op" in e["args"]: names[e["args"]["op"]]=e["name"]
blocks=collections.defaultdict(list)
for op,blk,sm,st,en in d.get("streamlabBlocks",[]): blocks[op].append((st/1e3,en/1e3,sm,blk))
print("block events:",sum(len(v) for v in blocks.values()), "ops with blocks:", len(blocks))
for op,v in sorted(blocks.items()):
    n=names.get(op,str(op))
    if not n.endswith("_r0"): continue
    v.sort(); s0=v[0][0]
    starts=[round(x[0]-s0,1) for x in v]; ends=[round(x[1]-s0,1) for x in v]; durs=[round(x[1]-x[0],1) for x in v]
    hist=collections.Counter(int(x//5)*5 for x in starts)
    per_sm=collections.Counter(x[2] for x in v)
    print(n, len(v), "start offsets (5us bins):", sorted(hist.items()), "dur min/max", min(durs), max(durs), "sms", len(per_sm), "max blocks on one sm", max(per_sm.values()))
PY
