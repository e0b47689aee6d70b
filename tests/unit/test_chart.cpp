// The experiments' software chart renderer: framebuffer primitives, axis ticks, a bar at the expected place
// and colour, PNG output.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "streamlab/experiments/chart.hpp"

namespace ex = streamlab::experiments;

namespace {

bool same(ex::Rgba a, ex::Rgba b) { return a == b; }

}  // namespace

TEST(Canvas, FillRectCoversExactlyThePixelsWhoseCentresAreInside) {
  ex::Canvas c(10, 8, {255, 255, 255, 255});
  c.fill_rect(2, 3, 5, 6, {10, 20, 30, 255});
  EXPECT_TRUE(same(c.pixel(2, 3), {10, 20, 30, 255}));
  EXPECT_TRUE(same(c.pixel(4, 5), {10, 20, 30, 255}));
  EXPECT_TRUE(same(c.pixel(5, 5), {255, 255, 255, 255}));  // x = 5 is outside [2, 5)
  EXPECT_TRUE(same(c.pixel(4, 6), {255, 255, 255, 255}));
  EXPECT_TRUE(same(c.pixel(1, 3), {255, 255, 255, 255}));
  EXPECT_THROW((void)c.pixel(10, 0), std::out_of_range);
}

TEST(Canvas, BlendMixesByCoverage) {
  ex::Canvas c(2, 1, {0, 0, 0, 255});
  c.blend(0, 0, {200, 100, 50, 255}, 0.5);
  EXPECT_TRUE(same(c.pixel(0, 0), {100, 50, 25, 255}));
  c.blend(5, 5, {255, 255, 255, 255});  // outside: ignored, no crash
  EXPECT_TRUE(same(c.pixel(1, 0), {0, 0, 0, 255}));
}

TEST(Canvas, ThickLineCoversItsAxisAndNotFarAway) {
  ex::Canvas c(40, 40);
  c.line(5, 20, 35, 20, {0, 0, 0, 255}, 3);
  EXPECT_TRUE(same(c.pixel(20, 19), {0, 0, 0, 255}));  // centre row (pixel centre 19.5 is 0.5 from the axis)
  EXPECT_TRUE(same(c.pixel(20, 25), {255, 255, 255, 255}));
  EXPECT_TRUE(same(c.pixel(2, 20), {255, 255, 255, 255}));  // beyond the end cap
}

TEST(Canvas, DashedLineLeavesGaps) {
  ex::Canvas c(100, 10);
  c.line(0, 4.5, 100, 4.5, {0, 0, 0, 255}, 1, 10);  // through the centres of row 4
  int dark = 0;
  for (int x = 0; x < 100; ++x) dark += c.pixel(x, 4).r < 128 ? 1 : 0;
  EXPECT_GT(dark, 30);
  EXPECT_LT(dark, 70);
}

TEST(Chart, TicksAreNiceAndFormattedShort) {
  const auto t = ex::nice_ticks(0, 9.3, false, 6);
  ASSERT_GE(t.size(), 4u);
  EXPECT_DOUBLE_EQ(t.front(), 0);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 2);
  const auto l = ex::nice_ticks(1.5, 70, true);
  EXPECT_EQ(l.front(), 2);  // 1 is below the range; 2 and 5 appear only on short log ranges
  EXPECT_EQ(l.back(), 50);
  EXPECT_EQ(ex::format_tick(0.25), "0.25");
  EXPECT_EQ(ex::format_tick(8192), "8192");
  EXPECT_EQ(ex::format_tick(20), "20");
  EXPECT_EQ(ex::format_tick(1.0 / 3), "0.333");
}

