// Opening files: the bundled pair, and every way opening can fail (missing, malformed, mismatched),
// each giving a message instead of an exception. Also the workload overlay and option parsing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "streamlab/model/errors.hpp"
#include "streamlab/viz/frame.hpp"
#include "streamlab/viz/options.hpp"
#include "streamlab/viz/session.hpp"
#include "viz_test_util.hpp"

namespace streamlab::viz {
namespace {

namespace fs = std::filesystem;
const fs::path kData = STREAMLAB_VIZ_TEST_DATA;

fs::path scratch(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("streamlab_viz_test_" + name);
  std::ofstream(p) << text;
  return p;
}

bool mentions(const std::vector<std::string>& errors, const std::string& what) {
  for (const auto& e : errors)
    if (e.find(what) != std::string::npos) return true;
  return false;
}

TEST(BundledPair, IsWhatTheReadmeSays) {
  // tests/viz/data/README.md lists these spans; the screenshot test relies on them.
  const Session s = open_session({{kData / "pred.json", kData / "meas.json"}, kData / "workload.json"});
  ASSERT_TRUE(s.errors.empty()) << s.errors.front();
  ASSERT_TRUE(s.set);
  const TraceSet& p = *s.set;
  struct Want {
    const char* id;
    std::uint32_t stream;
    model::Nanos ps, pe, ms, me;
  };
  const Want want[] = {{"up0", 1, 0, 200, 10, 230},     {"k0", 1, 200, 500, 240, 600},
                       {"down0", 1, 500, 600, 600, 720}, {"up1", 2, 200, 400, 230, 450},
                       {"k1", 2, 400, 800, 460, 900},    {"ms0", 3, 0, 100, 5, 125}};
  ASSERT_EQ(p.op_key_count(), 6u);
  for (const auto& w : want) {
    const auto keys = p.keys_of_op_id(w.id);
    ASSERT_EQ(keys.size(), 1u) << w.id;
    const auto& a = p.trace(0).spans[p.span_of_key(0, keys[0])];
    const auto& b = p.trace(1).spans[p.span_of_key(1, keys[0])];
    EXPECT_EQ(a.stream, w.stream);
    EXPECT_EQ(b.stream, w.stream);
    EXPECT_EQ(a.start_ns, w.ps * 1000);
    EXPECT_EQ(a.end_ns, w.pe * 1000);
    EXPECT_EQ(b.start_ns, w.ms * 1000);
    EXPECT_EQ(b.end_ns, w.me * 1000);
  }
  ASSERT_TRUE(p.occupancy(0).has_value());
  EXPECT_EQ(p.occupancy(0)->sm_count, 8u);
  EXPECT_FALSE(p.occupancy(1).has_value());
  ASSERT_TRUE(s.overlay);
  // Critical path with predicted durations: up0 (200) -> k0 (300) -> down0 (100).
  EXPECT_EQ(s.overlay->critical_path_ns(), 600'000);
  const auto k0 = p.keys_of_op_id("k0")[0];
  EXPECT_TRUE(s.overlay->on_critical_path(k0));
  EXPECT_FALSE(s.overlay->on_critical_path(p.keys_of_op_id("k1")[0]));
  EXPECT_EQ(s.overlay->dependencies_of(k0), p.keys_of_op_id("up0"));
  EXPECT_EQ(s.overlay->dependents_of(k0), p.keys_of_op_id("down0"));
  EXPECT_TRUE(s.overlay->dependencies_of(p.keys_of_op_id("up0")[0]).empty());
}

TEST(OpenSession, MissingTraceIsReportedAndTheOthersStillShown) {
  const Session s = open_session({{kData / "pred.json", kData / "no_such_file.json", kData / "meas.json"}, std::nullopt});
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_TRUE(mentions(s.errors, "no_such_file.json"));
  EXPECT_TRUE(mentions(s.errors, "no such file"));
  ASSERT_TRUE(s.set);
  EXPECT_EQ(s.set->size(), 2u);
  EXPECT_EQ(s.set->file(1), (kData / "meas.json").string());
}

TEST(OpenSession, NoReadableTraceLeavesNothingToShow) {
  const Session s = open_session({{kData / "missing.json", kData / "missing2.json"}, std::nullopt});
  EXPECT_FALSE(s.set);
  EXPECT_TRUE(mentions(s.errors, "missing.json"));
  EXPECT_TRUE(mentions(s.errors, "missing2.json"));
}

TEST(OpenSession, MalformedTraceNamesTheFile) {
  const auto bad = scratch("malformed.json", "{\"traceEvents\": [ {\"ph\": \"X\", ");
  const Session s = open_session({{kData / "pred.json", bad}, std::nullopt});
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_TRUE(mentions(s.errors, bad.string())) << s.errors[0];
  EXPECT_TRUE(s.set && s.set->size() == 1);
  const auto not_a_trace = scratch("not_a_trace.json", "[1, 2, 3]");
  const Session s2 = open_session({{not_a_trace}, std::nullopt});
  EXPECT_FALSE(s2.set);
  EXPECT_EQ(s2.errors.size(), 1u);
}

TEST(OpenSession, TracesOfDifferentWorkloadsAreNotCompared) {
  const Session s = open_session({{kData / "pred.json", kData / "other_workload.json", kData / "meas.json"}, std::nullopt});
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_TRUE(mentions(s.errors, "different workloads")) << s.errors[0];
  EXPECT_TRUE(mentions(s.errors, "0123456789abcdef"));
  EXPECT_TRUE(mentions(s.errors, "other_workload.json' is not shown"));
  ASSERT_TRUE(s.set);
  ASSERT_EQ(s.set->size(), 2u);  // the matching third trace is kept
  EXPECT_EQ(s.set->file(1), (kData / "meas.json").string());
  EXPECT_EQ(s.set->tag(1), "B");
}

TEST(MismatchReason, NoOpInCommon) {
  using model::OpKind;
  const auto a = test::make_trace({test::make_span("a", OpKind::kernel, 1, 0, 10)}, "");
  const auto b = test::make_trace({test::make_span("b", OpKind::kernel, 1, 0, 10)}, "");
  const auto why = mismatch_reason(a, "A", b, "B");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("no op in common"), std::string::npos);
  EXPECT_FALSE(mismatch_reason(a, "A", a, "A").has_value());
}

TEST(OpenSession, WorkloadOfAnotherRunIsReportedAndIgnored) {
  const auto w = scratch("other_workload_def.json", R"({"format_version": 1, "name": "x", "ops": [
      {"id": "a", "kind": "h2d", "bytes": 1024}]})");
  const Session s = open_session({{kData / "pred.json", kData / "meas.json"}, w});
  ASSERT_EQ(s.errors.size(), 1u) << (s.errors.empty() ? "" : s.errors[0]);
  EXPECT_TRUE(mentions(s.errors, "not the one the traces ran"));
  EXPECT_FALSE(s.overlay);
  EXPECT_TRUE(s.set && s.set->size() == 2);
}

