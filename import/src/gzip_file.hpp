#pragma once
// Whole-file reads that see through gzip (Kineto writes .json.gz); private to the import library.
#include <filesystem>
#include <string>

namespace streamlab::import::detail {

/// The file's bytes, inflated when it starts with the gzip magic. A truncated or corrupt gzip stream is an
/// InputError naming the file and how far it got.
[[nodiscard]] std::string read_maybe_gzip(const std::filesystem::path& file);

}  // namespace streamlab::import::detail
