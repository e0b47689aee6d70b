#include "streamlab/model/metrics.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string_view>
#include <tuple>
#include <vector>

#include "intervals.hpp"
#include "streamlab/model/radix_sort.hpp"

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

TraceMetrics compute_metrics(const Trace& t, ConcurrencySteps steps) {
  TraceMetrics m;
  if (t.spans.empty()) return m;
  Nanos first = std::numeric_limits<Nanos>::max(), last = std::numeric_limits<Nanos>::min();
  std::map<std::uint32_t, std::vector<Interval>> by_stream;
  // Engines index a small array (an Engine is one byte); a map lookup per span cost more than the rest.
  std::array<std::vector<Interval>, 256> by_engine;
  std::vector<Nanos> starts, ends;  // of device spans with a positive duration
  starts.reserve(t.spans.size());
  ends.reserve(t.spans.size());
  {
    // Each engine's and each stream's array sized once (growing arrays of ten million intervals copied
    // them again and again).
    std::array<std::size_t, 256> count{};
    std::map<std::uint32_t, std::size_t> per_stream;
    std::uint32_t counted_stream = 0;
    std::size_t* counted = nullptr;  // consecutive spans are often of one stream
    for (const Span& s : t.spans) {
      if (s.host_call) continue;
      ++count[static_cast<std::size_t>(s.engine)];
      if (counted == nullptr || s.stream != counted_stream) {
        counted = &per_stream[s.stream];
        counted_stream = s.stream;
      }
      ++*counted;
    }
    for (std::size_t e = 0; e < count.size(); ++e) by_engine[e].reserve(count[e]);
    for (const auto& [stream, n] : per_stream) by_stream[stream].reserve(n);
  }
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
    if (is_copy_engine(engine)) copies.insert(copies.end(), merged.begin(), merged.end());
    if (engine == Engine::sm) kernels = std::move(merged);
  }
  copies = merge(std::move(copies));
  const Nanos copy_time = total(copies), kernel_time = total(kernels);
  if (copy_time > 0 && kernel_time > 0)
    m.copy_compute_overlap = fraction(intersection(copies, kernels), std::min(copy_time, kernel_time));
  // The unions kept the arrays of every interval they were made from: hand those back before the sweep.
  std::vector<Interval>().swap(copies);
  std::vector<Interval>().swap(kernels);

  // Concurrency: sweep starts (+1) and ends (-1) in time order; ends and starts at one instant apply
  // together. Two sorted arrays of times instead of one array of (time, +-1) events: half the data to
  // sort, and a stream-ordered trace's ends are often sorted already.
  const auto itself = [](Nanos at) { return at; };
  if (!std::is_sorted(starts.begin(), starts.end())) intervals::sort_by_time(starts, itself);
  if (!std::is_sorted(ends.begin(), ends.end())) intervals::sort_by_time(ends, itself);
  // At most one change point per start and per end, and the first: sized once (growing a list of twenty
  // million points copied it again and again, into fresh memory each time).
  const bool keep_steps = steps == ConcurrencySteps::keep;
  if (keep_steps) {
    m.concurrency.reserve(starts.size() + ends.size() + 1);
    m.concurrency.emplace_back(first, 0);
  }
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
    if (!keep_steps) continue;
    if (time == m.concurrency.back().first)
      m.concurrency.back().second = count;
    else if (count != m.concurrency.back().second)
      m.concurrency.emplace_back(time, count);
  }
  m.mean_concurrency = m.makespan_ns > 0 ? area / static_cast<double>(m.makespan_ns) : 0.0;
  return m;
}

TraceComparison compare_traces(const Trace& a, const Trace& b) {
  std::vector<SpanDelta> matched;
  TraceComparison c = compare_traces(a, b, matched);
  c.ops.reserve(matched.size());
  for (const SpanDelta& d : matched) c.ops.push_back(op_delta(a, d));
  return c;
}

OpDelta op_delta(const Trace& a, const SpanDelta& d) {
  const Span& x = a.spans[d.a];
  return OpDelta{x.op_id, x.name, x.engine, d.a_start, d.a_end, d.b_start, d.b_end};
}