TEST(Frame, BuildsOnlyVisibleLanesAndSamplesOccupancy) {
  const Session s = open_session({{kData / "pred.json", kData / "meas.json"}, std::nullopt});
  ASSERT_TRUE(s.set);
  const TraceSet& p = *s.set;
  const LaneSet lanes(p, LaneMode::stream);
  const LaneLayout layout = layout_lanes(lanes);
  const TimelineView view(0, 1'000'000, 1000);  // 1 us per px
  FrameDraw draw;
  build_frame(p, lanes, layout, view, {}, draw);
  ASSERT_EQ(draw.lanes.size(), lanes.lanes().size());
  EXPECT_EQ(draw.rect_count(), 12u);
  EXPECT_EQ(draw.folded_span_count(), 0u);
  // Stream mode: A's streams 1-3 and its SM strip, then B's streams 1-3.
  ASSERT_EQ(lanes.lanes().size(), 7u);
  const auto& sm = draw.lanes[3];
  ASSERT_EQ(lanes.lanes()[3].kind, LaneKind::sm_occupancy);
  ASSERT_EQ(sm.occupancy.size(), 1000u);
  EXPECT_FLOAT_EQ(sm.occupancy[100], 0.0f);
  EXPECT_FLOAT_EQ(sm.occupancy[300], 0.5f);  // 4 of 8 SMs
  EXPECT_FLOAT_EQ(sm.occupancy[450], 1.0f);
  EXPECT_FLOAT_EQ(sm.occupancy[700], 0.5f);
  // Only the first lane is inside [0, 5) of content y.
  build_frame(p, lanes, layout, view, {}, draw, 0.0f, 5.0f);
  EXPECT_TRUE(draw.lanes[0].visible);
  EXPECT_FALSE(draw.lanes[1].visible);
  EXPECT_EQ(draw.rect_count(), 3u);
}

TEST(Options, TimesRangesAndSizes) {
  EXPECT_EQ(parse_time("1500", "--view"), 1500);
  EXPECT_EQ(parse_time("2.5us", "--view"), 2500);
  EXPECT_EQ(parse_time("2.5\xc2\xb5s", "--view"), 2500);
  EXPECT_EQ(parse_time("3ms", "--view"), 3'000'000);
  EXPECT_EQ(parse_time("0.1s", "--view"), 100'000'000);
  EXPECT_THROW((void)parse_time("3 parsecs", "--view"), model::InputError);
  EXPECT_THROW((void)parse_time("", "--view"), model::InputError);
  const std::pair<model::Nanos, model::Nanos> two_ms{0, 2'000'000};
  EXPECT_EQ(parse_view_range("0:2ms"), two_ms);
  EXPECT_THROW((void)parse_view_range("5ms:1ms"), model::InputError);
  EXPECT_THROW((void)parse_view_range("5ms"), model::InputError);
  EXPECT_EQ(parse_size("1280x720"), std::make_pair(1280, 720));
  EXPECT_EQ(parse_point("640,12", "--hover"), std::make_pair(640, 12));
  EXPECT_THROW((void)parse_point("640", "--hover"), model::InputError);
  EXPECT_THROW((void)parse_point("-1,5", "--hover"), model::InputError);
  EXPECT_THROW((void)parse_size("1280"), model::InputError);
  EXPECT_EQ(parse_lane_mode("engine"), LaneMode::engine);
  EXPECT_EQ(parse_lane_mode("stream"), LaneMode::stream);
  EXPECT_THROW((void)parse_lane_mode("streams"), model::InputError);
  EXPECT_THROW((void)parse_size("10x10"), model::InputError);
  try {
    (void)parse_size("axb");
    FAIL();
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.place(), "--size");
  }
}

}  // namespace
}  // namespace streamlab::viz
