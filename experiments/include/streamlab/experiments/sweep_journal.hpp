#pragma once
/// \file sweep_journal.hpp
/// The sweep's append-only journal (`DIR/sweep.journal`): one line per finished unit,
/// `"<unit key as a JSON string>"<TAB><payload JSON><TAB><FNV-1a of the two before>`. A line is appended with
/// one write() and flushed to the OS at once, so a killed sweep loses at most the units still running;
/// on open, a torn or corrupt tail (a line without its newline, a checksum that does not match) is cut
/// off, and lines whose key the current plan does not have (an edited spec) are kept but not used.
/// The journal is locked (flock) while a sweep writes it: two sweeps into one folder refuse to run.

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>

namespace streamlab::experiments {

class SweepJournal {
 public:
  /// Opens (creating) `file`, locks it, reads every valid line into entries() and cuts off a bad tail.
  /// Throws model::InputError naming the file when it cannot be opened or another sweep holds it.
  explicit SweepJournal(std::filesystem::path file);
  ~SweepJournal();
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;

  /// key -> payload of every valid line (the last one wins when a key repeats).
  [[nodiscard]] const std::unordered_map<std::string, std::string>& entries() const noexcept { return entries_; }
  /// Lines dropped on open (torn tail or bad checksum).
  [[nodiscard]] std::size_t dropped_lines() const noexcept { return dropped_; }
  /// Appends one line and hands it to the OS (not thread-safe: the caller serializes).
  void append(std::string_view key, std::string_view payload);
  /// fsync: called once at the end of a sweep.
  void sync();

  /// The line's text without its newline (exposed for tests).
  [[nodiscard]] static std::string format_line(std::string_view key, std::string_view payload);

 private:
  std::filesystem::path file_;
  int fd_ = -1;
  std::unordered_map<std::string, std::string> entries_;
  std::size_t dropped_ = 0;
};

}  // namespace streamlab::experiments
