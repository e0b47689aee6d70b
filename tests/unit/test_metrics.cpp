// Trace metrics on small traces whose numbers are worked out by hand in the comments (docs/metrics.md
// has the definitions).
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "streamlab/model/metrics.hpp"

namespace streamlab::model {
namespace {

// The texts of the hand-made spans, kept for the whole test run.
Text text(std::string_view s) {
  static StringTable table;
  return table.intern(s);
}

Span span(std::string_view id, OpKind kind, Engine engine, std::uint32_t stream, Nanos start, Nanos end) {
  Span s;
  s.op_id = text(id);
  s.name = s.op_id;
  s.kind = kind;
  s.engine = engine;
  s.stream = stream;
  s.start_ns = start;
  s.end_ns = end;
  return s;
}

using Steps = std::vector<std::pair<Nanos, std::uint32_t>>;

/// Two-stream copy/compute pipeline:
///   stream 1: a h2d [0,100)  b kernel [100,300)  e d2h [300,350)
///   stream 2: c h2d [150,250)  d kernel [250,400)
Trace pipeline() {
  Trace t;
  t.meta.workload_hash = "abc";
  t.spans = {span("a", OpKind::h2d, Engine::copy_h2d, 1, 0, 100), span("b", OpKind::kernel, Engine::sm, 1, 100, 300),
             span("c", OpKind::h2d, Engine::copy_h2d, 2, 150, 250), span("d", OpKind::kernel, Engine::sm, 2, 250, 400),
             span("e", OpKind::d2h, Engine::copy_d2h, 1, 300, 350)};
  return t;
}

TEST(Metrics, CopyComputePipeline) {
  const TraceMetrics m = compute_metrics(pipeline());
  EXPECT_EQ(m.start_ns, 0);
  EXPECT_EQ(m.makespan_ns, 400);
  // Stream 1 busy 0..350 = 350 of 400; stream 2 busy 150..400 = 250.
  EXPECT_DOUBLE_EQ(m.stream_busy.at(1), 0.875);
  EXPECT_DOUBLE_EQ(m.stream_busy.at(2), 0.625);
  // h2d 100 + 100 = 200; sm [100,300) u [250,400) = 300; d2h 50.
  EXPECT_DOUBLE_EQ(m.engine_busy.at(Engine::copy_h2d), 0.5);
  EXPECT_DOUBLE_EQ(m.engine_busy.at(Engine::sm), 0.75);
  EXPECT_DOUBLE_EQ(m.engine_busy.at(Engine::copy_d2h), 0.125);
  EXPECT_EQ(m.engine_busy.count(Engine::host), 0u);
  // Copies [0,100) [150,250) [300,350) = 250; kernels [100,400) = 300; both: [150,250) + [300,350) = 150.
  // 150 / min(250, 300) = 0.6.
  EXPECT_DOUBLE_EQ(m.copy_compute_overlap, 0.6);
  // Running device spans: 1 on [0,150), 2 on [150,350) (c->d and b->e hand over at 250 and 300), 1 on
  // [350,400). Mean = (150 + 400 + 50) / 400 = 1.5.
  EXPECT_EQ(m.concurrency, (Steps{{0, 1}, {150, 2}, {350, 1}, {400, 0}}));
  EXPECT_DOUBLE_EQ(m.mean_concurrency, 1.5);
  EXPECT_EQ(m.max_concurrency, 2u);
}

TEST(Metrics, DroppedConcurrencyStepsKeepEveryOtherMetric) {
  const TraceMetrics kept = compute_metrics(pipeline());
  TraceMetrics dropped = compute_metrics(pipeline(), ConcurrencySteps::drop);
  EXPECT_TRUE(dropped.concurrency.empty());
  EXPECT_DOUBLE_EQ(dropped.mean_concurrency, 1.5);
  EXPECT_EQ(dropped.max_concurrency, 2u);
  dropped.concurrency = kept.concurrency;
  EXPECT_EQ(std::tie(dropped.start_ns, dropped.makespan_ns, dropped.stream_busy, dropped.engine_busy,
                     dropped.copy_compute_overlap, dropped.concurrency, dropped.mean_concurrency, dropped.max_concurrency),
            std::tie(kept.start_ns, kept.makespan_ns, kept.stream_busy, kept.engine_busy, kept.copy_compute_overlap,
                     kept.concurrency, kept.mean_concurrency, kept.max_concurrency));
  // A comparison reports mean and max only.
  const TraceComparison c = compare_traces(pipeline(), pipeline());
  EXPECT_TRUE(c.a.concurrency.empty());
  EXPECT_TRUE(c.b.concurrency.empty());
  EXPECT_EQ(c.a.max_concurrency, 2u);
}

TEST(Metrics, HostSpansOffsetClockAndZeroLengthSpans) {
  // host h [1000,1100) on stream 0; kernels k1 [1050,1250) s1, k2 [1050,1150) s2; z [1200,1200) s3.
  Trace t;
  t.spans = {span("h", OpKind::host_func, Engine::host, 0, 1000, 1100), span("k1", OpKind::kernel, Engine::sm, 1, 1050, 1250),
             span("k2", OpKind::kernel, Engine::sm, 2, 1050, 1150), span("z", OpKind::kernel, Engine::sm, 3, 1200, 1200)};
  const TraceMetrics m = compute_metrics(t);
  EXPECT_EQ(m.start_ns, 1000);
  EXPECT_EQ(m.makespan_ns, 250);
  EXPECT_DOUBLE_EQ(m.stream_busy.at(0), 0.4);
  EXPECT_DOUBLE_EQ(m.stream_busy.at(1), 0.8);
  EXPECT_DOUBLE_EQ(m.stream_busy.at(2), 0.4);
  EXPECT_DOUBLE_EQ(m.stream_busy.at(3), 0.0);
  EXPECT_DOUBLE_EQ(m.engine_busy.at(Engine::host), 0.4);
  EXPECT_DOUBLE_EQ(m.engine_busy.at(Engine::sm), 0.8);
  EXPECT_DOUBLE_EQ(m.copy_compute_overlap, 0.0) << "no copies: nothing to overlap";
  // Host spans do not count toward device concurrency; z has no length. 0 until 1050, 2 until 1150,
  // 1 until 1250. Mean = (200 + 100) / 250 = 1.2.
  EXPECT_EQ(m.concurrency, (Steps{{1000, 0}, {1050, 2}, {1150, 1}, {1250, 0}}));
  EXPECT_DOUBLE_EQ(m.mean_concurrency, 1.2);
  EXPECT_EQ(m.max_concurrency, 2u);
}

TEST(Metrics, FullyHiddenCopy) {
  // Kernel [0,100) and a d2h [10,20) on the same stream id 5 (a trace may say so; metrics do not judge).
  Trace t;
  t.spans = {span("k", OpKind::kernel, Engine::sm, 5, 0, 100), span("c", OpKind::d2h, Engine::copy_d2h, 5, 10, 20)};
  const TraceMetrics m = compute_metrics(t);
  EXPECT_DOUBLE_EQ(m.copy_compute_overlap, 1.0);
  EXPECT_DOUBLE_EQ(m.stream_busy.at(5), 1.0);
  EXPECT_DOUBLE_EQ(m.engine_busy.at(Engine::copy_d2h), 0.1);
  EXPECT_EQ(m.concurrency, (Steps{{0, 1}, {10, 2}, {20, 1}, {100, 0}}));
  EXPECT_DOUBLE_EQ(m.mean_concurrency, 1.1);
}

TEST(Metrics, EmptyTrace) {
  const TraceMetrics m = compute_metrics(Trace{});
  EXPECT_EQ(m.makespan_ns, 0);
  EXPECT_TRUE(m.stream_busy.empty());
  EXPECT_TRUE(m.concurrency.empty());
  EXPECT_EQ(m.max_concurrency, 0u);
}

// Large traces take the radix-sort path of the metrics (4096 intervals and more): every metric must
// equal a direct computation with std::sort, on unsorted spans with negative times, equal starts and
// zero-length spans.
// compute_metrics against the definitions computed directly, on 20000 random spans over `streams`
// streams (a few, or more than compute_metrics merges by looking at each list's head): overlapping
// spans in any order, or each stream's spans one after another (`serial`: its starts and ends sorted),
// zero-length spans, host spans.
void expect_metrics_match_a_direct_computation(std::uint32_t streams, bool serial) {
  SCOPED_TRACE(std::to_string(streams) + (serial ? " serial streams" : " streams"));
  std::uint64_t state = 12345 + streams;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  Trace t;
  constexpr std::array engines{Engine::sm, Engine::copy_h2d, Engine::copy_d2h, Engine::host};
  std::vector<Nanos> clock(streams, -1'000'000);
  for (int i = 0; i < 20000; ++i) {
    const auto stream = static_cast<std::uint32_t>(next() % streams);
    const Nanos start = serial ? clock[stream] + static_cast<Nanos>(next() % 3'000)
                               : static_cast<Nanos>(next() % 5'000'000) - 1'000'000;
    const Nanos dur = (i % 97 == 0) ? 0 : static_cast<Nanos>(next() % 20'000);
    clock[stream] = start + dur;
    const Engine e = engines[next() % engines.size()];
    t.spans.push_back(span("op" + std::to_string(i), e == Engine::sm ? OpKind::kernel : OpKind::h2d, e, stream, start,
                           start + dur));
  }
  const TraceMetrics m = compute_metrics(t);

  Nanos first = t.spans[0].start_ns, last = t.spans[0].end_ns;
  for (const auto& s : t.spans) first = std::min(first, s.start_ns), last = std::max(last, s.end_ns);
  ASSERT_EQ(m.makespan_ns, last - first);
  const auto union_length = [](std::vector<std::pair<Nanos, Nanos>> v) {
    std::sort(v.begin(), v.end());
    Nanos sum = 0, lo = 0, hi = 0;
    bool open = false;
    for (const auto& [s, e] : v) {
      if (e <= s) continue;
      if (open && s <= hi) {
        hi = std::max(hi, e);
      } else {
        if (open) sum += hi - lo;
        lo = s, hi = e, open = true;
      }
    }
    return open ? sum + hi - lo : sum;
  };
  for (const Engine e : engines) {
    std::vector<std::pair<Nanos, Nanos>> v;
    for (const auto& s : t.spans)
      if (s.engine == e) v.emplace_back(s.start_ns, s.end_ns);
    EXPECT_DOUBLE_EQ(m.engine_busy.at(e), static_cast<double>(union_length(v)) / static_cast<double>(m.makespan_ns));
  }
  for (std::uint32_t stream = 0; stream < streams; ++stream) {
    std::vector<std::pair<Nanos, Nanos>> v;
    for (const auto& s : t.spans)
      if (s.stream == stream) v.emplace_back(s.start_ns, s.end_ns);
    EXPECT_DOUBLE_EQ(m.stream_busy.at(stream), static_cast<double>(union_length(v)) / static_cast<double>(m.makespan_ns));
  }
  // Concurrency of device spans: +1 at each start, -1 at each end, ends first at one instant.
  std::vector<std::pair<Nanos, int>> events;
  for (const auto& s : t.spans)
    if (s.engine != Engine::host && s.end_ns > s.start_ns) events.emplace_back(s.start_ns, 1), events.emplace_back(s.end_ns, -1);
  std::sort(events.begin(), events.end());
  int running = 0, most = 0;
  for (std::size_t i = 0; i < events.size();) {
    const Nanos at = events[i].first;
    for (; i < events.size() && events[i].first == at; ++i) running += events[i].second;
    most = std::max(most, running);
  }
  EXPECT_EQ(m.max_concurrency, static_cast<std::uint32_t>(most));
  Steps expected{{first, 0}};
  running = 0;
  for (std::size_t i = 0; i < events.size();) {
    const Nanos at = events[i].first;
    for (; i < events.size() && events[i].first == at; ++i) running += events[i].second;
    if (at == expected.back().first)  // the first start: the step function begins at it
      expected.back().second = static_cast<std::uint32_t>(running);
    else if (static_cast<std::uint32_t>(running) != expected.back().second)
      expected.emplace_back(at, running);
  }
  EXPECT_EQ(m.concurrency, expected);
}

TEST(Metrics, LargeTracesMatchADirectComputation) {
  for (const std::uint32_t streams : {1u, 7u, 40u})
    for (const bool serial : {false, true}) expect_metrics_match_a_direct_computation(streams, serial);
}

TEST(Compare, PredictedAgainstMeasured) {
  // b = a measured on a clock starting at 1000, kernel b 50 ns longer (so d starts... at the same
  // relative time: it waited on c), e missing, an extra op x on the SMs.
  const Trace a = pipeline();
  Trace b;
  b.meta.workload_hash = "abc";
  b.spans = {span("a", OpKind::h2d, Engine::copy_h2d, 1, 1000, 1100), span("b", OpKind::kernel, Engine::sm, 1, 1100, 1350),
             span("c", OpKind::h2d, Engine::copy_h2d, 2, 1150, 1250), span("d", OpKind::kernel, Engine::sm, 2, 1250, 1400),
             span("x", OpKind::kernel, Engine::sm, 3, 1400, 1450)};
  const TraceComparison c = compare_traces(a, b);
  EXPECT_EQ(c.b.makespan_ns, 450);
  EXPECT_DOUBLE_EQ(c.makespan_rel_error, (400.0 - 450.0) / 450.0);
  // b: copies [1000,1100) [1150,1250) = 200; kernels [1100,1450) = 350; both [1150,1250) = 100 -> 0.5.
  EXPECT_DOUBLE_EQ(c.b.copy_compute_overlap, 0.5);
  EXPECT_DOUBLE_EQ(c.overlap_error, 0.1);
  ASSERT_EQ(c.ops.size(), 4u);  // a, b, c, d, in a's start order
  EXPECT_EQ(c.ops[1].op_id, "b");
  EXPECT_EQ(c.ops[1].b_start, 100);
  EXPECT_EQ(c.ops[1].b_end, 350);
  EXPECT_EQ(c.ops[1].start_error(), 0);
  EXPECT_EQ(c.ops[1].end_error(), -50);
  EXPECT_EQ(c.ops[1].duration_error(), -50);
  EXPECT_DOUBLE_EQ(c.mean_abs_start_error_ns, 0.0);
  EXPECT_DOUBLE_EQ(c.mean_abs_duration_error_ns, 12.5);
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"e"});
  EXPECT_EQ(c.only_in_b, std::vector<std::string>{"x"});
  EXPECT_FALSE(c.workload_hash_mismatch);
}

TEST(Compare, MatchesByOpIdAndEngineAndFlagsHashMismatch) {
  Trace a, b;
  a.meta.workload_hash = "abc";
  b.meta.workload_hash = "abd";
  a.spans = {span("k", OpKind::kernel, Engine::sm, 1, 0, 10), span("m", OpKind::kernel, Engine::sm, 1, 10, 30)};
  // m moved to a copy engine in b: same id, different engine, so no match; k starts 5 later.
  b.spans = {span("k", OpKind::kernel, Engine::sm, 1, 100, 110), span("m", OpKind::d2d, Engine::copy_d2d, 1, 95, 100)};
  const TraceComparison c = compare_traces(a, b);
  EXPECT_TRUE(c.workload_hash_mismatch);
  ASSERT_EQ(c.ops.size(), 1u);
  EXPECT_EQ(c.ops[0].start_error(), -5);  // a: 0 - 0; b: 100 - 95
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"m"});
  EXPECT_EQ(c.only_in_b, std::vector<std::string>{"m"});
  b.meta.workload_hash.clear();
  EXPECT_FALSE(compare_traces(a, b).workload_hash_mismatch) << "unknown hash is not a mismatch";
}

