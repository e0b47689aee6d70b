#include "streamlab/viz/timeline_view.hpp"

#include <algorithm>
#include <cmath>

namespace streamlab::viz {

TimelineView::TimelineView(double start_ns, double end_ns, float width_px) {
  set_width(width_px);
  set_range(start_ns, end_ns);
}

void TimelineView::set_width(float width_px) noexcept {
  width_ = std::isfinite(width_px) ? std::max(width_px, 1.0f) : 1.0f;
}

void TimelineView::set_range(double start_ns, double end_ns) noexcept {
  if (!std::isfinite(start_ns) || !std::isfinite(end_ns)) return;
  if (end_ns < start_ns) std::swap(start_ns, end_ns);
  const double range = std::clamp(end_ns - start_ns, kMinRangeNs, kMaxRangeNs);
  const double centre = 0.5 * (start_ns + end_ns);
  start_ = (end_ns - start_ns == range) ? start_ns : centre - 0.5 * range;
  end_ = start_ + range;
}

void TimelineView::zoom_at(double x_px, double factor) noexcept {
  if (!(factor > 0) || !std::isfinite(factor)) return;
  const double anchor = t_of(x_px);
  const double range = std::clamp(range_ns() / factor, kMinRangeNs, kMaxRangeNs);
  // The anchor keeps its fraction of the canvas.
  const double frac = x_px / static_cast<double>(width_);
  start_ = anchor - frac * range;
  end_ = start_ + range;
}

void TimelineView::pan_px(double dx_px) noexcept {
  const double dt = dx_px * ns_per_px();
  start_ -= dt;
  end_ -= dt;
}

void TimelineView::fit(model::Nanos begin, model::Nanos end, double margin) noexcept {
  const double b = static_cast<double>(begin), e = static_cast<double>(std::max(end, begin));
  const double pad = std::max((e - b) * margin, kMinRangeNs * 0.5);
  set_range(b - pad, e + pad);
}

}  // namespace streamlab::viz
