#include "viewer.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <imgui.h>

#include "streamlab/viz/palette.hpp"
#include "streamlab/viz/ruler.hpp"
#include "streamlab/viz/search.hpp"

namespace streamlab::viz::app {
namespace {

constexpr float kRulerHeight = 24.0f;
constexpr std::uint8_t kMarkSelected = 1, kMarkDependency = 2, kMarkDependent = 4;

ImU32 col(Rgba c, std::uint8_t alpha = 255) {
  c.a = alpha;
  return c.packed_abgr();
}
ImVec4 vec(Rgba c) { return ImVec4(c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, 1.0f); }

std::string dur(model::Nanos ns) { return format_duration(static_cast<double>(ns)); }
std::string sdur(model::Nanos ns) { return format_signed_duration(static_cast<double>(ns)); }

std::string percent(std::optional<double> f) {
  if (!f) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", *f * 100.0);
  return buf;
}

std::string sv(std::string_view s) { return std::string(s); }

// Text centred vertically at (x, mid_y) within [x, x_max): when it does not fit, its middle gives way to
// ".." (op ids differ mostly at their ends: "upload_3" becomes "up..d_3", not "uploa.."), never cut
// through a glyph; nothing when not even "x..y" fits. The full text is in the tooltip.
void fitted_text(ImDrawList* dl, float x, float mid_y, float x_max, ImU32 colour, std::string_view text) {
  const float avail = x_max - x;
  if (avail <= 0 || text.empty()) return;
  const ImVec2 at(x, mid_y - ImGui::GetFontSize() * 0.5f);
  auto width = [](std::string_view t) { return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x; };
  if (width(text) <= avail) {
    dl->AddText(at, colour, text.data(), text.data() + text.size());
    return;
  }
  // Character boundaries (UTF-8 continuation bytes are never split off).
  auto boundary = [&](std::size_t i, int dir) {
    while (i > 0 && i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) i = dir < 0 ? i - 1 : i + 1;
    return i;
  };
  // Keep up to a third of the characters (at most 4) from the end, the rest from the start, shrinking both.
  for (std::size_t keep = text.size() - 1; keep >= 2; --keep) {
    const std::size_t tail_n = std::min<std::size_t>(4, keep / 3);
    const std::size_t head = boundary(keep - tail_n, -1);
    const std::size_t tail = boundary(text.size() - tail_n, +1);
    if (head == 0 || tail > text.size()) continue;
    std::string s(text.substr(0, head));
    s += "..";
    s += text.substr(tail);
    if (width(s) <= avail) {
      dl->AddText(at, colour, s.c_str(), s.c_str() + s.size());
      return;
    }
  }
}

// Black or white, whichever reads better on `bg`.
ImU32 text_on(Rgba bg) {
  const int luma = (bg.r * 299 + bg.g * 587 + bg.b * 114) / 1000;
  return luma > 140 ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

}  // namespace

Viewer::Viewer(Session session, ViewerOptions options)
    : session_(std::move(session)), options_(std::move(options)) {
  if (!session_.set) return;
  const TraceSet& set = *session_.set;
  for (std::size_t k = 0; k < set.kinds().size(); ++k)
    if (set.kinds()[k]) legend_.push_back(static_cast<model::OpKind>(k));
  model::ResourceUsage t = model::resource_usage();
  summary_ = summarize(set);
  setup_.summary = model::resource_usage() - t;
  columns_ = op_columns(set.size());
  rows_ = all_op_keys(set);
  shown_ = rows_;
  marks_.assign(set.op_key_count(), 0);
  match_mark_.assign(set.op_key_count(), 0);
  alignment_ = options_.alignment;
  offsets_ = alignment_offsets(set, alignment_);
  t = model::resource_usage();
  set_lane_mode(options_.lane_mode);
  setup_.lanes = model::resource_usage() - t;
  if (!options_.initial_search.empty()) {
    std::snprintf(search_.data(), search_.size(), "%s", options_.initial_search.c_str());
    run_search();
  }
}

void Viewer::set_lane_mode(LaneMode mode) {
  lane_mode_ = mode;
  auto& slot = lane_sets_[static_cast<std::size_t>(mode)];
  if (!slot) slot.emplace(*session_.set, mode);
  layout_ = layout_lanes(*slot);
  draw_ = {};
  lane_texts_.clear();
  for (const Lane& l : slot->lanes()) lane_texts_.push_back(session_.set->tag(l.trace) + "  " + l.label);
}

void Viewer::set_alignment(const Alignment& a) {
  // Keep what is on screen where it is for trace 0: shift the view by its offset change.
  const model::Nanos before = offsets_.offsets.empty() ? 0 : offsets_.offsets[0];
  alignment_ = a;
  offsets_ = alignment_offsets(*session_.set, a);
  const auto shift = static_cast<double>(offsets_.offsets[0] - before);
  view_.set_range(view_.start_ns() - shift, view_.end_ns() - shift);
  rows_sorted_ = false;  // start and error columns changed
}

float Viewer::label_width() const {
  // Wide enough for the longest lane label: labels are never cut.
  float w = 80.0f;
  for (const auto& t : lane_texts_) w = std::max(w, ImGui::CalcTextSize(t.c_str()).x);
  return std::ceil(w + 18.0f);
}

void Viewer::fit() {
  const TraceSet& set = *session_.set;
  bool any = false;
  model::Nanos lo = 0, hi = 1;
  for (TraceIndex t = 0; t < set.size(); ++t) {
    if (set.trace(t).spans.empty()) continue;
    const model::Nanos b = set.begin_ns(t) - offset(t), e = set.end_ns(t) - offset(t);
    lo = any ? std::min(lo, b) : b;
    hi = any ? std::max(hi, e) : e;
    any = true;
  }
  view_.fit(std::min<model::Nanos>(lo, 0), std::max<model::Nanos>(hi, 1));
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
  if (session_.set) {
    // The timeline takes what its lanes need, up to 60% of the height; the panels get the rest.
    const float avail = ImGui::GetContentRegionAvail().y;
    const float wanted = kRulerHeight + layout_.total_height + 2 * ImGui::GetStyle().WindowPadding.y + 6.0f;
    timeline(std::floor(std::clamp(wanted, std::min(160.0f, avail * 0.60f), avail * 0.60f)));
    const float panel_h = ImGui::GetContentRegionAvail().y;
    ImGui::BeginChild("summary", ImVec2(std::floor(ImGui::GetContentRegionAvail().x * 0.36f), panel_h), true);
    summary_panel();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("ops", ImVec2(0, panel_h), true);
    op_table_panel();
    ImGui::EndChild();
  } else {
    ImGui::TextDisabled("Nothing to show: no trace could be opened.");
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
  const TraceSet* set = session_.set.get();
  if (!set) return;
  // One line per trace: its tag in its colour, its file, what it is (from its metadata), its offset.
  for (TraceIndex t = 0; t < set->size(); ++t) {
    ImGui::TextColored(vec(trace_color(t)), "%s", set->tag(t).c_str());
    ImGui::SameLine();
    ImGui::TextUnformatted(set->label(t).c_str());
    // The file's name; the whole path on hover (a long path would push the rest off the window).
    ImGui::SameLine();
    ImGui::TextDisabled("%s", std::filesystem::path(set->file(t)).filename().string().c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", set->file(t).c_str());
    if (alignment_.mode != Alignment::Mode::none) {
      ImGui::SameLine();
      ImGui::TextDisabled("| shifted by %s", sdur(-offset(t)).c_str());
    }
    if (t == 0 && set->size() > 1) {
      ImGui::SameLine();
      ImGui::TextDisabled("| reference");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("errors are the other traces minus this one");
    }
  }

  if (ImGui::Button("Fit (F)")) fit();
  ImGui::SameLine();
  ImGui::TextUnformatted("lanes:");
  ImGui::SameLine();
  if (ImGui::RadioButton("engine", lane_mode_ == LaneMode::engine)) set_lane_mode(LaneMode::engine);
  ImGui::SameLine();
  if (ImGui::RadioButton("stream", lane_mode_ == LaneMode::stream)) set_lane_mode(LaneMode::stream);
  ImGui::SameLine(0, 18);
  ImGui::TextUnformatted("align:");
  ImGui::SameLine();
  if (ImGui::RadioButton("first op", alignment_.mode == Alignment::Mode::first_op)) set_alignment({});
  ImGui::SameLine();
  if (ImGui::RadioButton("none", alignment_.mode == Alignment::Mode::none)) set_alignment({Alignment::Mode::none, {}});
  ImGui::SameLine();
  const std::string on_op = alignment_.mode == Alignment::Mode::op ? "op " + alignment_.op_id : std::string("selected op");
  if (ImGui::RadioButton(on_op.c_str(), alignment_.mode == Alignment::Mode::op) && selected_ != kNone)
    set_alignment({Alignment::Mode::op, sv(set->op_id_of_key(selected_))});
  if (ImGui::IsItemHovered() && alignment_.mode != Alignment::Mode::op)
    ImGui::SetTooltip("select an op first: its start becomes 0 in every trace");
  if (session_.overlay) {
    ImGui::SameLine(0, 18);
    ImGui::Checkbox("critical path", &show_critical_path_);
  }
  ImGui::SameLine(0, 18);
  // Wide enough for the whole hint: a cut label reads as a bug.
  constexpr const char* kSearchHint = "search op id or name";
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(kSearchHint).x + 2 * ImGui::GetStyle().FramePadding.x + 60.0f);
  const bool enter = ImGui::InputTextWithHint("##search", kSearchHint, search_.data(), search_.size(),
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("ops whose id or name contains the text, any case; Enter: next match");
  if (ImGui::IsItemEdited()) run_search();
  if (enter && !matches_.empty()) {
    match_cursor_ = (match_cursor_ + 1) % matches_.size();
    select(matches_[match_cursor_]);
    focus_on(matches_[match_cursor_]);
  }
  if (search_[0] != '\0') {
    ImGui::SameLine();
    if (matches_.empty()) ImGui::TextColored(ImVec4(1.0f, 0.55f, 0.45f, 1.0f), "no match");
    else ImGui::TextDisabled("%zu / %zu", match_cursor_ + 1, matches_.size());
  }

  ImGui::TextDisabled("view %s .. %s   1 px = %s   %zu rects, %zu spans folded, built in %.2f ms",
                      dur(static_cast<model::Nanos>(view_.start_ns())).c_str(),
                      dur(static_cast<model::Nanos>(view_.end_ns())).c_str(), format_duration(view_.ns_per_px()).c_str(),
                      draw_.rect_count(), draw_.folded_span_count(), build_ms_);
  // Legend: the kinds present in any trace (found once, when the traces were opened).
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float box = ImGui::GetFontSize();
  for (const auto kind : legend_) {
    ImGui::SameLine(0, 14);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(at, ImVec2(at.x + box, at.y + box), col(kind_color(kind)));
    ImGui::Dummy(ImVec2(box, box));
    ImGui::SameLine(0, 4);
    const auto name = model::to_string(kind);
    ImGui::TextUnformatted(name.data(), name.data() + name.size());
  }
}

void Viewer::run_search() {
  std::fill(match_mark_.begin(), match_mark_.end(), char{0});
  matches_ = search_ops(*session_.set, search_.data());
  for (const auto k : matches_) match_mark_[k] = 1;
  match_cursor_ = 0;
  shown_.clear();
  if (search_[0] == '\0') shown_ = rows_;
  else
    for (const auto k : rows_)
      if (match_mark_[k]) shown_.push_back(k);
  if (!matches_.empty()) {
    select(matches_.front());
    focus_on(matches_.front());
  }
}

void Viewer::error_banner() {
  std::vector<std::string> lines = session_.errors;
  if (!offsets_.problem.empty()) lines.push_back(offsets_.problem);
  if (lines.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(90, 24, 24, 255));
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginChild("errors", ImVec2(0, line * static_cast<float>(std::min<std::size_t>(lines.size(), 4)) +
                                            ImGui::GetStyle().WindowPadding.y * 2),
                    true);
  for (const auto& e : lines) ImGui::TextUnformatted(e.c_str());
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

void Viewer::timeline(float height) {
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::BeginChild("timeline", ImVec2(0, height), true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  const float label_w = label_width();
  const float canvas_w = std::max(16.0f, width - label_w - ImGui::GetStyle().ScrollbarSize);
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
  ruler(origin.x + label_w, origin.y, canvas_w, kRulerHeight);
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + kRulerHeight));
  ImGui::BeginChild("lanes", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse);
  lanes_canvas(label_w);
  ImGui::EndChild();
  ImGui::EndChild();
  ImGui::PopStyleVar();
}

void Viewer::ruler(float x0, float y0, float width, float height) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float label_w = label_width();
  dl->AddRectFilled(ImVec2(x0 - label_w, y0), ImVec2(x0 + width, y0 + height), IM_COL32(28, 28, 32, 255));
  dl->AddText(ImVec2(x0 - label_w + 6, y0 + 5), IM_COL32(150, 150, 150, 255),
              alignment_.mode == Alignment::Mode::none ? "time" : "aligned time");
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
  dl->AddLine(ImVec2(x0 - label_w, y0 + height - 0.5f), ImVec2(x0 + width, y0 + height - 0.5f),
              IM_COL32(90, 90, 90, 255));
}

void Viewer::lanes_canvas(float label_w) {
  const TraceSet& set = *session_.set;
  const LaneSet& lane_set = lanes();
  const auto all_lanes = lane_set.lanes();
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
  const bool in_labels = hovered && mouse.x < canvas_x0;
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
  build_frame(set, lane_set, layout_, view_, offsets_.offsets, draw_, scroll, scroll + win_h);
  build_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - build_start).count();

  // Hit test before drawing, so the tooltip and the click see this frame's rects.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> hit_lane_row;
  std::optional<DrawRect> hit;
  std::optional<std::uint32_t> label_hit;
  if (in_canvas || in_labels) {
    if (const auto lane = layout_.lane_at(mouse.y - base.y)) {
      if (in_labels) label_hit = *lane;
      const LaneGeometry& g = layout_.lanes[*lane];
      if (in_canvas && all_lanes[*lane].kind == LaneKind::spans) {
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
  hovered_key_ = kNone;
  if (hit && !hit->folded()) {
    const Lane& lane = all_lanes[hit_lane_row->first];
    hovered_key_ = set.op_key(lane.trace, lane.rows[hit_lane_row->second].span[hit->first]);
  }
  if (ImGui::IsItemDeactivated() || (hovered && ImGui::IsMouseReleased(0))) {
    if (!dragging_ && hovered) {
      if (hit && hit->folded()) {
        // Clicking a folded run zooms onto it, as in Tracy.
        const Lane& lane = all_lanes[hit_lane_row->first];
        const auto& row = lane.rows[hit_lane_row->second];
        const model::Nanos off = offset(lane.trace);
        view_.fit(row.start[hit->first] - off, row.end[hit->first + hit->count - 1] - off, 0.05);
      } else if (hit) {
        select(hovered_key_);
      } else if (in_canvas) {
        select(kNone);
      }
    }
    dragging_ = false;
  }

  const float clip_top = win_top, clip_bottom = win_top + win_h;
  // Where the selected op and the hovered op are drawn in every trace (pairing by op, not by lane):
  // collected while drawing, outlined and joined after.
  struct Place {
    float x0, x1, y0, y1;
  };
  std::vector<Place> selected_places, hovered_places;
  auto place_of = [&](TraceIndex t, std::uint32_t span) -> std::optional<Place> {
    const SpanLocation loc = lane_set.locate(set, t, span);
    if (loc.lane == kNone) return std::nullopt;
    const LaneGeometry& g = layout_.lanes[loc.lane];
    const auto& sp = set.trace(t).spans[span];
    const float y0 = base.y + g.y0 + g.row_height * static_cast<float>(loc.row) + 1.0f;
    float x0 = canvas_x0 + static_cast<float>(view_.x_of(static_cast<double>(sp.start_ns - offset(t))));
    float x1 = canvas_x0 + static_cast<float>(view_.x_of(static_cast<double>(std::max(sp.end_ns, sp.start_ns) - offset(t))));
    x0 = std::clamp(x0, canvas_x0 - 2, canvas_x0 + canvas_w + 2);
    x1 = std::clamp(x1, canvas_x0 - 2, canvas_x0 + canvas_w + 2);
    if (x1 - x0 < 1.0f) x1 = x0 + 1.0f;
    return Place{x0, x1, y0, y0 + g.row_height - 2.0f};
  };
  auto collect = [&](std::uint32_t key, std::vector<Place>& out) {
    if (key == kNone) return;
    for (const auto k : set.keys_of_op_id(set.op_id_of_key(key)))
      for (TraceIndex t = 0; t < set.size(); ++t)
        if (const auto s = set.span_of_key(t, k); s != kNone)
          if (const auto p = place_of(t, s)) out.push_back(*p);
  };
  collect(selected_, selected_places);
  if (hovered_key_ != selected_) collect(hovered_key_, hovered_places);

  for (std::uint32_t li = 0; li < all_lanes.size(); ++li) {
    const Lane& lane = all_lanes[li];
    const LaneDraw& ld = draw_.lanes[li];
    if (!ld.visible) continue;
    const LaneGeometry& g = layout_.lanes[li];
    const float y0 = base.y + g.y0, y1 = base.y + g.y1();
    dl->AddRectFilled(ImVec2(base.x, y0), ImVec2(canvas_x0 + canvas_w, y1), col(trace_lane_bg(lane.trace)));
    // Label: the trace's tag in its colour, then what the lane holds. The column is as wide as the
    // widest label, so none is cut.
    const float ty = y0 + (std::min(g.height, g.row_height) - ImGui::GetFontSize()) * 0.5f;
    dl->AddRectFilled(ImVec2(base.x, y0), ImVec2(base.x + 3, y1), col(trace_color(lane.trace)));
    dl->AddText(ImVec2(base.x + 8, ty), col(trace_color(lane.trace)), set.tag(lane.trace).c_str());
    dl->AddText(ImVec2(base.x + 8 + ImGui::CalcTextSize(set.tag(lane.trace).c_str()).x + 6, ty),
                IM_COL32(215, 215, 215, 255), lane.label.c_str());

    dl->PushClipRect(ImVec2(canvas_x0, std::max(y0, clip_top)), ImVec2(canvas_x0 + canvas_w, std::min(y1, clip_bottom)), true);
    if (lane.kind == LaneKind::sm_occupancy) {
      // One bar per pixel column, height = busy fraction; equal neighbours merged into one rect.
      const auto& occ = ld.occupancy;
      for (std::size_t x = 0; x < occ.size();) {
        std::size_t e = x + 1;
        while (e < occ.size() && std::fabs(occ[e] - occ[x]) < 1e-3f) ++e;
        if (occ[x] > 0.0f) {
          const float h = std::max(1.0f, (g.height - 2) * std::min(occ[x], 1.0f));
          dl->AddRectFilled(ImVec2(canvas_x0 + static_cast<float>(x), y1 - 1 - h),
                            ImVec2(canvas_x0 + static_cast<float>(e), y1 - 1), col(kOccupancyFill));
        }
        x = e;
      }
      const auto& o = set.occupancy(lane.trace);
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
              fitted_text(dl, x0 + 3, 0.5f * (ry0 + ry1), x1 - 2, IM_COL32(225, 225, 225, 255), buf);
            }
            continue;
          }
          const std::uint32_t span = row.span[rect.first];
          const Rgba c = kind_color(rect.kind);
          // A one-pixel gap at the right end keeps back-to-back spans of one kind apart.
          dl->AddRectFilled(ImVec2(x0, ry0), ImVec2(x1 - (x1 - x0 >= 4.0f ? 1.0f : 0.0f), ry1), col(c));
          const std::uint32_t key = set.op_key(lane.trace, span);
          if (x1 - x0 > 24.0f) {
            // The op id is what pairs spans across traces and what the table and search show.
            const std::string_view id = set.op_id_of_key(key);
            fitted_text(dl, std::max(x0, canvas_x0) + 3, 0.5f * (ry0 + ry1), std::min(x1, canvas_x0 + canvas_w) - 2,
                        text_on(c), id);
          }
          const std::uint8_t m = marks_[key];
          if (session_.overlay && show_critical_path_ && session_.overlay->on_critical_path(key))
            dl->AddRect(ImVec2(x0, ry0), ImVec2(x1, ry1), col(kCriticalPathOutline), 0.0f, 0, 1.5f);
          if (m & kMarkDependency) dl->AddRect(ImVec2(x0 - 1, ry0 - 1), ImVec2(x1 + 1, ry1 + 1), col(kDependencyOutline), 0.0f, 0, 2.0f);
          if (m & kMarkDependent) dl->AddRect(ImVec2(x0 - 1, ry0 - 1), ImVec2(x1 + 1, ry1 + 1), col(kDependentOutline), 0.0f, 0, 2.0f);
        }
      }
    }
    dl->PopClipRect();
  }

