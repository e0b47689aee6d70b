#!/usr/bin/env bash
# streamlab quick start for a fresh Debian 12 machine (run as root, or with sudo available).
#   scripts/quickstart.sh run    install what is missing, build, run the main job
#   scripts/quickstart.sh test   install what is missing, build, run every test
# Idempotent and quiet on success: set-up output goes to build/quickstart-*.log, shown only on failure.
set -euo pipefail

mode=${1:-run}
case "$mode" in run|test) ;; *) echo "usage: $0 run|test" >&2; exit 2 ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
mkdir -p "$build"
log="$build/quickstart-$mode.log"
: >"$log"

fail() {
  echo "quickstart: $1 failed; last lines of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
}

# --- 1. Debian packages -------------------------------------------------------------------------------
packages=(build-essential cmake pkg-config git
          libboost-graph-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
          nlohmann-json3-dev libcli11-dev libsimdjson-dev libsqlite3-dev zlib1g-dev
          libimgui-dev libglfw3-dev libstb-dev xvfb xauth
          python3-matplotlib fonts-dejavu-core     # experiment and sweep charts (scripts/plot)
          libtomlplusplus-dev libopenmpi-dev openmpi-bin   # sweep specs; sweeps across MPI ranks
          clang-14 libclang-rt-14-dev)             # sanitizer and fuzz presets (tests/fuzz)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "quickstart: installing ${missing[*]}"
  { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; } \
    >>"$log" 2>&1 || fail "apt-get install"
fi

# --- 2. Configure and build ---------------------------------------------------------------------------
preset=default
[ "${CI:-}" = "true" ] && preset=ci
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset "$preset" >>"$log" 2>&1 || fail "cmake configure"
cmake --build --preset "$preset" -j "$jobs" >>"$log" 2>&1 || fail "build"

# --- 3. The job -----------------------------------------------------------------------------------------
if [ "$mode" = test ]; then
  # GPU tests report "skipped" on a machine without a device; viewer tests run under xvfb-run.
  ctest --preset "$preset" -j "$jobs" >>"$log" 2>&1 || fail "ctest"
  summary=$(grep -E "tests passed" "$log" | tail -n 1)
  skipped=$(grep -cE "^\s*[0-9]+ - .*\(Skipped\)" "$log" || true)
  note=""
  [ "${skipped:-0}" -gt 0 ] && note=" ($skipped skipped: they need a CUDA device)"
  echo "quickstart: $summary$note"
  exit 0
fi

"$root/scripts/main-job.sh" "$build"
