// The software chart renderer (chart.hpp): framebuffer primitives, text through stb_easy_font's segment
// glyphs, PNG through stb_image_write, and the line / grouped-bar chart layout.
#include "streamlab/experiments/chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "streamlab/model/file_io.hpp"

#if STREAMLAB_HAVE_STB
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
// stb's zlib writer trips GCC's -Wnull-dereference after inlining (its stretchy buffers); not our code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <stb_easy_font.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop
#endif

namespace streamlab::experiments {

bool charts_available() noexcept { return STREAMLAB_HAVE_STB != 0; }

namespace {

constexpr Rgba kBlack{0, 0, 0, 255};
constexpr Rgba kAxis{60, 60, 60, 255};
constexpr Rgba kGrid{225, 225, 225, 255};
constexpr Rgba kText{30, 30, 30, 255};
constexpr Rgba kMuted{110, 110, 110, 255};

int clamp_int(double v, int lo, int hi) {
  if (!(v > lo)) return lo;  // also NaN
  if (v > hi) return hi;
  return static_cast<int>(v);
}

// Distance from p to segment ab.
double segment_distance(double px, double py, double ax, double ay, double bx, double by) {
  const double dx = bx - ax, dy = by - ay;
  const double len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  const double qx = ax + t * dx - px, qy = ay + t * dy - py;
  return std::sqrt(qx * qx + qy * qy);
}

}  // namespace

// Canvas -----------------------------------------------------------------------------------------------

Canvas::Canvas(int width, int height, Rgba background)
    : width_(std::max(width, 1)), height_(std::max(height, 1)),
      pixels_(static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * 4) {
  for (std::size_t i = 0; i < pixels_.size(); i += 4) {
    pixels_[i] = background.r;
    pixels_[i + 1] = background.g;
    pixels_[i + 2] = background.b;
    pixels_[i + 3] = background.a;
  }
}

Rgba Canvas::pixel(int x, int y) const {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) throw std::out_of_range("Canvas::pixel outside the canvas");
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)) * 4;
  return {pixels_[i], pixels_[i + 1], pixels_[i + 2], pixels_[i + 3]};
}

void Canvas::blend(int x, int y, Rgba c, double coverage) noexcept {
  if (x < 0 || y < 0 || x >= width_ || y >= height_ || !(coverage > 0)) return;
  const double a = std::min(coverage, 1.0) * c.a / 255.0;
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)) * 4;
  auto mix = [a](std::uint8_t dst, std::uint8_t src) {
    return static_cast<std::uint8_t>(std::lround(src * a + dst * (1.0 - a)));
  };
  pixels_[i] = mix(pixels_[i], c.r);
  pixels_[i + 1] = mix(pixels_[i + 1], c.g);
  pixels_[i + 2] = mix(pixels_[i + 2], c.b);
  pixels_[i + 3] = static_cast<std::uint8_t>(std::lround(255.0 * a + pixels_[i + 3] * (1.0 - a)));
}

void Canvas::fill_rect(double x0, double y0, double x1, double y1, Rgba c) noexcept {
  if (x1 < x0) std::swap(x0, x1);
  if (y1 < y0) std::swap(y0, y1);
  // Pixel x is inside when its centre x + 0.5 lies in [x0, x1).
  const int ix0 = clamp_int(std::ceil(x0 - 0.5), 0, width_), ix1 = clamp_int(std::ceil(x1 - 0.5), 0, width_);
  const int iy0 = clamp_int(std::ceil(y0 - 0.5), 0, height_), iy1 = clamp_int(std::ceil(y1 - 0.5), 0, height_);
  for (int y = iy0; y < iy1; ++y)
    for (int x = ix0; x < ix1; ++x) blend(x, y, c);
}

