// Folding: exactly the sub-pixel runs merge, every visible span is covered once, the fast walk agrees
// with the one-by-one reference, and hit-testing finds the right span.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "streamlab/viz/fold.hpp"
#include "viz_test_util.hpp"

namespace streamlab::viz {
namespace {

using model::Nanos;
using model::OpKind;
using test::make_span;
using test::make_trace;

// "prefix" + i, appended (not operator+ on a temporary: GCC 12 -Wrestrict false positive).
std::string id(const char* prefix, std::size_t i) {
  std::string out(prefix);
  out += std::to_string(i);
  return out;
}

// The stream lanes of one trace (a LaneSet keeps no reference to its TraceSet).
LaneSet lanes_of(model::Trace t) {
  std::vector<model::Trace> one;
  one.push_back(std::move(t));
  return LaneSet(TraceSet(std::move(one)), LaneMode::stream);
}

// One lane row from (start, end) pairs, all of one stream.
LaneSet row_pair(const std::vector<std::pair<Nanos, Nanos>>& spans, OpKind kind = OpKind::kernel) {
  std::vector<model::Span> s;
  for (std::size_t i = 0; i < spans.size(); ++i)
    s.push_back(make_span(id("op", i), kind, 1, spans[i].first, spans[i].second));
  return lanes_of(make_trace(std::move(s)));
}

std::vector<DrawRect> fold(const LaneRow& row, const TimelineView& v) {
  std::vector<DrawRect> out;
  fold_row(row, v, out);
  return out;
}

TEST(Fold, WideSpansAreDrawnAsThemselves) {
  const LaneSet p = row_pair({{0, 100}, {200, 300}});
  const TimelineView v(0, 1000, 1000);  // 1 px = 1 ns
  const auto r = fold(p.lanes()[0].rows[0], v);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (DrawRect{0, 100, 0, 1, OpKind::kernel}));
  EXPECT_EQ(r[1], (DrawRect{200, 300, 1, 1, OpKind::kernel}));
}

TEST(Fold, SubPixelRunWithSubPixelGapsBecomesOneFoldedRect) {
  // 1 px = 10 ns. Spans of 4 ns with 2 ns gaps: one run; then a 15 ns gap (1.5 px) splits it.
  const LaneSet p = row_pair({{0, 4}, {6, 10}, {12, 16}, {31, 35}, {37, 41}});
  const TimelineView v(0, 1000, 100);
  const auto r = fold(p.lanes()[0].rows[0], v);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].first, 0u);
  EXPECT_EQ(r[0].count, 3u);
  EXPECT_FLOAT_EQ(r[0].x0, 0.0f);
  EXPECT_FLOAT_EQ(r[0].x1, 1.6f);
  EXPECT_EQ(r[1].first, 3u);
  EXPECT_EQ(r[1].count, 2u);
  EXPECT_TRUE(r[0].folded());
}

TEST(Fold, AWideSpanBreaksARunAndAnIsolatedNarrowSpanStaysItselfOnePixelWide) {
  // 1 px = 10 ns: [0,3) narrow, [5,50) wide, [52,55) narrow and alone.
  const LaneSet p = row_pair({{0, 3}, {5, 50}, {52, 55}, {200, 203}});
  const TimelineView v(0, 1000, 100);
  const auto r = fold(p.lanes()[0].rows[0], v);
  ASSERT_EQ(r.size(), 4u);
  for (const auto& rect : r) EXPECT_EQ(rect.count, 1u);
  EXPECT_FLOAT_EQ(r[0].x1 - r[0].x0, 1.0f);  // widened from 0.3 px
  EXPECT_FLOAT_EQ(r[1].x0, 0.5f);
  EXPECT_FLOAT_EQ(r[1].x1, 5.0f);
}

TEST(Fold, FoldedRunTakesItsMajorityKind) {
  std::vector<model::Span> s{make_span("a", OpKind::h2d, 1, 0, 1), make_span("b", OpKind::kernel, 1, 1, 2),
                             make_span("c", OpKind::kernel, 1, 2, 3)};
  const LaneSet p = lanes_of(make_trace(s));
  const auto r = fold(p.lanes()[0].rows[0], TimelineView(0, 1000, 100));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].count, 3u);
  EXPECT_EQ(r[0].kind, OpKind::kernel);
}

