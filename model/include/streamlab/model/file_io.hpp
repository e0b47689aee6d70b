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
/// so readers see either the old or the complete new file. Creates no directories. Throws InputError
/// (naming the file) when the directory is missing or not writable.
void write_file_atomically(const std::filesystem::path& file, std::string_view contents);

/// Receives consecutive pieces of a file's text.
using TextSink = std::function<void(std::string_view piece)>;

/// The streaming form: `produce` hands the text to its sink piece by piece (a million-span trace never
/// exists as one string); the pieces go to the temporary file through a buffer, and the rename happens
/// only once `produce` has returned. If `produce` throws, the temporary file is removed and the old
/// `file` stays as it was.
void write_file_atomically(const std::filesystem::path& file, const std::function<void(const TextSink&)>& produce);

}  // namespace streamlab::model
