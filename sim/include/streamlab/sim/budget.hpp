#pragma once
/// \file budget.hpp
/// How much work one simulation may do: a bound on processed events and on wall-clock time, so a huge or
/// hostile workload ends with a clear error instead of running for minutes.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "streamlab/model/input_limits.hpp"

namespace streamlab::sim {

struct SimBudget {
  /// Events the simulation may process; also the bound on the blocks, tasks and ops it may place
  /// (model::check_simulation_size, checked before anything runs). Every block's end counts as one event,
  /// also when a wave of blocks ends with one entry of the future-event list (sim/README.md).
  std::uint64_t max_events = model::kDefaultMaxSimEvents;
  /// Wall-clock seconds the simulation may take; 0 = no limit.
  double wall_seconds = 0;
};

/// A simulation stopped at its budget. The message names the workload, what ran out and the option that
/// raises it; nothing was written.
class SimBudgetExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace streamlab::sim
