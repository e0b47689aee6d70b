#include "viewer.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "streamlab/viz/palette.hpp"
#include "streamlab/viz/ruler.hpp"

namespace streamlab::viz::app {
namespace {

constexpr float kLabelWidth = 132.0f;  // lane label column
constexpr float kRulerHeight = 24.0f;
constexpr std::uint8_t kMarkSelected = 1, kMarkDependency = 2, kMarkDependent = 4;

ImU32 col(Rgba c) { return c.packed_abgr(); }

std::string dur(model::Nanos ns) { return format_duration(static_cast<double>(ns)); }
std::string sdur(model::Nanos ns) { return format_signed_duration(static_cast<double>(ns)); }

std::string percent(std::optional<double> f) {
  if (!f) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", *f * 100.0);
  return buf;
}

// Text centred vertically at (x, mid_y), clipped to [x, x_max).
void clipped_text(ImDrawList* dl, float x, float mid_y, float x_max, ImU32 colour, const char* text,
                  const char* text_end = nullptr) {
  const float h = ImGui::GetFontSize();
  const ImVec4 clip(x, mid_y - h, x_max, mid_y + h);
  dl->AddText(nullptr, 0.0f, ImVec2(x, mid_y - h * 0.5f), colour, text, text_end, 0.0f, &clip);
}

// Black or white, whichever reads better on `bg`.
ImU32 text_on(Rgba bg) {
  const int luma = (bg.r * 299 + bg.g * 587 + bg.b * 114) / 1000;
  return luma > 140 ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

}  // namespace

Viewer::Viewer(Session session, ViewerOptions options)
    : session_(std::move(session)), options_(std::move(options)) {
  if (!session_.pair) return;
  layout_ = layout_lanes(*session_.pair);
  summary_ = summarize(*session_.pair);
  rows_ = build_op_rows(*session_.pair);
  marks_.assign(session_.pair->op_key_count(), 0);
}

void Viewer::fit() {
  const auto& p = *session_.pair;
  view_.fit(std::min<model::Nanos>(p.begin_ns(), 0), std::max<model::Nanos>(p.end_ns(), 1));
}

void Viewer::frame() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  constexpr ImGuiWindowFlags main_flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                          ImGuiWindowFlags_NoSavedSettings |
                                          ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("streamlab-viz", nullptr, main_flags);
  header();
  error_banner();
  if (session_.pair) {
    // The timeline takes what its lanes need, up to 58% of the height; the panels get the rest.
    const float avail = ImGui::GetContentRegionAvail().y;
    const float wanted = kRulerHeight + layout_.total_height + 2 * ImGui::GetStyle().WindowPadding.y + 6.0f;
    timeline(std::floor(std::clamp(wanted, std::min(160.0f, avail * 0.58f), avail * 0.58f)));
    const float panel_h = ImGui::GetContentRegionAvail().y;
    ImGui::BeginChild("summary", ImVec2(std::floor(ImGui::GetContentRegionAvail().x * 0.40f), panel_h), true);
    summary_panel();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("ops", ImVec2(0, panel_h), true);
    op_table_panel();
    ImGui::EndChild();
  } else {
    ImGui::TextDisabled("Nothing to show: the predicted trace could not be opened.");
  }