TEST(Fold, OnlyVisibleSpansAndClippedToTheView) {
  const LaneSet p = row_pair({{0, 100}, {150, 400}, {500, 600}, {900, 1000}});
  const TimelineView v(200, 550, 350);  // 1 px = 1 ns
  const auto r = fold(p.lanes()[0].rows[0], v);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].first, 1u);
  EXPECT_FLOAT_EQ(r[0].x0, -1.0f);  // clipped one pixel beyond the left edge
  EXPECT_FLOAT_EQ(r[0].x1, 200.0f);
  EXPECT_EQ(r[1].first, 2u);
  EXPECT_FLOAT_EQ(r[1].x1, 351.0f);
  // A span ending exactly at the view start is not visible; one starting exactly at the end neither.
  const auto edge = fold(p.lanes()[0].rows[0], TimelineView(100, 150, 50));
  EXPECT_TRUE(edge.empty());
}

// Properties checked against any row and view.
void check_fold_properties(const LaneRow& row, const TimelineView& v) {
  std::vector<DrawRect> fast, slow;
  fold_row(row, v, fast);
  fold_row_linear(row, v, slow);
  ASSERT_EQ(fast, slow);

  const double fold_ns = v.ns_per_px();
  auto narrow = [&](std::uint32_t i) { return static_cast<double>(row.end[i] - row.start[i]) < fold_ns; };
  // The visible spans, in order, are partitioned by the rects: no span lost, none drawn twice.
  std::uint32_t expect_first = 0;
  while (expect_first < row.size() && static_cast<double>(row.end[expect_first]) <= v.start_ns()) ++expect_first;
  std::uint32_t visible_end = expect_first;
  while (visible_end < row.size() && static_cast<double>(row.start[visible_end]) < v.end_ns()) ++visible_end;
  for (std::size_t k = 0; k < fast.size(); ++k) {
    const DrawRect& r = fast[k];
    ASSERT_EQ(r.first, expect_first) << "rect " << k;
    ASSERT_GE(r.count, 1u);
    expect_first = r.first + r.count;
    ASSERT_LE(expect_first, visible_end);
    const Nanos s = row.start[r.first], e = row.end[r.first + r.count - 1];
    // Coverage: the rect spans exactly from its first span's start to its last span's end (then clipped,
    // and widened to 1 px when narrower).
    const double x0 = std::clamp(v.x_of(static_cast<double>(s)), -1.0, v.width_px() + 1.0);
    const double x1 = std::clamp(v.x_of(static_cast<double>(e)), -1.0, v.width_px() + 1.0);
    EXPECT_NEAR(r.x0, x0, 1e-3);
    EXPECT_NEAR(r.x1, std::max(x1, x0 + 1.0), 1e-3);
    if (r.count > 1) {
      // Only sub-pixel spans, separated by sub-pixel gaps, are merged.
      for (std::uint32_t i = r.first; i < r.first + r.count; ++i) {
        EXPECT_TRUE(narrow(i)) << i;
        if (i > r.first) {
          EXPECT_LT(static_cast<double>(row.start[i] - row.end[i - 1]), fold_ns) << i;
        }
      }
    }
    // Maximal: the next rect could not have been merged into this one.
    if (k + 1 < fast.size() && narrow(r.first + r.count - 1)) {
      const std::uint32_t next = fast[k + 1].first;
      const bool mergeable = narrow(next) && static_cast<double>(row.start[next] - e) < fold_ns;
      EXPECT_FALSE(mergeable) << "rects " << k << " and " << k + 1 << " should have been one";
    }
  }
  EXPECT_EQ(expect_first, visible_end);
}

