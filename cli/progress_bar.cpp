#include "progress_bar.hpp"

#include <cstdio>
#include <iostream>

#include <unistd.h>

namespace streamlab::cli {

namespace {
// Quick commands stay silent: the bar shows once the command has run this long.
constexpr auto kShowAfter = std::chrono::milliseconds(1000);
constexpr auto kRedraw = std::chrono::milliseconds(150);
constexpr int kBarWidth = 28;
}  // namespace

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled && ::isatty(STDERR_FILENO) == 1), started_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

ProgressBar::~ProgressBar() {
  if (!enabled_) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    erase_locked();
  }
  wake_.notify_all();
  thread_.join();
}

model::ProgressCounter& ProgressBar::phase(std::string label, std::uint64_t total) {
  std::lock_guard lock(mutex_);
  label_ = std::move(label);
  counter_.reset(total);
  phase_started_ = std::chrono::steady_clock::now();
  visible_ = true;
  return counter_;
}

void ProgressBar::hide() {
  std::lock_guard lock(mutex_);
  visible_ = false;
  erase_locked();
}

void ProgressBar::println(const std::string& line) {
  std::lock_guard lock(mutex_);
  erase_locked();
  std::cout << line << std::endl;
}

void ProgressBar::loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kRedraw);
    if (stop_) break;
    if (visible_ && std::chrono::steady_clock::now() - started_ >= kShowAfter) draw_locked();
  }
}

void ProgressBar::draw_locked() {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - phase_started_).count();
  const std::uint64_t total = counter_.total();
  const std::uint64_t done = counter_.done();
  std::string line = "\r" + label_;
  char buf[64];
  if (total > 0) {
    const double f = done >= total ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
    const int filled = static_cast<int>(f * kBarWidth);
    line += "  [";
    line.append(static_cast<std::size_t>(filled), '#');
    line.append(static_cast<std::size_t>(kBarWidth - filled), ' ');
    std::snprintf(buf, sizeof buf, "] %3d%%", static_cast<int>(f * 100));
    line += buf;
  }
  std::snprintf(buf, sizeof buf, "  %.1f s", seconds);
  line += buf;
  line += "\x1b[K";  // clear what a longer earlier line left
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::erase_locked() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

void add_quiet_flag(CLI::App& app, bool& quiet) {
  app.add_flag("-q,--quiet", quiet, "No progress bar on stderr (it shows only on a terminal, after about a second)");
}

}  // namespace streamlab::cli
