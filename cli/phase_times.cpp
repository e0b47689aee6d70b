#include "phase_times.hpp"

#include <cstdio>

namespace streamlab::cli {

PhaseTimes::PhaseTimes(bool on) : on_(on) {
  if (on_) last_ = model::resource_usage();
}

void PhaseTimes::end(const char* name) {
  if (!on_) return;
  const model::ResourceUsage now = model::resource_usage();
  const model::ResourceUsage d = now - last_;
  std::fprintf(stderr,
               "streamlab: timing: %-9s %7.3f s CPU (%.3f user + %.3f sys), resident %ld MiB, peak %ld MiB, "
               "%ld page faults\n",
               name, d.cpu_s(), d.user_s, d.sys_s, model::resident_mib(), now.peak_rss_mib, d.minor_faults);
  last_ = now;
}

void PhaseTimes::note(const std::string& line) const {
  if (on_) std::fprintf(stderr, "streamlab: timing:   %s\n", line.c_str());
}

}  // namespace streamlab::cli
