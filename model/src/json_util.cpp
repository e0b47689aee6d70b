#include "json_util.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

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

namespace {

// Builds the DOM from nlohmann's SAX events and rejects a key repeated within one object (nlohmann keeps
// the last duplicate silently; a workload whose second "deps" overrides the first is a bug worth
// reporting). Our own builder rather than parse() with a callback: the callback parser rescans the parent
// container after every object, which is quadratic in the number of ops.
class StrictDomBuilder {
 public:
  explicit StrictDomBuilder(const std::string& source) : source_(source) {}

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(Json::number_integer_t v) { return add(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return add(v); }
  bool number_float(Json::number_float_t v, const Json::string_t& /*text*/) { return add(v); }
  bool string(Json::string_t& v) { return add(std::move(v)); }
  bool binary(Json::binary_t& v) { return add(Json::binary(std::move(v))); }
  bool start_object(std::size_t /*elements*/) { return open(Json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& k) {
    Frame& f = stack_.back();
    if (f.node->contains(k))
      throw InputError(source_, pointer() + "/" + pointer_token(k), "", "key '" + k + "' appears twice in one object");
    f.key = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/, const Json::exception& ex) {
    error_position_ = position;
    error_ = ex.what();
    return false;
  }

  Json& root() { return root_; }
  [[nodiscard]] bool failed() const { return error_position_.has_value(); }
  [[nodiscard]] std::size_t error_position() const { return *error_position_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  struct Frame {
    Json* node;
    std::string key;  // objects: the key whose value comes next
  };
  // Places a value in the innermost open container (or as the root) and returns it.
  Json* place(Json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = stack_.back();
    if (f.node->is_array()) {
      f.node->push_back(std::move(v));
      return &f.node->back();
    }
    auto [it, inserted] = f.node->emplace(std::move(f.key), std::move(v));
    return &it.value();
  }
  bool add(Json&& v) {
    place(std::move(v));
    return true;
  }
  bool open(Json&& container) {
    stack_.push_back(Frame{place(std::move(container)), {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  // Pointer of the innermost open container: each outer frame contributes the child being built.
  std::string pointer() const {
    std::string p;
    for (std::size_t i = 0; i + 1 < stack_.size(); ++i) {
      const Frame& f = stack_[i];
      p += "/" + (f.node->is_array() ? std::to_string(f.node->size() - 1) : pointer_token(f.key));
    }
    return p;
  }

  const std::string& source_;
  Json root_;
  std::vector<Frame> stack_;
  std::optional<std::size_t> error_position_;
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

Json parse_json_strict(std::string_view text, const std::string& source) {
  StrictDomBuilder builder(source);
  (void)Json::sax_parse(text.begin(), text.end(), &builder);
  if (builder.failed()) {
    // The position counts characters read, 1-based: the character the parser stopped at.
    const std::size_t at = builder.error_position();
    const LineColumn lc = line_column(text, at == 0 ? 0 : at - 1);
    throw InputError(source, "line " + std::to_string(lc.line) + ", column " + std::to_string(lc.column), "",
                     "malformed JSON: " + parse_error_reason(builder.error()));
  }
  return std::move(builder.root());
}

std::string describe_type(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::string: return "a string";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number with a fraction";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::binary: return "binary data";
    case Json::value_t::discarded: return "nothing";
  }
  return "?";
}

namespace {
std::string shown(const Json& j) {
  std::string s = j.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return describe_type(j) + " (" + s + ")";
}
}  // namespace

void Reader::fail(const std::string& pointer, const std::string& reason) const {
  throw InputError(source_, pointer.empty() ? std::string("top level") : pointer, op_, reason);
}

void Reader::expect_object(const Json& j, const std::string& pointer) const {
  if (!j.is_object()) fail(pointer, "expected an object, got " + shown(j));
}

void Reader::expect_array(const Json& j, const std::string& pointer) const {
  if (!j.is_array()) fail(pointer, "expected an array, got " + shown(j));
}

void Reader::check_keys(const Json& j, const std::string& pointer,
                        std::initializer_list<std::string_view> allowed, std::string_view what) const {
  expect_object(j, pointer);
  for (const auto& [key, value] : j.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    fail(pointer + "/" + pointer_token(key),
         "unknown key '" + key + "' for " + std::string(what) + " (allowed: " + list + ")");
  }
}

const Json& Reader::required(const Json& j, const std::string& pointer, std::string_view key,
                             std::string_view why) const {
  const auto it = j.find(key);
  if (it == j.end())
    fail(pointer, "missing required key '" + std::string(key) + "'" +
                      (why.empty() ? std::string() : " (" + std::string(why) + ")"));
  return *it;
}

std::string Reader::get_string(const Json& j, const std::string& pointer) const {
  if (!j.is_string()) fail(pointer, "expected a string, got " + shown(j));
  return j.get<std::string>();
}

std::int64_t Reader::get_int(const Json& j, const std::string& pointer, std::int64_t min,
                             std::int64_t max) const {
  std::int64_t v = 0;
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(pointer, "integer " + j.dump() + " is too large");
    v = static_cast<std::int64_t>(u);
  } else if (j.is_number_integer()) {
    v = j.get<std::int64_t>();
  } else {
    fail(pointer, "expected an integer, got " + shown(j));
  }
  if (v < min)
    fail(pointer, "expected an integer >= " + std::to_string(min) + ", got " + std::to_string(v));
  if (v > max)
    fail(pointer, "expected an integer <= " + std::to_string(max) + ", got " + std::to_string(v));
  return v;
}

std::uint64_t Reader::get_uint(const Json& j, const std::string& pointer, std::uint64_t max) const {
  if (j.is_number_integer() && !j.is_number_unsigned())
    fail(pointer, "expected an integer >= 0, got " + j.dump());
  if (!j.is_number_unsigned()) fail(pointer, "expected an integer >= 0, got " + shown(j));
  const auto v = j.get<std::uint64_t>();
  if (v > max) fail(pointer, "expected an integer <= " + std::to_string(max) + ", got " + std::to_string(v));
  return v;
}

double Reader::get_double(const Json& j, const std::string& pointer) const {
  if (!j.is_number()) fail(pointer, "expected a number, got " + shown(j));
  const double v = j.get<double>();
  if (!std::isfinite(v)) fail(pointer, "expected a finite number");
  return v;
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

}  // namespace streamlab::model::detail