  // The same messages as on stderr, once, in a modal a person has to acknowledge.
  if (!session_.errors.empty() && options_.show_error_popup && !error_popup_opened_) {
    ImGui::OpenPopup("Could not open everything");
    error_popup_opened_ = true;
  }
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(420, 0), ImVec2(vp->WorkSize.x * 0.8f, vp->WorkSize.y * 0.8f));
  if (ImGui::BeginPopupModal("Could not open everything", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    for (const auto& e : session_.errors) {
      ImGui::PushTextWrapPos(vp->WorkSize.x * 0.75f);
      ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", e.c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::Spacing();
    if (ImGui::Button("OK", ImVec2(120, 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
      ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
  ImGui::End();
}

void Viewer::header() {
  auto describe = [](const model::TraceMeta& m) {
    std::string s = m.backend.empty() ? "?" : m.backend;
    if (!m.device_name.empty()) s += " | " + m.device_name;
    if (!m.profile.empty()) s += " | profile " + m.profile;
    if (!m.policy.empty()) s += " | policy " + m.policy;
    if (!m.workload.empty()) s += " | workload " + m.workload;
    return s;
  };
  const TracePair* p = session_.pair.get();
  ImGui::TextColored(ImVec4(0.62f, 0.70f, 1.0f, 1.0f), "predicted");
  ImGui::SameLine();
  ImGui::Text("%s", options_.predicted_name.c_str());
  if (p) {
    ImGui::SameLine();
    ImGui::TextDisabled("[%s]", describe(p->trace(Side::predicted).meta).c_str());
  }
  if (!options_.measured_name.empty()) {
    ImGui::TextColored(ImVec4(1.0f, 0.72f, 0.45f, 1.0f), "measured ");
    ImGui::SameLine();
    ImGui::Text("%s", options_.measured_name.c_str());
    if (p && p->has(Side::measured)) {
      ImGui::SameLine();
      ImGui::TextDisabled("[%s]", describe(p->trace(Side::measured).meta).c_str());
      // Comparing two predictions (e.g. two policies) is legitimate, but say so: the lane labels say "meas".
      if (p->trace(Side::measured).meta.backend == "sim") {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "second trace is simulated, not measured");
      }
    } else {
      ImGui::SameLine();
      ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "(not shown: see the message above)");
    }
  }
  if (!p) return;

  if (ImGui::Button("Fit (F)")) fit();
  ImGui::SameLine();
  if (session_.overlay) {
    ImGui::Checkbox("critical path", &show_critical_path_);
    ImGui::SameLine();
  }
  ImGui::TextDisabled("view %s .. %s   1 px = %s   %zu rects, %zu spans folded, built in %.2f ms",
                      dur(static_cast<model::Nanos>(view_.start_ns())).c_str(),
                      dur(static_cast<model::Nanos>(view_.end_ns())).c_str(), format_duration(view_.ns_per_px()).c_str(),
                      draw_.rect_count(), draw_.folded_span_count(), build_ms_);
  // Legend: the kinds present in either trace.
  std::array<bool, kOpKindCount> present{};
  for (const Side s : {Side::predicted, Side::measured})
    if (p->has(s))
      for (const auto& sp : p->trace(s).spans) present[static_cast<std::size_t>(sp.kind)] = true;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float box = ImGui::GetFontSize();
  for (std::size_t k = 0; k < kOpKindCount; ++k) {
    if (!present[k]) continue;
    const auto kind = static_cast<model::OpKind>(k);
    ImGui::SameLine(0, 14);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(at, ImVec2(at.x + box, at.y + box), col(kind_color(kind)));
    ImGui::Dummy(ImVec2(box, box));
    ImGui::SameLine(0, 4);
    ImGui::TextUnformatted(model::to_string(kind).data(), model::to_string(kind).data() + model::to_string(kind).size());
  }
}

void Viewer::error_banner() {
  if (session_.errors.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(90, 24, 24, 255));
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginChild("errors", ImVec2(0, line * static_cast<float>(std::min<std::size_t>(session_.errors.size(), 4)) +
                                            ImGui::GetStyle().WindowPadding.y * 2),
                    true);
  for (const auto& e : session_.errors) ImGui::TextUnformatted(e.c_str());
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

void Viewer::timeline(float height) {
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::BeginChild("timeline", ImVec2(0, height), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  const float canvas_w = std::max(16.0f, width - kLabelWidth - ImGui::GetStyle().ScrollbarSize);
  view_.set_width(canvas_w);
  if (!view_initialized_) {
    if (options_.initial_view)
      view_.set_range(static_cast<double>(options_.initial_view->first), static_cast<double>(options_.initial_view->second));
    else
      fit();
    view_initialized_ = true;
  }
  // Keyboard: F fits, arrows pan a tenth of the view, Escape clears the selection.
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) || ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows)) {
    if (options_.fit_key != 0 && ImGui::IsKeyPressed(options_.fit_key, false) && !ImGui::GetIO().WantTextInput) fit();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) view_.pan_px(canvas_w * 0.1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) view_.pan_px(-canvas_w * 0.1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) select(kNone);
  }
  ruler(origin.x + kLabelWidth, origin.y, canvas_w, kRulerHeight);
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + kRulerHeight));
  ImGui::BeginChild("lanes", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse);
  lanes_canvas(kLabelWidth);
  ImGui::EndChild();
  ImGui::EndChild();
  ImGui::PopStyleVar();
}

