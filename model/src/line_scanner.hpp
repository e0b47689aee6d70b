#pragma once
// Private: reading a line of JSON that streamlab's own writers wrote, without a JSON parser. The line
// readers (workload ops, trace spans) accept only the writer's exact layout with plain values — printable
// ASCII strings without escapes, integers of at most 18 digits without leading zeros, decimals without
// exponents — which is valid JSON whose values mean what a JSON parser would read; anything else makes
// them hand the line (or the file) to the JSON reader, which reports problems with their places.

#include <cstdint>
#include <cstring>
#include <string_view>

namespace streamlab::model::detail {

class LineScanner {
 public:
  explicit LineScanner(std::string_view line) : at_(line.data()), end_(line.data() + line.size()) {}

  [[nodiscard]] bool at_end() const noexcept { return at_ == end_; }
  [[nodiscard]] bool peek(char c) const noexcept { return at_ != end_ && *at_ == c; }

  /// Consumes `l` if the line continues with it.
  bool lit(std::string_view l) noexcept {
    if (static_cast<std::size_t>(end_ - at_) < l.size() || std::memcmp(at_, l.data(), l.size()) != 0) return false;
    at_ += l.size();
    return true;
  }
  /// A string of printable ASCII without escapes; `out` views the line.
  bool str(std::string_view& out) noexcept {
    if (at_ == end_ || *at_ != '"') return false;
    const char* begin = ++at_;
    while (at_ != end_ && *at_ != '"') {
      const auto c = static_cast<unsigned char>(*at_);
      if (c < 0x20 || c > 0x7e || c == '\\') return false;
      ++at_;
    }
    if (at_ == end_) return false;
    out = std::string_view(begin, static_cast<std::size_t>(at_ - begin));
    ++at_;
    return true;
  }
  /// An integer >= 0: 0, or digits without a leading zero; at most 18 of them (no overflow).
  bool uint(std::uint64_t& v) noexcept {
    const char* begin = at_;
    v = 0;
    while (at_ != end_ && *at_ >= '0' && *at_ <= '9') v = v * 10 + static_cast<std::uint64_t>(*at_++ - '0');
    const auto n = at_ - begin;
    return n >= 1 && n <= 18 && (n == 1 || *begin != '0');
  }
  /// An integer with an optional minus sign.
  bool integer(std::int64_t& v) noexcept {
    const bool negative = peek('-');
    if (negative) ++at_;
    std::uint64_t u = 0;
    if (!uint(u)) return false;
    v = negative ? -static_cast<std::int64_t>(u) : static_cast<std::int64_t>(u);
    return true;
  }
  /// A number the reader does not keep: an integer with an optional fraction, no exponent.
  bool decimal() noexcept {
    std::int64_t ignored = 0;
    if (!integer(ignored)) return false;
    if (peek('.')) {
      ++at_;
      const char* begin = at_;
      while (at_ != end_ && *at_ >= '0' && *at_ <= '9') ++at_;
      if (at_ == begin || at_ - begin > 18) return false;
    }
    return true;
  }

 private:
  const char* at_;
  const char* end_;
};

/// `s` without the spaces, tabs and carriage returns around it.
inline std::string_view trim_line(std::string_view s) noexcept {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

/// Thrown inside a line reader: not its layout, the whole-file reader takes over.
struct NotByLines {};

}  // namespace streamlab::model::detail
