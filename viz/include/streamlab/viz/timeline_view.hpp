#pragma once
/// \file timeline_view.hpp
/// The per-frame view state of the timeline: which time range is visible across how many pixels. Pure
/// arithmetic, no data and no GUI; zoom and pan keep the time under the cursor where it is.

#include "streamlab/model/op.hpp"

namespace streamlab::viz {

class TimelineView {
 public:
  /// Narrowest visible range: below this one nanosecond is wider than any sensible canvas.
  static constexpr double kMinRangeNs = 20.0;
  /// Widest visible range (about 2.8 hours).
  static constexpr double kMaxRangeNs = 1e13;

  TimelineView() = default;
  /// Visible [start_ns, end_ns) across width_px pixels (range and width clamped to sane values).
  TimelineView(double start_ns, double end_ns, float width_px);

  [[nodiscard]] double start_ns() const noexcept { return start_; }
  [[nodiscard]] double end_ns() const noexcept { return end_; }
  [[nodiscard]] double range_ns() const noexcept { return end_ - start_; }
  [[nodiscard]] float width_px() const noexcept { return width_; }
  [[nodiscard]] double px_per_ns() const noexcept { return static_cast<double>(width_) / range_ns(); }
  [[nodiscard]] double ns_per_px() const noexcept { return range_ns() / static_cast<double>(width_); }

  /// Canvas x (0 = left edge of the time area) of time t, and back.
  [[nodiscard]] double x_of(double t_ns) const noexcept { return (t_ns - start_) * px_per_ns(); }
  [[nodiscard]] double t_of(double x_px) const noexcept { return start_ + x_px * ns_per_px(); }

  /// Keeps the visible range; a resize shows the same time across more or fewer pixels.
  void set_width(float width_px) noexcept;
  /// Sets the visible range (clamped to [kMinRangeNs, kMaxRangeNs] around its centre).
  void set_range(double start_ns, double end_ns) noexcept;
  /// Zoom by `factor` (> 1 zooms in) keeping the time under canvas x fixed.
  void zoom_at(double x_px, double factor) noexcept;
  /// Move the content by dx pixels (dragging right reveals earlier time).
  void pan_px(double dx_px) noexcept;
  /// Show [begin, end] with `margin` of the range added on each side.
  void fit(model::Nanos begin, model::Nanos end, double margin = 0.02) noexcept;

 private:
  double start_ = 0, end_ = 1e6;
  float width_ = 1000.0f;
};

}  // namespace streamlab::viz
