#include "streamlab/viz/fold.hpp"

#include <algorithm>
#include <cmath>

namespace streamlab::viz {
namespace {

// The view's geometry, shared by both walks so they agree to the last bit.
struct Geometry {
  double t0, t1;  ///< visible range
  /// fold_px in ns, rounded up: for an integer d, d < x exactly when d < ceil(x), so every test below
  /// is an integer compare with the same outcome as comparing against the real-valued width.
  model::Nanos fold_ns;
  double start, ppn;
  float width;
  explicit Geometry(const TimelineView& v, float fold_px)
      : t0(v.start_ns()), t1(v.end_ns()),
        fold_ns(static_cast<model::Nanos>(std::ceil(std::min(static_cast<double>(fold_px) * v.ns_per_px(), 1e18)))),
        start(v.start_ns()), ppn(v.px_per_ns()), width(v.width_px()) {}

  [[nodiscard]] bool narrow(model::Nanos s, model::Nanos e) const noexcept { return e - s < fold_ns; }
  [[nodiscard]] bool close(model::Nanos run_end, model::Nanos next_start) const noexcept {
    return next_start - run_end < fold_ns;
  }
  [[nodiscard]] DrawRect rect(model::Nanos s, model::Nanos e, std::uint32_t first, std::uint32_t count,
                              model::OpKind kind) const noexcept {
    // Clip a pixel beyond each edge so outlines of clipped spans stay off screen.
    const double lo = -1.0, hi = static_cast<double>(width) + 1.0;
    double x0 = std::clamp((static_cast<double>(s) - start) * ppn, lo, hi);
    double x1 = std::clamp((static_cast<double>(e) - start) * ppn, lo, hi);
    if (x1 - x0 < 1.0) x1 = x0 + 1.0;
    return DrawRect{static_cast<float>(x0), static_cast<float>(x1), first, count, kind};
  }
};

// First position whose span ends after t0 (ends ascend because a row's spans do not overlap).
std::uint32_t first_visible(const LaneRow& row, double t0) {
  const auto it = std::upper_bound(row.end.begin(), row.end.end(), t0,
                                   [](double t, model::Nanos e) { return t < static_cast<double>(e); });
  return static_cast<std::uint32_t>(it - row.end.begin());
}

// One past the last position that starts before t1.
std::uint32_t last_visible(const LaneRow& row, double t1) {
  const auto it = std::lower_bound(row.start.begin(), row.start.end(), t1,
                                   [](model::Nanos s, double t) { return static_cast<double>(s) < t; });
  return static_cast<std::uint32_t>(it - row.start.begin());
}

// First position in [from, n) whose end is >= limit (n if none), ends ascending. Galloping: the answer is
// usually a pixel's worth of spans away, so probing from+1, +2, +4, ... stays in cache where a binary
// search over the whole row would miss it about log2(n) times per folded pixel.
std::uint32_t first_end_at_least(const model::Nanos* end, std::uint32_t from, std::uint32_t n, model::Nanos limit) {
  auto below = [limit](model::Nanos e) { return e < limit; };
  std::uint32_t lo = from, hi = from, step = 1;
  while (hi < n && below(end[hi])) {
    lo = hi + 1;
    hi = from + step;
    step *= 2;
  }
  hi = std::min(hi, n);
  return static_cast<std::uint32_t>(
      std::partition_point(end + lo, end + hi, below) - end);
}

model::OpKind run_kind(const LaneRow& row, std::uint32_t first, std::uint32_t count) {
  return count == 1 ? row.kind[first] : row.majority_kind(first, count);
}

}  // namespace

void fold_row(const LaneRow& row, const TimelineView& view, std::vector<DrawRect>& out, float fold_px) {
  const Geometry g(view, fold_px);
  std::uint32_t i = first_visible(row, g.t0);
  const std::uint32_t n = last_visible(row, g.t1);
  const auto* start = row.start.data();
  const auto* end = row.end.data();
  while (i < n) {
    if (!g.narrow(start[i], end[i])) {
      out.push_back(g.rect(start[i], end[i], i, 1, row.kind[i]));
      ++i;
      continue;
    }
    const std::uint32_t first = i;
    model::Nanos run_end = end[i++];
    for (;;) {
      // Every span ending before run_end + fold_ns starts at or after run_end (no overlap), so it is
      // narrow and close: take them all with one binary search.
      const std::uint32_t j = first_end_at_least(end, i, n, run_end + g.fold_ns);
      if (j > i) {
        run_end = end[j - 1];
        i = j;
      }
      if (i < n && g.narrow(start[i], end[i]) && g.close(run_end, start[i])) {
        run_end = end[i++];
        continue;
      }
      break;
    }
    out.push_back(g.rect(start[first], run_end, first, i - first, run_kind(row, first, i - first)));
  }
}

void fold_row_linear(const LaneRow& row, const TimelineView& view, std::vector<DrawRect>& out,
                     float fold_px) {
  const Geometry g(view, fold_px);
  std::uint32_t i = 0;
  const auto n = static_cast<std::uint32_t>(row.size());
  while (i < n && static_cast<double>(row.end[i]) <= g.t0) ++i;
  while (i < n && static_cast<double>(row.start[i]) < g.t1) {
    if (!g.narrow(row.start[i], row.end[i])) {
      out.push_back(g.rect(row.start[i], row.end[i], i, 1, row.kind[i]));
      ++i;
      continue;
    }
    const std::uint32_t first = i;
    model::Nanos run_end = row.end[i++];
    while (i < n && static_cast<double>(row.start[i]) < g.t1 && g.narrow(row.start[i], row.end[i]) &&
           g.close(run_end, row.start[i]))
      run_end = row.end[i++];
    out.push_back(g.rect(row.start[first], run_end, first, i - first, run_kind(row, first, i - first)));
  }
}

std::optional<std::size_t> hit_rect(std::span<const DrawRect> rects, float x, float slop_px) {
  // Rects are in time order and do not overlap except for the widening of narrow ones.
  const auto it = std::lower_bound(rects.begin(), rects.end(), x - slop_px,
                                   [](const DrawRect& r, float v) { return r.x1 < v; });
  std::optional<std::size_t> best;
  float best_d = 0;
  for (auto r = it; r != rects.end() && r->x0 <= x + slop_px; ++r) {
    const float d = x < r->x0 ? r->x0 - x : (x > r->x1 ? x - r->x1 : 0.0f);
    if (!best || d < best_d) best = static_cast<std::size_t>(r - rects.begin()), best_d = d;
    if (d == 0.0f) break;
  }
  return best;
}

std::optional<std::uint32_t> span_at(const LaneRow& row, double t_ns, double tol_ns) {
  std::uint32_t i = first_visible(row, t_ns - tol_ns);
  std::optional<std::uint32_t> best;
  double best_d = 0;
  for (; i < row.size() && static_cast<double>(row.start[i]) <= t_ns + tol_ns; ++i) {
    const double s = static_cast<double>(row.start[i]), e = static_cast<double>(row.end[i]);
    // A covering span beats any near miss (d < 0); otherwise the nearest edge wins.
    const double d = (s <= t_ns && t_ns < e) ? -1.0 : (t_ns < s ? s - t_ns : t_ns - e);
    if (!best || d < best_d) best = i, best_d = d;
    if (d < 0) break;
  }
  return best;
}

}  // namespace streamlab::viz

