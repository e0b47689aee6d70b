#pragma once
// Whole-file reads that see through gzip (Kineto writes .json.gz); private to the import library.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

#include "streamlab/model/mapped_file.hpp"

namespace streamlab::import::detail {

/// A file's text followed by room for simdjson's padding (at least kPadding readable bytes), so the JSON
/// reader parses it where it lies instead of copying a gigabyte-sized trace once more. Either a regular
/// file mapped (private, read-only, populated in one call rather than a page fault per page) over zero
/// pages that provide the padding, or a buffer filled by reserve_more() and commit().
class PaddedText {
 public:
  static constexpr std::size_t kPadding = 64;

  PaddedText() = default;
  PaddedText(PaddedText&& o) noexcept { swap(o); }
  PaddedText& operator=(PaddedText&& o) noexcept {
    PaddedText(std::move(o)).swap(*this);
    return *this;
  }
  PaddedText(const PaddedText&) = delete;
  PaddedText& operator=(const PaddedText&) = delete;
  ~PaddedText() = default;

  /// The file mapped, or nothing where it cannot be (not a regular file, empty, no mapping): the caller
  /// reads it instead.
  [[nodiscard]] static std::optional<PaddedText> map(const std::filesystem::path& file);

  [[nodiscard]] const char* data() const noexcept { return file_ ? file_->data() : buffer_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Readable bytes from data(): size() + kPadding or more.
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] std::string_view text() const noexcept { return {data(), size_}; }

  /// Gives the pages of a mapped file wholly before `offset` back (a reader done with them); they read
  /// the same again if touched. Nothing for a buffer.
  void release_before(std::size_t offset) const noexcept;

  /// Where `n` more bytes of text go (the buffer grows as needed); commit() then counts those written.
  /// Not for a mapped file.
  char* reserve_more(std::size_t n);
  void commit(std::size_t n) noexcept { size_ += n; }

 private:
  void swap(PaddedText& o) noexcept {
    std::swap(buffer_, o.buffer_);
    std::swap(file_, o.file_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
  }
  std::unique_ptr<char[]> buffer_;
  std::optional<model::MappedFile> file_;  ///< the file's pages, then zero pages; capacity_ bytes
  std::size_t size_ = 0, capacity_ = 0;
};

/// The file's bytes, inflated when it starts with the gzip magic. A missing or unreadable file, and a
/// truncated or corrupt gzip stream, are InputErrors naming the file (and how far inflating got).
[[nodiscard]] PaddedText read_maybe_gzip(const std::filesystem::path& file);

}  // namespace streamlab::import::detail