void Viewer::ruler(float x0, float y0, float width, float height) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(x0 - kLabelWidth, y0), ImVec2(x0 + width, y0 + height), IM_COL32(28, 28, 32, 255));
  dl->AddText(ImVec2(x0 - kLabelWidth + 6, y0 + 5), IM_COL32(150, 150, 150, 255), "time");
  dl->PushClipRect(ImVec2(x0, y0), ImVec2(x0 + width, y0 + height), true);
  for (const auto& t : ruler_ticks(view_)) {
    const float x = std::floor(x0 + t.x) + 0.5f;
    const float len = t.major ? height * 0.45f : height * 0.2f;
    dl->AddLine(ImVec2(x, y0 + height - len), ImVec2(x, y0 + height), IM_COL32(170, 170, 170, 255));
    // A label that would be cut at the right edge is left out rather than shown truncated.
    if (t.major && x + 3 + ImGui::CalcTextSize(t.label.c_str()).x <= x0 + width)
      dl->AddText(ImVec2(x + 3, y0 + 2), IM_COL32(220, 220, 220, 255), t.label.c_str());
  }
  dl->PopClipRect();
  dl->AddLine(ImVec2(x0 - kLabelWidth, y0 + height - 0.5f), ImVec2(x0 + width, y0 + height - 0.5f),
              IM_COL32(90, 90, 90, 255));
}

