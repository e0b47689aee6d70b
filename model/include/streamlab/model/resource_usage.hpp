#pragma once
/// \file resource_usage.hpp
/// What this process has used so far (CPU time split into user and system, minor page faults, peak
/// resident memory), for the commands' `--timing` accounts: on large inputs the system time and the faults
/// say whether a phase grew in computing or in faulting in fresh pages.

namespace streamlab::model {

struct ResourceUsage {
  double user_s = 0;       ///< CPU seconds in the process's own code
  double sys_s = 0;        ///< CPU seconds in the kernel on its behalf (page faults, reads, mapping)
  long minor_faults = 0;   ///< pages touched for the first time (or again after they were given back)
  long peak_rss_mib = 0;   ///< peak resident memory (a high-water mark: not a difference in `operator-`)

  [[nodiscard]] double cpu_s() const noexcept { return user_s + sys_s; }
  /// What was used between `earlier` and this; the peak stays this one's.
  [[nodiscard]] ResourceUsage operator-(const ResourceUsage& earlier) const noexcept {
    return {user_s - earlier.user_s, sys_s - earlier.sys_s, minor_faults - earlier.minor_faults, peak_rss_mib};
  }
  /// Two spans of use added (the viewer's account skips its window set-up); the larger peak.
  [[nodiscard]] ResourceUsage operator+(const ResourceUsage& other) const noexcept {
    return {user_s + other.user_s, sys_s + other.sys_s, minor_faults + other.minor_faults,
            peak_rss_mib > other.peak_rss_mib ? peak_rss_mib : other.peak_rss_mib};
  }
};

/// This process's use so far, all threads (getrusage); zeros where it cannot be read.
[[nodiscard]] ResourceUsage resource_usage() noexcept;

/// Resident memory now, in MiB (/proc/self/statm); -1 where it cannot be read.
[[nodiscard]] long resident_mib() noexcept;

}  // namespace streamlab::model