  // The selected and hovered op in every trace: outlined (even where its span is folded into a run) and
  // joined top to bottom, so the same op is found across traces whatever lane each run put it in.
  dl->PushClipRect(ImVec2(canvas_x0, clip_top), ImVec2(canvas_x0 + canvas_w, clip_bottom), true);
  auto draw_places = [&](std::vector<Place>& places, ImU32 outline, ImU32 link, float thickness) {
    std::sort(places.begin(), places.end(), [](const Place& a, const Place& b) { return a.y0 < b.y0; });
    for (std::size_t i = 0; i + 1 < places.size(); ++i) {
      const Place& a = places[i];
      const Place& b = places[i + 1];
      dl->AddLine(ImVec2(a.x0, a.y1 + 1), ImVec2(b.x0, b.y0 - 1), link, 1.0f);
    }
    for (const Place& p : places)
      dl->AddRect(ImVec2(p.x0 - 1, p.y0 - 1), ImVec2(p.x1 + 1, p.y1 + 1), outline, 0.0f, 0, thickness);
  };
  draw_places(hovered_places, IM_COL32(255, 255, 255, 130), IM_COL32(255, 255, 255, 90), 1.0f);
  draw_places(selected_places, col(kSelectedOutline), IM_COL32(255, 255, 255, 150), 2.0f);
  dl->PopClipRect();

