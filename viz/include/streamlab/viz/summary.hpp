#pragma once
/// \file summary.hpp
/// The overlap summary panel's numbers: model::compute_metrics of each trace (definitions in
/// docs/formats.md), each trace's makespan error against trace 0, per-stream and per-engine busy
/// fractions side by side, and the concurrency step functions the panel plots.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "streamlab/model/metrics.hpp"
#include "streamlab/viz/step_function.hpp"
#include "streamlab/viz/trace_set.hpp"

namespace streamlab::viz {

/// Busy fraction of one stream or engine in each trace (absent where the trace does not use it).
struct BusyRow {
  std::uint32_t id = 0;  ///< stream id, or the model::Engine value
  std::vector<std::optional<double>> busy;
};

struct OverlapSummary {
  std::vector<model::TraceMetrics> metrics;                ///< per trace
  std::vector<std::optional<double>> makespan_rel_error;   ///< per trace: (t - trace 0) / trace 0; none for 0
  std::vector<BusyRow> streams;                            ///< ascending stream id
  std::vector<BusyRow> engines;                            ///< ascending engine
  std::vector<StepFunction> concurrency;                   ///< per trace, on its own clock
};

[[nodiscard]] OverlapSummary summarize(const TraceSet& set);

}  // namespace streamlab::viz
