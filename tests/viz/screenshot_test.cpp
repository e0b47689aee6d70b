// Renders the bundled pair with the real app under xvfb-run and checks the PNG: its size, and each span
// drawn in its kind's colour, in the right lane, at the x its times map to. Also the failure paths: a
// missing, malformed or mismatched trace, a bad flag and a failed write each give a message on stderr and exit
// 2 or 4 with nothing written (an existing file untouched), never a crash.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
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

// Runs streamlab-viz under its own Xvfb (24-bit: the GL visual needs it) and writes <name>.png. `limit`
// is a shell command run first in the viewer's own shell (e.g. a file size limit).
Result run_viz(const std::string& name, const std::string& args, const std::string& limit = "", bool remove_old = true) {
  fs::create_directories(kOut);
  Result r;
  r.png = kOut / (name + ".png");
  const fs::path err = kOut / (name + ".stderr");
  if (remove_old) fs::remove(r.png);
  const std::string viz = std::string(STREAMLAB_VIZ_EXE) + " " + args + " --screenshot " + r.png.string();
  // The viewer's own exit status, written by its shell: xvfb-run's is sometimes 5 instead ("problem while
  // cleaning up temporary directory", seen when the viewer exits at once, in CI and beside other X servers).
  const fs::path code = kOut / (name + ".exit");
  fs::remove(code);
  const std::string in_shell = (limit.empty() ? "" : limit + "; ") + viz + "; echo $? > " + code.string();
  // -a looks for a free display from -n on; starting from a number of this process's own keeps two
  // xvfb-runs started at once (another build's tests, a viewer benchmark) from racing for display 99.
  const std::string cmd = std::string(STREAMLAB_XVFB_RUN) + " -a -n " + std::to_string(100 + ::getpid() % 20000) +
                          " -s '-screen 0 1920x1200x24' sh -c '" + in_shell + "' 2> " + err.string();
  const int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  // The viewer ran and its shell wrote its status: that is the result, whatever xvfb-run said after.
  if (int viewer = -1; std::ifstream(code) >> viewer) r.exit_code = viewer;
  std::ifstream in(err);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Leftover temporary files next to `png` (the viewer's writes go through a uniquely named temporary).
std::vector<std::string> temporaries_of(const fs::path& png) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(png.parent_path())) {
    const auto n = e.path().filename().string();
    if (n.rfind(png.filename().string() + ".tmp.", 0) == 0) out.push_back(n);
  }
  return out;
}

