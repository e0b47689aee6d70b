#include "streamlab/viz/frame.hpp"

#include <algorithm>
#include <cmath>

namespace streamlab::viz {

std::optional<std::uint32_t> LaneLayout::lane_at(float y) const noexcept {
  const auto it = std::upper_bound(lanes.begin(), lanes.end(), y,
                                   [](float v, const LaneGeometry& g) { return v < g.y0; });
  if (it == lanes.begin()) return std::nullopt;
  const auto& g = *(it - 1);
  if (y >= g.y1()) return std::nullopt;
  return g.lane;
}

LaneLayout layout_lanes(const TracePair& pair, const LaneLayoutOptions& o) {
  LaneLayout layout;
  const auto lanes = pair.lanes();
  float y = 0;
  for (std::uint32_t i = 0; i < lanes.size(); ++i) {
    const Lane& lane = lanes[i];
    if (i > 0) {
      const Lane& prev = lanes[i - 1];
      const bool same_stream = prev.kind == LaneKind::spans && lane.kind == LaneKind::spans &&
                               prev.device == lane.device && prev.stream == lane.stream;
      const bool both_sm = prev.kind == LaneKind::sm_occupancy && lane.kind == LaneKind::sm_occupancy;
      y += (same_stream || both_sm) ? o.lane_gap : o.group_gap;
    }
    LaneGeometry g;
    g.lane = i;
    g.y0 = y;
    if (lane.kind == LaneKind::spans) {
      g.row_height = o.row_height;
      g.height = o.row_height * static_cast<float>(std::max<std::size_t>(lane.rows.size(), 1));
    } else {
      g.row_height = o.occupancy_height;
      g.height = o.occupancy_height;
    }
    y += g.height;
    layout.lanes.push_back(g);
  }
  layout.total_height = y;
  return layout;
}

std::size_t FrameDraw::rect_count() const noexcept {
  std::size_t n = 0;
  for (const auto& l : lanes)
    for (const auto& r : l.rows) n += r.size();
  return n;
}

std::size_t FrameDraw::folded_span_count() const noexcept {
  std::size_t n = 0;
  for (const auto& l : lanes)
    for (const auto& r : l.rows)
      for (const auto& rect : r) n += rect.folded() ? rect.count : 0;
  return n;
}

void build_frame(const TracePair& pair, const LaneLayout& layout, const TimelineView& view, FrameDraw& out,
                 float y_min, float y_max, float fold_px) {
  const auto lanes = pair.lanes();
  out.lanes.resize(lanes.size());
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const Lane& lane = lanes[i];
    LaneDraw& draw = out.lanes[i];
    const LaneGeometry& g = layout.lanes[i];
    draw.visible = g.y1() > y_min && g.y0 < y_max;
    draw.rows.resize(lane.rows.size());
    for (auto& r : draw.rows) r.clear();
    draw.occupancy.clear();
    if (!draw.visible) continue;
    if (lane.kind == LaneKind::spans) {
      for (std::size_t r = 0; r < lane.rows.size(); ++r) fold_row(lane.rows[r], view, draw.rows[r], fold_px);
      continue;
    }
    const auto& occ = pair.occupancy(lane.side);
    if (!occ || occ->sm_count == 0) continue;
    const auto columns = static_cast<std::size_t>(std::ceil(view.width_px()));
    draw.occupancy = occ->busy_sms.sample(view.start_ns(), view.t_of(static_cast<double>(columns)), columns);
    const float scale = 1.0f / static_cast<float>(occ->sm_count);
    for (float& v : draw.occupancy) v *= scale;
  }
}

}  // namespace streamlab::viz
