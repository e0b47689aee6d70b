// Renders the bundled pair with the real app under xvfb-run and checks the PNG: its size, and each span
// drawn in its kind's colour, in the right lane, at the x its times map to. Also the failure paths: a
// missing, malformed or mismatched trace gives a message on stderr and a non-zero exit, never a crash.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <stb_image.h>

#include "streamlab/viz/palette.hpp"

namespace streamlab::viz {
namespace {

namespace fs = std::filesystem;
const fs::path kData = STREAMLAB_VIZ_TEST_DATA;
const fs::path kOut = STREAMLAB_VIZ_OUT_DIR;

struct Result {
  int exit_code = -1;
  std::string err;  ///< stderr
  fs::path png;
};

// Runs streamlab-viz under its own Xvfb (24-bit: the GL visual needs it) and writes <name>.png.
Result run_viz(const std::string& name, const std::string& args) {
  fs::create_directories(kOut);
  Result r;
  r.png = kOut / (name + ".png");
  const fs::path err = kOut / (name + ".stderr");
  fs::remove(r.png);
  std::string cmd = std::string(STREAMLAB_XVFB_RUN) + " -a -s '-screen 0 1920x1200x24' " + STREAMLAB_VIZ_EXE + " " +
                    args + " --screenshot " + r.png.string() + " 2> " + err.string();
  const int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

std::string data(const char* file) { return (kData / file).string(); }

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> rgb;
  [[nodiscard]] bool is(int x, int y, Rgba c, int tol = 3) const {
    const auto* p = &rgb[(static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)) * 3];
    return std::abs(p[0] - c.r) <= tol && std::abs(p[1] - c.g) <= tol && std::abs(p[2] - c.b) <= tol;
  }
};

Image load(const fs::path& png) {
  Image img;
  int n = 0;
  unsigned char* px = stbi_load(png.c_str(), &img.w, &img.h, &n, 3);
  if (px == nullptr) return img;
  img.rgb.assign(px, px + static_cast<std::size_t>(img.w) * static_cast<std::size_t>(img.h) * 3);
  stbi_image_free(px);
  return img;
}

// A horizontal band of one colour: consecutive pixel rows that each hold a run of it at least
// `min_run` pixels long (longer than any legend swatch or text glyph).
struct Band {
  int y0 = 0, y1 = 0;  ///< inclusive
  int x0 = 0, x1 = 0;  ///< union of the runs, x1 exclusive
  [[nodiscard]] double mid() const { return 0.5 * (y0 + y1); }
};

std::vector<Band> bands(const Image& img, Rgba c, int min_run = 20) {
  std::vector<Band> out;
  std::vector<std::size_t> open;  // bands that reached the previous row
  for (int y = 0; y < img.h; ++y) {
    std::vector<std::size_t> next;
    for (int x = 0; x < img.w;) {
      if (!img.is(x, y, c)) {
        ++x;
        continue;
      }
      int e = x;
      while (e < img.w && img.is(e, y, c)) ++e;
      if (e - x >= min_run) {
        auto joined = std::find_if(open.begin(), open.end(), [&](std::size_t b) { return out[b].x0 < e && x < out[b].x1; });
        if (joined != open.end()) {
          Band& b = out[*joined];
          b.y1 = y, b.x0 = std::min(b.x0, x), b.x1 = std::max(b.x1, e);
          next.push_back(*joined);
        } else {
          out.push_back({y, y, x, e});
          next.push_back(out.size() - 1);
        }
      }
      x = e;
    }
    open = next;
  }
  std::erase_if(out, [](const Band& b) { return b.y1 - b.y0 + 1 < 8; });  // plot lines, underlines
  std::sort(out.begin(), out.end(), [](const Band& a, const Band& b) { return a.y0 < b.y0; });
  return out;
}

TEST(Screenshot, BundledPairIsDrawnLaneByLaneInKindColours) {
  const Result r = run_viz("pair", data("pred.json") + " " + data("meas.json") + " --size 1280x720 --view 0:1ms");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Image img = load(r.png);
  ASSERT_EQ(img.w, 1280);
  ASSERT_EQ(img.h, 720);

  const auto green = bands(img, kind_color(model::OpKind::kernel));
  const auto blue = bands(img, kind_color(model::OpKind::h2d));
  const auto orange = bands(img, kind_color(model::OpKind::d2h));
  const auto teal = bands(img, kind_color(model::OpKind::memset));
  // Streams 1 and 2 have a kernel and an upload in both traces; stream 1 a download; stream 3 a memset.
  ASSERT_EQ(green.size(), 4u);
  ASSERT_EQ(blue.size(), 4u);
  ASSERT_EQ(orange.size(), 2u);
  ASSERT_EQ(teal.size(), 2u);

  // Lanes, top to bottom: s1 pred, s1 meas, s2 pred, s2 meas, s3 pred, s3 meas. Spans of one lane share
  // its rows.
  const double lane_y[6] = {green[0].mid(), green[1].mid(), green[2].mid(), green[3].mid(), teal[0].mid(), teal[1].mid()};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(blue[static_cast<std::size_t>(i)].mid(), lane_y[i], 1.0) << "lane " << i;
  EXPECT_NEAR(orange[0].mid(), lane_y[0], 1.0);
  EXPECT_NEAR(orange[1].mid(), lane_y[1], 1.0);
  for (int i = 0; i + 1 < 6; ++i) EXPECT_LT(lane_y[i], lane_y[i + 1]);
  // Each measured lane sits directly under its predicted lane: closer than the next stream's lane.
  for (int s = 0; s < 2; ++s) EXPECT_LT(lane_y[2 * s + 1] - lane_y[2 * s], lane_y[2 * s + 2] - lane_y[2 * s + 1]);
  for (const auto& b : green) EXPECT_GE(b.y1 - b.y0 + 1, 12) << "a lane row is about 16 px tall";

  // x: the starts of up0 predicted (0 us) and k1 measured (460 us) fix the time -> pixel map; every other
  // span must sit where its times map to: its left edge within 1.5 px, its right edge within 2.5 px (the
  // viewer leaves a one-pixel gap after each wide span).
  const double px_per_us = (green[3].x0 - blue[0].x0) / 460.0;
  const double x_at_0 = blue[0].x0;
  EXPECT_GT(x_at_0, 100.0);  // right of the lane labels
  EXPECT_LT(x_at_0, 200.0);
  EXPECT_GT(px_per_us * 1000.0, 1000.0);  // the 1 ms view spans most of the 1280 px window
  EXPECT_LT(px_per_us * 1000.0, 1280.0);
  auto expect_at = [&](const Band& b, double start_us, double end_us, const char* what) {
    EXPECT_NEAR(b.x0, x_at_0 + start_us * px_per_us, 1.5) << what;
    EXPECT_NEAR(b.x1, x_at_0 + end_us * px_per_us, 2.5) << what;
  };
  expect_at(green[0], 200, 500, "k0 predicted");
  expect_at(green[1], 240, 600, "k0 measured");
  expect_at(green[2], 400, 800, "k1 predicted");
  expect_at(green[3], 460, 900, "k1 measured");
  expect_at(blue[0], 0, 200, "up0 predicted");
  expect_at(blue[1], 10, 230, "up0 measured");
  expect_at(blue[2], 200, 400, "up1 predicted");
  expect_at(blue[3], 230, 450, "up1 measured");
  expect_at(orange[0], 500, 600, "down0 predicted");
  expect_at(orange[1], 600, 720, "down0 measured");
  expect_at(teal[0], 0, 100, "ms0 predicted");
  expect_at(teal[1], 5, 125, "ms0 measured");

  // SM occupancy strip below the lanes: 4 of 8 SMs busy over [200, 400) us, all 8 over [400, 500).
  auto bar_height = [&](double t_us) {
    const int x = static_cast<int>(std::lround(x_at_0 + t_us * px_per_us));
    int n = 0;
    for (int y = static_cast<int>(lane_y[5]) + 10; y < img.h; ++y) n += img.is(x, y, kOccupancyFill) ? 1 : 0;
    return n;
  };
  EXPECT_EQ(bar_height(100), 0);
  const int full = bar_height(450);
  EXPECT_GE(full, 12);
  EXPECT_NEAR(bar_height(300), full / 2.0, 2.0);
  EXPECT_NEAR(bar_height(700), full / 2.0, 2.0);
}

TEST(Screenshot, SelectionWithWorkloadOutlinesDependenciesAndDependents) {
  const Result r = run_viz("select", data("pred.json") + " " + data("meas.json") + " --workload " +
                                         data("workload.json") + " --select k0 --size 1280x720 --view 0:1ms");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Image img = load(r.png);
  ASSERT_EQ(img.w, 1280);
  // up0 (k0's dependency) is outlined in cyan, down0 (its dependent) in magenta, k0 itself in white:
  // each outline is a long horizontal line above its span.
  EXPECT_EQ(bands(img, kDependencyOutline, 20).size(), 0u);  // outlines are 2 px: no 8-row band...
  auto has_line = [&](Rgba c) {
    int rows = 0;
    for (int y = 0; y < img.h; ++y) {
      int run = 0, best = 0;
      for (int x = 0; x < img.w; ++x) {
        run = img.is(x, y, c, 8) ? run + 1 : 0;
        best = std::max(best, run);
      }
      rows += best >= 40 ? 1 : 0;
    }
    return rows;
  };
  EXPECT_GE(has_line(kDependencyOutline), 2);  // ...but long lines: top and bottom edges, both traces
  EXPECT_GE(has_line(kDependentOutline), 2);
  EXPECT_GE(has_line(kSelectedOutline), 2);
}

TEST(Screenshot, MissingMeasuredTraceIsAMessageNotACrash) {
  const Result r = run_viz("missing", data("pred.json") + " " + data("does_not_exist.json"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("does_not_exist.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(r.png));  // the screenshot shows the message
}

TEST(Screenshot, MalformedPredictedTraceIsAMessageNotACrash) {
  fs::create_directories(kOut);
  const fs::path bad = kOut / "malformed.json";
  std::ofstream(bad) << "{\"traceEvents\": [ {\"ph\": \"X\",";
  const Result r = run_viz("malformed", bad.string() + " " + data("meas.json"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("malformed.json"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(r.png));
}

TEST(Screenshot, MismatchedTracesAreAMessageNotACrash) {
  const Result r = run_viz("mismatch", data("pred.json") + " " + data("other_workload.json"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("different workloads"), std::string::npos) << r.err;
}

TEST(Screenshot, BadFlagExitsWithUsageError) {
  const Result r = run_viz("badsize", data("pred.json") + " --size 12xz");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--size"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(r.png));
}

}  // namespace
}  // namespace streamlab::viz
