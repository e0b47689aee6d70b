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

LaneLayout layout_lanes(const LaneSet& set, const LaneLayoutOptions& o) {
  LaneLayout layout;
  const auto lanes = set.lanes();
  float y = 0;
  for (std::uint32_t i = 0; i < lanes.size(); ++i) {
    const Lane& lane = lanes[i];
    if (i > 0) {
      y += lanes[i - 1].group == lane.group ? o.lane_gap : o.group_gap;
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

TimelineView trace_view(const TimelineView& view, model::Nanos offset) noexcept {
  if (offset == 0) return view;
  const auto d = static_cast<double>(offset);
  return TimelineView(view.start_ns() + d, view.end_ns() + d, view.width_px());
}

void build_frame(const TraceSet& set, const LaneSet& lane_set, const LaneLayout& layout, const TimelineView& view,
                 std::span<const model::Nanos> offsets, FrameDraw& out, float y_min, float y_max, float fold_px) {
  const auto lanes = lane_set.lanes();
  out.lanes.resize(lanes.size());
  std::vector<TimelineView> views(set.size(), view);
  for (TraceIndex t = 0; t < set.size() && t < offsets.size(); ++t) views[t] = trace_view(view, offsets[t]);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const Lane& lane = lanes[i];
    LaneDraw& draw = out.lanes[i];
    const LaneGeometry& g = layout.lanes[i];
    const TimelineView& v = views[lane.trace];
    draw.visible = g.y1() > y_min && g.y0 < y_max;
    draw.rows.resize(lane.rows.size());
    for (auto& r : draw.rows) r.clear();
    draw.occupancy.clear();
    if (!draw.visible) continue;
    if (lane.kind == LaneKind::spans) {
      for (std::size_t r = 0; r < lane.rows.size(); ++r) fold_row(lane.rows[r], v, draw.rows[r], fold_px);
      continue;
    }
    const auto& occ = set.occupancy(lane.trace);
    if (!occ || occ->sm_count == 0) continue;
    const auto columns = static_cast<std::size_t>(std::ceil(v.width_px()));
    draw.occupancy = occ->busy_sms.sample(v.start_ns(), v.t_of(static_cast<double>(columns)), columns);
    const float scale = 1.0f / static_cast<float>(occ->sm_count);
    for (float& x : draw.occupancy) x *= scale;
  }
}

}  // namespace streamlab::viz
