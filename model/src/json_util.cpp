#include "json_util.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "json_view.hpp"
#include "streamlab/model/errors.hpp"

namespace streamlab::model::detail {

LineColumn line_column(std::string_view text, std::size_t byte) noexcept {
  LineColumn lc;
  const std::size_t end = std::min(byte, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++lc.line;
      lc.column = 1;
    } else {
      ++lc.column;
    }
  }
  return lc;
}

std::string pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string clip(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  return std::string(text.substr(0, max_chars > 3 ? max_chars - 3 : 0)) + "...";
}

std::string shorten_pointer(const std::string& pointer) {
  constexpr std::size_t kHead = 64, kTail = 48;
  if (pointer.size() <= kHead + kTail + 8) return pointer;
  // Cut at token boundaries where there are some, so the ends stay valid pointer prefixes and suffixes.
  std::size_t head = pointer.rfind('/', kHead);
  if (head == 0 || head == std::string::npos) head = kHead;
  std::size_t tail = pointer.find('/', pointer.size() - kTail);
  if (tail == std::string::npos) tail = pointer.size() - kTail;
  return pointer.substr(0, head) + "/..." + pointer.substr(tail);
}

namespace {

// Follows nlohmann's strict lexer and parser over the text, building nothing: it finds the first thing
// that makes the text malformed JSON, with the line, column and reason every streamlab reader reports.
class SyntaxOnly : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return true; }
  bool boolean(bool /*v*/) override { return true; }
  bool number_integer(number_integer_t /*v*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*v*/) override { return true; }
  bool number_float(number_float_t /*v*/, const string_t& /*text*/) override { return true; }
  bool string(string_t& /*v*/) override { return true; }
  bool binary(binary_t& /*v*/) override { return true; }
  bool start_object(std::size_t /*elements*/) override { return true; }
  bool key(string_t& /*k*/) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t /*elements*/) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    position_ = position;
    error_ = ex.what();
    return false;
  }
  std::optional<std::size_t> position_;
  std::string error_;
};

// nlohmann's message starts "[json.exception.parse_error.101] parse error at line 3, column 4: ";
// we give line and column ourselves, so keep only the reason after the last "column N: ".
std::string parse_error_reason(const std::string& what) {
  const auto at = what.find("column ");
  if (at != std::string::npos) {
    const auto colon = what.find(": ", at);
    if (colon != std::string::npos) return what.substr(colon + 2);
  }
  const auto bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

}  // namespace

void throw_if_malformed(std::string_view text, const std::string& source) {
  SyntaxOnly sax;
  (void)Json::sax_parse(text.begin(), text.end(), &sax);
  if (!sax.position_) return;
  // The position counts characters read, 1-based: the character the parser stopped at.
  const std::size_t at = *sax.position_;
  const LineColumn lc = line_column(text, at == 0 ? 0 : at - 1);
  throw InputError(source, "line " + std::to_string(lc.line) + ", column " + std::to_string(lc.column), "",
                   "malformed JSON: " + parse_error_reason(sax.error_));
}

IndexToken::IndexToken(std::size_t index) noexcept {
  buf_[0] = '/';
  const auto [end, ec] = std::to_chars(buf_.data() + 1, buf_.data() + buf_.size(), index);
  size_ = ec == std::errc() ? static_cast<std::size_t>(end - buf_.data()) : 1;
}

std::string Place::str() const {
  std::string s = parent_ != nullptr ? parent_->str() : std::string(base_);
  s += piece_;
  return s;
}

void Reader::fail(const Place& pointer, const std::string& reason) const {
  std::string where = pointer.str();
  if (where.empty()) where = "top level";
  throw InputError(source_, std::move(where), op_, reason);
}

void Reader::expect_object(JsonRef j, const Place& pointer) const {
  if (!j.is_object()) fail(pointer, "expected an object, got " + j.shown());
}

void Reader::expect_array(JsonRef j, const Place& pointer) const {
  if (!j.is_array()) fail(pointer, "expected an array, got " + j.shown());
}

void Reader::check_keys(JsonRef j, const Place& pointer, std::initializer_list<std::string_view> allowed,
                        std::string_view what) const {
  expect_object(j, pointer);
  for (JsonRef member : j) {
    const std::string_view key = member.key();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    fail(shorten_pointer(pointer.str() + "/" + pointer_token(key)),
         "unknown key '" + clip(key) + "' for " + std::string(what) + " (allowed: " + list + ")");
  }
}

JsonRef Reader::required(JsonRef j, const Place& pointer, std::string_view key, std::string_view why) const {
  const auto member = j.find(key);
  if (!member)
    fail(pointer, "missing required key '" + std::string(key) + "'" +
                      (why.empty() ? std::string() : " (" + std::string(why) + ")"));
  return *member;
}

std::string_view Reader::get_string(JsonRef j, const Place& pointer) const {
  if (!j.is_string()) fail(pointer, "expected a string, got " + j.shown());
  return j.string();
}

std::int64_t Reader::get_int(JsonRef j, const Place& pointer, std::int64_t min, std::int64_t max) const {
  std::int64_t v = 0;
  if (j.is_unsigned()) {
    const auto u = j.uint64();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(pointer, "integer " + std::to_string(u) + " is too large");
    v = static_cast<std::int64_t>(u);
  } else if (j.is_integer()) {
    v = j.int64();
  } else {
    fail(pointer, "expected an integer, got " + j.shown());
  }
  if (v < min)
    fail(pointer, "expected an integer >= " + std::to_string(min) + ", got " + std::to_string(v));
  if (v > max)
    fail(pointer, "expected an integer <= " + std::to_string(max) + ", got " + std::to_string(v));
  return v;
}

std::uint64_t Reader::get_uint(JsonRef j, const Place& pointer, std::uint64_t max) const {
  if (j.is_integer() && !j.is_unsigned()) fail(pointer, "expected an integer >= 0, got " + std::to_string(j.int64()));
  if (!j.is_unsigned()) fail(pointer, "expected an integer >= 0, got " + j.shown());
  const auto v = j.uint64();
  if (v > max) fail(pointer, "expected an integer <= " + std::to_string(max) + ", got " + std::to_string(v));
  return v;
}

std::uint32_t Reader::get_u32(JsonRef j, const Place& pointer) const {
  return static_cast<std::uint32_t>(get_uint(j, pointer, std::numeric_limits<std::uint32_t>::max()));
}

double Reader::get_double(JsonRef j, const Place& pointer) const {
  if (!j.is_number()) fail(pointer, "expected a number, got " + j.shown());
  const double v = j.number();
  if (!std::isfinite(v)) fail(pointer, "expected a finite number");
  return v;
}

bool Reader::get_bool(JsonRef j, const Place& pointer) const {
  if (!j.is_boolean()) fail(pointer, "expected true or false, got " + j.describe_type());
  return j.boolean();
}

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed) noexcept {
  std::uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string hex64(std::uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<std::size_t>(i)] = kDigits[v & 0xf];
    v >>= 4;
  }
  return s;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace streamlab::model::detail
