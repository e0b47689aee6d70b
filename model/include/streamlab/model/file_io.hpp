#pragma once
/// \file file_io.hpp
/// Whole-file reads and atomic writes for every streamlab file format (and anything else a tool writes:
/// reports, JSON summaries), so no command ever leaves a half-written output behind.

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace streamlab::model {

/// The file's bytes. A missing or unreadable file is an InputError naming it and the OS reason.
[[nodiscard]] std::string read_text_file(const std::filesystem::path& file);

/// Writes `contents` to a temporary file in the same directory, flushes it and renames it over `file`,
/// so readers see either the old or the complete new file. Missing directories on the way to `file` are
/// created: every streamlab command follows this one rule for its output paths. Throws InputError (naming
/// the file) when a directory cannot be created or written. The temporary file is removed on failure
/// and when the process is interrupted (TemporaryFile).
void write_file_atomically(const std::filesystem::path& file, std::string_view contents);

/// Receives consecutive pieces of a file's text.
using TextSink = std::function<void(std::string_view piece)>;

/// The streaming form: `produce` hands the text to its sink piece by piece (a million-span trace never
/// exists as one string); the pieces go to the temporary file through a buffer, and the rename happens
/// only once `produce` has returned. If `produce` throws, the temporary file is removed and the old
/// `file` stays as it was.
void write_file_atomically(const std::filesystem::path& file, const std::function<void(const TextSink&)>& produce);

/// Creates the missing directories of `dir` (like mkdir -p); InputError naming `for_file` otherwise.
void create_output_directory(const std::filesystem::path& dir, const std::string& for_file);

/// A temporary file that must not outlive the process: while the guard lives, SIGINT, SIGTERM and SIGHUP
/// remove the file before the process ends with the signal's usual status (only where the signal still
/// has its default action, so programs with their own handlers keep them). The destructor removes the file
/// unless release() said it was renamed into place. At most 64 guards are live at once; more throw.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string path);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// The file is gone or renamed: nothing to remove any more.
  void release() noexcept;

 private:
  std::string path_;
  int slot_ = -1;
};

}  // namespace streamlab::model
