#!/usr/bin/env bash
# Run 30b: run 30 again, everything in one archive (run 30's file count was over the limit).
set -u
C=$PWD/.carry-int
O0=$OUT; export OUT=$(mktemp -d)
bash $C/run30.sh > /dev/null
tar czf $O0/run30b.tgz -C $OUT .
cut -c1-120 $OUT/plain.txt
