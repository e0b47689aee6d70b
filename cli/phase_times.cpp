#include "phase_times.hpp"

#include <cstdio>

#include <sys/resource.h>
#include <unistd.h>

namespace streamlab::cli {
namespace {

long resident_mib() {
  long pages = 0, resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
}

}  // namespace

PhaseTimes::PhaseTimes(bool on) : on_(on) {
  if (on_) last_ = now();
}

void PhaseTimes::end(const char* name) {
  if (!on_) return;
  const Sample s = now();
  std::fprintf(stderr,
               "streamlab: timing: %-9s %7.3f s CPU (%.3f user + %.3f sys), resident %ld MiB, peak %ld MiB, "
               "%ld page faults\n",
               name, s.user - last_.user + s.sys - last_.sys, s.user - last_.user, s.sys - last_.sys, resident_mib(),
               s.peak_mib, s.faults - last_.faults);
  last_ = s;
}

void PhaseTimes::note(const std::string& line) const {
  if (on_) std::fprintf(stderr, "streamlab: timing:   %s\n", line.c_str());
}

PhaseTimes::Sample PhaseTimes::now() {
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return {};
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return {sec(ru.ru_utime), sec(ru.ru_stime), ru.ru_maxrss / 1024, ru.ru_minflt};  // ru_maxrss: KiB on Linux
}

}  // namespace streamlab::cli
