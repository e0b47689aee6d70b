#include "streamlab/model/stats.hpp"

#include <algorithm>
#include <vector>

#include "intervals.hpp"
#include "streamlab/model/metrics.hpp"

namespace streamlab::model {
namespace {

using intervals::Interval;

// Collects a group's spans, then totals them against the makespan.
struct Group {
  std::uint64_t spans = 0;
  Nanos sum = 0;
  std::vector<Interval> times;
  void add(const Span& s) {
    ++spans;
    sum += std::max<Nanos>(0, s.end_ns - s.start_ns);
    times.emplace_back(s.start_ns, s.end_ns);
  }
  [[nodiscard]] SpanTotals totals(Nanos makespan) const {
    const Nanos busy = intervals::total(intervals::merge(times));
    return {spans, sum, busy, intervals::fraction(busy, makespan)};
  }
};

Overlap overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  const auto ua = intervals::merge(a), ub = intervals::merge(b);
  const Nanos both = intervals::intersection(ua, ub);
  return {both, intervals::fraction(both, std::min(intervals::total(ua), intervals::total(ub)))};
}

}  // namespace

TraceStats compute_stats(const Trace& t) {
  TraceStats st;
  const TraceMetrics m = compute_metrics(t);
  st.start_ns = m.start_ns;
  st.makespan_ns = m.makespan_ns;
  st.mean_concurrency = m.mean_concurrency;
  st.max_concurrency = m.max_concurrency;

  Group all;
  std::map<OpKind, Group> kinds;
  std::map<std::uint32_t, Group> streams;
  std::map<Engine, Group> engines;
  std::vector<Interval> copy, sm, h2d, d2h, host, device;
  for (const Span& s : t.spans) {
    all.add(s);
    kinds[s.kind].add(s);
    streams[s.stream].add(s);
    engines[s.engine].add(s);
    const Interval i{s.start_ns, s.end_ns};
    if (is_copy_engine(s.engine)) copy.push_back(i);
    if (s.engine == Engine::sm) sm.push_back(i);
    if (s.engine == Engine::copy_h2d) h2d.push_back(i);
    if (s.engine == Engine::copy_d2h) d2h.push_back(i);
    (s.engine == Engine::host ? host : device).push_back(i);
  }
  st.all = all.totals(st.makespan_ns);
  for (const auto& [k, g] : kinds) st.by_kind[k] = g.totals(st.makespan_ns);
  for (const auto& [k, g] : streams) st.by_stream[k] = g.totals(st.makespan_ns);
  for (const auto& [k, g] : engines) st.by_engine[k] = g.totals(st.makespan_ns);
  st.copy_compute = overlap(copy, sm);
  st.h2d_d2h = overlap(h2d, d2h);
  st.host_device = overlap(host, device);
  return st;
}

}  // namespace streamlab::model