void Viewer::lanes_canvas(float label_w) {
  const TracePair& pair = *session_.pair;
  ImGuiIO& io = ImGui::GetIO();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 base = ImGui::GetCursorScreenPos();  // content origin, scroll included
  const float canvas_x0 = base.x + label_w;
  const float canvas_w = view_.width_px();
  const float win_top = ImGui::GetWindowPos().y;
  const float win_h = ImGui::GetWindowHeight();
  if (pending_scroll_y_ >= 0.0f) {
    // A row clicked in the op table: bring its lane into view (ImGui applies it next frame).
    if (pending_scroll_y_ < ImGui::GetScrollY() || pending_scroll_y_ + 40.0f > ImGui::GetScrollY() + ImGui::GetWindowHeight())
      ImGui::SetScrollY(std::max(0.0f, pending_scroll_y_ - 20.0f));
    pending_scroll_y_ = -1.0f;
  }
  const float scroll = ImGui::GetScrollY();

  // One invisible button over all lanes takes clicks, drags and the wheel.
  ImGui::InvisibleButton("lanes", ImVec2(label_w + canvas_w, std::max(layout_.total_height, 1.0f)),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight |
                             ImGuiButtonFlags_MouseButtonMiddle);
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = io.MousePos;
  const bool in_canvas = hovered && mouse.x >= canvas_x0 && mouse.x < canvas_x0 + canvas_w;
  if (in_canvas && io.MouseWheel != 0.0f) view_.zoom_at(mouse.x - canvas_x0, std::pow(1.25, static_cast<double>(io.MouseWheel)));
  if (ImGui::IsItemActive()) {
    for (int button = 0; button < 3; ++button) {
      if (!ImGui::IsMouseDragging(button, 3.0f)) continue;
      dragging_ = dragging_ || button == 0;
      view_.pan_px(io.MouseDelta.x);
      ImGui::SetScrollY(std::clamp(scroll - io.MouseDelta.y, 0.0f, ImGui::GetScrollMaxY()));
      break;
    }
  }

  const auto build_start = std::chrono::steady_clock::now();
  build_frame(pair, layout_, view_, draw_, scroll, scroll + win_h);
  build_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - build_start).count();

  // Hit test before drawing, so the tooltip and the click see this frame's rects.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> hit_lane_row;
  std::optional<DrawRect> hit;
  if (in_canvas) {
    if (const auto lane = layout_.lane_at(mouse.y - base.y)) {
      const LaneGeometry& g = layout_.lanes[*lane];
      if (pair.lanes()[*lane].kind == LaneKind::spans) {
        const auto row = static_cast<std::uint32_t>((mouse.y - base.y - g.y0) / g.row_height);
        const auto& rects = draw_.lanes[*lane].rows;
        if (row < rects.size())
          if (const auto i = hit_rect(rects[row], mouse.x - canvas_x0)) {
            hit_lane_row = std::make_pair(*lane, row);
            hit = rects[row][*i];
          }
      }
    }
  }
  if (ImGui::IsItemDeactivated() || (hovered && ImGui::IsMouseReleased(0))) {
    if (!dragging_ && hovered) {
      if (hit && hit->folded()) {
        // Clicking a folded run zooms onto it, as in Tracy.
        const auto& row = pair.lanes()[hit_lane_row->first].rows[hit_lane_row->second];
        view_.fit(row.start[hit->first], row.end[hit->first + hit->count - 1], 0.05);
      } else if (hit) {
        const auto& lane = pair.lanes()[hit_lane_row->first];
        select(pair.op_key(lane.side, lane.rows[hit_lane_row->second].span[hit->first]));
      } else if (in_canvas) {
        select(kNone);
      }
    }
    dragging_ = false;
  }

  const ImU32 label_pred = IM_COL32(158, 178, 255, 255), label_meas = IM_COL32(255, 184, 115, 255);
  const float clip_top = win_top, clip_bottom = win_top + win_h;
  for (std::uint32_t li = 0; li < pair.lanes().size(); ++li) {
    const Lane& lane = pair.lanes()[li];
    const LaneDraw& ld = draw_.lanes[li];
    if (!ld.visible) continue;
    const LaneGeometry& g = layout_.lanes[li];
    const float y0 = base.y + g.y0, y1 = base.y + g.y1();
    const Rgba bg = lane.side == Side::predicted ? kPredictedLaneBg : kMeasuredLaneBg;
    dl->AddRectFilled(ImVec2(base.x, y0), ImVec2(canvas_x0 + canvas_w, y1), col(bg));
    dl->PushClipRect(ImVec2(base.x, clip_top), ImVec2(canvas_x0 - 4, clip_bottom), true);
    dl->AddText(ImVec2(base.x + 6, y0 + (std::min(g.height, g.row_height) - ImGui::GetFontSize()) * 0.5f),
                lane.side == Side::predicted ? label_pred : label_meas, lane.label.c_str());
    dl->PopClipRect();

    dl->PushClipRect(ImVec2(canvas_x0, std::max(y0, clip_top)), ImVec2(canvas_x0 + canvas_w, std::min(y1, clip_bottom)), true);
    if (lane.kind == LaneKind::sm_occupancy) {
      // One bar per pixel column, height = busy fraction; equal neighbours merged into one rect.
      const Rgba c = kOccupancyFill;
      const auto& occ = ld.occupancy;
      for (std::size_t x = 0; x < occ.size();) {
        std::size_t e = x + 1;
        while (e < occ.size() && std::fabs(occ[e] - occ[x]) < 1e-3f) ++e;
        if (occ[x] > 0.0f) {
          const float h = std::max(1.0f, (g.height - 2) * std::min(occ[x], 1.0f));
          dl->AddRectFilled(ImVec2(canvas_x0 + static_cast<float>(x), y1 - 1 - h),
                            ImVec2(canvas_x0 + static_cast<float>(e), y1 - 1), col(c));
        }
        x = e;
      }
      const auto& o = pair.occupancy(lane.side);
      char buf[48];
      std::snprintf(buf, sizeof buf, "%u SMs", o ? o->sm_count : 0u);
      dl->AddText(ImVec2(canvas_x0 + 4, y0 + 2), IM_COL32(220, 220, 220, 200), buf);
    } else {
      for (std::size_t r = 0; r < ld.rows.size(); ++r) {
        const LaneRow& row = lane.rows[r];
        const float ry0 = y0 + g.row_height * static_cast<float>(r) + 1.0f;
        const float ry1 = ry0 + g.row_height - 2.0f;
        for (const DrawRect& rect : ld.rows[r]) {
          const float x0 = canvas_x0 + rect.x0, x1 = canvas_x0 + rect.x1;
          if (rect.folded()) {
            const Rgba c = folded_color(rect.kind);
            dl->AddRectFilled(ImVec2(x0, ry0), ImVec2(x1, ry1), col(c));
            // Diagonal hatching says "many small things here", never one long op (Tracy zig-zags).
            dl->PushClipRect(ImVec2(std::max(x0, canvas_x0), ry0), ImVec2(std::min(x1, canvas_x0 + canvas_w), ry1), true);
            const float h = ry1 - ry0;
            for (float hx = std::max(x0, canvas_x0) - h; hx < std::min(x1, canvas_x0 + canvas_w); hx += 7.0f)
              dl->AddLine(ImVec2(hx, ry1), ImVec2(hx + h, ry0), IM_COL32(255, 255, 255, 38));
            dl->PopClipRect();
            if (x1 - x0 > 28.0f) {
              char buf[24];
              std::snprintf(buf, sizeof buf, "%u", rect.count);
              clipped_text(dl, x0 + 3, 0.5f * (ry0 + ry1), x1 - 2, IM_COL32(225, 225, 225, 255), buf);
            }
            continue;
          }
          const std::uint32_t span = row.span[rect.first];
          const Rgba c = kind_color(rect.kind);
          // A one-pixel gap at the right end keeps back-to-back spans of one kind apart.
          dl->AddRectFilled(ImVec2(x0, ry0), ImVec2(x1 - (x1 - x0 >= 4.0f ? 1.0f : 0.0f), ry1), col(c));
          if (x1 - x0 > 24.0f) {
            const auto& name = pair.trace(lane.side).spans[span].name;
            clipped_text(dl, std::max(x0, canvas_x0) + 3, 0.5f * (ry0 + ry1), std::min(x1, canvas_x0 + canvas_w) - 2,
                         text_on(c), name.c_str(), name.c_str() + name.size());
          }
          const std::uint32_t key = pair.op_key(lane.side, span);
          const std::uint8_t m = marks_[key];
          if (session_.overlay && show_critical_path_ && session_.overlay->on_critical_path(key))
            dl->AddRect(ImVec2(x0, ry0), ImVec2(x1, ry1), col(kCriticalPathOutline), 0.0f, 0, 1.5f);
          if (m & kMarkDependency) dl->AddRect(ImVec2(x0 - 1, ry0 - 1), ImVec2(x1 + 1, ry1 + 1), col(kDependencyOutline), 0.0f, 0, 2.0f);
          if (m & kMarkDependent) dl->AddRect(ImVec2(x0 - 1, ry0 - 1), ImVec2(x1 + 1, ry1 + 1), col(kDependentOutline), 0.0f, 0, 2.0f);
          if (m & kMarkSelected) dl->AddRect(ImVec2(x0 - 1, ry0 - 1), ImVec2(x1 + 1, ry1 + 1), col(kSelectedOutline), 0.0f, 0, 2.0f);
        }
      }
    }
    dl->PopClipRect();
  }

  if (in_canvas) {
    dl->AddLine(ImVec2(mouse.x, clip_top), ImVec2(mouse.x, clip_bottom), IM_COL32(255, 255, 255, 60));
    if (hit && !dragging_) {
      const Lane& lane = pair.lanes()[hit_lane_row->first];
      const LaneRow& row = lane.rows[hit_lane_row->second];
      if (hit->folded())
        folded_tooltip(row, *hit);
      else
        span_tooltip(lane.side, row.span[hit->first]);
    } else if (!dragging_) {
      ImGui::SetTooltip("%s", dur(static_cast<model::Nanos>(view_.t_of(mouse.x - canvas_x0))).c_str());
    }
  }
}

