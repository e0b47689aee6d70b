#pragma once
/// \file frame.hpp
/// Vertical layout of the lanes and the per-frame draw lists: everything the timeline draws, computed
/// without a window so it can be tested and benchmarked. The app only turns these into ImGui draw calls.

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "streamlab/viz/fold.hpp"
#include "streamlab/viz/timeline_view.hpp"
#include "streamlab/viz/lanes.hpp"

namespace streamlab::viz {

struct LaneLayoutOptions {
  float row_height = 18.0f;        ///< one row of spans
  float lane_gap = 2.0f;           ///< between lanes of one group (one engine's traces, one trace's streams)
  float group_gap = 8.0f;          ///< between groups
  float occupancy_height = 24.0f;  ///< an SM occupancy strip
};

/// A lane's vertical extent in content coordinates (0 = top of the first lane).
struct LaneGeometry {
  std::uint32_t lane = 0;
  float y0 = 0, height = 0;
  float row_height = 0;  ///< height of each row (spans lanes)
  [[nodiscard]] float y1() const noexcept { return y0 + height; }
};

struct LaneLayout {
  std::vector<LaneGeometry> lanes;  ///< same order as LaneSet::lanes(), top to bottom
  float total_height = 0;
  /// The lane at content y, if any (gaps belong to no lane).
  [[nodiscard]] std::optional<std::uint32_t> lane_at(float y) const noexcept;
};

[[nodiscard]] LaneLayout layout_lanes(const LaneSet& lanes, const LaneLayoutOptions& options = {});

/// What one lane draws this frame.
struct LaneDraw {
  std::vector<std::vector<DrawRect>> rows;  ///< spans lanes: one rect list per LaneRow
  std::vector<float> occupancy;             ///< SM lanes: busy fraction (0..1) per pixel column
  bool visible = false;                     ///< false: outside the vertical range, nothing built
};

/// The draw lists of one frame, indexed like LaneSet::lanes(). Reused across frames so a steady view
/// allocates nothing.
struct FrameDraw {
  std::vector<LaneDraw> lanes;
  [[nodiscard]] std::size_t rect_count() const noexcept;
  [[nodiscard]] std::size_t folded_span_count() const noexcept;  ///< spans inside folded rects
};

/// `view` on trace t's own clock: the view shows aligned time, trace t's spans sit `offsets[t]` later.
[[nodiscard]] TimelineView trace_view(const TimelineView& view, model::Nanos offset) noexcept;

/// Builds the draw lists of the lanes whose content-y extent meets [y_min, y_max). `view` is in aligned
/// time; `offsets` (per trace, alignment.hpp) may be empty (no shift). Cost: O(rects * log spans), never
/// O(spans): narrow spans fold (fold.hpp).
void build_frame(const TraceSet& set, const LaneSet& lanes, const LaneLayout& layout, const TimelineView& view,
                 std::span<const model::Nanos> offsets, FrameDraw& out,
                 float y_min = -std::numeric_limits<float>::infinity(),
                 float y_max = std::numeric_limits<float>::infinity(), float fold_px = 1.0f);

}  // namespace streamlab::viz