void Canvas::stroke_rect(double x0, double y0, double x1, double y1, Rgba c, int w) noexcept {
  fill_rect(x0, y0, x1, y0 + w, c);
  fill_rect(x0, y1 - w, x1, y1, c);
  fill_rect(x0, y0 + w, x0 + w, y1 - w, c);
  fill_rect(x1 - w, y0 + w, x1, y1 - w, c);
}

void Canvas::line(double x0, double y0, double x1, double y1, Rgba c, double w, double dash) noexcept {
  polyline({{x0, y0}, {x1, y1}}, c, w, dash);
}

void Canvas::polyline(const std::vector<std::pair<double, double>>& pts, Rgba c, double w, double dash) noexcept {
  if (pts.size() < 2) return;
  const double half = std::max(w, 0.5) / 2.0;
  // Each pixel gets the largest coverage over all pieces, so joints do not double-blend.
  struct Piece { double ax, ay, bx, by; };
  std::vector<Piece> pieces;
  double phase = 0;  // position along the dash pattern
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
    const auto [ax, ay] = pts[i];
    const auto [bx, by] = pts[i + 1];
    if (!std::isfinite(ax) || !std::isfinite(ay) || !std::isfinite(bx) || !std::isfinite(by)) continue;
    const double len = std::hypot(bx - ax, by - ay);
    if (dash <= 0 || len == 0) {
      pieces.push_back({ax, ay, bx, by});
      continue;
    }
    double t = 0;
    while (t < len) {
      const double in_period = std::fmod(phase, 2 * dash);
      const bool on = in_period < dash;
      const double step = std::min(len - t, (on ? dash : 2 * dash) - in_period);
      if (on) {
        const double s0 = t / len, s1 = (t + step) / len;
        pieces.push_back({ax + (bx - ax) * s0, ay + (by - ay) * s0, ax + (bx - ax) * s1, ay + (by - ay) * s1});
      }
      t += step;
      phase += step;
    }
  }
  if (pieces.empty()) return;
  double minx = std::numeric_limits<double>::max(), miny = minx, maxx = -minx, maxy = -minx;
  for (const auto& p : pieces) {
    minx = std::min({minx, p.ax, p.bx});
    maxx = std::max({maxx, p.ax, p.bx});
    miny = std::min({miny, p.ay, p.by});
    maxy = std::max({maxy, p.ay, p.by});
  }
  const int x0 = clamp_int(std::floor(minx - half - 1), 0, width_), x1 = clamp_int(std::ceil(maxx + half + 1), 0, width_);
  const int y0 = clamp_int(std::floor(miny - half - 1), 0, height_), y1 = clamp_int(std::ceil(maxy + half + 1), 0, height_);
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      double d = std::numeric_limits<double>::max();
      for (const auto& p : pieces) d = std::min(d, segment_distance(x + 0.5, y + 0.5, p.ax, p.ay, p.bx, p.by));
      const double cov = std::clamp(half + 0.5 - d, 0.0, 1.0);
      if (cov > 0) blend(x, y, c, cov);
    }
  }
}

void Canvas::disk(double cx, double cy, double r, Rgba c) noexcept {
  const int x0 = clamp_int(std::floor(cx - r - 1), 0, width_), x1 = clamp_int(std::ceil(cx + r + 1), 0, width_);
  const int y0 = clamp_int(std::floor(cy - r - 1), 0, height_), y1 = clamp_int(std::ceil(cy + r + 1), 0, height_);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const double d = std::hypot(x + 0.5 - cx, y + 0.5 - cy);
      blend(x, y, c, std::clamp(r + 0.5 - d, 0.0, 1.0));
    }
}