  if (in_canvas) {
    dl->AddLine(ImVec2(mouse.x, clip_top), ImVec2(mouse.x, clip_bottom), IM_COL32(255, 255, 255, 60));
    if (hit && !dragging_) {
      const Lane& lane = all_lanes[hit_lane_row->first];
      const LaneRow& row = lane.rows[hit_lane_row->second];
      if (hit->folded())
        folded_tooltip(lane, row, *hit);
      else
        span_tooltip(lane.trace, row.span[hit->first]);
    } else if (!dragging_) {
      ImGui::SetTooltip("%s", dur(static_cast<model::Nanos>(view_.t_of(mouse.x - canvas_x0))).c_str());
    }
  } else if (label_hit && !dragging_) {
    const Lane& lane = all_lanes[*label_hit];
    ImGui::BeginTooltip();
    ImGui::TextColored(vec(trace_color(lane.trace)), "%s", set.tag(lane.trace).c_str());
    ImGui::SameLine();
    ImGui::Text("%s", lane.label.c_str());
    ImGui::TextUnformatted(set.label(lane.trace).c_str());
    ImGui::TextDisabled("%s", set.file(lane.trace).c_str());
    if (lane.kind == LaneKind::spans) {
      std::size_t n = 0;
      for (const auto& r : lane.rows) n += r.size();
      ImGui::TextDisabled("%zu spans in %zu row%s", n, lane.rows.size(), lane.rows.size() == 1 ? "" : "s");
    }
    ImGui::EndTooltip();
  }
}

void Viewer::span_tooltip(TraceIndex trace, std::uint32_t span) {
  const TraceSet& set = *session_.set;
  const model::Span& s = set.trace(trace).spans[span];
  const std::uint32_t key = set.op_key(trace, span);
  ImGui::BeginTooltip();
  // The full name and id, never shortened (span labels on the timeline are).
  ImGui::Text("%.*s", static_cast<int>(s.name.size()), s.name.data());
  const auto kind = model::to_string(s.kind);
  const auto engine = model::to_string(s.engine);
  ImGui::TextDisabled("op %.*s | %.*s | engine %.*s", static_cast<int>(s.op_id.size()), s.op_id.data(),
                      static_cast<int>(kind.size()), kind.data(),
                      static_cast<int>(engine.size()), engine.data());
  ImGui::Separator();
  // The default font is monospaced: fixed-width columns line up. Times are aligned (see the header).
  ImGui::Text("%-4s %-7s %11s %11s %11s %11s", "", "stream", "start", "end", "duration", "vs A");
  const model::Span* ref = nullptr;
  if (const auto r = set.span_of_key(0, key); r != kNone) ref = &set.trace(0).spans[r];
  for (TraceIndex t = 0; t < set.size(); ++t) {
    const auto i = set.span_of_key(t, key);
    ImGui::TextColored(vec(trace_color(t)), "%-4s", set.tag(t).c_str());
    ImGui::SameLine();
    if (i == kNone) {
      ImGui::TextDisabled("(not in this trace)");
      continue;
    }
    const auto& x = set.trace(t).spans[i];
    std::string err = "";
    if (t > 0 && ref != nullptr) err = sdur((x.end_ns - offset(t)) - (ref->end_ns - offset(0))) + " end";
    ImGui::Text("%-7u %11s %11s %11s %s", x.stream, dur(x.start_ns - offset(t)).c_str(), dur(x.end_ns - offset(t)).c_str(),
                dur(x.duration()).c_str(), err.c_str());
  }
  if (session_.overlay) {
    ImGui::Separator();
    ImGui::TextDisabled("%zu deps, %zu dependents%s", session_.overlay->dependencies_of(key).size(),
                        session_.overlay->dependents_of(key).size(),
                        session_.overlay->on_critical_path(key) ? ", on the critical path" : "");
  }
  ImGui::TextDisabled("click: select in every trace");
  ImGui::EndTooltip();
}

void Viewer::folded_tooltip(const Lane& lane, const LaneRow& row, const DrawRect& rect) {
  ImGui::BeginTooltip();
  ImGui::Text("%u ops folded (each narrower than a pixel)", rect.count);
  const model::Nanos off = offset(lane.trace);
  const model::Nanos s = row.start[rect.first] - off, e = row.end[rect.first + rect.count - 1] - off;
  ImGui::TextDisabled("%s .. %s (%s)", dur(s).c_str(), dur(e).c_str(), dur(e - s).c_str());
  for (const auto kind : legend_) {
    if (const auto n = row.count_of(kind, rect.first, rect.count))
      ImGui::Text("  %6u %.*s", n, static_cast<int>(model::to_string(kind).size()), model::to_string(kind).data());
  }
  ImGui::TextDisabled("click or zoom in to unfold");
  ImGui::EndTooltip();
}

void Viewer::select(std::uint32_t key) {
  // Clear only what the previous selection marked: no pass over every key.
  if (selected_ != kNone) {
    const TraceSet& set = *session_.set;
    for (const auto k : set.keys_of_op_id(set.op_id_of_key(selected_))) {
      marks_[k] = 0;
      if (!session_.overlay) continue;
      for (const auto d : session_.overlay->dependencies_of(k)) marks_[d] = 0;
      for (const auto d : session_.overlay->dependents_of(k)) marks_[d] = 0;
    }
  }
  selected_ = key;
  if (key == kNone) return;
  // Select every engine's span of the op, in every trace.
  const TraceSet& set = *session_.set;
  for (const auto k : set.keys_of_op_id(set.op_id_of_key(key))) {
    marks_[k] |= kMarkSelected;
    if (!session_.overlay) continue;
    for (const auto d : session_.overlay->dependencies_of(k)) marks_[d] |= kMarkDependency;
    for (const auto d : session_.overlay->dependents_of(k)) marks_[d] |= kMarkDependent;
  }
}

bool Viewer::select_op_id(const std::string& op_id) {
  if (!session_.set) return false;
  const auto keys = session_.set->keys_of_op_id(op_id);
  if (keys.empty()) return false;
  select(keys.front());
  return true;
}

void Viewer::focus_on(std::uint32_t key) {
  const TraceSet& set = *session_.set;
  const auto [t, span] = set.any_span_of_key(key);
  if (t == kNone) return;
  const auto& sp = set.trace(t).spans[span];
  const SpanLocation loc = lanes().locate(*session_.set, t, span);
  if (loc.lane != kNone) pending_scroll_y_ = layout_.lanes[loc.lane].y0;
  const double s = static_cast<double>(sp.start_ns - offset(t)), e = static_cast<double>(sp.end_ns - offset(t));
  const double range = std::max(view_.range_ns(), 0.0);
  if (e - s > range * 0.8)
    view_.fit(sp.start_ns - offset(t), sp.end_ns - offset(t), 0.5);
  else
    view_.set_range(0.5 * (s + e) - range / 2, 0.5 * (s + e) + range / 2);
}

void Viewer::summary_panel() {
  const TraceSet& set = *session_.set;
  const OverlapSummary& s = *summary_;
  const auto n = static_cast<int>(set.size());
  ImGui::TextUnformatted("Overlap summary");
  ImGui::SameLine();
  ImGui::TextDisabled("(B, C, ... against A)");
  ImGui::Separator();
  const float plots_h = 34.0f + 44.0f * static_cast<float>(n);
  ImGui::BeginChild("summary_numbers", ImVec2(0, std::max(60.0f, ImGui::GetContentRegionAvail().y - plots_h)));
  if (ImGui::BeginTable("summary_table", 1 + n, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("");
    for (TraceIndex t = 0; t < set.size(); ++t) ImGui::TableSetupColumn(set.tag(t).c_str());
    ImGui::TableHeadersRow();
    auto row = [&](const std::string& name, auto&& cell) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      for (TraceIndex t = 0; t < set.size(); ++t) {
        ImGui::TableNextColumn();
        const std::string text = cell(t);
        ImGui::TextUnformatted(text.c_str());
      }
    };
    char buf[96];
    row("makespan", [&](TraceIndex t) {
      std::string v = dur(s.metrics[t].makespan_ns);
      if (s.makespan_rel_error[t]) {
        std::snprintf(buf, sizeof buf, " (%+.1f %%)", *s.makespan_rel_error[t] * 100.0);
        v += buf;
      }
      return v;
    });
    row("copy/compute overlap", [&](TraceIndex t) {
      std::string v = percent(s.metrics[t].copy_compute_overlap);
      if (t > 0) {
        std::snprintf(buf, sizeof buf, " (%+.1f pt)", (s.metrics[t].copy_compute_overlap - s.metrics[0].copy_compute_overlap) * 100.0);
        v += buf;
      }
      return v;
    });
    row("mean concurrency", [&](TraceIndex t) {
      std::snprintf(buf, sizeof buf, "%.2f (max %u)", s.metrics[t].mean_concurrency, s.metrics[t].max_concurrency);
      return std::string(buf);
    });
    for (const auto& e : s.engines)
      row(std::string(engine_label(static_cast<model::Engine>(e.id))) + " busy", [&](TraceIndex t) { return percent(e.busy[t]); });
    for (const auto& st : s.streams)
      row("stream " + std::to_string(st.id) + " busy", [&](TraceIndex t) { return percent(st.busy[t]); });
    ImGui::EndTable();
  }
  for (TraceIndex t = 1; t < set.size(); ++t)
    ImGui::TextDisabled("%s: %zu ops matched with A by id and engine", set.tag(t).c_str(), set.common_op_count(t));
  if (session_.overlay)
    ImGui::TextDisabled("critical path (durations of A): %s over %zu ops", dur(session_.overlay->critical_path_ns()).c_str(),
                        session_.overlay->critical_path_ops());
  ImGui::EndChild();
  ImGui::Separator();
  ImGui::TextUnformatted("Concurrency over the visible range (device spans running)");
  const std::size_t buckets = static_cast<std::size_t>(std::clamp(ImGui::GetContentRegionAvail().x - 40.0f, 32.0f, 1024.0f));
  std::uint32_t max_c = 1;
  for (const auto& m : s.metrics) max_c = std::max(max_c, m.max_concurrency);
  const float plot_h = std::max(24.0f, (ImGui::GetContentRegionAvail().y - 4.0f) / static_cast<float>(n) - 4.0f);
  for (TraceIndex t = 0; t < set.size(); ++t) {
    // Sampled per pixel bucket from a prefix integral: the cost follows the plot width, not the trace.
    const auto v = s.concurrency[t].sample(view_.start_ns() + static_cast<double>(offset(t)),
                                           view_.end_ns() + static_cast<double>(offset(t)), buckets);
    ImGui::PushStyleColor(ImGuiCol_PlotLines, col(trace_color(t)));
    ImGui::PlotLines(set.tag(t).c_str(), v.data(), static_cast<int>(v.size()), 0, nullptr, 0.0f,
                     static_cast<float>(max_c) * 1.05f, ImVec2(ImGui::GetContentRegionAvail().x - 40.0f, plot_h));
    ImGui::PopStyleColor();
  }
}

void Viewer::op_table_panel() {
  const TraceSet& set = *session_.set;
  ImGui::Text("Ops (%zu%s)", shown_.size(), search_[0] != '\0' ? " matching the search" : "");
  ImGui::SameLine();
  ImGui::TextDisabled("click a row to select and centre it; headers sort (errors by magnitude); times aligned");
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                    ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_BordersV |
                                    ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
  const int ncols = static_cast<int>(std::min<std::size_t>(columns_.size(), 64));
  if (!ImGui::BeginTable("ops", ncols, flags)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (int c = 0; c < ncols; ++c) {
    const OpColumn& oc = columns_[static_cast<std::size_t>(c)];
    ImGuiTableColumnFlags f = oc.is_error() ? ImGuiTableColumnFlags_PreferSortDescending : ImGuiTableColumnFlags_None;
    // Default: timeline order of the reference trace (cheap at a million ops, unlike a string sort).
    if (oc.what == OpColumn::What::start && oc.trace == 0) f |= ImGuiTableColumnFlags_DefaultSort;
    ImGui::TableSetupColumn(column_title(oc, set).c_str(), f, 0.0f, static_cast<ImGuiID>(c));
  }
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && (specs->SpecsDirty || !rows_sorted_)) {
    const model::ResourceUsage t = model::resource_usage();
    if (specs->SpecsCount > 0) {
      const auto& spec = specs->Specs[0];
      sort_op_keys(rows_, set, offsets_.offsets, columns_[spec.ColumnUserID],
                   spec.SortDirection == ImGuiSortDirection_Descending);
      if (search_[0] == '\0') shown_ = rows_;
      else {
        shown_.clear();
        for (const auto k : rows_)
          if (match_mark_[k]) shown_.push_back(k);
      }
    }
    specs->SpecsDirty = false;
    rows_sorted_ = true;
    setup_.table = model::resource_usage() - t;
  }
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(shown_.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const std::uint32_t key = shown_[static_cast<std::size_t>(i)];
      ImGui::TableNextRow();
      ImGui::PushID(i);
      for (int c = 0; c < ncols; ++c) {
        ImGui::TableNextColumn();
        const OpColumn& oc = columns_[static_cast<std::size_t>(c)];
        const auto v = op_value(set, offsets_.offsets, key, oc);
        switch (oc.what) {
          case OpColumn::What::op: {
            const std::string id = sv(set.op_id_of_key(key));
            if (ImGui::Selectable(id.c_str(), (marks_[key] & kMarkSelected) != 0, ImGuiSelectableFlags_SpanAllColumns)) {
              select(key);
              focus_on(key);
            }
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\nop %s", sv(op_name_of_key(set, key)).c_str(), id.c_str());
            break;
          }
          case OpColumn::What::kind: {
            if (!v) break;
            const auto kind = static_cast<model::OpKind>(*v);
            const auto name = model::to_string(kind);
            ImGui::TextColored(vec(kind_color(kind)), "%.*s", static_cast<int>(name.size()), name.data());
            break;
          }
          case OpColumn::What::engine: {
            const auto name = engine_label(set.engine_of_key(key));
            ImGui::TextUnformatted(name.data(), name.data() + name.size());
            break;
          }
          case OpColumn::What::start:
          case OpColumn::What::duration:
            if (v) ImGui::TextUnformatted(dur(*v).c_str());
            else ImGui::TextDisabled("-");
            break;
          case OpColumn::What::start_error:
          case OpColumn::What::duration_error:
            if (v) ImGui::TextUnformatted(sdur(*v).c_str());
            else ImGui::TextDisabled("-");
            break;
        }
      }
      ImGui::PopID();
    }
  }
  ImGui::EndTable();
}

}  // namespace streamlab::viz::app
