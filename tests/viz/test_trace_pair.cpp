// Lanes: ordering, predicted directly above measured, rows for overlapping spans, matching across traces.
#include <gtest/gtest.h>

#include "streamlab/viz/frame.hpp"
#include "streamlab/viz/trace_pair.hpp"
#include "viz_test_util.hpp"

namespace streamlab::viz {
namespace {

using model::OpKind;
using test::make_span;
using test::make_trace;

TracePair three_stream_pair() {
  // Spans listed out of order on purpose: lanes must not depend on the file's order.
  auto pred = make_trace({make_span("k1", OpKind::kernel, 3, 500, 900), make_span("up", OpKind::h2d, 1, 0, 200),
                          make_span("k0", OpKind::kernel, 1, 200, 400), make_span("ms", OpKind::memset, 2, 0, 50)});
  auto meas = make_trace({make_span("up", OpKind::h2d, 1, 10, 260), make_span("k0", OpKind::kernel, 1, 270, 520),
                          make_span("k1", OpKind::kernel, 3, 600, 990), make_span("only_meas", OpKind::d2h, 7, 0, 10)});
  return TracePair(std::move(pred), std::move(meas));
}

TEST(TracePair, LanesAreStreamsAscendingEachPredictedThenMeasured) {
  const TracePair p = three_stream_pair();
  const auto lanes = p.lanes();
  ASSERT_EQ(lanes.size(), 8u);  // streams 1, 2, 3, 7 x {pred, meas}; no blocks, so no SM lanes
  const std::uint32_t streams[] = {1, 1, 2, 2, 3, 3, 7, 7};
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    EXPECT_EQ(lanes[i].kind, LaneKind::spans);
    EXPECT_EQ(lanes[i].stream, streams[i]) << i;
    EXPECT_EQ(lanes[i].side, i % 2 == 0 ? Side::predicted : Side::measured) << i;
  }
  EXPECT_EQ(lanes[0].label, "stream 1  pred");
  EXPECT_EQ(lanes[1].label, "stream 1  meas");
  // A stream used by one trace only still gets both lanes, the other one empty.
  EXPECT_TRUE(lanes[3].rows.empty());  // stream 2 measured
  EXPECT_TRUE(lanes[6].rows.empty());  // stream 7 predicted
  ASSERT_EQ(lanes[7].rows.size(), 1u);
}

TEST(TracePair, MeasuredLaneSitsDirectlyBelowItsPredictedLane) {
  const TracePair p = three_stream_pair();
  const LaneLayoutOptions o;
  const LaneLayout layout = layout_lanes(p, o);
  ASSERT_EQ(layout.lanes.size(), p.lanes().size());
  for (std::size_t i = 0; i + 1 < layout.lanes.size(); ++i) {
    const auto& a = layout.lanes[i];
    const auto& b = layout.lanes[i + 1];
    EXPECT_LT(a.y0, b.y0);
    // Pred -> meas of one stream: the small gap; meas -> next stream's pred: the larger group gap.
    EXPECT_FLOAT_EQ(b.y0 - a.y1(), i % 2 == 0 ? o.lane_gap : o.group_gap) << i;
  }
  EXPECT_FLOAT_EQ(layout.total_height, layout.lanes.back().y1());
  EXPECT_EQ(layout.lane_at(layout.lanes[3].y0 + 1), 3u);
  EXPECT_FALSE(layout.lane_at(layout.lanes[1].y1() + 0.5f).has_value());  // the gap belongs to no lane
  EXPECT_FALSE(layout.lane_at(-1).has_value());
  EXPECT_FALSE(layout.lane_at(layout.total_height + 1).has_value());
}

TEST(TracePair, SpansAreSortedPerRowAndLocatable) {
  const TracePair p = three_stream_pair();
  const auto& row = p.lanes()[0].rows.at(0);
  ASSERT_EQ(row.size(), 2u);
  EXPECT_EQ(row.start, (std::vector<model::Nanos>{0, 200}));
  EXPECT_EQ(row.end, (std::vector<model::Nanos>{200, 400}));
  const auto& spans = p.trace(Side::predicted).spans;
  EXPECT_EQ(spans[row.span[0]].op_id, "up");
  const auto loc = p.locate(Side::predicted, 2);  // "k0"
  EXPECT_EQ(loc.lane, 0u);
  EXPECT_EQ(loc.pos, 1u);
  EXPECT_EQ(p.begin_ns(), 0);
  EXPECT_EQ(p.end_ns(), 990);
}

TEST(TracePair, OpsMatchAcrossTracesByIdAndEngine) {
  const TracePair p = three_stream_pair();
  EXPECT_EQ(p.common_op_count(), 3u);  // up, k0, k1
  const auto& pred = p.trace(Side::predicted).spans;
  const auto& meas = p.trace(Side::measured).spans;
  for (std::uint32_t i = 0; i < pred.size(); ++i) {
    const auto j = p.counterpart(Side::predicted, i);
    if (pred[i].op_id == "ms") {
      EXPECT_EQ(j, kNone);
      continue;
    }
    ASSERT_NE(j, kNone) << pred[i].op_id;
    EXPECT_EQ(meas[j].op_id, pred[i].op_id);
    EXPECT_EQ(p.counterpart(Side::measured, j), i);
  }
  const auto keys = p.keys_of_op_id("k0");
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(p.op_id_of_key(keys[0]), "k0");
  EXPECT_TRUE(p.keys_of_op_id("nope").empty());
}

TEST(TracePair, SameIdOnAnotherEngineIsAnotherKey) {
  auto a = make_span("x", OpKind::h2d, 1, 0, 10);
  auto b = make_span("x", OpKind::h2d, 1, 10, 20);
  b.engine = model::Engine::host;  // e.g. the host side of a pageable copy
  const TracePair p(make_trace({a, b}));
  EXPECT_EQ(p.op_key_count(), 2u);
  EXPECT_EQ(p.keys_of_op_id("x").size(), 2u);
}

TEST(TracePair, OverlappingSpansOfOneStreamGetTheirOwnRows) {
  // [0,100) and [50,150) overlap; [100,200) fits after the first.
  const TracePair p(make_trace({make_span("a", OpKind::kernel, 1, 0, 100), make_span("b", OpKind::kernel, 1, 50, 150),
                                make_span("c", OpKind::kernel, 1, 100, 200)}));
  const auto& lane = p.lanes()[0];
  ASSERT_EQ(lane.rows.size(), 2u);
  EXPECT_EQ(lane.rows[0].start, (std::vector<model::Nanos>{0, 100}));
  EXPECT_EQ(lane.rows[1].start, (std::vector<model::Nanos>{50}));
  for (const auto& row : lane.rows)
    for (std::size_t i = 1; i < row.size(); ++i) EXPECT_LE(row.end[i - 1], row.start[i]);
  const LaneLayout layout = layout_lanes(p);
  EXPECT_FLOAT_EQ(layout.lanes[0].height, 2 * LaneLayoutOptions{}.row_height);
}

TEST(TracePair, DevicesOrderLanesBeforeStreamsAndAppearInLabels) {
  const TracePair p(make_trace({make_span("a", OpKind::kernel, 1, 0, 10, 1), make_span("b", OpKind::kernel, 2, 0, 10, 0)}));
  ASSERT_EQ(p.lanes().size(), 2u);
  EXPECT_EQ(p.lanes()[0].device, 0u);
  EXPECT_EQ(p.lanes()[0].stream, 2u);
  EXPECT_EQ(p.lanes()[1].label, "dev 1 stream 1  pred");
}

TEST(TracePair, BlocksGiveAnSmOccupancyLaneAfterTheStreams) {
  auto t = make_trace({make_span("k", OpKind::kernel, 1, 0, 100)});
  // SM 0 busy [0,60) as two touching blocks, SM 3 busy [20,100): 1, 2, then 1 SM busy.
  t.blocks = {{0, 0, 0, 0, 30}, {0, 1, 0, 30, 60}, {0, 2, 3, 20, 100}};
  const TracePair p(std::move(t));
  ASSERT_EQ(p.lanes().size(), 2u);
  EXPECT_EQ(p.lanes()[1].kind, LaneKind::sm_occupancy);
  const auto& occ = p.occupancy(Side::predicted);
  ASSERT_TRUE(occ.has_value());
  EXPECT_EQ(occ->sm_count, 4u);
  EXPECT_EQ(occ->busy_sms.value_at(10), 1.0);
  EXPECT_EQ(occ->busy_sms.value_at(30), 2.0);  // touching blocks on SM 0 do not count twice
  EXPECT_EQ(occ->busy_sms.value_at(70), 1.0);
  EXPECT_EQ(occ->busy_sms.value_at(100), 0.0);
  EXPECT_FALSE(p.occupancy(Side::measured).has_value());
}

TEST(LaneRow, MajorityKindUsesPrefixCounts) {
  const TracePair p(make_trace({make_span("a", OpKind::h2d, 1, 0, 1), make_span("b", OpKind::kernel, 1, 1, 2),
                                make_span("c", OpKind::kernel, 1, 2, 3), make_span("d", OpKind::h2d, 1, 3, 4),
                                make_span("e", OpKind::h2d, 1, 4, 5)}));
  const auto& row = p.lanes()[0].rows[0];
  EXPECT_EQ(row.majority_kind(0, 3), OpKind::kernel);
  EXPECT_EQ(row.majority_kind(0, 5), OpKind::h2d);
  EXPECT_EQ(row.count_of(OpKind::h2d, 1, 4), 2u);
  EXPECT_EQ(row.count_of(OpKind::d2h, 0, 5), 0u);
}

}  // namespace
}  // namespace streamlab::viz