void Canvas::diamond(double cx, double cy, double r, Rgba fill, Rgba border) noexcept {
  const int x0 = clamp_int(std::floor(cx - r - 1), 0, width_), x1 = clamp_int(std::ceil(cx + r + 1), 0, width_);
  const int y0 = clamp_int(std::floor(cy - r - 1), 0, height_), y1 = clamp_int(std::ceil(cy + r + 1), 0, height_);
  const double inner = std::max(r - 2.0, 0.0);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      // L1 distance scaled to a Euclidean edge distance.
      const double d = (std::abs(x + 0.5 - cx) + std::abs(y + 0.5 - cy)) / std::sqrt(2.0);
      const double edge = r / std::sqrt(2.0), inner_edge = inner / std::sqrt(2.0);
      blend(x, y, border, std::clamp(edge + 0.5 - d, 0.0, 1.0));
      blend(x, y, fill, std::clamp(inner_edge + 0.5 - d, 0.0, 1.0));
    }
}

#if STREAMLAB_HAVE_STB
namespace {
// Quads of one line of text at scale 1, origin (0, 0). stb_easy_font writes 4 vertices of 16 bytes (x, y,
// z floats, RGBA) per quad.
struct Quad { float x0, y0, x1, y1; };
std::vector<Quad> glyph_quads(std::string_view s) {
  std::string text(s);
  std::vector<char> buf(text.size() * 1200 + 256);  // up to ~18 quads of 64 bytes per glyph
  const int n = stb_easy_font_print(0, 0, text.data(), nullptr, buf.data(), static_cast<int>(buf.size()));
  std::vector<Quad> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int q = 0; q < n; ++q) {
    float v[16];
    for (int k = 0; k < 4; ++k) std::memcpy(&v[k * 4], buf.data() + (q * 4 + k) * 16, 12);
    const float xs[4] = {v[0], v[4], v[8], v[12]}, ys[4] = {v[1], v[5], v[9], v[13]};
    out.push_back({*std::min_element(xs, xs + 4), *std::min_element(ys, ys + 4), *std::max_element(xs, xs + 4),
                   *std::max_element(ys, ys + 4)});
  }
  return out;
}
}  // namespace
#endif

void Canvas::text(double x, double y, std::string_view s, Rgba c, int scale) {
#if STREAMLAB_HAVE_STB
  const double ox = std::round(x), oy = std::round(y);
  for (const auto& q : glyph_quads(s))
    fill_rect(ox + q.x0 * scale, oy + q.y0 * scale, ox + q.x1 * scale, oy + q.y1 * scale, c);
#else
  (void)x, (void)y, (void)s, (void)c, (void)scale;
#endif
}

void Canvas::text_vertical(double x, double y, std::string_view s, Rgba c, int scale) {
#if STREAMLAB_HAVE_STB
  // Rotate (u, v) -> (v, W - u): the string's start lands at the bottom.
  const double w = text_width(s, scale);
  const double ox = std::round(x), oy = std::round(y);
  for (const auto& q : glyph_quads(s))
    fill_rect(ox + q.y0 * scale, oy + w - q.x1 * scale, ox + q.y1 * scale, oy + w - q.x0 * scale, c);
#else
  (void)x, (void)y, (void)s, (void)c, (void)scale;
#endif
}

int Canvas::text_width(std::string_view s, int scale) {
#if STREAMLAB_HAVE_STB
  std::string text(s);
  return stb_easy_font_width(text.data()) * scale;
#else
  return static_cast<int>(s.size()) * 6 * scale;
#endif
}

int Canvas::text_height(int scale) { return 8 * scale; }

// PNG ----------------------------------------------------------------------------------------------------

std::string encode_png(const Canvas& canvas) {
#if STREAMLAB_HAVE_STB
  std::string out;
  auto sink = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(sink, &out, canvas.width(), canvas.height(), 4, canvas.rgba().data(),
                              canvas.width() * 4)) {
    throw std::runtime_error("PNG encoding failed");
  }
  return out;
#else
  (void)canvas;
  throw std::runtime_error("charts need stb (Debian libstb-dev) at configure time; re-render with "
                           "`streamlab experiment render DIR` on a machine that has it");
#endif
}

void save_png(const Canvas& canvas, const std::filesystem::path& file) {
  model::write_file_atomically(file, encode_png(canvas));
}

// Axes -----------------------------------------------------------------------------------------------------

