#!/usr/bin/env bash
# Run 37: calibrate with host-speed probes in fresh processes (8 x 7.5 s) and stream first use on
# never-used streams, twice back to back around V1's chunked and chains configurations (plain only).
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 60 $C/gpu/streamlab_gpu_tests --gtest_filter='Calibrate.Host*' > $O/gpu-tests-host.txt 2>&1; echo "host probe tests rc=$?"; tail -3 $O/gpu-tests-host.txt
/usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate -o $O/calibrate-1.json > $O/calibrate-1.log 2>&1
echo "calibrate 1 rc=$? $(date -u +%T)"; grep -E "host probe|stream first use|wall" $O/calibrate-1.log | head -12
P=$C/bin/streamlab-plain; D=/tmp/suite
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 200 python3 $C/program_suite.py measure --plain $P --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain --only chunked,chains > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"
/usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate -o $O/calibrate-2.json > $O/calibrate-2.log 2>&1
echo "calibrate 2 rc=$? $(date -u +%T)"; grep -E "stream first use|wall" $O/calibrate-2.log | tail -2
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run37.tgz -C $O .
