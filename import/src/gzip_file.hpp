#pragma once
// Whole-file reads that see through gzip (Kineto writes .json.gz); private to the import library.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string_view>

namespace streamlab::import::detail {

/// A file's text followed by room for simdjson's padding (at least kPadding bytes), so the JSON reader
/// parses it where it lies instead of copying a gigabyte-sized trace once more.
class PaddedText {
 public:
  static constexpr std::size_t kPadding = 64;

  [[nodiscard]] const char* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Bytes allocated: size() + kPadding or more.
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] std::string_view text() const noexcept { return {data_.get(), size_}; }

  /// Where `n` more bytes of text go (the buffer grows as needed); commit() then counts those written.
  char* reserve_more(std::size_t n);
  void commit(std::size_t n) noexcept { size_ += n; }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};

/// The file's bytes, inflated when it starts with the gzip magic. A missing or unreadable file, and a
/// truncated or corrupt gzip stream, are InputErrors naming the file (and how far inflating got).
[[nodiscard]] PaddedText read_maybe_gzip(const std::filesystem::path& file);

}  // namespace streamlab::import::detail
