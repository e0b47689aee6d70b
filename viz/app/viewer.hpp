#pragma once
// The ImGui front end: turns the library's lanes, draw lists and summaries into one window per frame and
// turns mouse and keyboard input into view changes and a selection. All layout and folding decisions
// live in streamlab::viz; this file only draws and reacts.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/viz/frame.hpp"
#include "streamlab/viz/op_table.hpp"
#include "streamlab/viz/session.hpp"
#include "streamlab/viz/summary.hpp"
#include "streamlab/viz/timeline_view.hpp"

namespace streamlab::viz::app {

struct ViewerOptions {
  std::string predicted_name, measured_name, workload_name;  ///< shown in the header
  std::optional<std::pair<model::Nanos, model::Nanos>> initial_view;
  std::string initial_selection;  ///< op id selected at start (--select), e.g. for screenshots
  bool show_error_popup = true;
  int fit_key = 0;  ///< backend key code of the fit-to-trace key ('F')
};

class Viewer {
 public:
  Viewer(Session session, ViewerOptions options);
  /// Builds the whole UI for one frame (call between ImGui::NewFrame and ImGui::Render).
  void frame();
  /// Selects an op by id in both traces; false when neither trace has it.
  bool select_op_id(const std::string& op_id);

 private:
  void header();
  void error_banner();
  void timeline(float height);
  void ruler(float x0, float y0, float width, float height);
  void lanes_canvas(float label_width);
  void summary_panel();
  void op_table_panel();
  void span_tooltip(Side side, std::uint32_t span);
  void folded_tooltip(const LaneRow& row, const DrawRect& rect);
  void select(std::uint32_t key);
  void focus_on(std::uint32_t key);
  void fit();

  Session session_;
  ViewerOptions options_;
  LaneLayout layout_;
  TimelineView view_;
  FrameDraw draw_;
  std::optional<OverlapSummary> summary_;
  std::vector<OpRow> rows_;
  bool rows_sorted_ = false;
  bool view_initialized_ = false;
  bool show_critical_path_ = true;
  bool dragging_ = false;
  double build_ms_ = 0;
  float pending_scroll_y_ = -1.0f;  ///< lane y to scroll to next frame (op table click), < 0: none  ///< last frame's build_frame time, shown in the header
  std::uint32_t selected_ = kNone;
  /// Per op key: bit 0 selected, bit 1 dependency of the selection, bit 2 dependent of it.
  std::vector<std::uint8_t> marks_;
  bool error_popup_opened_ = false;
};

}  // namespace streamlab::viz::app
