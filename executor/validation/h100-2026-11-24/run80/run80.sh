#!/usr/bin/env bash
# Run 80: GPU tests on main (c33f68d); a calibrate; the whole V1 suite (plain and streamlab run, 5 rounds of
# fresh processes) on the same machine, keeping the chunked programs' traces (which copy-queue structure
# this machine has).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
S=$C/bin/streamlab; P=$C/bin/streamlab-plain; D=/tmp/suite
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 100 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$? $(date -u +%T)"; tail -1 $O/gpu-tests.txt
/usr/bin/time -f "calibrate wall %e s" timeout 190 $S calibrate -o $O/calibrate.json > $O/calibrate.log 2>&1
echo "calibrate rc=$? $(date -u +%T)"; grep -E "streaming_factor:|wall" $O/calibrate.log | tail -3 | cut -c1-160
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
mkdir -p /tmp/tr
timeout 380 python3 $C/program_suite.py measure --plain $P --streamlab $S --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run --keep-traces /tmp/tr > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"; tail -2 $O/suite.log
mkdir -p $O/traces && cp /tmp/tr/chunked_streams=8_order=*-run-r1.json /tmp/tr/chunked_streams=4_order=*-run-r1.json $O/traces/ 2>/dev/null
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run80.tgz -C $O .