TEST(Compare, ZeroLengthReference) {
  Trace a, b;
  a.spans = {span("k", OpKind::kernel, Engine::sm, 1, 0, 10)};
  b.spans = {span("k", OpKind::kernel, Engine::sm, 1, 0, 0)};
  EXPECT_TRUE(std::isinf(compare_traces(a, b).makespan_rel_error));
  EXPECT_DOUBLE_EQ(compare_traces(b, b).makespan_rel_error, 0.0);
}

}  // namespace
}  // namespace streamlab::model

namespace streamlab::model {
namespace {

// One op id repeated by many spans in both traces: they pair in start order (the trace order breaking
// ties), and sorting the large group of one hash stays n log n.
TEST(Compare, ALargeGroupOfOneIdPairsInStartOrder) {
  constexpr int kSpans = 60'000;
  Trace a, b;
  for (int i = 0; i < kSpans; ++i) {
    a.spans.push_back(span("again", OpKind::kernel, Engine::sm, 1, (kSpans - i) * 10, (kSpans - i) * 10 + 5));
    b.spans.push_back(span("again", OpKind::kernel, Engine::sm, 1, i * 10, i * 10 + 7));
  }
  a.spans.push_back(span("once", OpKind::kernel, Engine::sm, 2, 0, 1));
  std::vector<SpanDelta> matched;
  const TraceComparison c = compare_traces(a, b, matched);
  ASSERT_EQ(matched.size(), static_cast<std::size_t>(kSpans));
  for (std::size_t k = 0; k < matched.size(); ++k) {
    EXPECT_EQ(a.spans[matched[k].a].start_ns - 10, b.spans[matched[k].b].start_ns) << k;
    if (HasFailure()) break;
  }
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"once"});
  EXPECT_TRUE(c.only_in_b.empty());
}