TraceComparison compare_traces(const Trace& a, const Trace& b, std::vector<SpanDelta>& matched) {
  TraceComparison c;
  // No report of a comparison shows the step functions: at ten million spans each is hundreds of MB.
  c.a = compute_metrics(a, ConcurrencySteps::drop);
  c.b = compute_metrics(b, ConcurrencySteps::drop);
  if (c.b.makespan_ns > 0)
    c.makespan_rel_error = static_cast<double>(c.a.makespan_ns - c.b.makespan_ns) / static_cast<double>(c.b.makespan_ns);
  else
    c.makespan_rel_error = c.a.makespan_ns == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  c.overlap_error = c.a.copy_compute_overlap - c.b.copy_compute_overlap;
  c.workload_hash_mismatch =
      !a.meta.workload_hash.empty() && !b.meta.workload_hash.empty() && a.meta.workload_hash != b.meta.workload_hash;

  // Spans keyed by (op id, engine); repeated keys pair up in start order (k-th with k-th). Each trace's
  // device spans are sorted by key, then start, then trace order, and the two lists walked together. The
  // key order is any order both lists share: by a 32-bit hash of the op id first (a radix sort, linear),
  // then op id, engine, start and trace order within a run of equal hashes (nearly always one op's
  // spans). Sorting by the id's text compared strings along pointers, n log n times: at ten million spans
  // that cost more than reading both traces.
  struct Keyed {
    std::uint32_t hash;
    std::uint32_t span;
  };
  const auto id_hash = [](const Span& s) {
    return static_cast<std::uint32_t>(std::hash<std::string_view>{}(s.op_id) >> 32);
  };
  const auto by_key = [&](const Trace& t) {
    std::vector<Keyed> v;
    v.reserve(t.spans.size());
    for (std::size_t i = 0; i < t.spans.size(); ++i)
      if (!t.spans[i].host_call) v.push_back(Keyed{id_hash(t.spans[i]), static_cast<std::uint32_t>(i)});
    intervals::sort_by_time(v, [](const Keyed& k) { return static_cast<Nanos>(k.hash); });
    for (std::size_t i = 0; i < v.size();) {
      std::size_t end = i + 1;
      while (end < v.size() && v[end].hash == v[i].hash) ++end;
      if (end - i > 1)
        std::sort(v.begin() + static_cast<std::ptrdiff_t>(i), v.begin() + static_cast<std::ptrdiff_t>(end),
                  [&](const Keyed& x, const Keyed& y) {
                    const Span& sx = t.spans[x.span];
                    const Span& sy = t.spans[y.span];
                    if (const int order = sx.op_id.compare(sy.op_id); order != 0) return order < 0;
                    return std::tie(sx.engine, sx.start_ns, x.span) < std::tie(sy.engine, sy.start_ns, y.span);
                  });
      i = end;
    }
    return v;
  };
  const std::vector<Keyed> in_a = by_key(a), in_b = by_key(b);
  // The key order of the sort: hash, then op id, then engine.
  const auto key_less = [](const Keyed& kx, const Span& x, const Keyed& ky, const Span& y) {
    if (kx.hash != ky.hash) return kx.hash < ky.hash;
    const int order = x.op_id.compare(y.op_id);
    return order < 0 || (order == 0 && x.engine < y.engine);
  };
  const auto less_ab = [&](std::size_t i, std::size_t j) {
    return key_less(in_a[i], a.spans[in_a[i].span], in_b[j], b.spans[in_b[j].span]);
  };
  const auto less_ba = [&](std::size_t j, std::size_t i) {
    return key_less(in_b[j], b.spans[in_b[j].span], in_a[i], a.spans[in_a[i].span]);
  };
  // [i, end) of the spans sharing in[i]'s key.
  const auto group_end = [&](const Trace& t, const std::vector<Keyed>& in, std::size_t i) {
    std::size_t end = i + 1;
    while (end < in.size() && !key_less(in[i], t.spans[in[i].span], in[end], t.spans[in[end].span])) ++end;
    return end;
  };
  // The walk reads the spans in key order, at random in each trace: the spans a few keys ahead start
  // loading while the current ones are compared (at ten million spans each read was a cache miss). A
  // matched pair's times are taken then, from the spans the comparison just read.
  matched.clear();
  matched.reserve(std::min(in_a.size(), in_b.size()));
  constexpr std::size_t kAhead = 16;
  for (std::size_t i = 0, j = 0; i < in_a.size() || j < in_b.size();) {
    if (i + kAhead < in_a.size()) __builtin_prefetch(&a.spans[in_a[i + kAhead].span]);
    if (j + kAhead < in_b.size()) __builtin_prefetch(&b.spans[in_b[j + kAhead].span]);
    const bool take_a = j == in_b.size() || (i < in_a.size() && !less_ba(j, i));
    const bool take_b = i == in_a.size() || (j < in_b.size() && !less_ab(i, j));
    const std::size_t a_end = take_a ? group_end(a, in_a, i) : i, b_end = take_b ? group_end(b, in_b, j) : j;
    const std::size_t both = std::min(a_end - i, b_end - j);
    for (std::size_t k = 0; k < both; ++k) {
      const Span& x = a.spans[in_a[i + k].span];
      const Span& y = b.spans[in_b[j + k].span];
      matched.push_back(SpanDelta{in_a[i + k].span, in_b[j + k].span, x.start_ns - c.a.start_ns,
                                  x.end_ns - c.a.start_ns, y.start_ns - c.b.start_ns, y.end_ns - c.b.start_ns});
    }
    for (std::size_t k = i + both; k < a_end; ++k) c.only_in_a.push_back(a.spans[in_a[k].span].op_id);
    for (std::size_t k = j + both; k < b_end; ++k) c.only_in_b.push_back(b.spans[in_b[k].span].op_id);
    i = a_end;
    j = b_end;
  }
  for (auto* ids : {&c.only_in_a, &c.only_in_b}) {
    std::sort(ids->begin(), ids->end());
    ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  }
  // By (a_start, op id, engine): a stable radix sort on the start, then each run of equal starts by op id
  // and engine.
  sort_by_key(matched, [](const SpanDelta& d) { return d.a_start; });
  for (std::size_t i = 0; i < matched.size();) {
    std::size_t end = i + 1;
    while (end < matched.size() && matched[end].a_start == matched[i].a_start) ++end;
    if (end - i > 1)
      std::stable_sort(matched.begin() + static_cast<std::ptrdiff_t>(i),
                       matched.begin() + static_cast<std::ptrdiff_t>(end), [&](const SpanDelta& x, const SpanDelta& y) {
                         const Span& sx = a.spans[x.a];
                         const Span& sy = a.spans[y.a];
                         return std::tie(sx.op_id, sx.engine) < std::tie(sy.op_id, sy.engine);
                       });
    i = end;
  }
  if (!matched.empty()) {
    double start_sum = 0, duration_sum = 0;
    for (const SpanDelta& d : matched) {
      start_sum += static_cast<double>(std::abs(d.start_error()));
      duration_sum += static_cast<double>(std::abs(d.duration_error()));
    }
    c.mean_abs_start_error_ns = start_sum / static_cast<double>(matched.size());
    c.mean_abs_duration_error_ns = duration_sum / static_cast<double>(matched.size());
  }
  return c;
}

}  // namespace streamlab::model
