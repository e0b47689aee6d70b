#pragma once
/// \file phase_times.hpp
/// `--timing` of the commands that can run for many seconds (`sim`, `analyze`): CPU time (user and system),
/// resident and peak memory and minor page faults at the end of each phase, on stderr, so that a slow run
/// shows which phase grew (and whether it grew in computing or in faulting in fresh pages).

#include <string>

#include "streamlab/model/resource_usage.hpp"

namespace streamlab::cli {

class PhaseTimes {
 public:
  /// `on` false: every call does nothing.
  explicit PhaseTimes(bool on);
  /// Ends the phase `name` and prints its line (its time runs from the end of the previous one).
  void end(const char* name);
  /// A line of detail inside the phase that ends next.
  void note(const std::string& line) const;
  [[nodiscard]] bool on() const noexcept { return on_; }

 private:
  bool on_;
  model::ResourceUsage last_;
};

}  // namespace streamlab::cli
