#pragma once
/// \file fold.hpp
/// Turning one lane row into draw rectangles for the current view, folding spans narrower than a pixel
/// (as Tracy does) so the cost of a frame follows the number of pixels, not the number of spans.
///
/// The rule: a span is *narrow* when it is shorter than `fold_px` pixels. A narrow span opens a run; the
/// run takes the next span while that span is narrow, starts less than `fold_px` pixels after the run's
/// end, and starts before the view's end. A run of one span is drawn as that span (at least one pixel
/// wide); a longer run is one folded rectangle carrying its span count and majority kind. Wide spans are
/// drawn as themselves, clipped to the view.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "streamlab/viz/timeline_view.hpp"
#include "streamlab/viz/lanes.hpp"

namespace streamlab::viz {

/// One rectangle of a lane row, in canvas pixels (0 = left edge of the time area).
struct DrawRect {
  float x0 = 0, x1 = 0;     ///< x1 - x0 >= 1 (narrow spans are widened so they stay visible)
  std::uint32_t first = 0;  ///< position of the first covered span in its LaneRow
  std::uint32_t count = 1;  ///< spans covered; > 1 means a folded run
  model::OpKind kind = model::OpKind::kernel;  ///< the span's kind, or a folded run's majority kind
  [[nodiscard]] bool folded() const noexcept { return count > 1; }
  friend bool operator==(const DrawRect&, const DrawRect&) = default;
};

/// Appends the rectangles of `row` visible in `view` to `out`, in time order. Cost: O(rects * log n).
void fold_row(const LaneRow& row, const TimelineView& view, std::vector<DrawRect>& out, float fold_px = 1.0f);

/// The same result as fold_row, visiting every visible span one by one: the reference the tests and the
/// benchmark compare against.
void fold_row_linear(const LaneRow& row, const TimelineView& view, std::vector<DrawRect>& out,
                     float fold_px = 1.0f);

/// The rectangle under canvas x, allowing `slop_px` on either side for thin targets; the nearest wins.
[[nodiscard]] std::optional<std::size_t> hit_rect(std::span<const DrawRect> rects, float x, float slop_px = 2.0f);

/// The position in `row` of the span covering time t, or of the nearest one within tol_ns.
[[nodiscard]] std::optional<std::uint32_t> span_at(const LaneRow& row, double t_ns, double tol_ns = 0.0);

}  // namespace streamlab::viz