void Viewer::span_tooltip(Side side, std::uint32_t span) {
  const TracePair& pair = *session_.pair;
  const model::Span& s = pair.trace(side).spans[span];
  const std::uint32_t key = pair.op_key(side, span);
  ImGui::BeginTooltip();
  ImGui::Text("%s", s.name.c_str());
  const auto kind = model::to_string(s.kind);
  const auto engine = model::to_string(s.engine);
  ImGui::TextDisabled("op %s | %.*s | stream %u | engine %.*s", s.op_id.c_str(), static_cast<int>(kind.size()), kind.data(),
                      s.stream, static_cast<int>(engine.size()), engine.data());
  ImGui::Separator();
  const std::uint32_t ps = pair.span_of_key(Side::predicted, key);
  const std::uint32_t ms = pair.has(Side::measured) ? pair.span_of_key(Side::measured, key) : kNone;
  // The default font is monospaced: fixed-width columns line up.
  ImGui::Text("%-12s %11s %11s %11s", "", "start", "end", "duration");
  auto line = [&](const char* label, Side sd, std::uint32_t i) {
    if (i == kNone) {
      ImGui::TextDisabled("%-12s (not in this trace)", label);
      return;
    }
    const auto& x = pair.trace(sd).spans[i];
    ImGui::Text("%-12s %11s %11s %11s", label, dur(x.start_ns).c_str(), dur(x.end_ns).c_str(), dur(x.duration()).c_str());
    if (x.stream != s.stream) ImGui::TextDisabled("%-12s on stream %u", "", x.stream);
  };
  line("predicted", Side::predicted, ps);
  if (pair.has(Side::measured)) line("measured", Side::measured, ms);
  if (ps != kNone && ms != kNone) {
    const auto& a = pair.trace(Side::predicted).spans[ps];
    const auto& b = pair.trace(Side::measured).spans[ms];
    ImGui::Text("%-12s %11s %11s %11s", "pred - meas", sdur(a.start_ns - b.start_ns).c_str(),
                sdur(a.end_ns - b.end_ns).c_str(), sdur(a.duration() - b.duration()).c_str());
  }
  if (session_.overlay) {
    ImGui::Separator();
    ImGui::TextDisabled("%zu deps, %zu dependents%s", session_.overlay->dependencies_of(key).size(),
                        session_.overlay->dependents_of(key).size(),
                        session_.overlay->on_critical_path(key) ? ", on the critical path" : "");
  }
  ImGui::TextDisabled("click: select in both traces");
  ImGui::EndTooltip();
}