Rgba palette(std::size_t i) noexcept {
  // Okabe-Ito, then a few darker extras.
  static constexpr Rgba kColors[] = {{0, 114, 178, 255},  {213, 94, 0, 255},   {0, 158, 115, 255},
                                     {204, 121, 167, 255}, {230, 159, 0, 255}, {86, 180, 233, 255},
                                     {120, 80, 40, 255},  {80, 80, 80, 255},   {150, 30, 60, 255},
                                     {40, 90, 40, 255}};
  return kColors[i % (sizeof(kColors) / sizeof(kColors[0]))];
}

std::string format_tick(double v) {
  if (v == 0) return "0";
  char buf[32];
  const double a = std::abs(v);
  if (a >= 1000 && a < 1e7) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else if (a >= 1e6 || a < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.2g", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

std::vector<double> nice_ticks(double lo, double hi, bool log, int target) {
  std::vector<double> out;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) {
    if (std::isfinite(lo)) out.push_back(lo);
    return out;
  }
  if (log) {
    if (lo <= 0) return out;
    const int e0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
    const int e1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
    const bool fine = e1 - e0 <= 3;
    for (int e = e0; e <= e1; ++e) {
      const double base = std::pow(10.0, e);
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1.0 && !fine) continue;
        const double t = base * m;
        if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) out.push_back(t);
      }
    }
    return out;
  }
  const double raw = (hi - lo) / std::max(target, 2);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double t = first; t <= hi + step * 1e-9; t += step) out.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return out;
}

namespace {

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double p0 = 0, p1 = 1;  // pixel positions of lo and hi
  [[nodiscard]] double map(double v) const {
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    const double t = ((log ? std::log10(v) : v) - a) / (b - a);
    return p0 + t * (p1 - p0);
  }
};

// Extends [lo, hi] a little so points are not drawn on the frame, and to the nice ticks for linear axes.
void pad_range(double& lo, double& hi, bool log) {
  if (!(hi > lo)) {
    const double d = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= log ? lo * 0.5 : d;
    hi += log ? hi : d;
  }
  if (log) {
    lo /= 1.25;
    hi *= 1.25;
  } else {
    const double span = hi - lo;
    hi += span * 0.06;
    if (lo != 0) lo -= span * 0.06;
  }
}

