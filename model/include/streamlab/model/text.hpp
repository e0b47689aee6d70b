#pragma once
/// \file text.hpp
/// Interned text: op ids, names and event names are views of characters a workload's StringTable keeps,
/// so a million-op workload holds its strings in a few large blocks instead of a heap string per field.

#include <cstddef>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace streamlab::model {

class StringTable;

/// A read-only view of interned characters (or of a string literal). It cannot be made from a
/// std::string, whose characters may go away: text computed at run time goes through
/// StringTable::intern (Workload::intern), which keeps a copy as long as the table lives.
class Text {
 public:
  constexpr Text() noexcept = default;
  /// A string literal: its characters live as long as the program.
  template <std::size_t N>
  consteval Text(const char (&literal)[N]) noexcept : view_(literal, N - 1) {}  // NOLINT(google-explicit-constructor)

  /// Characters kept elsewhere for at least as long as this Text is used: the readers' parse buffers
  /// while they read a file, the static text of a function. Prefer StringTable::intern.
  [[nodiscard]] static constexpr Text borrow(std::string_view kept) noexcept { return Text(kept); }

  constexpr operator std::string_view() const noexcept { return view_; }  // NOLINT(google-explicit-constructor)
  /// A copy, for the many interfaces that take a std::string (messages, trace fields).
  operator std::string() const { return std::string(view_); }  // NOLINT(google-explicit-constructor)
  [[nodiscard]] constexpr std::string_view view() const noexcept { return view_; }
  [[nodiscard]] std::string str() const { return std::string(view_); }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return view_.size(); }
  [[nodiscard]] constexpr bool empty() const noexcept { return view_.empty(); }
  [[nodiscard]] constexpr const char* data() const noexcept { return view_.data(); }
  [[nodiscard]] constexpr auto begin() const noexcept { return view_.begin(); }
  [[nodiscard]] constexpr auto end() const noexcept { return view_.end(); }
  [[nodiscard]] constexpr char operator[](std::size_t i) const noexcept { return view_[i]; }

  // Text against Text and against a literal exactly: with only the string_view forms, clang calls
  // `a != b` of two Texts ambiguous (C++20 reversed candidates, -Wambiguous-reversed-operator).
  friend constexpr bool operator==(Text a, Text b) noexcept { return a.view_ == b.view_; }
  friend constexpr auto operator<=>(Text a, Text b) noexcept { return a.view_ <=> b.view_; }
  template <std::size_t N>
  friend constexpr bool operator==(Text a, const char (&b)[N]) noexcept {
    return a.view_ == std::string_view(b, N - 1);
  }
  friend constexpr bool operator==(Text a, std::string_view b) noexcept { return a.view_ == b; }
  friend constexpr auto operator<=>(Text a, std::string_view b) noexcept { return a.view_ <=> b; }
  friend std::string operator+(std::string_view a, Text b) { return std::string(a).append(b.view_); }
  friend std::string operator+(Text a, std::string_view b) { return std::string(a.view_).append(b); }
  friend std::string operator+(Text a, Text b) { return std::string(a.view_).append(b.view_); }
  friend std::string operator+(const std::string& a, Text b) { return std::string(a).append(b.view_); }
  friend std::string operator+(Text a, const std::string& b) { return std::string(a.view_).append(b); }
  friend std::string operator+(const char* a, Text b) { return std::string(a).append(b.view_); }
  friend std::string operator+(Text a, const char* b) { return std::string(a.view_).append(b); }
  friend std::ostream& operator<<(std::ostream& os, Text t) { return os << t.view_; }

 private:
  constexpr explicit Text(std::string_view v) noexcept : view_(v) {}
  friend class StringTable;
  std::string_view view_;
};

/// Append-only storage of interned characters. Texts it hands out stay valid as long as the table:
/// blocks are never moved or freed before it. Thread-safe to intern into (workloads copied across the
/// sweep's worker threads share their table).
class StringTable {
 public:
  StringTable() = default;
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;

  /// A copy of `s` that lives as long as this table.
  [[nodiscard]] Text intern(std::string_view s);
  /// `t` itself when this table just interned it (it lies in the block being filled), else a copy: an
  /// op built from freshly interned texts is added without copying them again.
  [[nodiscard]] Text adopt(Text t);
  /// Characters held (the blocks' capacity), for memory accounting.
  [[nodiscard]] std::size_t capacity() const;

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 16;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t capacity_ = 0;  ///< of all blocks
  char* next_ = nullptr;      ///< free space in the last block
  std::size_t left_ = 0;
};

}  // namespace streamlab::model

template <>
struct std::hash<streamlab::model::Text> {
  std::size_t operator()(streamlab::model::Text t) const noexcept { return std::hash<std::string_view>{}(t); }
};