void Viewer::folded_tooltip(const LaneRow& row, const DrawRect& rect) {
  ImGui::BeginTooltip();
  ImGui::Text("%u ops folded (each narrower than a pixel)", rect.count);
  const model::Nanos s = row.start[rect.first], e = row.end[rect.first + rect.count - 1];
  ImGui::TextDisabled("%s .. %s (%s)", dur(s).c_str(), dur(e).c_str(), dur(e - s).c_str());
  for (std::size_t k = 0; k < kOpKindCount; ++k) {
    const auto kind = static_cast<model::OpKind>(k);
    if (const auto n = row.count_of(kind, rect.first, rect.count))
      ImGui::Text("  %6u %.*s", n, static_cast<int>(model::to_string(kind).size()), model::to_string(kind).data());
  }
  ImGui::TextDisabled("click or zoom in to unfold");
  ImGui::EndTooltip();
}

void Viewer::select(std::uint32_t key) {
  std::fill(marks_.begin(), marks_.end(), std::uint8_t{0});
  selected_ = key;
  if (key == kNone) return;
  // Select every engine's span of the op, in both traces.
  const TracePair& pair = *session_.pair;
  for (const auto k : pair.keys_of_op_id(pair.op_id_of_key(key))) {
    marks_[k] |= kMarkSelected;
    if (!session_.overlay) continue;
    for (const auto d : session_.overlay->dependencies_of(k)) marks_[d] |= kMarkDependency;
    for (const auto d : session_.overlay->dependents_of(k)) marks_[d] |= kMarkDependent;
  }
}

bool Viewer::select_op_id(const std::string& op_id) {
  if (!session_.pair) return false;
  const auto keys = session_.pair->keys_of_op_id(op_id);
  if (keys.empty()) return false;
  select(keys.front());
  return true;
}

void Viewer::focus_on(std::uint32_t key) {
  const TracePair& pair = *session_.pair;
  for (const Side s : {Side::predicted, Side::measured}) {
    if (!pair.has(s)) continue;
    const auto span = pair.span_of_key(s, key);
    if (span == kNone) continue;
    const auto& sp = pair.trace(s).spans[span];
    const SpanLocation loc = pair.locate(s, span);
    if (loc.lane != kNone) pending_scroll_y_ = layout_.lanes[loc.lane].y0;
    const double mid = 0.5 * static_cast<double>(sp.start_ns + sp.end_ns);
    const double range = std::max(view_.range_ns(), 0.0);
    if (static_cast<double>(sp.duration()) > range * 0.8)
      view_.fit(sp.start_ns, sp.end_ns, 0.5);
    else
      view_.set_range(mid - range / 2, mid + range / 2);
    return;
  }
}

