#pragma once
// Private: reading a line of JSON that streamlab's own writers wrote, without a JSON parser. The line
// readers (workload ops, trace spans) accept only the writer's exact layout with plain values — printable
// ASCII strings without escapes, integers of at most 18 digits without leading zeros, decimals without
// exponents — which is valid JSON whose values mean what a JSON parser would read; anything else makes
// them hand the line (or the file) to the JSON reader, which reports problems with their places.

#include <cstdint>
#include <cstring>
#include <string_view>

#include "json_view.hpp"
#include "streamlab/model/progress.hpp"

namespace streamlab::model::detail {

class LineScanner {
 public:
  explicit LineScanner(std::string_view line) : at_(line.data()), end_(line.data() + line.size()) {}

  [[nodiscard]] bool at_end() const noexcept { return at_ == end_; }
  [[nodiscard]] bool peek(char c) const noexcept { return at_ != end_ && *at_ == c; }

  /// Consumes the literal `l` if the line continues with it. Its length is known where it is called, so
  /// the comparison compiles to a few loads instead of a call of memcmp (a tenth of reading's time).
  template <std::size_t N>
  bool lit(const char (&l)[N]) noexcept {
    constexpr std::size_t n = N - 1;
    if (static_cast<std::size_t>(end_ - at_) < n || std::memcmp(at_, l, n) != 0) return false;
    at_ += n;
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

/// Walks a JSON array laid out one element per line, from `begin` (the start of the line after the one
/// that opens it) to the line that closes it: element(line, count, next) for each element's text without
/// its separating comma (`count` elements before it, `next` where the following line starts). Reads a
/// mapped text's pages in ahead of the walk and gives them back behind it, and reports progress. Returns
/// where the closing bracket is; throws NotByLines for anything else (an element not on one line, a
/// missing or extra comma, no closing line).
template <class Element>
std::size_t for_each_element_line(std::string_view t, std::size_t begin, const PaddedText* mapped,
                                  ProgressCounter* progress, Element&& element) {
  constexpr std::size_t kWindow = std::size_t{8} << 20;  // read in ahead, given back behind
  std::size_t loaded = 0;
  std::size_t count = 0;
  bool comma = true;  // the previous element ended with a comma (or there is none)
  if (progress != nullptr) progress->set_total(t.size());
  for (std::size_t at = begin; at < t.size();) {
    if (mapped != nullptr && at + kWindow / 2 > loaded) {
      mapped->load_ahead(loaded, kWindow);
      loaded += kWindow;
    }
    std::size_t end = t.find('\n', at);
    if (end == std::string_view::npos) end = t.size();
    const std::string_view line = trim_line(t.substr(at, end - at));
    if (!line.empty() && line.front() == ']') {
      if (count > 0 && comma) throw NotByLines{};  // a comma after the last element
      return t.find(']', at);
    }
    if (!comma || line.size() < 2 || line.front() != '{') throw NotByLines{};
    comma = line.back() == ',';
    at = end + 1;
    element(comma ? line.substr(0, line.size() - 1) : line, count, at);
    if (++count % 65536 == 0) {
      if (mapped != nullptr) mapped->release_before(at);
      if (progress != nullptr) progress->set_done(at);
    }
  }
  throw NotByLines{};
}

}  // namespace streamlab::model::detail
