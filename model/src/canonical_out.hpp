#pragma once
// Private: where the canonical workload writer puts its text. The same writer code either appends the
// text to a string (saving) or feeds it to FNV-1a without building it (Workload::hash). Hashing a
// million-op workload is mostly the fixed text around the values (keys, quotes, punctuation: over half
// the bytes); FNV-1a over a fixed text takes one multiply and one table look-up (FnvLiteral), not one
// dependent multiply per byte. The hash values are those of the plain byte loop over the same text.

#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "json_util.hpp"
#include "json_write.hpp"

namespace streamlab::model::detail {

inline constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

/// A fixed piece of text with FNV-1a over it precomputed for every starting hash. One FNV-1a step is
/// h' = (h ^ c) * P = (h + d) * P, where d = (h ^ c) - h depends only on the low 8 bits of h, and the low
/// 8 bits of h' only on those of h (and c). So over a text of k bytes, FNV-1a from h ends at
/// h * P^k + add[h & 0xff], for a table `add` that the text alone fixes.
class FnvLiteral {
 public:
  /// At compile time for the fixed texts of the writer; at run time for names known only then
  /// (`text` must outlive the literal).
  constexpr explicit FnvLiteral(std::string_view text) : text_(text) {
    std::uint64_t pk = 1;
    for (std::size_t i = 0; i < text.size(); ++i) pk *= kFnvPrime;
    mul_ = pk;
    for (std::uint64_t low = 0; low < 256; ++low) {
      std::uint64_t h = low;
      for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * kFnvPrime;
      add_[low] = h - low * pk;
    }
  }
  [[nodiscard]] constexpr std::string_view text() const noexcept { return text_; }
  /// FNV-1a over the text, continuing from `h`.
  [[nodiscard]] constexpr std::uint64_t hash(std::uint64_t h) const noexcept { return h * mul_ + add_[h & 0xff]; }

 private:
  std::string_view text_;
  std::uint64_t mul_ = 1;
  std::array<std::uint64_t, 256> add_{};
};

/// Canonical text into a string.
class TextOut {
 public:
  explicit TextOut(std::string& s) noexcept : s_(s) {}
  void lit(const FnvLiteral& l) { s_ += l.text(); }
  void text(std::string_view v) { s_ += v; }
  void chr(char c) { s_ += c; }
  /// A JSON string, escaped as append_string does.
  void str(std::string_view v) { append_string(s_, v); }
  template <class Int>
  void integer(Int v) {
    append_int(s_, v);
  }
  [[nodiscard]] std::size_t size() const noexcept { return s_.size(); }

 private:
  std::string& s_;
};

/// Canonical text into FNV-1a, byte for byte the hash of what TextOut would have written.
class HashOut {
 public:
  void lit(const FnvLiteral& l) noexcept { h_ = l.hash(h_); }
  void text(std::string_view v) noexcept {  // inline: most values are a few bytes (a call would cost more)
    std::uint64_t h = h_;
    for (const char c : v) h = (h ^ static_cast<unsigned char>(c)) * kFnvPrime;
    h_ = h;
  }
  void chr(char c) noexcept { h_ = (h_ ^ static_cast<unsigned char>(c)) * kFnvPrime; }
  void str(std::string_view v) {
    if (plain(v)) {
      chr('"');
      text(v);
      chr('"');
      return;
    }
    escaped_.clear();
    append_string(escaped_, v);
    text(escaped_);
  }
  template <class Int>
  void integer(Int v) noexcept {
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    text(std::string_view(buf, static_cast<std::size_t>(res.ptr - buf)));
  }
  [[nodiscard]] std::uint64_t value() const noexcept { return h_; }

 private:
  /// Printable ASCII with nothing to escape: append_string writes it between quotes as it is.
  static bool plain(std::string_view v) noexcept {
    for (const char ch : v) {
      const auto c = static_cast<unsigned char>(ch);
      if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return false;
    }
    return true;
  }
  std::uint64_t h_ = kFnvOffset;
  std::string escaped_;
};

}  // namespace streamlab::model::detail
