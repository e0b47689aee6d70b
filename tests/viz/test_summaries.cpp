// Step functions (concurrency, busy SMs), the overlap summary and the op table.
#include <gtest/gtest.h>

#include "streamlab/model/metrics.hpp"
#include "streamlab/viz/op_table.hpp"
#include "streamlab/viz/step_function.hpp"
#include "streamlab/viz/summary.hpp"
#include "viz_test_util.hpp"

namespace streamlab::viz {
namespace {

using model::OpKind;
using test::make_span;
using test::make_trace;

TEST(StepFunction, ValueMeanAndSamples) {
  const std::vector<std::pair<model::Nanos, std::uint32_t>> changes{{10, 2}, {20, 4}, {30, 0}};
  const StepFunction f(changes);
  EXPECT_EQ(f.value_at(5), 0.0);
  EXPECT_EQ(f.value_at(10), 2.0);
  EXPECT_EQ(f.value_at(29.9), 4.0);
  EXPECT_EQ(f.value_at(30), 0.0);
  EXPECT_DOUBLE_EQ(f.mean(10, 30), 3.0);
  EXPECT_DOUBLE_EQ(f.mean(0, 40), 1.5);
  EXPECT_DOUBLE_EQ(f.mean(15, 15), 2.0);
  EXPECT_EQ(f.max_value(), 4u);
  EXPECT_EQ(f.sample(0, 40, 4), (std::vector<float>{0, 2, 4, 0}));
  EXPECT_EQ(f.sample(10, 30, 1), (std::vector<float>{3}));
}

// Hundreds of changes (the integral is kept at every 64th and summed from there): every mean and sample
// equals the one from a prefix integral kept at every change, to the bit; built point by point or from a
// list, the same function.
TEST(StepFunction, ManyChangesIntegrateAsAPrefixSumDoes) {
  std::vector<std::pair<model::Nanos, std::uint32_t>> changes;
  std::uint64_t state = 5;
  model::Nanos t = -1000;
  for (int i = 0; i < 700; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    t += 1 + static_cast<model::Nanos>((state >> 33) % 997);
    changes.emplace_back(t, static_cast<std::uint32_t>((state >> 45) % 9));
  }
  std::vector<double> prefix{0.0};  // to each change, as the function was first defined
  for (std::size_t k = 1; k < changes.size(); ++k)
    prefix.push_back(prefix.back() + static_cast<double>(changes[k - 1].second) *
                                         static_cast<double>(changes[k].first - changes[k - 1].first));
  const auto integral_to = [&](double x) {
    std::size_t k = 0;
    while (k < changes.size() && static_cast<double>(changes[k].first) <= x) ++k;
    if (k == 0) return 0.0;
    --k;
    return prefix[k] + static_cast<double>(changes[k].second) * (x - static_cast<double>(changes[k].first));
  };
  const StepFunction f(changes);
  StepFunction g;
  for (const auto& [at, v] : changes) g.append(at, v);
  const double lo = static_cast<double>(changes.front().first) - 50, hi = static_cast<double>(t) + 50;
  for (int i = 0; i < 400; ++i) {
    const double a = lo + (hi - lo) * i / 400.0, b = a + (hi - lo) * ((i * 37) % 100) / 100.0;
    const double want = b <= a ? f.value_at(a) : (integral_to(b) - integral_to(a)) / (b - a);
    EXPECT_EQ(f.mean(a, b), want) << a << " " << b;
    EXPECT_EQ(g.mean(a, b), want) << a << " " << b;
  }
  EXPECT_EQ(f.sample(lo, hi, 333), g.sample(lo, hi, 333));
  EXPECT_THROW(g.append(t, 1), std::invalid_argument);
}

TEST(StepFunction, RejectsUnorderedChanges) {
  const std::vector<std::pair<model::Nanos, std::uint32_t>> bad{{10, 1}, {10, 2}};
  EXPECT_THROW(StepFunction{bad}, std::invalid_argument);
}

TEST(StepFunction, CountsOpenIntervalsWithClosesBeforeOpens) {
  const auto c = count_open_intervals({{0, 5}, {5, 9}, {2, 7}, {3, 3}});
  const std::vector<std::pair<model::Nanos, std::uint32_t>> want{{0, 1}, {2, 2}, {7, 1}, {9, 0}};
  EXPECT_EQ(c, want);
}

model::Trace pred_trace() {
  return make_trace({make_span("up", OpKind::h2d, 1, 0, 100), make_span("k", OpKind::kernel, 2, 50, 250),
                     make_span("down", OpKind::d2h, 1, 250, 300)});
}
model::Trace meas_trace() {
  return make_trace({make_span("up", OpKind::h2d, 1, 0, 120), make_span("k", OpKind::kernel, 2, 130, 400),
                     make_span("down", OpKind::d2h, 1, 400, 460), make_span("extra", OpKind::memset, 3, 0, 10)});
}

TraceSet set_of(std::vector<model::Trace> traces) { return TraceSet(std::move(traces)); }

TEST(Summary, UsesTheModelMetricsAndComparesMakespansAgainstTheFirstTrace) {
  const TraceSet p = set_of({meas_trace(), pred_trace()});
  const OverlapSummary s = summarize(p);
  ASSERT_EQ(s.metrics.size(), 2u);
  const auto want = model::compute_metrics(p.trace(1));
  EXPECT_EQ(s.metrics[1].makespan_ns, want.makespan_ns);
  EXPECT_EQ(s.metrics[1].makespan_ns, 300);
  EXPECT_EQ(s.metrics[0].makespan_ns, 460);
  EXPECT_FALSE(s.makespan_rel_error[0].has_value());
  ASSERT_TRUE(s.makespan_rel_error[1].has_value());
  EXPECT_NEAR(*s.makespan_rel_error[1], (300.0 - 460.0) / 460.0, 1e-12);
  ASSERT_EQ(s.streams.size(), 3u);  // 1, 2 in both; 3 in the first only
  EXPECT_EQ(s.streams[2].id, 3u);
  EXPECT_TRUE(s.streams[2].busy[0].has_value());
  EXPECT_FALSE(s.streams[2].busy[1].has_value());
  // Engines: copy H2D, SMs, copy D2H in both.
  ASSERT_EQ(s.engines.size(), 3u);
  for (const auto& e : s.engines) EXPECT_TRUE(e.busy[0] && e.busy[1]);
  EXPECT_EQ(p.common_op_count(1), 3u);
  // The plotted concurrency is the metrics' step function.
  EXPECT_EQ(s.concurrency[1].value_at(60), 2.0);
  EXPECT_EQ(s.concurrency[1].value_at(150), 1.0);
}

TEST(Summary, OneTrace) {
  const TraceSet p = set_of({pred_trace()});
  const OverlapSummary s = summarize(p);
  ASSERT_EQ(s.metrics.size(), 1u);
  EXPECT_FALSE(s.makespan_rel_error[0].has_value());
  EXPECT_EQ(s.streams.size(), 2u);
}

std::vector<std::string> ids(const TraceSet& p, const std::vector<std::uint32_t>& keys) {
  std::vector<std::string> out;
  for (const auto k : keys) out.emplace_back(p.op_id_of_key(k));
  return out;
}

TEST(OpTable, ColumnsPerTraceAndErrorsAgainstTheFirst) {
  const TraceSet p = set_of({meas_trace(), pred_trace(), pred_trace()});
  const auto cols = op_columns(p.size());
  // op, kind, engine; A: start, dur; B and C: start, dur, start-A, dur-A.
  ASSERT_EQ(cols.size(), 3u + 2u + 4u + 4u);
  EXPECT_EQ(column_title(cols[5], p), "start B");
  EXPECT_EQ(column_title(cols[7], p), "start B-A");
  EXPECT_EQ(column_title(cols[8], p), "dur B-A");
}

TEST(OpTable, ValuesAreAlignedAndSortByErrorMagnitude) {
  const TraceSet p = set_of({meas_trace(), pred_trace()});
  using W = OpColumn::What;
  const std::vector<model::Nanos> none{0, 0};
  auto keys = all_op_keys(p);
  ASSERT_EQ(keys.size(), 4u);
  // Start errors B - A: up 0, k -80, down -150; "extra" is not in B and goes last.
  sort_op_keys(keys, p, none, {W::start_error, 1}, /*descending=*/true);
  EXPECT_EQ(ids(p, keys), (std::vector<std::string>{"down", "k", "up", "extra"}));
  sort_op_keys(keys, p, none, {W::start_error, 1}, /*descending=*/false);
  EXPECT_EQ(ids(p, keys), (std::vector<std::string>{"up", "k", "down", "extra"}));
  const auto k = p.keys_of_op_id("k")[0];
  EXPECT_EQ(op_value(p, none, k, {W::start_error, 1}), -80);
  EXPECT_EQ(op_value(p, none, k, {W::duration_error, 1}), -70);
  EXPECT_FALSE(op_value(p, none, p.keys_of_op_id("extra")[0], {W::start, 1}).has_value());
  // Offsets shift starts (aligned = own time - offset) and so the start errors; durations stay.
  const std::vector<model::Nanos> shifted{0, -80};
  EXPECT_EQ(op_value(p, shifted, k, {W::start, 1}), 130);
  EXPECT_EQ(op_value(p, shifted, k, {W::start_error, 1}), 0);
  EXPECT_EQ(op_value(p, shifted, k, {W::duration_error, 1}), -70);
  sort_op_keys(keys, p, none, {W::duration, 0}, true);
  EXPECT_EQ(p.op_id_of_key(keys[0]), "k");  // 270 ns
}

// Large enough for the linear-time sorts (thousands of keys), against the order stated plainly: keys with
// a value first, by value (magnitude for errors), then by key; keys without one last, by key. Many equal
// values, negative ones, a span only in one trace, and keys given in shuffled order.
TEST(OpTable, LargeSortsMatchTheStatedOrder) {
  std::uint64_t state = 7;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  std::vector<model::Span> a, b;
  for (int i = 0; i < 20000; ++i) {
    const auto start = static_cast<model::Nanos>(next() % 300) - 100;
    a.push_back(make_span("op_" + std::to_string(i), OpKind::kernel, 1, start, start + 5));
    if (next() % 7 != 0) {
      const auto other = static_cast<model::Nanos>(next() % 300) - 150;
      b.push_back(make_span("op_" + std::to_string(i), OpKind::kernel, 1, other, other + static_cast<model::Nanos>(next() % 9)));
    }
  }
  const TraceSet p = set_of({make_trace(a), make_trace(b)});
  using W = OpColumn::What;
  const std::vector<model::Nanos> offsets{0, 3};
  for (const OpColumn column : {OpColumn{W::start, 1}, OpColumn{W::start_error, 1}, OpColumn{W::duration, 1}})
    for (const bool descending : {false, true}) {
      auto keys = all_op_keys(p);
      for (std::size_t i = keys.size() - 1; i > 0; --i) std::swap(keys[i], keys[next() % (i + 1)]);
      auto want = keys;
      const auto value = [&](std::uint32_t k) {
        auto v = op_value(p, offsets, k, column);
        if (v && column.is_error() && *v < 0) *v = -*v;
        return v;
      };
      std::sort(want.begin(), want.end(), [&](std::uint32_t x, std::uint32_t y) {
        const auto vx = value(x), vy = value(y);
        if (vx.has_value() != vy.has_value()) return vx.has_value();
        if (vx && *vx != *vy) return descending ? *vx > *vy : *vx < *vy;
        return x < y;
      });
      sort_op_keys(keys, p, offsets, column, descending);
      EXPECT_EQ(keys, want);
    }
}

// Traces listing their ops in op order with each stream's spans in time order (as the simulator
// writes them): the start column's sort merges the streams (sorted_runs.hpp). The same order as the
// stated one, with starts repeated within and across streams, keys in order or shuffled, a stream out
// of order, and more streams than merging looks at.
TEST(OpTable, SortsOfStreamsInTimeOrderMatchTheStatedOrder) {
  std::uint64_t state = 11;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  for (const std::uint32_t streams : {4u, 17u}) {
    for (const bool one_out_of_order : {false, true}) {
      std::vector<model::Nanos> clock(streams, 0);
      std::vector<model::Span> a;
      for (int i = 0; i < 12000; ++i) {
        const auto s = static_cast<std::uint32_t>(next() % streams);
        clock[s] += static_cast<model::Nanos>(next() % 3);
        a.push_back(make_span("op_" + std::to_string(i), OpKind::kernel, s, clock[s], clock[s] + 5));
      }
      if (one_out_of_order) std::swap(a[10].start_ns, a[9000].start_ns);
      for (auto& x : a) x.end_ns = std::max(x.end_ns, x.start_ns);
      const TraceSet p = set_of({make_trace(a)});
      using W = OpColumn::What;
      for (const bool shuffled : {false, true})
        for (const bool descending : {false, true}) {
          auto keys = all_op_keys(p);
          if (shuffled)
            for (std::size_t i = keys.size() - 1; i > 0; --i) std::swap(keys[i], keys[next() % (i + 1)]);
          auto want = keys;
          std::sort(want.begin(), want.end(), [&](std::uint32_t x, std::uint32_t y) {
            const auto vx = *op_value(p, {}, x, {W::start, 0}), vy = *op_value(p, {}, y, {W::start, 0});
            if (vx != vy) return descending ? vx > vy : vx < vy;
            return x < y;
          });
          sort_op_keys(keys, p, {}, {W::start, 0}, descending);
          EXPECT_EQ(keys, want) << streams << " streams, out of order " << one_out_of_order << ", shuffled "
                                << shuffled << ", descending " << descending;
        }
    }
  }
}

TEST(OpTable, OpColumnSortsNaturally) {
  std::vector<model::Span> spans;
  for (const char* id : {"op_10", "op_2", "op_1", "op_02", "Op_3", "op_2b", "op"})
    spans.push_back(make_span(id, OpKind::kernel, 1, 0, 1));
  const TraceSet p = set_of({make_trace(spans)});
  auto keys = all_op_keys(p);
  sort_op_keys(keys, p, {}, {OpColumn::What::op, 0}, false);
  EXPECT_EQ(ids(p, keys), (std::vector<std::string>{"Op_3", "op", "op_1", "op_2", "op_2b", "op_02", "op_10"}));
  sort_op_keys(keys, p, {}, {OpColumn::What::op, 0}, true);
  EXPECT_EQ(ids(p, keys), (std::vector<std::string>{"op_10", "op_02", "op_2b", "op_2", "op_1", "op", "Op_3"}));
}

TEST(NaturalLess, IsAStrictWeakOrder) {
  EXPECT_TRUE(natural_less("op_2", "op_10"));
  EXPECT_FALSE(natural_less("op_10", "op_2"));
  EXPECT_FALSE(natural_less("op_2", "op_2"));
  EXPECT_TRUE(natural_less("a9", "a10b"));
  EXPECT_TRUE(natural_less("a", "a0"));
  EXPECT_TRUE(natural_less("x00000000000000000000000001", "x2"));  // longer than any integer type
  EXPECT_TRUE(natural_less("k1_9", "k1_10"));
  // Irreflexive and asymmetric over a mixed set, and transitive on every triple.
  const std::vector<std::string> v{"", "0", "00", "1", "01", "a", "a1", "a01", "a10", "a2b", "b", "10", "9"};
  for (const auto& x : v) {
    EXPECT_FALSE(natural_less(x, x)) << x;
    for (const auto& y : v) {
      EXPECT_FALSE(natural_less(x, y) && natural_less(y, x)) << x << " " << y;
      for (const auto& z : v)
        if (natural_less(x, y) && natural_less(y, z)) {
          EXPECT_TRUE(natural_less(x, z)) << x << " " << y << " " << z;
        }
    }
  }
}

}  // namespace
}  // namespace streamlab::viz