// The pairing rule stated plainly (a map of (op id, engine) -> spans in start order, k-th with k-th),
// against compare_traces (matching with `hash`, std::hash when null): the same matched ops in the same
// order, the same unmatched ids; and the same without OpDeltas, in TraceComparison::ops' order or in
// trace a's (ops_order puts them back).
void expect_pairing_follows_the_rule(const Trace& a, const Trace& b, std::uint64_t (*hash)(std::string_view)) {
  const CompareOptions options{.op_id_hash = hash};
  std::vector<SpanDelta> sorted;
  const TraceComparison light = compare_traces(a, b, sorted, options);
  TraceComparison c = light;
  for (const SpanDelta& d : sorted) c.ops.push_back(op_delta(a, d));

  using Key = std::pair<std::string, Engine>;
  const auto index = [](const Trace& t) {
    std::map<Key, std::vector<const Span*>> by_key;
    for (const Span& s : t.spans)
      if (!s.host_call) by_key[{s.op_id, s.engine}].push_back(&s);
    for (auto& [key, v] : by_key)
      std::stable_sort(v.begin(), v.end(), [](const Span* x, const Span* y) { return x->start_ns < y->start_ns; });
    return by_key;
  };
  const auto in_a = index(a), in_b = index(b);
  std::vector<OpDelta> ops;
  std::vector<std::string> only_a, only_b;
  for (const auto& [key, va] : in_a) {
    const auto it = in_b.find(key);
    const std::size_t both = it == in_b.end() ? 0 : std::min(va.size(), it->second.size());
    for (std::size_t k = 0; k < both; ++k)
      ops.push_back(OpDelta{va[k]->op_id, va[k]->name, va[k]->engine, va[k]->start_ns - c.a.start_ns,
                            va[k]->end_ns - c.a.start_ns, it->second[k]->start_ns - c.b.start_ns,
                            it->second[k]->end_ns - c.b.start_ns});
    for (std::size_t k = both; k < va.size(); ++k) only_a.push_back(key.first);
  }
  for (const auto& [key, vb] : in_b) {
    const auto it = in_a.find(key);
    for (std::size_t k = it == in_a.end() ? 0 : std::min(vb.size(), it->second.size()); k < vb.size(); ++k)
      only_b.push_back(key.first);
  }
  for (auto* ids : {&only_a, &only_b}) {
    std::sort(ids->begin(), ids->end());
    ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  }
  std::sort(ops.begin(), ops.end(), [](const OpDelta& x, const OpDelta& y) {
    return std::tie(x.a_start, x.op_id, x.engine) < std::tie(y.a_start, y.op_id, y.engine);
  });
  ASSERT_EQ(c.ops.size(), ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k) {
    EXPECT_EQ(std::tie(c.ops[k].op_id, c.ops[k].engine, c.ops[k].a_start, c.ops[k].a_end),
              std::tie(ops[k].op_id, ops[k].engine, ops[k].a_start, ops[k].a_end));
    // Equal (a_start, op id, engine) may sit in either order; their b sides as a set are checked below.
  }
  std::multiset<std::tuple<std::string, Engine, Nanos, Nanos, Nanos>> got, want;
  for (const auto& d : c.ops) got.emplace(d.op_id, d.engine, d.a_start, d.b_start, d.b_end);
  for (const auto& d : ops) want.emplace(d.op_id, d.engine, d.a_start, d.b_start, d.b_end);
  EXPECT_EQ(got, want);
  EXPECT_EQ(c.only_in_a, only_a);
  EXPECT_EQ(c.only_in_b, only_b);
  // The means, of the rule's pairs (the test's times are small: 64-bit sums are exact).
  std::int64_t start_sum = 0, duration_sum = 0;
  for (const auto& d : ops) {
    start_sum += std::abs(d.start_error());
    duration_sum += std::abs(d.duration_error());
  }
  if (!ops.empty()) {
    EXPECT_EQ(light.mean_abs_start_error_ns, static_cast<double>(start_sum) / static_cast<double>(ops.size()));
    EXPECT_EQ(light.mean_abs_duration_error_ns, static_cast<double>(duration_sum) / static_cast<double>(ops.size()));
  }

  // With OpDeltas: the same ops in the same order.
  const TraceComparison full = compare_traces(a, b);
  ASSERT_EQ(full.ops.size(), sorted.size());
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    const OpDelta d = op_delta(a, sorted[k]);
    EXPECT_EQ(std::tie(d.op_id, d.name, d.engine, d.a_start, d.a_end, d.b_start, d.b_end),
              std::tie(full.ops[k].op_id, full.ops[k].name, full.ops[k].engine, full.ops[k].a_start, full.ops[k].a_end,
                       full.ops[k].b_start, full.ops[k].b_end));
    EXPECT_EQ(b.spans[sorted[k].b].op_id, d.op_id);
    EXPECT_EQ(b.spans[sorted[k].b].engine, d.engine);
    EXPECT_EQ(sorted[k].start_error(), full.ops[k].start_error());
    EXPECT_EQ(sorted[k].duration_error(), full.ops[k].duration_error());
  }
  EXPECT_EQ(full.mean_abs_start_error_ns, light.mean_abs_start_error_ns);
  EXPECT_EQ(full.mean_abs_duration_error_ns, light.mean_abs_duration_error_ns);
  EXPECT_EQ(full.only_in_a, light.only_in_a);
  EXPECT_EQ(full.only_in_b, light.only_in_b);
  EXPECT_EQ(full.a.makespan_ns, light.a.makespan_ns);

  // Left in trace a's order: the same ops, which ops_order puts in the order above; the same means.
  std::vector<SpanDelta> in_a_order;
  CompareOptions unsorted = options;
  unsorted.sort_matched = false;
  const TraceComparison loose = compare_traces(a, b, in_a_order, unsorted);
  ASSERT_EQ(in_a_order.size(), sorted.size());
  EXPECT_TRUE(std::is_sorted(in_a_order.begin(), in_a_order.end(),
                             [](const SpanDelta& x, const SpanDelta& y) { return x.a < y.a; }));
  const std::vector<std::uint32_t> order = ops_order(a, in_a_order);
  ASSERT_EQ(order.size(), sorted.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const SpanDelta& x = in_a_order[order[k]];
    EXPECT_EQ(std::tie(x.a, x.b, x.a_start, x.a_end, x.b_start, x.b_end),
              std::tie(sorted[k].a, sorted[k].b, sorted[k].a_start, sorted[k].a_end, sorted[k].b_start, sorted[k].b_end))
        << k;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(loose.mean_abs_start_error_ns, light.mean_abs_start_error_ns);
  EXPECT_EQ(loose.mean_abs_duration_error_ns, light.mean_abs_duration_error_ns);
  EXPECT_EQ(loose.only_in_a, light.only_in_a);
  EXPECT_EQ(loose.only_in_b, light.only_in_b);
}

