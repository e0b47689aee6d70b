#pragma once
/// \file summary.hpp
/// The overlap summary panel's numbers: model::compute_metrics of each trace (definitions in
/// docs/formats.md), the makespan error, per-stream busy fractions side by side, and the concurrency step
/// functions the panel plots.

#include <cstdint>
#include <optional>
#include <vector>

#include "streamlab/model/metrics.hpp"
#include "streamlab/viz/step_function.hpp"
#include "streamlab/viz/trace_pair.hpp"

namespace streamlab::viz {

struct StreamBusy {
  std::uint32_t stream = 0;
  std::optional<double> predicted, measured;  ///< busy fraction of the makespan, absent if unused
};

struct OverlapSummary {
  model::TraceMetrics predicted;
  std::optional<model::TraceMetrics> measured;
  std::optional<double> makespan_rel_error;  ///< (predicted - measured) / measured
  std::vector<StreamBusy> streams;           ///< ascending stream id
  StepFunction concurrency_predicted, concurrency_measured;
  std::size_t matched_ops = 0;               ///< (op, engine) pairs present in both traces
};

[[nodiscard]] OverlapSummary summarize(const TracePair& pair);

}  // namespace streamlab::viz