void Viewer::summary_panel() {
  const TracePair& pair = *session_.pair;
  const OverlapSummary& s = *summary_;
  const bool meas = s.measured.has_value();
  ImGui::TextUnformatted("Overlap summary");
  ImGui::Separator();
  const float plots_h = meas ? 130.0f : 72.0f;
  ImGui::BeginChild("summary_numbers", ImVec2(0, std::max(60.0f, ImGui::GetContentRegionAvail().y - plots_h)));
  if (ImGui::BeginTable("summary_table", meas ? 4 : 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("");
    ImGui::TableSetupColumn("predicted");
    if (meas) {
      ImGui::TableSetupColumn("measured");
      ImGui::TableSetupColumn("error");
    }
    ImGui::TableHeadersRow();
    auto row = [&](const char* name, const std::string& p, const std::string& m, const std::string& err) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(p.c_str());
      if (!meas) return;
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(m.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(err.c_str());
    };
    char buf[64];
    std::string err;
    if (s.makespan_rel_error) {
      std::snprintf(buf, sizeof buf, "%+.1f %%", *s.makespan_rel_error * 100.0);
      err = buf;
    }
    row("makespan", dur(s.predicted.makespan_ns), meas ? dur(s.measured->makespan_ns) : "", err);
    std::string overlap_err;
    if (meas) {
      std::snprintf(buf, sizeof buf, "%+.1f pt", (s.predicted.copy_compute_overlap - s.measured->copy_compute_overlap) * 100.0);
      overlap_err = buf;
    }
    row("copy/compute overlap", percent(s.predicted.copy_compute_overlap),
        meas ? percent(s.measured->copy_compute_overlap) : "", overlap_err);
    auto conc = [&](const model::TraceMetrics& m) {
      std::snprintf(buf, sizeof buf, "%.2f (max %u)", m.mean_concurrency, m.max_concurrency);
      return std::string(buf);
    };
    row("mean concurrency", conc(s.predicted), meas ? conc(*s.measured) : "", "");
    for (const auto& sb : s.streams) {
      std::snprintf(buf, sizeof buf, "stream %u busy", sb.stream);
      std::string e;
      if (sb.predicted && sb.measured) {
        char b2[32];
        std::snprintf(b2, sizeof b2, "%+.1f pt", (*sb.predicted - *sb.measured) * 100.0);
        e = b2;
      }
      row(buf, percent(sb.predicted), percent(sb.measured), e);
    }
    ImGui::EndTable();
  }
  if (meas)
    ImGui::TextDisabled("%zu ops matched by id and engine", s.matched_ops);
  if (session_.overlay)
    ImGui::TextDisabled("critical path (predicted durations): %s over %zu ops", dur(session_.overlay->critical_path_ns()).c_str(),
                        session_.overlay->critical_path_ops());

  ImGui::EndChild();
  ImGui::Separator();
  ImGui::TextUnformatted("Concurrency over the visible range (device spans running)");
  const std::size_t n = static_cast<std::size_t>(std::clamp(ImGui::GetContentRegionAvail().x - 40.0f, 32.0f, 1024.0f));
  const float max_v = static_cast<float>(std::max({1u, s.predicted.max_concurrency, meas ? s.measured->max_concurrency : 0u}));
  const float plot_h = std::max(30.0f, (ImGui::GetContentRegionAvail().y - 4.0f) / (meas ? 2.0f : 1.0f) - 4.0f);
  const auto pv = s.concurrency_predicted.sample(view_.start_ns(), view_.end_ns(), n);
  ImGui::PushStyleColor(ImGuiCol_PlotLines, IM_COL32(158, 178, 255, 255));
  ImGui::PlotLines("pred", pv.data(), static_cast<int>(pv.size()), 0, nullptr, 0.0f, max_v * 1.05f, ImVec2(ImGui::GetContentRegionAvail().x - 40.0f, plot_h));
  ImGui::PopStyleColor();
  if (meas) {
    const auto mv = s.concurrency_measured.sample(view_.start_ns(), view_.end_ns(), n);
    ImGui::PushStyleColor(ImGuiCol_PlotLines, IM_COL32(255, 184, 115, 255));
    ImGui::PlotLines("meas", mv.data(), static_cast<int>(mv.size()), 0, nullptr, 0.0f, max_v * 1.05f, ImVec2(ImGui::GetContentRegionAvail().x - 40.0f, plot_h));
    ImGui::PopStyleColor();
  }
  (void)pair;
}

void Viewer::op_table_panel() {
  const TracePair& pair = *session_.pair;
  const bool meas = pair.has(Side::measured);
  ImGui::Text("Ops (%zu)  click a row to select and centre it; headers sort (errors by magnitude)", rows_.size());
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                    ImGuiTableFlags_BordersOuter | ImGuiTableFlags_BordersV |
                                    ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("ops", kOpColumnCount, flags)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  const ImGuiTableColumnFlags err_flags = ImGuiTableColumnFlags_PreferSortDescending |
                                          (meas ? ImGuiTableColumnFlags_DefaultSort : ImGuiTableColumnFlags_None);
  ImGui::TableSetupColumn("op", meas ? ImGuiTableColumnFlags_None : ImGuiTableColumnFlags_DefaultSort, 0.0f, static_cast<ImGuiID>(OpColumn::op));
  ImGui::TableSetupColumn("kind", 0, 0.0f, static_cast<ImGuiID>(OpColumn::kind));
  ImGui::TableSetupColumn("stream", 0, 0.0f, static_cast<ImGuiID>(OpColumn::stream));
  ImGui::TableSetupColumn("pred start", 0, 0.0f, static_cast<ImGuiID>(OpColumn::pred_start));
  ImGui::TableSetupColumn("meas start", 0, 0.0f, static_cast<ImGuiID>(OpColumn::meas_start));
  ImGui::TableSetupColumn("start err", ImGuiTableColumnFlags_PreferSortDescending, 0.0f, static_cast<ImGuiID>(OpColumn::start_error));
  ImGui::TableSetupColumn("pred dur", 0, 0.0f, static_cast<ImGuiID>(OpColumn::pred_duration));
  ImGui::TableSetupColumn("meas dur", 0, 0.0f, static_cast<ImGuiID>(OpColumn::meas_duration));
  ImGui::TableSetupColumn("dur err", ImGuiTableColumnFlags_PreferSortDescending, 0.0f, static_cast<ImGuiID>(OpColumn::duration_error));
  ImGui::TableSetupColumn("end err", err_flags, 0.0f, static_cast<ImGuiID>(OpColumn::end_error));
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && (specs->SpecsDirty || !rows_sorted_)) {
    if (specs->SpecsCount > 0) {
      const auto& spec = specs->Specs[0];
      sort_op_rows(rows_, pair, static_cast<OpColumn>(spec.ColumnUserID), spec.SortDirection == ImGuiSortDirection_Descending);
    }
    specs->SpecsDirty = false;
    rows_sorted_ = true;
  }
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows_.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const OpRow& r = rows_[static_cast<std::size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      const bool selected = selected_ != kNone && (marks_[r.key] & kMarkSelected);
      if (ImGui::Selectable(pair.op_id_of_key(r.key).c_str(), selected, ImGuiSelectableFlags_SpanAllColumns)) {
        select(r.key);
        focus_on(r.key);
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      const Rgba kc = kind_color(r.kind);
      ImGui::TextColored(ImVec4(kc.r / 255.0f, kc.g / 255.0f, kc.b / 255.0f, 1.0f), "%.*s",
                         static_cast<int>(model::to_string(r.kind).size()), model::to_string(r.kind).data());
      ImGui::TableNextColumn();
      ImGui::Text("%u", r.stream);
      auto cell = [](bool has, const std::string& text) {
        ImGui::TableNextColumn();
        if (has) ImGui::TextUnformatted(text.c_str());
        else ImGui::TextDisabled("-");
      };
      const bool p = r.pred_span != kNone, m = r.meas_span != kNone;
      cell(p, dur(r.pred_start));
      cell(m, dur(r.meas_start));
      cell(r.matched(), sdur(r.start_error()));
      cell(p, dur(r.pred_end - r.pred_start));
      cell(m, dur(r.meas_end - r.meas_start));
      cell(r.matched(), sdur(r.duration_error()));
      cell(r.matched(), sdur(r.end_error()));
    }
  }
  ImGui::EndTable();
}

}  // namespace streamlab::viz::app