// Greedy line breaking at spaces and after hyphens ("heavy-" / "tailed").
std::vector<std::string> wrap(std::string_view s, int max_px, int scale) {
  std::vector<std::string> words;  // each keeps its trailing hyphen; spaces are separators
  std::string w;
  for (char ch : s) {
    if (ch == ' ') {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += ch;
      if (ch == '-' && w.size() > 1) {
        words.push_back(w);
        w.clear();
      }
    }
  }
  if (!w.empty()) words.push_back(w);
  std::vector<std::string> lines;
  std::string cur;
  bool glue = false;  // the previous word ended in a hyphen: join without a space
  for (const auto& word : words) {
    const std::string cand = cur.empty() ? word : cur + (glue ? "" : " ") + word;
    if (!cur.empty() && Canvas::text_width(cand, scale) > max_px) {
      lines.push_back(cur);
      cur = word;
    } else {
      cur = cand;
    }
    glue = !word.empty() && word.back() == '-';
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

int widest(const std::vector<std::string>& lines, int scale) {
  int w = 0;
  for (const auto& l : lines) w = std::max(w, Canvas::text_width(l, scale));
  return w;
}

void legend_swatch(Canvas& c, double x, double y, Mark m, Rgba col) {
  switch (m) {
    case Mark::line_solid:
      c.line(x, y, x + 28, y, col, 3);
      c.disk(x + 14, y, 4, col);
      break;
    case Mark::line_dashed:
      c.line(x, y, x + 28, y, col, 2, 5);
      break;
    case Mark::bar:
      c.fill_rect(x + 4, y - 7, x + 24, y + 7, col);
      break;
    case Mark::marker:
      c.diamond(x + 14, y, 7, col, kBlack);
      break;
    case Mark::tick:
      c.line(x + 2, y, x + 26, y, kBlack, 3);
      break;
  }
}

}  // namespace

Canvas render_chart(const Chart& chart, int width, int height, std::vector<double>* plot_area) {
  Canvas c(width, height);
  const int s = 2;  // body text scale
  const int th = Canvas::text_height(s);

  // Legend rows: series in legend, then the style rows.
  struct Row { Mark mark; Rgba color; std::string text; };
  std::vector<Row> rows;
  for (const auto& se : chart.series)
    if (se.in_legend) rows.push_back({se.mark, se.color, se.name});
  for (const auto& [m, t] : chart.style_legend) rows.push_back({m, kAxis, t});
  int legend_w = 0;
  for (const auto& r : rows) legend_w = std::max(legend_w, Canvas::text_width(r.text, s) + 44);
  legend_w = std::min(legend_w, std::min(width / 4, 320));

  // Frame.
  const int title_h = chart.title.empty() ? 10 : Canvas::text_height(3) + 14;
  const std::vector<std::string> subtitle_lines = chart.subtitle.empty() ? std::vector<std::string>{}
                                                                         : wrap(chart.subtitle, width - 24, s);
  const int subtitle_h = static_cast<int>(subtitle_lines.size()) * (th + 4) + (subtitle_lines.empty() ? 0 : 4);
  std::vector<std::string> note_lines;
  for (const auto& n : chart.notes)
    for (auto& l : wrap(n, width - 24, s)) note_lines.push_back(std::move(l));
  const int notes_h = static_cast<int>(note_lines.size()) * (th + 4);
  const double left = 22 + th + 14 + 70;  // y label + tick labels
  const double top = title_h + subtitle_h + 18;
  const double right = width - (legend_w > 0 ? legend_w + 24 : 24);
  int category_lines = 1;

  // Data ranges.
  double xlo = std::numeric_limits<double>::max(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const auto& se : chart.series) {
    for (std::size_t i = 0; i < se.y.size() && i < se.x.size(); ++i) {
      if (!std::isfinite(se.y[i]) || !std::isfinite(se.x[i])) continue;
      if (chart.log_y && se.y[i] <= 0) continue;
      xlo = std::min(xlo, se.x[i]);
      xhi = std::max(xhi, se.x[i]);
      ylo = std::min(ylo, se.y[i]);
      yhi = std::max(yhi, se.y[i]);
    }
  }
  for (double t : chart.x_ticks) {
    xlo = std::min(xlo, t);
    xhi = std::max(xhi, t);
  }
  if (ylo > yhi) ylo = 0, yhi = 1;
  if (xlo > xhi) xlo = 0, xhi = 1;
  if (!chart.log_y) {
    if (chart.kind == ChartKind::bars || chart.y_min) ylo = std::min(ylo, chart.y_min.value_or(0.0));
    if (chart.y_min) ylo = *chart.y_min;
  }
  pad_range(ylo, yhi, chart.log_y);
  if (chart.kind == ChartKind::line) pad_range(xlo, xhi, chart.log_x);

  const int ncat = static_cast<int>(chart.categories.size());
  int cat_scale = s;  // category labels drop to scale 1 when a word does not fit its slot at scale 2
  if (chart.kind == ChartKind::bars && ncat > 0) {
    const int slot_px = static_cast<int>((right - left) / ncat) - 6;
    for (const auto& cat : chart.categories)
      if (widest(wrap(cat, slot_px, s), s) > slot_px) cat_scale = 1;
    for (const auto& cat : chart.categories)
      category_lines = std::max(category_lines, static_cast<int>(wrap(cat, slot_px, cat_scale).size()));
  }
  const int cth = Canvas::text_height(cat_scale);
  const double bottom = height - (12 + th + 12 + category_lines * (cth + 4) + 10 + notes_h);

  Axis ax{xlo, xhi, chart.log_x, left, right};
  Axis ay{ylo, yhi, chart.log_y, bottom, top};
  if (chart.kind == ChartKind::bars) ax = Axis{-0.5, std::max(ncat, 1) - 0.5, false, left, right};
  if (plot_area) *plot_area = {left, top, right, bottom};

  // Title, subtitle.
  if (!chart.title.empty()) c.text((width - Canvas::text_width(chart.title, 3)) / 2.0, 10, chart.title, kText, 3);
  for (std::size_t i = 0; i < subtitle_lines.size(); ++i)
    c.text((width - Canvas::text_width(subtitle_lines[i], s)) / 2.0, title_h + 2 + static_cast<double>(i) * (th + 4),
           subtitle_lines[i], kMuted, s);

  // Grid and y ticks.
  std::vector<double> yt = nice_ticks(ylo, yhi, chart.log_y);
  if (chart.log_y && yt.size() < 2) yt = nice_ticks(ylo, yhi, false);
  for (double t : yt) {
    if (t < ylo || t > yhi) continue;
    const double py = ay.map(t);
    c.line(left, py, right, py, kGrid, 1);
    const std::string lab = format_tick(t);
    c.text(left - 8 - Canvas::text_width(lab, s), py - th / 2.0 + 1, lab, kText, s);
  }
  // X ticks.
  if (chart.kind == ChartKind::line) {
    std::vector<double> xt = chart.x_ticks.empty() ? nice_ticks(xlo, xhi, chart.log_x) : chart.x_ticks;
    if (chart.log_x && xt.size() < 2 && chart.x_ticks.empty()) xt = nice_ticks(xlo, xhi, false);
    double last_right = -1e9;
    for (double t : xt) {
      if (t < xlo || t > xhi) continue;
      const double px = ax.map(t);
      c.line(px, top, px, bottom, kGrid, 1);
      c.line(px, bottom, px, bottom + 6, kAxis, 1);
      const std::string lab = format_tick(t);
      const double w = Canvas::text_width(lab, s);
      if (px - w / 2 < last_right + 6) continue;  // would overlap the previous label
      c.text(px - w / 2, bottom + 10, lab, kText, s);
      last_right = px + w / 2;
    }
  } else {
    const double slot_px = (right - left) / std::max(ncat, 1);
    for (int i = 0; i < ncat; ++i) {
      const double px = ax.map(i);
      if (i > 0) c.line(px - slot_px / 2, top, px - slot_px / 2, bottom, kGrid, 1);
      const auto lines = wrap(chart.categories[static_cast<std::size_t>(i)], static_cast<int>(slot_px) - 6, cat_scale);
      for (std::size_t l = 0; l < lines.size(); ++l)
        c.text(px - Canvas::text_width(lines[l], cat_scale) / 2.0, bottom + 10 + static_cast<double>(l) * (cth + 4),
               lines[l], kText, cat_scale);
    }
  }
  // Axes.
  c.line(left, bottom, right, bottom, kAxis, 2);
  c.line(left, top, left, bottom, kAxis, 2);
  // Axis labels.
  const double xlab_y = bottom + 10 + category_lines * (cth + 4) + 6;
  c.text((left + right - Canvas::text_width(chart.x_label, s)) / 2.0, xlab_y, chart.x_label, kText, s);
  c.text_vertical(16, (top + bottom - Canvas::text_width(chart.y_label, s)) / 2.0, chart.y_label, kText, s);

  // Data.
  auto in_y = [&](double v) { return std::isfinite(v) && (!chart.log_y || v > 0); };
  if (chart.kind == ChartKind::line) {
    for (const auto& se : chart.series) {
      std::vector<std::pair<double, double>> run;
      auto flush = [&] {
        if (run.size() >= 2)
          c.polyline(run, se.color, se.mark == Mark::line_dashed ? 2.0 : 3.0, se.mark == Mark::line_dashed ? 7 : 0);
        run.clear();
      };
      for (std::size_t i = 0; i < se.x.size() && i < se.y.size(); ++i) {
        if (!in_y(se.y[i]) || !std::isfinite(se.x[i])) {
          flush();
          continue;
        }
        run.emplace_back(ax.map(se.x[i]), ay.map(se.y[i]));
      }
      flush();
      for (std::size_t i = 0; i < se.x.size() && i < se.y.size(); ++i) {
        if (!in_y(se.y[i])) continue;
        const double px = ax.map(se.x[i]), py = ay.map(se.y[i]);
        if (!se.markers) continue;
        if (se.mark == Mark::line_solid) c.disk(px, py, 4.5, se.color);
        else if (se.mark == Mark::marker) c.diamond(px, py, 7, se.color, kBlack);
        else if (se.mark == Mark::line_dashed) c.disk(px, py, 3, se.color);
      }
    }
  } else {
    int nbars = 0;
    for (const auto& se : chart.series) nbars += se.mark == Mark::bar ? 1 : 0;
    const double slot_px = (right - left) / std::max(ncat, 1);
    const double group_w = slot_px * 0.78;
    const double bar_w = group_w / std::max(nbars, 1);
    const double base = chart.log_y ? bottom : ay.map(std::max(ylo, 0.0));
    auto bar_centre = [&](double cat, int slot) {
      const double gx = ax.map(cat) - group_w / 2;
      return slot < 0 || nbars == 0 ? ax.map(cat) : gx + (slot + 0.5) * bar_w;
    };
    int b = 0;
    for (const auto& se : chart.series) {
      if (se.mark != Mark::bar) continue;
      for (std::size_t i = 0; i < se.x.size() && i < se.y.size(); ++i) {
        if (!std::isfinite(se.y[i])) continue;
        const double cx = bar_centre(se.x[i], b);
        const double top_px = in_y(se.y[i]) ? ay.map(se.y[i]) : base;
        if (in_y(se.y[i])) c.fill_rect(cx - bar_w * 0.45, top_px, cx + bar_w * 0.45, base, se.color);
        if (chart.bar_labels) {
          const std::string lab = format_tick(se.y[i]);
          const int ls = Canvas::text_width(lab, s) <= bar_w ? s : 1;
          c.text(cx - Canvas::text_width(lab, ls) / 2.0, top_px - Canvas::text_height(ls) - 4, lab, kText, ls);
        }
      }
      ++b;
    }
    for (const auto& se : chart.series) {
      if (se.mark == Mark::bar) continue;
      for (std::size_t i = 0; i < se.x.size() && i < se.y.size(); ++i) {
        if (!in_y(se.y[i])) continue;
        const double cx = bar_centre(se.x[i], se.slot), py = ay.map(se.y[i]);
        if (se.mark == Mark::tick) {
          const double half = std::max(bar_w * 0.5, 8.0);
          c.line(cx - half, py, cx + half, py, kBlack, 3);
        } else {
          c.diamond(cx, py, std::clamp(bar_w * 0.3, 6.0, 9.0), se.color, kBlack);
        }
      }
    }
  }

  // Legend.
  double ly = top + 4;
  const double lx = right + 18;
  for (const auto& r : rows) {
    const auto lines = wrap(r.text, legend_w - 58, s);  // a margin: glyph widths are approximate
    legend_swatch(c, lx, ly + th / 2.0, r.mark, r.color);
    for (std::size_t l = 0; l < lines.size(); ++l)
      c.text(lx + 36, ly + static_cast<double>(l) * (th + 3), lines[l], kText, s);
    ly += static_cast<double>(lines.size()) * (th + 3) + 10;
  }

  // Notes.
  double ny = height - notes_h - 4;
  for (const auto& n : note_lines) {
    c.text(12, ny, n, kMuted, s);
    ny += th + 4;
  }
  return c;
}

}  // namespace streamlab::experiments