// A file already at the screenshot path: a failure must leave it as it was, and no temporary behind.
constexpr const char* kPrevious = "previous screenshot";
fs::path previous_screenshot(const std::string& name) {
  fs::create_directories(kOut);
  const fs::path png = kOut / (name + ".png");
  std::ofstream(png, std::ios::binary) << kPrevious;
  return png;
}
void expect_untouched(const fs::path& png) {
  EXPECT_EQ(slurp(png), kPrevious);
  EXPECT_TRUE(temporaries_of(png).empty());
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

TEST(Screenshot, StreamLanesOnTheTracesOwnClocksInKindColours) {
  const Result r = run_viz("pair", data("pred.json") + " " + data("meas.json") +
                                       " --lanes stream --align none --size 1280x720 --view 0:1ms");
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

  // Lanes, top to bottom: trace A (pred.json) streams 1, 2, 3 and its SM strip, then trace B (meas.json)
  // streams 1, 2, 3: one trace's streams together, never interleaved by stream number.
  const double lane_y[6] = {green[0].mid(), green[1].mid(), teal[0].mid(), green[2].mid(), green[3].mid(), teal[1].mid()};
  const int blue_lane[4] = {0, 1, 3, 4};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(blue[static_cast<std::size_t>(i)].mid(), lane_y[blue_lane[i]], 1.0) << "blue " << i;
  EXPECT_NEAR(orange[0].mid(), lane_y[0], 1.0);
  EXPECT_NEAR(orange[1].mid(), lane_y[3], 1.0);
  for (int i = 0; i + 1 < 6; ++i) EXPECT_LT(lane_y[i], lane_y[i + 1]);
  // Streams of one trace sit close; the next trace starts after its SM strip and a group gap.
  EXPECT_GT(lane_y[3] - lane_y[2], 2 * (lane_y[1] - lane_y[0]));
  for (const auto& b : green) EXPECT_GE(b.y1 - b.y0 + 1, 12) << "a lane row is about 16 px tall";

  // x: the starts of up0 in A (0 us) and k1 in B (460 us) fix the time -> pixel map; every other span
  // must sit where its times map to: its left edge within 1.5 px, its right edge within 2.5 px (the
  // viewer leaves a one-pixel gap after each wide span).
  const double px_per_us = (green[3].x0 - blue[0].x0) / 460.0;
  const double x_at_0 = blue[0].x0;
  EXPECT_GT(x_at_0, 60.0);  // right of the lane labels
  EXPECT_LT(x_at_0, 200.0);
  EXPECT_GT(px_per_us * 1000.0, 1000.0);  // the 1 ms view spans most of the 1280 px window
  EXPECT_LT(px_per_us * 1000.0, 1280.0);
  auto expect_at = [&](const Band& b, double start_us, double end_us, const char* what) {
    EXPECT_NEAR(b.x0, x_at_0 + start_us * px_per_us, 1.5) << what;
    EXPECT_NEAR(b.x1, x_at_0 + end_us * px_per_us, 2.5) << what;
  };
  expect_at(green[0], 200, 500, "k0 A");
  expect_at(green[1], 400, 800, "k1 A");
  expect_at(green[2], 240, 600, "k0 B");
  expect_at(green[3], 460, 900, "k1 B");
  expect_at(blue[0], 0, 200, "up0 A");
  expect_at(blue[1], 200, 400, "up1 A");
  expect_at(blue[2], 10, 230, "up0 B");
  expect_at(blue[3], 230, 450, "up1 B");
  expect_at(orange[0], 500, 600, "down0 A");
  expect_at(orange[1], 600, 720, "down0 B");
  expect_at(teal[0], 0, 100, "ms0 A");
  expect_at(teal[1], 5, 125, "ms0 B");

  // A's SM occupancy strip, between its stream 3 and B's stream 1: 4 of 8 SMs busy over [200, 400) us,
  // all 8 over [400, 500).
  auto bar_height = [&](double t_us) {
    const int x = static_cast<int>(std::lround(x_at_0 + t_us * px_per_us));
    int n = 0;
    for (int y = static_cast<int>(lane_y[2]) + 10; y < static_cast<int>(lane_y[3]) - 10; ++y)
      n += img.is(x, y, kOccupancyFill) ? 1 : 0;
    return n;
  };
  EXPECT_EQ(bar_height(100), 0);
  const int full = bar_height(450);
  EXPECT_GE(full, 12);
  EXPECT_NEAR(bar_height(300), full / 2.0, 2.0);
  EXPECT_NEAR(bar_height(700), full / 2.0, 2.0);
}

TEST(Screenshot, EngineLanesAlignedOnTheFirstOp) {
  // Default lanes (engine) and alignment (first device span at 0): B's first op (ms0) starts 5 us after
  // its prepare(), so every B span is drawn 5 us earlier than on B's own clock.
  const Result r = run_viz("engine", data("pred.json") + " " + data("meas.json") + " --size 1280x720 --view 0:1ms");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Image img = load(r.png);
  auto by_y_then_x = [](std::vector<Band> b) {
    std::sort(b.begin(), b.end(), [](const Band& a, const Band& c) { return std::tie(a.y0, a.x0) < std::tie(c.y0, c.x0); });
    return b;
  };
  const auto blue = by_y_then_x(bands(img, kind_color(model::OpKind::h2d)));
  const auto green = by_y_then_x(bands(img, kind_color(model::OpKind::kernel)));
  const auto orange = by_y_then_x(bands(img, kind_color(model::OpKind::d2h)));
  const auto teal = by_y_then_x(bands(img, kind_color(model::OpKind::memset)));
  ASSERT_EQ(blue.size(), 4u);
  ASSERT_EQ(green.size(), 4u);
  ASSERT_EQ(orange.size(), 2u);
  ASSERT_EQ(teal.size(), 2u);
  // Lanes: copy H2D (A, B), SMs (A: 2 rows, B: 2 rows; the memset is an SM op), copy D2H (A, B).
  EXPECT_NEAR(blue[0].mid(), blue[1].mid(), 1.0);  // up0 and up1 share A's copy H2D lane
  EXPECT_NEAR(blue[2].mid(), blue[3].mid(), 1.0);
  EXPECT_LT(blue[1].mid(), blue[2].mid());
  EXPECT_LT(blue[3].mid(), green[0].mid());
  EXPECT_NEAR(teal[0].mid(), green[0].mid(), 1.0);  // ms0 and k0 in row 0 of A's SMs
  EXPECT_LT(green.back().mid(), orange[0].mid());
  EXPECT_LT(orange[0].mid(), orange[1].mid());
  // Pixel map from A (not shifted: its first span starts at 0): up0 A at 0 us, up1 A at 200 us.
  const double px_per_us = (blue[1].x0 - blue[0].x0) / 200.0;
  const double x_at_0 = blue[0].x0;
  EXPECT_NEAR(blue[2].x0, x_at_0 + 5 * px_per_us, 1.5);    // up0 B: 10 us on its clock
  EXPECT_NEAR(blue[3].x0, x_at_0 + 225 * px_per_us, 1.5);  // up1 B: 230 us on its clock
  EXPECT_NEAR(teal[1].x0, x_at_0 + 0 * px_per_us, 1.5);    // ms0 B: its first span
  EXPECT_NEAR(orange[1].x0, x_at_0 + 595 * px_per_us, 1.5);
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

TEST(Screenshot, MissingTraceIsAnErrorAndWritesNothing) {
  // A failure is never drawn over a result.
  const fs::path png = previous_screenshot("missing");
  const Result r = run_viz("missing", data("pred.json") + " " + data("does_not_exist.json"), "", /*remove_old=*/false);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("streamlab-viz: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does_not_exist.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
  expect_untouched(png);
}

TEST(Screenshot, MalformedTraceIsAnErrorAndWritesNothing) {
  fs::create_directories(kOut);
  const fs::path bad = kOut / "malformed.json";
  std::ofstream(bad) << "{\"traceEvents\": [ {\"ph\": \"X\",";
  const Result r = run_viz("malformed", bad.string() + " " + data("meas.json"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("malformed.json"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(r.png));
}

TEST(Screenshot, MismatchedTracesAreAnErrorAndWriteNothing) {
  const fs::path png = previous_screenshot("mismatch");
  const Result r = run_viz("mismatch", data("pred.json") + " " + data("other_workload.json"), "", false);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("different workloads"), std::string::npos) << r.err;
  expect_untouched(png);
}

TEST(Screenshot, AlignOnAMissingOpIsAnErrorAndWritesNothing) {
  const Result r = run_viz("align", data("pred.json") + " " + data("meas.json") + " --align op:nope");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("'nope'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(r.png));
}

TEST(Screenshot, AFullDiskIsAnErrorNotASuccessAndLeavesNoFile) {
  // A file size limit of 16 blocks makes the PNG's write fail part way, as a full disk does.
  const fs::path png = previous_screenshot("full");
  const Result r = run_viz("full", data("pred.json") + " " + data("meas.json") + " --size 1280x720", "ulimit -f 16",
                           /*remove_old=*/false);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("streamlab-viz: error: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("wrote"), std::string::npos) << r.err;
  expect_untouched(png);
}

TEST(Screenshot, WritesThroughAUniqueTemporaryName) {
  // The old fixed "OUT.png.tmp" belonged to whoever else wrote it: it must not be touched.
  fs::create_directories(kOut);
  const fs::path png = kOut / "unique.png";
  const fs::path fixed_tmp = png.string() + ".tmp";
  std::ofstream(fixed_tmp, std::ios::binary) << "someone else's file";
  const Result r = run_viz("unique", data("pred.json") + " --size 640x360");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(load(png).w, 640);
  EXPECT_EQ(slurp(fixed_tmp), "someone else's file");
  EXPECT_TRUE(temporaries_of(png).empty());
  fs::remove(fixed_tmp);
}

TEST(Screenshot, TimingAccountsForReadingPreparingAndTheFirstFrame) {
  // --timing: one account to the first frame whose parts add up (CPU = read + prepare + first frame =
  // user + sys, to the printed digits), with the faults and the peak it took; the picture is the same.
  const std::string args = data("pred.json") + " " + data("meas.json") + " --size 1280x720 --frames 1";
  const Result plain = run_viz("timing-plain", args);
  const Result r = run_viz("timing", args + " --timing");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::regex line(
      "timing: read ([0-9.]+) s, prepare ([0-9.]+) s, first frame ([0-9.]+) s .* total to first frame ([0-9.]+) s "
      "CPU \\(([0-9.]+) user \\+ ([0-9.]+) sys, ([0-9]+) minor faults\\) .*peak RSS ([0-9]+) MiB");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, line)) << r.err;
  const auto at = [&m](std::size_t i) { return std::stod(m[i].str()); };
  EXPECT_NEAR(at(1) + at(2) + at(3), at(4), 0.0025);
  EXPECT_NEAR(at(5) + at(6), at(4), 0.0025);
  EXPECT_GT(at(7), 0);  // the traces' arrays are memory the viewer touches first
  EXPECT_GT(at(8), 0);
  EXPECT_EQ(slurp(r.png), slurp(plain.png));
}

TEST(Screenshot, BadFlagsExitWithUsageError) {
  for (const char* args : {" --size 12xz", " --bogus-flag", " --lanes streams", " --align middle"}) {
    const Result r = run_viz("badflag", data("pred.json") + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("streamlab-viz: error: "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(r.png));
  }
}

}  // namespace
}  // namespace streamlab::viz
