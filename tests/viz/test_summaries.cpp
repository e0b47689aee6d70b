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

TEST(Summary, UsesTheModelMetricsAndComparesMakespans) {
  const TracePair p(pred_trace(), meas_trace());
  const OverlapSummary s = summarize(p);
  const auto want = model::compute_metrics(p.trace(Side::predicted));
  EXPECT_EQ(s.predicted.makespan_ns, want.makespan_ns);
  EXPECT_EQ(s.predicted.makespan_ns, 300);
  ASSERT_TRUE(s.measured.has_value());
  EXPECT_EQ(s.measured->makespan_ns, 460);
  ASSERT_TRUE(s.makespan_rel_error.has_value());
  EXPECT_NEAR(*s.makespan_rel_error, (300.0 - 460.0) / 460.0, 1e-12);
  ASSERT_EQ(s.streams.size(), 3u);  // 1, 2 in both; 3 measured only
  EXPECT_EQ(s.streams[2].stream, 3u);
  EXPECT_FALSE(s.streams[2].predicted.has_value());
  EXPECT_TRUE(s.streams[2].measured.has_value());
  EXPECT_EQ(s.matched_ops, 3u);
  // The plotted concurrency is the metrics' step function.
  EXPECT_EQ(s.concurrency_predicted.value_at(60), 2.0);
  EXPECT_EQ(s.concurrency_predicted.value_at(150), 1.0);
}

TEST(Summary, PredictedOnly) {
  const TracePair p(pred_trace());
  const OverlapSummary s = summarize(p);
  EXPECT_FALSE(s.measured.has_value());
  EXPECT_FALSE(s.makespan_rel_error.has_value());
  EXPECT_EQ(s.streams.size(), 2u);
}

TEST(OpTable, RowsCarryBothTimesAndSortByErrorMagnitude) {
  const TracePair p(pred_trace(), meas_trace());
  auto rows = build_op_rows(p);
  ASSERT_EQ(rows.size(), 4u);
  sort_op_rows(rows, p, OpColumn::end_error, /*descending=*/true);
  // End errors: up -20, k -150, down -160; "extra" has no predicted span and goes last.
  std::vector<std::string> order;
  for (const auto& r : rows) order.push_back(p.op_id_of_key(r.key));
  EXPECT_EQ(order, (std::vector<std::string>{"down", "k", "up", "extra"}));
  EXPECT_EQ(rows[0].end_error(), -160);
  EXPECT_EQ(rows[1].start_error(), -80);
  EXPECT_EQ(rows[1].duration_error(), -70);
  EXPECT_FALSE(rows[3].matched());

  sort_op_rows(rows, p, OpColumn::end_error, /*descending=*/false);
  order.clear();
  for (const auto& r : rows) order.push_back(p.op_id_of_key(r.key));
  EXPECT_EQ(order, (std::vector<std::string>{"up", "k", "down", "extra"}));

  sort_op_rows(rows, p, OpColumn::op, false);
  order.clear();
  for (const auto& r : rows) order.push_back(p.op_id_of_key(r.key));
  EXPECT_EQ(order, (std::vector<std::string>{"down", "extra", "k", "up"}));

  sort_op_rows(rows, p, OpColumn::meas_duration, true);
  EXPECT_EQ(p.op_id_of_key(rows[0].key), "k");  // 270 ns
}

}  // namespace
}  // namespace streamlab::viz