// Hashes a test passes to compare_traces: every id collides with every other (the whole hash, or its
// upper half only, which sorts first); the upper half alone.
std::uint64_t one_hash(std::string_view) { return 42; }
std::uint64_t one_upper_half(std::string_view id) { return std::uint64_t{7} << 32 | (std::hash<std::string_view>{}(id) & 0xffffffffu); }
std::uint64_t upper_half_only(std::string_view id) { return std::hash<std::string_view>{}(id) >> 32 << 32; }
// Only "x" and "z" collide: a trace with one of them has no two ids of one hash.
std::uint64_t x_and_z_collide(std::string_view id) { return std::hash<std::string_view>{}(id == "z" ? "x" : id); }

// Random traces with repeated keys, equal starts, keys on one side only and host calls; with
// `same_order`, b lists the device spans of a in a's order (host calls elsewhere), with other times, so
// repeated keys start in another order in b (the in-order pairing has to re-pair them).
void expect_random_pairs_follow_the_rule(bool same_order, std::uint64_t (*hash)(std::string_view)) {
  std::uint64_t state = 99;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Trace a, b;
    for (Trace* t : {&a, &b}) {
      if (same_order && t == &b) break;
      for (int i = 0; i < 300; ++i) {
        const Engine e = next() % 3 == 0 ? Engine::copy_h2d : Engine::sm;
        const Nanos start = static_cast<Nanos>(next() % 50) * 10;
        Span s = span("op" + std::to_string(next() % 120), OpKind::kernel, e, 1, start, start + 5);
        s.host_call = next() % 17 == 0;
        if (s.host_call) s.engine = Engine::host;
        t->spans.push_back(s);
      }
    }
    if (same_order) {
      for (const Span& x : a.spans) {
        if (x.host_call) continue;
        if (next() % 11 == 0) b.spans.push_back(span("call", OpKind::kernel, Engine::host, 1, 0, 1)), b.spans.back().host_call = true;
        Span y = x;
        y.start_ns = static_cast<Nanos>(next() % 50) * 10;
        y.end_ns = y.start_ns + static_cast<Nanos>(next() % 9);
        b.spans.push_back(y);
      }
    }
    expect_pairing_follows_the_rule(a, b, hash);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(Compare, PairingMatchesTheRuleOnRandomTraces) { expect_random_pairs_follow_the_rule(false, nullptr); }

// Traces that list their device spans in one order pair k-th with k-th without sorting, except a key
// they repeat in another start order, paired by the rule.
TEST(Compare, TracesInOneOrderPairByTheRule) { expect_random_pairs_follow_the_rule(true, nullptr); }

// Different ids with one hash: told apart by their text, whichever way the traces are matched (in
// order, or sorted by hash and then, the check finding two ids of one hash, by id).
TEST(Compare, IdsOfOneHashAreToldApart) {
  for (const bool same_order : {false, true}) {
    SCOPED_TRACE(same_order ? "in one order" : "in any order");
    expect_random_pairs_follow_the_rule(same_order, one_hash);
    expect_random_pairs_follow_the_rule(same_order, one_upper_half);
    expect_random_pairs_follow_the_rule(same_order, upper_half_only);
  }
  // Ids of one hash in one trace (x, y under one_hash) or only across the two (x in a, z in b under
  // x_and_z_collide, seen when the pair is checked): never matched with each other.
  Trace a, b;
  a.spans = {span("x", OpKind::kernel, Engine::sm, 1, 0, 10), span("y", OpKind::kernel, Engine::sm, 1, 10, 20)};
  b.spans = {span("z", OpKind::kernel, Engine::sm, 1, 0, 12), span("y", OpKind::kernel, Engine::sm, 1, 12, 30)};
  for (const auto hash : {one_hash, x_and_z_collide}) {
    std::vector<SpanDelta> matched;
    const TraceComparison c = compare_traces(a, b, matched, {.op_id_hash = hash});
    ASSERT_EQ(matched.size(), 1u);
    EXPECT_EQ(a.spans[matched[0].a].op_id, "y");
    EXPECT_EQ(b.spans[matched[0].b].op_id, "y");
    EXPECT_EQ(c.only_in_a, std::vector<std::string>{"x"});
    EXPECT_EQ(c.only_in_b, std::vector<std::string>{"z"});
  }
}

// worst_matched against its definition: worst_positions of every matched op visited in ops_order. The
// errors come from few values (ties everywhere, so the one-pass answer for distinct errors rarely
// applies and the buckets' cuts decide which ops are visited), the starts from few values too (ties in
// the order, broken by op id and engine), with errors flat, growing or shrinking over time, or flat over
// 2000 values (buckets whose kept errors hold every op above the cut, and buckets that need a second
// pass), and starts over a narrow or an extreme range; a few cases have distinct errors.
TEST(Compare, WorstMatchedAreWorstPositionsInOpsOrder) {
  std::uint64_t state = 7;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  int cases_with_ties = 0;
  for (int round = 0; round < 48; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const int trend = round % 4;  // 0 flat, 1 growing with the start, 2 shrinking, 3 flat over a wider range
    const std::size_t n = round % 4 == 0 ? 5 + next() % 20 : trend == 3 ? 30000 + next() % 10000 : 3000 + next() % 20000;
    const bool distinct = round % 8 == 7;
    const bool extreme = round % 5 == 4;
    Trace a;
    std::vector<SpanDelta> matched;
    for (std::size_t k = 0; k < n; ++k) {
      const Nanos start = extreme ? static_cast<Nanos>(next() % 4 == 0 ? -(std::int64_t{1} << 61) : std::int64_t{1} << 61) +
                                        static_cast<Nanos>(next() % 50)
                                  : static_cast<Nanos>(next() % (n / 2 + 1)) * 100;
      a.spans.push_back(span("op" + std::to_string(next() % 50), OpKind::kernel, next() % 2 ? Engine::sm : Engine::copy_h2d,
                             1, start, start + 1));
      const Nanos slope = trend == 0 ? 0 : extreme ? 0 : (trend == 1 ? start : static_cast<Nanos>(n) * 100 - start) / 1000;
      const Nanos error = distinct     ? static_cast<Nanos>(k) * 7919 % static_cast<Nanos>(n) * 3 + 1
                          : trend == 3 ? static_cast<Nanos>(next() % 2000)
                                       : slope + static_cast<Nanos>(next() % 6);
      const Nanos sign = next() % 2 ? 1 : -1;
      // The error lands on the start or on the end, either sign.
      if (next() % 2)
        matched.push_back(SpanDelta{static_cast<std::uint32_t>(k), 0, start, start + 10, start - sign * error, start + 10});
      else
        matched.push_back(SpanDelta{static_cast<std::uint32_t>(k), 0, start, start + 10, start, start + 10 - sign * error});
    }
    // Matched ops come in any order: shuffled.
    for (std::size_t k = matched.size(); k > 1; --k) std::swap(matched[k - 1], matched[next() % k]);
    const std::vector<std::uint32_t> order = ops_order(a, matched);
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{10}, n + 3}) {
      SCOPED_TRACE("count " + std::to_string(count));
      std::vector<std::uint32_t> want;
      for (const std::size_t i :
           worst_positions(order.size(), [&](std::size_t i) { return max_abs_error(matched[order[i]]); }, count))
        want.push_back(order[i]);
      EXPECT_EQ(worst_matched(a, matched, count), want);
      std::vector<Nanos> errors;
      for (const std::uint32_t k : want) errors.push_back(max_abs_error(matched[k]));
      cases_with_ties += std::adjacent_find(errors.begin(), errors.end()) != errors.end() ? 1 : 0;
    }
  }
  EXPECT_GT(cases_with_ties, 40) << "the cases should rank equal errors";
}

// worst_positions: the largest first, of a sequence with equal errors.
TEST(Compare, WorstPositionsTakeTheLargestFirst) {
  const std::vector<Nanos> errors{5, 1, 9, 9, 3, 7, 9, 2};
  const auto at = [&](std::size_t i) { return errors[i]; };
  const std::vector<std::size_t> three = worst_positions(errors.size(), at, 3);
  ASSERT_EQ(three.size(), 3u);
  for (const std::size_t i : three) EXPECT_EQ(errors[i], 9);
  EXPECT_EQ(worst_positions(errors.size(), at, 5).size(), 5u);
  EXPECT_EQ(errors[worst_positions(errors.size(), at, 5)[3]], 7);
  EXPECT_EQ(errors[worst_positions(errors.size(), at, 5)[4]], 5);
  EXPECT_TRUE(worst_positions(errors.size(), at, 0).empty());
  EXPECT_EQ(worst_positions(errors.size(), at, 20).size(), errors.size());
}

}  // namespace
}  // namespace streamlab::model
