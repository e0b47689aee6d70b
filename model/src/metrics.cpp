#include "streamlab/model/metrics.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "intervals.hpp"

namespace streamlab::model {
namespace {

using intervals::Interval;
using intervals::fraction;
using intervals::intersection;
using intervals::merge;
using intervals::total;

// A difference clamped to Nanos (intervals.hpp: traces read from files never clamp).
Nanos minus(Nanos a, Nanos b) { return intervals::clamp_ns(static_cast<intervals::Wide>(a) - b); }

}  // namespace

TraceMetrics compute_metrics(const Trace& t) {
  TraceMetrics m;
  if (t.spans.empty()) return m;
  Nanos first = std::numeric_limits<Nanos>::max(), last = std::numeric_limits<Nanos>::min();
  std::map<std::uint32_t, std::vector<Interval>> by_stream;
  // Engines index a small array (an Engine is one byte); a map lookup per span cost more than the rest.
  std::array<std::vector<Interval>, 256> by_engine;
  std::vector<Nanos> starts, ends;  // of device spans with a positive duration
  starts.reserve(t.spans.size());
  ends.reserve(t.spans.size());
  std::uint32_t cached_stream = 0;
  std::vector<Interval>* cached = nullptr;  // consecutive spans are often of one stream
  for (const Span& s : t.spans) {
    if (s.host_call) continue;  // the host thread's API calls: not work of the device
    first = std::min(first, s.start_ns);
    last = std::max(last, s.end_ns);
    if (cached == nullptr || s.stream != cached_stream) {
      cached = &by_stream[s.stream];  // std::map nodes do not move
      cached_stream = s.stream;
    }
    cached->emplace_back(s.start_ns, s.end_ns);
    by_engine[static_cast<std::size_t>(s.engine)].emplace_back(s.start_ns, s.end_ns);
    if (s.engine != Engine::host && s.end_ns > s.start_ns) {
      starts.push_back(s.start_ns);
      ends.push_back(s.end_ns);
    }
  }
  if (first > last) return m;  // host API calls only
  m.start_ns = first;
  m.makespan_ns = std::max<Nanos>(0, minus(last, first));

  for (auto& [stream, intervals] : by_stream) m.stream_busy[stream] = fraction(total(merge(std::move(intervals))), m.makespan_ns);
  std::vector<Interval> copies, kernels;
  for (std::size_t e = 0; e < by_engine.size(); ++e) {
    if (by_engine[e].empty()) continue;
    const auto engine = static_cast<Engine>(e);
    std::vector<Interval> merged = merge(std::move(by_engine[e]));
    m.engine_busy[engine] = fraction(total(merged), m.makespan_ns);
    if (engine == Engine::sm) kernels = merged;
    if (is_copy_engine(engine)) copies.insert(copies.end(), merged.begin(), merged.end());
  }
  copies = merge(std::move(copies));
  const Nanos copy_time = total(copies), kernel_time = total(kernels);
  if (copy_time > 0 && kernel_time > 0)
    m.copy_compute_overlap = fraction(intersection(copies, kernels), std::min(copy_time, kernel_time));

  // Concurrency: sweep starts (+1) and ends (-1) in time order; ends and starts at one instant apply
  // together. Two sorted arrays of times instead of one array of (time, +-1) events: half the data to
  // sort, and a stream-ordered trace's ends are often sorted already.
  const auto itself = [](Nanos at) { return at; };
  if (!std::is_sorted(starts.begin(), starts.end())) intervals::sort_by_time(starts, itself);
  if (!std::is_sorted(ends.begin(), ends.end())) intervals::sort_by_time(ends, itself);
  m.concurrency.emplace_back(first, 0);
  std::int64_t running = 0;
  Nanos previous = first;
  double area = 0;  // integral of the count over time
  for (std::size_t i = 0, j = 0; i < starts.size() || j < ends.size();) {
    const Nanos time = (j >= ends.size() || (i < starts.size() && starts[i] < ends[j])) ? starts[i] : ends[j];
    area += static_cast<double>(running) * (static_cast<double>(time) - static_cast<double>(previous));
    previous = time;
    for (; i < starts.size() && starts[i] == time; ++i) ++running;
    for (; j < ends.size() && ends[j] == time; ++j) --running;
    const auto count = static_cast<std::uint32_t>(running);
    m.max_concurrency = std::max(m.max_concurrency, count);
    if (time == m.concurrency.back().first)
      m.concurrency.back().second = count;
    else if (count != m.concurrency.back().second)
      m.concurrency.emplace_back(time, count);
  }
  m.mean_concurrency = m.makespan_ns > 0 ? area / static_cast<double>(m.makespan_ns) : 0.0;
  return m;
}

TraceComparison compare_traces(const Trace& a, const Trace& b) {
  TraceComparison c;
  c.a = compute_metrics(a);
  c.b = compute_metrics(b);
  if (c.b.makespan_ns > 0)
    c.makespan_rel_error = static_cast<double>(c.a.makespan_ns - c.b.makespan_ns) / static_cast<double>(c.b.makespan_ns);
  else
    c.makespan_rel_error = c.a.makespan_ns == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  c.overlap_error = c.a.copy_compute_overlap - c.b.copy_compute_overlap;
  c.workload_hash_mismatch =
      !a.meta.workload_hash.empty() && !b.meta.workload_hash.empty() && a.meta.workload_hash != b.meta.workload_hash;

  // Spans keyed by (op id, engine); repeated keys pair up in start order (k-th with k-th). Each trace's
  // device spans are sorted by key, then start, then trace order, and the two lists walked together: a
  // std::map of a million (string, engine) keys cost more than reading the traces.
  const auto by_key = [](const Trace& t) {
    std::vector<const Span*> v;
    v.reserve(t.spans.size());
    for (const Span& s : t.spans)
      if (!s.host_call) v.push_back(&s);
    std::stable_sort(v.begin(), v.end(), [](const Span* x, const Span* y) {
      if (const int order = x->op_id.compare(y->op_id); order != 0) return order < 0;
      if (x->engine != y->engine) return x->engine < y->engine;
      return x->start_ns < y->start_ns;
    });
    return v;
  };
  const auto key_less = [](const Span* x, const Span* y) {
    const int order = x->op_id.compare(y->op_id);
    return order < 0 || (order == 0 && x->engine < y->engine);
  };
  const std::vector<const Span*> in_a = by_key(a), in_b = by_key(b);
  // [i, end) of the spans sharing in[i]'s key.
  const auto group_end = [&](const std::vector<const Span*>& in, std::size_t i) {
    std::size_t end = i + 1;
    while (end < in.size() && !key_less(in[i], in[end])) ++end;
    return end;
  };
  for (std::size_t i = 0, j = 0; i < in_a.size() || j < in_b.size();) {
    const bool take_a = j == in_b.size() || (i < in_a.size() && !key_less(in_b[j], in_a[i]));
    const bool take_b = i == in_a.size() || (j < in_b.size() && !key_less(in_a[i], in_b[j]));
    const std::size_t a_end = take_a ? group_end(in_a, i) : i, b_end = take_b ? group_end(in_b, j) : j;
    const std::size_t both = std::min(a_end - i, b_end - j);
    for (std::size_t k = 0; k < both; ++k) {
      const Span& x = *in_a[i + k];
      const Span& y = *in_b[j + k];
      c.ops.push_back(OpDelta{x.op_id, x.name, x.engine, x.start_ns - c.a.start_ns, x.end_ns - c.a.start_ns,
                              y.start_ns - c.b.start_ns, y.end_ns - c.b.start_ns});
    }
    for (std::size_t k = i + both; k < a_end; ++k) c.only_in_a.push_back(in_a[k]->op_id);
    for (std::size_t k = j + both; k < b_end; ++k) c.only_in_b.push_back(in_b[k]->op_id);
    i = a_end;
    j = b_end;
  }
  for (auto* ids : {&c.only_in_a, &c.only_in_b}) {
    std::sort(ids->begin(), ids->end());
    ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  }
  std::sort(c.ops.begin(), c.ops.end(), [](const OpDelta& x, const OpDelta& y) {
    return std::tie(x.a_start, x.op_id, x.engine) < std::tie(y.a_start, y.op_id, y.engine);
  });
  if (!c.ops.empty()) {
    double start_sum = 0, duration_sum = 0;
    for (const OpDelta& d : c.ops) {
      start_sum += static_cast<double>(std::abs(d.start_error()));
      duration_sum += static_cast<double>(std::abs(d.duration_error()));
    }
    c.mean_abs_start_error_ns = start_sum / static_cast<double>(c.ops.size());
    c.mean_abs_duration_error_ns = duration_sum / static_cast<double>(c.ops.size());
  }
  return c;
}

}  // namespace streamlab::model
