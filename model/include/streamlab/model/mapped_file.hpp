#pragma once
/// \file mapped_file.hpp
/// A regular file mapped read-only over zero pages, so that a parser that reads a little past the text's
/// end (simdjson's padding) finds zeros there, and a reader that walks the text once can give the pages
/// behind it back. Shared by model's JSON readers and the trace importers.

#include <cstddef>
#include <filesystem>
#include <optional>

namespace streamlab::model {

class MappedFile {
 public:
  /// The file mapped with at least `padding` zero bytes readable past its end; nothing where it cannot be
  /// (not a regular file, empty, no mapping): the caller reads it instead. `populate` reads every page in
  /// at once (a parser that indexes the whole text); without it pages come in as they are read.
  [[nodiscard]] static std::optional<MappedFile> map(const std::filesystem::path& file, std::size_t padding,
                                                     bool populate);
  MappedFile(MappedFile&& o) noexcept { swap(o); }
  MappedFile& operator=(MappedFile&& o) noexcept {
    MappedFile(std::move(o)).swap(*this);
    return *this;
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  [[nodiscard]] const char* data() const noexcept { return static_cast<const char*>(base_); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Readable bytes from data(): size() + padding, rounded up to whole pages.
  [[nodiscard]] std::size_t length() const noexcept { return length_; }
  /// Gives the pages wholly before `offset` back (they read the same again if touched).
  void release_before(std::size_t offset) const noexcept;
  /// Reads the pages of [offset, offset + length) in at once, for a reader about to walk them (best effort).
  void load_ahead(std::size_t offset, std::size_t length) const noexcept;

 private:
  MappedFile() = default;
  void swap(MappedFile& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(size_, o.size_);
    std::swap(length_, o.length_);
  }
  void* base_ = nullptr;
  std::size_t size_ = 0, length_ = 0;
};

}  // namespace streamlab::model
