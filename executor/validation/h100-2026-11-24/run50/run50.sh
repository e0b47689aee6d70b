#!/usr/bin/env bash
# Run 50: GPU tests; two default calibrates back to back (repeatability, with the first-launch fields);
# V1's chains (plain and streamlab run, 5 rounds of fresh processes) after the executor stopped
# launching on new streams before time 0 without CUPTI; the host-cost benchmark.
set -u
C=$PWD/.carry-int
export LD_LIBRARY_PATH=$C/lib:${LD_LIBRARY_PATH:-}
O0=$OUT; O=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,serial --format=csv,noheader
  nvidia-smi | grep "CUDA Version"; cat $C/BUILD_INFO; cat /proc/loadavg; } > $O/env.txt 2>&1
timeout 120 $C/gpu/streamlab_gpu_tests --gtest_brief=1 > $O/gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -1 $O/gpu-tests.txt
for k in 1 2; do
  /usr/bin/time -f "calibrate wall %e s" timeout 200 $C/bin/streamlab calibrate -o $O/calibrate-$k.json > $O/calibrate-$k.log 2>&1
  echo "calibrate $k rc=$? $(date -u +%T)"; grep -E "^ *(stream first use|queue first use|program first call|host speed: kernel_launch)|wall" $O/calibrate-$k.log | tail -5
done
P=$C/bin/streamlab-plain; D=/tmp/suite
python3 $C/program_suite.py emit --plain $P --dir $D > /dev/null
timeout 240 python3 $C/program_suite.py measure --plain $P --streamlab $C/bin/streamlab --dir $D \
  --out $O/suite-measured.json --repeats 5 --variants plain,run --only chains > $O/suite.log 2>&1
echo "suite rc=$? $(date -u +%T)"
timeout 60 $C/bin/bench_executor --benchmark_filter='SteadyClock|ProgramReplay' > $O/bench.txt 2>&1; echo "bench rc=$?"; grep -E "replay of|ratio" $O/bench.txt | head
cat /proc/loadavg >> $O/env.txt
tar czf $O0/run50.tgz -C $O .
