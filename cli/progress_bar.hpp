#pragma once
/// \file progress_bar.hpp
/// A one-line progress bar on stderr for commands that can run for many seconds (reading a 10-million-op
/// workload, simulating it). It appears only when stderr is a terminal, only after the command has run
/// for about a second (quick commands stay silent), and never with `--quiet`. The work reports through
/// a model::ProgressCounter; a background thread redraws a few times a second, so the work itself never
/// waits on the terminal.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "streamlab/model/progress.hpp"

namespace streamlab::cli {

class ProgressBar {
 public:
  /// `enabled` false (--quiet) or stderr not a terminal: the bar never draws and no thread starts.
  explicit ProgressBar(bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Starts a phase: the bar reads "label  [####    ]  37%  4.2 s" (elapsed time only while the total is
  /// 0). Returns the counter the work advances; it stays valid until the next phase() or the destructor.
  model::ProgressCounter& phase(std::string label, std::uint64_t total = 0);
  /// Erases the bar (if drawn) and keeps it hidden until the next phase(): call before printing results
  /// to stdout, so lines on a terminal do not interleave with it.
  void hide();
  /// Prints `line` (with a newline) on stdout with the bar out of the way, then lets it draw again.
  void println(const std::string& line);

 private:
  void loop();
  void draw_locked();
  void erase_locked();

  bool enabled_ = false;
  std::chrono::steady_clock::time_point started_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool visible_ = false;  // a phase is on
  bool drawn_ = false;    // something is on the terminal line now
  std::string label_;
  std::chrono::steady_clock::time_point phase_started_;
  model::ProgressCounter counter_;
  std::thread thread_;
};

/// Adds `-q,--quiet` (no progress bar) to a subcommand.
void add_quiet_flag(CLI::App& app, bool& quiet);

}  // namespace streamlab::cli
