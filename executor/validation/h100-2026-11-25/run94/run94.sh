#!/usr/bin/env bash
# Run 94: what makes `streamlab run` of short chain programs slower than the plain program: 9 rounds on
# fresh processes of plain, plain with its kernels writing block records as streamlab run's self-timed
# kernels do (--block-records), and streamlab run; 1- and 2-stream chains and two device-bound ones.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab; P=$C/bin/streamlab-plain; D=/tmp/suite
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
head -2 $O/env.txt
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 480 python3 $C/program_suite.py measure --plain $P --streamlab $S --dir $D --out $O/suite-measured.json \
  --repeats 9 --variants plain,block-records,run \
  --only chains_streams=1_,chains_streams=2_,chains_streams=8_order=depth_conn=1,chains_streams=64_order=depth_conn=1 > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; tail -17 $O/suite.log
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run94.tgz -C $O .