TEST(Chart, BarLandsAtItsCategoryWithItsColourAndHeight) {
  ex::Chart chart;
  chart.kind = ex::ChartKind::bars;
  chart.title = "t";
  chart.categories = {"a", "b"};
  chart.y_min = 0;
  ex::ChartSeries s;
  s.name = "only";
  s.color = {200, 10, 10, 255};
  s.mark = ex::Mark::bar;
  s.x = {0, 1};
  s.y = {10, 5};
  chart.series.push_back(s);
  std::vector<double> area;
  const ex::Canvas c = ex::render_chart(chart, 800, 500, &area);
  ASSERT_EQ(area.size(), 4u);
  const double left = area[0], top = area[1], right = area[2], bottom = area[3];
  const double slot = (right - left) / 2;
  const int cx_a = static_cast<int>(left + slot * 0.5), cx_b = static_cast<int>(left + slot * 1.5);
  // Bar a (10) is twice as tall as bar b (5); both start on the x axis (y = 0).
  auto bar_top = [&](int x) {
    int y = static_cast<int>(bottom) - 3;
    while (y > top && same(c.pixel(x, y), s.color)) --y;
    return y;
  };
  EXPECT_TRUE(same(c.pixel(cx_a, static_cast<int>(bottom) - 3), s.color));
  EXPECT_TRUE(same(c.pixel(cx_b, static_cast<int>(bottom) - 3), s.color));
  const double h_a = bottom - bar_top(cx_a), h_b = bottom - bar_top(cx_b);
  EXPECT_NEAR(h_a / h_b, 2.0, 0.05);
  // Between the two bars there is no bar colour.
  EXPECT_FALSE(same(c.pixel(static_cast<int>(left + slot), static_cast<int>(bottom) - 3), s.color));
}

TEST(Chart, LineChartDrawsPointsWhereTheAxesPutThem) {
  ex::Chart chart;
  chart.kind = ex::ChartKind::line;
  chart.x_ticks = {0, 10};
  ex::ChartSeries s;
  s.name = "line";
  s.color = {10, 150, 10, 255};
  s.x = {0, 10};
  s.y = {0, 10};
  chart.series.push_back(s);
  chart.y_min = 0;
  std::vector<double> area;
  const ex::Canvas c = ex::render_chart(chart, 600, 400, &area);
  // The segment's midpoint (5, 5) lies on the diagonal of the data range; find the series colour near the
  // pixel the axes map it to.
  bool found = false;
  for (int x = static_cast<int>(area[0]); x < area[2] && !found; ++x)
    for (int y = static_cast<int>(area[1]); y < area[3] && !found; ++y) found = same(c.pixel(x, y), s.color);
  EXPECT_TRUE(found);
}

TEST(Chart, WritesAPngFile) {
  ex::Canvas c(30, 20, {1, 2, 3, 255});
  const auto file = std::filesystem::path(::testing::TempDir()) / "streamlab_chart_test.png";
  if (!ex::charts_available()) {
    EXPECT_THROW(ex::save_png(c, file), std::runtime_error);
    GTEST_SKIP() << "built without stb";
  }
  ex::save_png(c, file);
  std::ifstream in(file, std::ios::binary);
  std::string head(8, '\0');
  in.read(head.data(), 8);
  EXPECT_EQ(head, std::string("\x89PNG\r\n\x1a\n", 8));
  // IHDR carries width and height big-endian at bytes 16..23.
  const std::string png = ex::encode_png(c);
  ASSERT_GT(png.size(), 24u);
  auto be32 = [&](std::size_t i) {
    return (static_cast<unsigned>(static_cast<unsigned char>(png[i])) << 24) |
           (static_cast<unsigned>(static_cast<unsigned char>(png[i + 1])) << 16) |
           (static_cast<unsigned>(static_cast<unsigned char>(png[i + 2])) << 8) |
           static_cast<unsigned>(static_cast<unsigned char>(png[i + 3]));
  };
  EXPECT_EQ(be32(16), 30u);
  EXPECT_EQ(be32(20), 20u);
  std::filesystem::remove(file);
}

TEST(Chart, TextPutsInkInsideItsBox) {
  if (!ex::charts_available()) GTEST_SKIP() << "built without stb";
  ex::Canvas c(200, 40);
  c.text(10, 10, "E1 8", {0, 0, 0, 255}, 2);
  int ink = 0, outside = 0;
  const int w = ex::Canvas::text_width("E1 8", 2), h = ex::Canvas::text_height(2);
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 200; ++x) {
      if (c.pixel(x, y).r >= 128) continue;
      const bool in_box = x >= 10 && x < 10 + w && y >= 10 && y < 10 + h + 4;
      (in_box ? ink : outside) += 1;
    }
  EXPECT_GT(ink, 40);
  EXPECT_EQ(outside, 0);
}