TEST(Fold, RandomRowsAndViewsKeepEveryProperty) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    // Mixed scales: many tiny spans and gaps, some long ones, so runs start and stop everywhere.
    std::vector<std::pair<Nanos, Nanos>> spans;
    Nanos t = static_cast<Nanos>(rng() % 50);
    const int n = 200 + static_cast<int>(rng() % 3000);
    for (int i = 0; i < n; ++i) {
      const bool long_one = rng() % 20 == 0;
      const Nanos d = long_one ? 1000 + static_cast<Nanos>(rng() % 20000) : static_cast<Nanos>(rng() % 40);
      const Nanos gap = rng() % 10 == 0 ? static_cast<Nanos>(rng() % 3000) : static_cast<Nanos>(rng() % 30);
      spans.emplace_back(t, t + d);
      t += d + gap;
    }
    std::vector<model::Span> s;
    for (std::size_t i = 0; i < spans.size(); ++i)
      s.push_back(make_span(id("o", i), i % 3 == 0 ? OpKind::h2d : OpKind::kernel, 1, spans[i].first,
                            spans[i].second));
    const LaneSet p = lanes_of(make_trace(std::move(s)));
    ASSERT_EQ(p.lanes()[0].rows.size(), 1u);
    const auto& row = p.lanes()[0].rows[0];
    for (int view = 0; view < 6; ++view) {
      const double a = static_cast<double>(rng() % static_cast<std::uint64_t>(t));
      const double len = std::max(30.0, static_cast<double>(rng() % static_cast<std::uint64_t>(t)));
      const auto width = static_cast<float>(100 + rng() % 1800);
      SCOPED_TRACE("trial " + std::to_string(trial) + " view " + std::to_string(view));
      check_fold_properties(row, TimelineView(a, a + len, width));
      check_fold_properties(row, TimelineView(0, static_cast<double>(t), width));  // fit: everything visible
    }
  }
}

TEST(Fold, ManyContiguousSubPixelSpansFoldIntoOneRect) {
  std::vector<model::Span> s;
  s.reserve(200'000);
  for (Nanos i = 0; i < 200'000; ++i) s.push_back(make_span("", OpKind::kernel, 1, i * 10, i * 10 + 7));
  const LaneSet p = lanes_of(make_trace(std::move(s)));
  const TimelineView v(0, 2e6, 1920);
  std::vector<DrawRect> r;
  fold_row(p.lanes()[0].rows[0], v, r);
  // Sub-pixel spans with sub-pixel gaps: one folded rect holds them all.
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].count, 200'000u);
}

TEST(HitTest, RectUnderTheCursorOrTheNearestWithinSlop) {
  const std::vector<DrawRect> rects{{10, 20, 0, 1, OpKind::kernel}, {30, 31, 1, 1, OpKind::kernel},
                                    {31, 60, 2, 1, OpKind::kernel}};
  EXPECT_EQ(hit_rect(rects, 15), 0u);
  EXPECT_EQ(hit_rect(rects, 21.5f), 0u);           // within 2 px of the first
  EXPECT_FALSE(hit_rect(rects, 25).has_value());   // in the gap, beyond the slop
  EXPECT_EQ(hit_rect(rects, 30.5f), 1u);
  EXPECT_EQ(hit_rect(rects, 45), 2u);
  EXPECT_FALSE(hit_rect(rects, 63).has_value());
  EXPECT_FALSE(hit_rect({}, 5).has_value());
}

TEST(HitTest, SpanAtTimeIsHalfOpenAndPrefersTheCoveringSpan) {
  const LaneSet p = row_pair({{0, 5}, {5, 9}, {20, 30}});
  const auto& row = p.lanes()[0].rows[0];
  EXPECT_EQ(span_at(row, 4.9), 0u);
  EXPECT_EQ(span_at(row, 5), 1u);
  EXPECT_EQ(span_at(row, 5, 2.0), 1u);  // [0,5) is within tolerance but [5,9) covers t
  EXPECT_FALSE(span_at(row, 12).has_value());
  EXPECT_EQ(span_at(row, 12, 4.0), 1u);   // 3 ns after the end of [5,9)
  EXPECT_EQ(span_at(row, 17, 4.0), 2u);   // 3 ns before [20,30)
  EXPECT_FALSE(span_at(row, 40).has_value());
}

}  // namespace
}  // namespace streamlab::viz
