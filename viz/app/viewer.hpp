#pragma once
// The ImGui front end: turns the library's lanes, draw lists and summaries into one window per frame and
// turns mouse and keyboard input into view changes and a selection. All layout, folding, alignment and
// matching decisions live in streamlab::viz; this file only draws and reacts. Nothing here walks every
// span per frame: what depends on the whole trace is computed when the input or a setting changes.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/model/resource_usage.hpp"
#include "streamlab/viz/alignment.hpp"
#include "streamlab/viz/frame.hpp"
#include "streamlab/viz/lanes.hpp"
#include "streamlab/viz/op_table.hpp"
#include "streamlab/viz/session.hpp"
#include "streamlab/viz/summary.hpp"
#include "streamlab/viz/timeline_view.hpp"

namespace streamlab::viz::app {

struct ViewerOptions {
  std::optional<std::pair<model::Nanos, model::Nanos>> initial_view;  ///< aligned time
  std::string initial_selection;  ///< op id selected at start (--select), e.g. for screenshots
  std::string initial_search;     ///< search text at start (--search)
  LaneMode lane_mode = LaneMode::engine;
  Alignment alignment;
  bool show_error_popup = true;
  int fit_key = 0;  ///< backend key code of the fit-to-trace key ('F')
};

/// What the viewer's set-up steps used: CPU time (user, system) and minor faults (the --timing report).
struct SetupTimes {
  model::ResourceUsage summary, lanes, table;
};

class Viewer {
 public:
  Viewer(Session session, ViewerOptions options);
  /// Builds the whole UI for one frame (call between ImGui::NewFrame and ImGui::Render).
  void frame();
  /// Selects an op by id in every trace; false when no trace has it.
  bool select_op_id(const std::string& op_id);
  /// The alignment's problem (e.g. --align names an op a trace lacks), "" when none.
  [[nodiscard]] const std::string& alignment_problem() const noexcept { return offsets_.problem; }
  [[nodiscard]] const SetupTimes& setup_times() const noexcept { return setup_; }

 private:
  void header();
  void error_banner();
  void timeline(float height);
  void ruler(float x0, float y0, float width, float height);
  void lanes_canvas(float label_width);
  void summary_panel();
  void op_table_panel();
  void span_tooltip(TraceIndex trace, std::uint32_t span);
  void folded_tooltip(const Lane& lane, const LaneRow& row, const DrawRect& rect);
  void select(std::uint32_t key);
  void focus_on(std::uint32_t key);
  void fit();
  void set_lane_mode(LaneMode mode);
  void set_alignment(const Alignment& a);
  void run_search();
  [[nodiscard]] float label_width() const;
  [[nodiscard]] model::Nanos offset(TraceIndex t) const noexcept { return offsets_.offsets[t]; }
  [[nodiscard]] const LaneSet& lanes() const noexcept { return *lane_sets_[static_cast<std::size_t>(lane_mode_)]; }

  Session session_;
  ViewerOptions options_;
  LaneMode lane_mode_ = LaneMode::engine;
  std::array<std::optional<LaneSet>, 2> lane_sets_;  ///< built on first use per mode
  LaneLayout layout_;
  Alignment alignment_;
  AlignmentOffsets offsets_;
  TimelineView view_;
  FrameDraw draw_;
  std::optional<OverlapSummary> summary_;
  std::vector<OpColumn> columns_;
  std::vector<std::uint32_t> rows_;      ///< op keys in the table's order
  std::vector<std::uint32_t> shown_;     ///< rows_ filtered by the search (== rows_ without one)
  std::vector<std::uint32_t> matches_;   ///< search matches in key order
  std::vector<char> match_mark_;         ///< per key: 1 when it matches the search
  std::size_t match_cursor_ = 0;
  std::array<char, 256> search_{};
  std::vector<model::OpKind> legend_;    ///< kinds present, computed once
  std::vector<std::string> lane_texts_;  ///< per lane "A  copy H2D"
  bool rows_sorted_ = false;
  bool view_initialized_ = false;
  bool show_critical_path_ = true;
  bool dragging_ = false;
  double build_ms_ = 0;                  ///< last frame's build_frame time, shown in the header
  float pending_scroll_y_ = -1.0f;       ///< lane y to scroll to next frame (op table click), < 0: none
  std::uint32_t selected_ = kNone;
  std::uint32_t hovered_key_ = kNone;    ///< op key under the mouse last frame: its spans in every trace are outlined
  /// Per op key: bit 0 selected, bit 1 dependency of the selection, bit 2 dependent of it.
  std::vector<std::uint8_t> marks_;
  bool error_popup_opened_ = false;
  SetupTimes setup_;
};

}  // namespace streamlab::viz::app
