#include "streamlab/viz/summary.hpp"

#include <map>

namespace streamlab::viz {

OverlapSummary summarize(const TracePair& pair) {
  OverlapSummary s;
  s.predicted = model::compute_metrics(pair.trace(Side::predicted));
  s.concurrency_predicted = StepFunction(s.predicted.concurrency);
  std::map<std::uint32_t, StreamBusy> streams;
  for (const auto& [id, busy] : s.predicted.stream_busy) {
    streams[id].stream = id;
    streams[id].predicted = busy;
  }
  if (pair.has(Side::measured)) {
    s.measured = model::compute_metrics(pair.trace(Side::measured));
    s.concurrency_measured = StepFunction(s.measured->concurrency);
    if (s.measured->makespan_ns > 0)
      s.makespan_rel_error = static_cast<double>(s.predicted.makespan_ns - s.measured->makespan_ns) /
                             static_cast<double>(s.measured->makespan_ns);
    for (const auto& [id, busy] : s.measured->stream_busy) {
      streams[id].stream = id;
      streams[id].measured = busy;
    }
    s.matched_ops = pair.common_op_count();
  }
  for (const auto& [id, row] : streams) s.streams.push_back(row);
  return s;
}

}  // namespace streamlab::viz
