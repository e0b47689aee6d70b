#pragma once
/// \file chart.hpp
/// A small software chart renderer: an RGBA framebuffer with anti-aliased lines, rectangles, markers and
/// bitmap text (stb_easy_font glyphs, scaled by whole pixels so they stay crisp), and line / grouped-bar
/// charts with axes, ticks, a legend and a title, written as PNG (stb_image_write). No plotting program,
/// no display. Text and PNG need Debian's libstb-dev; without it charts_available() is false, text is
/// not drawn and save_png throws (`streamlab experiment render DIR` re-renders later on a machine that
/// has it).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace streamlab::experiments {

struct Rgba {
  std::uint8_t r = 0, g = 0, b = 0, a = 255;
  friend bool operator==(const Rgba&, const Rgba&) = default;
};

/// Whether this build can draw text and write PNG files (stb found at configure time).
[[nodiscard]] bool charts_available() noexcept;

/// An RGBA8 framebuffer, row-major, origin top-left; coordinates are pixel units (pixel (x, y) covers
/// [x, x+1) x [y, y+1)).
class Canvas {
 public:
  Canvas(int width, int height, Rgba background = {255, 255, 255, 255});

  [[nodiscard]] int width() const noexcept { return width_; }
  [[nodiscard]] int height() const noexcept { return height_; }
  [[nodiscard]] Rgba pixel(int x, int y) const;
  [[nodiscard]] const std::vector<std::uint8_t>& rgba() const noexcept { return pixels_; }

  /// Source-over blend of `c` at (x, y) with extra coverage in [0, 1]; outside the canvas: nothing.
  void blend(int x, int y, Rgba c, double coverage = 1.0) noexcept;
  /// Fills the pixels whose centres lie in [x0, x1) x [y0, y1).
  void fill_rect(double x0, double y0, double x1, double y1, Rgba c) noexcept;
  /// Outline of that rectangle, `w` pixels wide, inside it.
  void stroke_rect(double x0, double y0, double x1, double y1, Rgba c, int w = 1) noexcept;
  /// Anti-aliased segment of width `w`; `dash` > 0 draws dashes and gaps of that length.
  void line(double x0, double y0, double x1, double y1, Rgba c, double w = 1.0, double dash = 0) noexcept;
  /// Anti-aliased polyline (dash pattern continues across vertices).
  void polyline(const std::vector<std::pair<double, double>>& pts, Rgba c, double w = 1.0,
                double dash = 0) noexcept;
  void disk(double cx, double cy, double r, Rgba c) noexcept;
  /// A diamond (rotated square) of half-diagonal r with a border of `border` colour.
  void diamond(double cx, double cy, double r, Rgba fill, Rgba border) noexcept;

  /// Text whose top-left corner is (x, y); glyphs are scaled by `scale` whole pixels.
  void text(double x, double y, std::string_view s, Rgba c, int scale = 2);
  /// Text rotated 90 degrees counter-clockwise (reads bottom to top); (x, y) is its top-left after
  /// rotation.
  void text_vertical(double x, double y, std::string_view s, Rgba c, int scale = 2);
  [[nodiscard]] static int text_width(std::string_view s, int scale = 2);
  [[nodiscard]] static int text_height(int scale = 2);

 private:
  int width_, height_;
  std::vector<std::uint8_t> pixels_;
};

/// Writes the canvas as PNG, atomically (temporary file + rename). Throws when !charts_available().
void save_png(const Canvas& canvas, const std::filesystem::path& file);
/// The PNG bytes (tests read them back).
[[nodiscard]] std::string encode_png(const Canvas& canvas);

enum class ChartKind : std::uint8_t { line, bars };

/// How a series is drawn. Line charts: solid / dashed lines with point markers. Bar charts: `bar`
/// series sit side by side in each category; `marker` and `tick` series annotate the bar series named by
/// ChartSeries::slot (or the category's centre when slot < 0).
enum class Mark : std::uint8_t { line_solid, line_dashed, bar, marker, tick };

struct ChartSeries {
  std::string name;
  Rgba color;
  Mark mark = Mark::line_solid;
  std::vector<double> x;  ///< line charts: data x; bar charts: category index
  std::vector<double> y;  ///< NaN = no value (a gap)
  int slot = -1;          ///< bar charts: the bar series (index among bar series) a marker/tick belongs to
  bool in_legend = true;
  bool markers = true;    ///< line charts: a dot at each point
};

struct Chart {
  std::string title;
  std::string subtitle;
  std::string x_label;
  std::string y_label;
  ChartKind kind = ChartKind::line;
  std::vector<std::string> categories;  ///< bar charts
  bool log_x = false;
  bool log_y = false;
  std::vector<double> x_ticks;          ///< explicit x ticks (line charts); empty = automatic
  std::optional<double> y_min;          ///< forced lower bound of the y axis (linear axes)
  std::vector<ChartSeries> series;
  /// Extra legend rows (a swatch and text) explaining the styles, e.g. "solid = measured".
  std::vector<std::pair<Mark, std::string>> style_legend;
  std::vector<std::string> notes;       ///< small lines under the plot (wrapped to the width)
  /// Bar charts: print each bar's value above it (3 significant digits), so values a log axis cannot
  /// show (0) or that are too close to read still come across.
  bool bar_labels = false;
  /// Preferred size in pixels (render_chart's callers use it; many categories want a wider chart).
  int width = 1200;
  int height = 720;
};

/// A qualitative palette (colour-blind-safe order); index wraps.
[[nodiscard]] Rgba palette(std::size_t i) noexcept;

/// Draws the chart. Geometry of the plot area is reported through `plot_area` (x0, y0, x1, y1) when
/// not null, so tests can check where things land.
[[nodiscard]] Canvas render_chart(const Chart& chart, int width = 1200, int height = 720,
                                  std::vector<double>* plot_area = nullptr);

/// Tick positions for an axis over [lo, hi]: "nice" steps (1, 2, 5 x 10^k) for linear axes, decades
/// (and 2, 5 in between when the range is short) for log axes.
[[nodiscard]] std::vector<double> nice_ticks(double lo, double hi, bool log, int target = 6);
/// "1.5", "20", "0.25", "1e+06": at most 3 significant digits, no trailing zeros.
[[nodiscard]] std::string format_tick(double v);

}  // namespace streamlab::experiments
