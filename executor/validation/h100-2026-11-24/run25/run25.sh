#!/usr/bin/env bash
# Run 25: the admission matrix with the driver's carveout (no preference): a 132-block grid of B threads
# (300 us) running, then a grid of F threads on another stream, 4 or 132 blocks (50 us): does the second
# start beside the first (fg_done < 150 us) or after it? 2 fresh processes per cell. Then streamlab run
# --blocks on three of the pairs: where each block ran.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain
for rep in 1 2; do
  for b in 32 64 128 256 512 1024; do
    for f in 32 64 128 256 512 1024; do
      for g in 4 132; do
        echo "bg=$b fg=$f fg_grid=$g $(timeout 30 $P beside bg_grid=132 bg_block=$b fg_grid=$g fg_block=$f)" >> $O/matrix.txt
      done
    done
  done
done
python3 - $O/matrix.txt <<'PY'
import json,sys,collections
r=collections.defaultdict(list)
for line in open(sys.argv[1]):
    k=tuple(int(x.split("=")[1]) for x in line.split()[:3])
    try: r[k].append(json.loads(line[line.index("{"):])["sync_ns"]["fg_done"]/1e3)
    except Exception: r[k].append(float("nan"))
for g in (4,132):
    print("fg grid %d: fg_done us (max of reps); rows: running grid's block, columns: second grid's block" % g)
    fs=[32,64,128,256,512,1024]
    print("bg\\fg " + " ".join("%7d" % f for f in fs))
    for b in fs: print("%5d " % b + " ".join("%7.0f" % max(r[(b,f,g)]) for f in fs))
PY
for w in b512-f256 b1024-f256 b512-f32; do
  timeout 60 $C/bin/streamlab run $C/shapes/beside/$w.json -o $O/$w-blocks.json --blocks > $O/$w.log 2>&1; echo "$w rc=$?"
  python3 $C/block_starts.py $O/$w-blocks.json
done
for w in b512-f256 b1024-f256 b512-f32; do
python3 - $O/$w-blocks.json <<'PY'
import json,sys,collections
d=json.load(open(sys.argv[1]))
names={}
for e in d["traceEvents"]:
    if e.get("ph")=="X" and "op" in e.get("args",{}): names[e["args"]["op"]]=e["args"].get("op_id",e["name"])
recs=collections.defaultdict(list)
for op,blk,sm,st,en in d["streamlabBlocks"]: recs[names.get(op,op)].append((st,en,sm))
bg=recs.get("first",[]); fg=recs.get("second",[])
bgsm=collections.Counter(s for _,_,s in bg)
print(sys.argv[1].split("/")[-1], "first: %d blocks on %d SMs (max %d on one)" % (len(bg), len(bgsm), max(bgsm.values())))
t0=min(s for s,_,_ in bg)
beside=sum(1 for s,e,sm in fg if any(bs<=s<be and bsm==sm for bs,be,bsm in bg))
fgsm=collections.Counter(s for _,_,s in fg)
print("  second: %d blocks on %d SMs (max %d on one), %d started on an SM running a block of the first; starts %.1f-%.1f us after the first's first block" % (len(fg), len(fgsm), max(fgsm.values()), beside, (min(s for s,_,_ in fg)-t0)/1e3, (max(s for s,_,_ in fg)-t0)/1e3))
PY
done
