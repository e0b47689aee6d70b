#!/usr/bin/env bash
# Run 106: E7's foreground kernels under 25 us and 100 us background blocks (priority and equal modes),
# `streamlab run --blocks` (every block's SM and %globaltimer start/end), 6 fresh processes each, the same
# options as the experiment (policy priority, 2 streams, its priority map); what the GPU does with the
# room a finished foreground kernel leaves while background blocks wait.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab; E=experiments/results/h100/traces/experiments/E7
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
for r in 1 2 3 4 5 6; do
  for cfg in bg-block-us-25_mode-priority bg-block-us-25_mode-equal bg-block-us-100_mode-priority; do
    case $cfg in *priority) MAP="critical=-5,high=-5,normal=0,low=0,cleanup=0";; *) MAP="critical=0,high=0,normal=0,low=0,cleanup=0";; esac
    timeout 60 $S run $E/$cfg.workload.json --policy priority --streams 2 --priority-map $MAP --blocks \
      -o $O/$cfg-r$r.json > $O/$cfg-r$r.log 2>&1 || echo "$cfg r$r rc=$?"
  done
done
echo "done $(date -u +%T)"; ls $O | wc -l
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run106.tgz -C $O .
