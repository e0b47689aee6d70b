// View arithmetic (zoom around the cursor, pan, fit) and the time ruler (nice steps, units, labels).
#include <gtest/gtest.h>

#include "streamlab/viz/ruler.hpp"
#include "streamlab/viz/timeline_view.hpp"

namespace streamlab::viz {
namespace {

TEST(TimelineView, MapsTimeToPixelsAndBack) {
  const TimelineView v(1000, 3000, 500);
  EXPECT_DOUBLE_EQ(v.px_per_ns(), 0.25);
  EXPECT_DOUBLE_EQ(v.x_of(2000), 250);
  EXPECT_DOUBLE_EQ(v.t_of(100), 1400);
}

TEST(TimelineView, ZoomKeepsTheTimeUnderTheCursor) {
  TimelineView v(0, 10'000, 1000);
  const double anchor = v.t_of(300);
  v.zoom_at(300, 4.0);
  EXPECT_NEAR(v.t_of(300), anchor, 1e-9);
  EXPECT_NEAR(v.range_ns(), 2500, 1e-9);
  v.zoom_at(300, 0.25);
  EXPECT_NEAR(v.range_ns(), 10'000, 1e-6);
  EXPECT_NEAR(v.t_of(300), anchor, 1e-6);
}

TEST(TimelineView, ZoomIsClampedAndIgnoresNonsense) {
  TimelineView v(0, 1000, 1000);
  v.zoom_at(500, 1e9);
  EXPECT_DOUBLE_EQ(v.range_ns(), TimelineView::kMinRangeNs);
  EXPECT_NEAR(v.t_of(500), 500, 1e-9);
  const TimelineView before = v;
  v.zoom_at(10, 0.0);
  v.zoom_at(10, -2.0);
  EXPECT_DOUBLE_EQ(v.start_ns(), before.start_ns());
  EXPECT_DOUBLE_EQ(v.range_ns(), before.range_ns());
}

TEST(TimelineView, DraggingRightRevealsEarlierTime) {
  TimelineView v(1000, 2000, 100);  // 10 ns per px
  v.pan_px(20);
  EXPECT_DOUBLE_EQ(v.start_ns(), 800);
  EXPECT_DOUBLE_EQ(v.end_ns(), 1800);
}

TEST(TimelineView, FitShowsTheRangeWithAMargin) {
  TimelineView v(0, 1, 800);
  v.fit(0, 1'000'000, 0.05);
  EXPECT_DOUBLE_EQ(v.start_ns(), -50'000);
  EXPECT_DOUBLE_EQ(v.end_ns(), 1'050'000);
  v.fit(5, 5);  // an empty trace still gets a usable view
  EXPECT_GE(v.range_ns(), TimelineView::kMinRangeNs);
  v.set_width(1200);  // a resize keeps the range
  EXPECT_GE(v.range_ns(), TimelineView::kMinRangeNs);
  EXPECT_FLOAT_EQ(v.width_px(), 1200);
}

TEST(Ruler, NiceStepsAreOneTwoFiveTimesAPowerOfTen) {
  EXPECT_EQ(nice_tick_step(0.01, 90), 1);        // 0.9 ns wanted
  EXPECT_EQ(nice_tick_step(1.0, 90), 100);       // 90 -> 100
  EXPECT_EQ(nice_tick_step(1.2, 90), 200);       // 108 -> 200
  EXPECT_EQ(nice_tick_step(3.0, 90), 500);       // 270 -> 500
  EXPECT_EQ(nice_tick_step(6.0, 90), 1000);      // 540 -> 1000
  EXPECT_EQ(nice_tick_step(1e6 / 90.0, 90), 1'000'000);
  EXPECT_EQ(nice_tick_step(2.1e7, 100), 5'000'000'000);
}

TEST(Ruler, UnitsFollowTheStep) {
  EXPECT_EQ(unit_for_step(50), TimeUnit::ns);
  EXPECT_EQ(unit_for_step(100), TimeUnit::us);
  EXPECT_EQ(unit_for_step(200'000), TimeUnit::ms);
  EXPECT_EQ(unit_for_step(100'000'000), TimeUnit::s);
  EXPECT_EQ(format_tick(0, 100), "0");
  EXPECT_EQ(format_tick(1500, 500), "1.5 \xc2\xb5s");
  EXPECT_EQ(format_tick(3'000'000, 1'000'000), "3 ms");
  EXPECT_EQ(format_tick(250, 50), "250 ns");
  EXPECT_EQ(format_tick(2'500'000'000, 500'000'000), "2.5 s");
}

TEST(Ruler, TicksAreEvenlySpacedWithLabelsOnMajors) {
  const TimelineView v(0, 1'000'000, 1000);  // 1 ms over 1000 px
  const auto ticks = ruler_ticks(v, 90);
  std::vector<RulerTick> majors;
  for (const auto& t : ticks)
    if (t.major) majors.push_back(t);
  ASSERT_GE(majors.size(), 2u);
  const auto step = majors[1].t - majors[0].t;
  EXPECT_EQ(step, 100'000);  // 90 px at 1 us/px -> 100 us
  EXPECT_GE(majors[1].x - majors[0].x, 90.0f);
  EXPECT_EQ(majors[0].label, "0");
  EXPECT_EQ(majors[1].label, "0.1 ms");
  EXPECT_EQ(majors.back().t, 1'000'000);
  // Minor ticks split each step in five, unlabelled.
  EXPECT_EQ(ticks.size(), 51u);
  for (const auto& t : ticks) {
    EXPECT_GE(t.x, 0.0f);
    EXPECT_LE(t.x, 1000.0f);
    EXPECT_EQ(t.label.empty(), !t.major);
  }
}

TEST(Ruler, DurationsUseThreeSignificantDigits) {
  EXPECT_EQ(format_duration(850), "850 ns");
  EXPECT_EQ(format_duration(12'500), "12.5 \xc2\xb5s");
  EXPECT_EQ(format_duration(1'234'567), "1.23 ms");
  EXPECT_EQ(format_duration(2e9), "2.00 s");
  EXPECT_EQ(format_duration(999'999), "1.00 ms");
  EXPECT_EQ(format_signed_duration(1200), "+1.20 \xc2\xb5s");
  EXPECT_EQ(format_signed_duration(-35), "-35 ns");
  EXPECT_EQ(format_signed_duration(0), "0 ns");
}

}  // namespace
}  // namespace streamlab::viz
