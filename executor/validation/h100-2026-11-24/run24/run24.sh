#!/usr/bin/env bash
# Run 24: is the pending-grid rule the shared-memory carveout? streamlab-plain beside with the spin
# kernel's preferred carveout left to the driver (-1), 0% and 100%; block-size sweeps of each grid;
# 3 fresh processes per case: fg_done (us).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O=$OUT
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat $C/BUILD_INFO; } > $O/env.txt 2>&1
P=$C/bin/streamlab-plain
$P occupancy > $O/occupancy.txt 2>&1
$P occupancy shared=4096 >> $O/occupancy.txt 2>&1
cat $O/occupancy.txt
one() { local name=$1; shift; echo "$name $(timeout 30 $P beside "$@")" >> $O/carveout.txt; }
for rep in 1 2 3; do
  for cv in -1 0 100; do
    one "cv=$cv/bg132x1024/fg4x32"   bg_grid=132 bg_block=1024 fg_grid=4 fg_block=32 --carveout $cv
    one "cv=$cv/bg132x512/fg4x32"    bg_grid=132 bg_block=512  fg_grid=4 fg_block=32 --carveout $cv
    one "cv=$cv/bg132x512/fg132x256" bg_grid=132 bg_block=512  fg_grid=132 fg_block=256 --carveout $cv
    one "cv=$cv/bg132x1024/fg132x256" bg_grid=132 bg_block=1024 fg_grid=132 fg_block=256 --carveout $cv
  done
  for fb in 64 128 256 512 1024; do one "fgsweep/bg132x1024/fg4x$fb" bg_grid=132 bg_block=1024 fg_grid=4 fg_block=$fb; done
  for bb in 128 256 512; do one "bgsweep/bg132x$bb/fg4x1024" bg_grid=132 bg_block=$bb fg_grid=4 fg_block=1024; done
  for bb in 64 128 256; do one "bgsweep/bg132x$bb/fg4x32" bg_grid=132 bg_block=$bb fg_grid=4 fg_block=32; done
  for sh in 8192 32768; do one "shared/bg132x1024/fg4x32/fg_shared=$sh" bg_grid=132 bg_block=1024 fg_grid=4 fg_block=32 fg_shared=$sh; done
  one "shared/bg132x1024+bg_shared=32768/fg4x32" bg_grid=132 bg_block=1024 bg_shared=32768 fg_grid=4 fg_block=32
done
python3 - $O/carveout.txt <<'PY'
import json,sys,collections
r=collections.defaultdict(list)
for line in open(sys.argv[1]):
    name=line.split()[0]
    try: d=json.loads(line[line.index("{"):]); r[name].append(d["sync_ns"]["fg_done"]/1e3)
    except Exception as e: r[name].append(float("nan"))
for n,v in r.items(): print("%-44s fg_done us: %s" % (n, " ".join("%.1f" % x for x in sorted(v))))
PY
