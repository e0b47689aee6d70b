#include "streamlab/viz/summary.hpp"

namespace streamlab::viz {

namespace {

template <class Key>
std::vector<BusyRow> busy_rows(const std::vector<model::TraceMetrics>& metrics,
                               const std::map<Key, double> model::TraceMetrics::*field) {
  std::map<std::uint32_t, BusyRow> rows;
  for (std::size_t t = 0; t < metrics.size(); ++t) {
    for (const auto& [id, busy] : metrics[t].*field) {
      auto& r = rows[static_cast<std::uint32_t>(id)];
      r.id = static_cast<std::uint32_t>(id);
      r.busy.resize(metrics.size());
      r.busy[t] = busy;
    }
  }
  std::vector<BusyRow> out;
  for (auto& [id, r] : rows) out.push_back(std::move(r));
  return out;
}

}  // namespace

OverlapSummary summarize(const TraceSet& set) {
  OverlapSummary s;
  for (TraceIndex t = 0; t < set.size(); ++t) {
    // The change points go straight into the step function the plots read: a list of them all first
    // would double the memory (twenty million points of a ten-million-span trace).
    // At most two changes a device span, and the first: sized for every span (what goes unused is
    // never touched, and counting the device spans was a pass over every span).
    StepFunction& steps = s.concurrency.emplace_back();
    steps.reserve(2 * set.trace(t).spans.size() + 1);
    s.metrics.push_back(model::compute_metrics(set.trace(t), [&steps](model::Nanos at, std::uint32_t count) { steps.append(at, count); }));
  }
  s.makespan_rel_error.resize(set.size());
  for (TraceIndex t = 1; t < set.size(); ++t) {
    const auto ref = s.metrics[0].makespan_ns;
    if (ref > 0)
      s.makespan_rel_error[t] = static_cast<double>(s.metrics[t].makespan_ns - ref) / static_cast<double>(ref);
  }
  s.streams = busy_rows(s.metrics, &model::TraceMetrics::stream_busy);
  s.engines = busy_rows(s.metrics, &model::TraceMetrics::engine_busy);
  return s;
}

}  // namespace streamlab::viz
