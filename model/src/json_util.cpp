#include "json_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <functional>
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

// Builds the DOM from nlohmann's SAX events (the SAX parser keeps its own state on the heap, so parsing
// never recurses) with three guards the plain DOM parser lacks:
// - a key repeated within one object is an error (nlohmann keeps the last duplicate silently; a workload
//   whose second "deps" overrides the first is a bug worth reporting). A large object gets a hash index
//   of its keys, so the check stays linear in the number of keys;
// - nesting deeper than kMaxJsonDepth is an error, so every later walk of the value (dump, copy, compare)
//   recurses at most that deep;
// - an object's members are gathered in a plain vector and moved into the ordered_json object once, when
//   it closes: ordered_json's object is a vector of pair<const string, json>, whose growth copies every
//   member (and its whole subtree) on each reallocation, and whose emplace scans all keys first.
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
  bool start_object(std::size_t /*elements*/) { return open(true); }
  bool start_array(std::size_t /*elements*/) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& k) {
    Frame& f = stack_.back();
    if (!f.add_key(k))
      throw InputError(source_, shorten_pointer(pointer(stack_.size() - 1) + "/" + pointer_token(k)), "",
                       "key '" + clip(k) + "' appears twice in one object");
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
    bool object = false;
    Json::array_t items;                                  // arrays: the elements so far
    std::vector<std::pair<std::string, Json>> members;    // objects: the members so far
    std::string key;                                      // objects: the key whose value comes next
    // Objects with more than kScanKeys members: open addressing over member indices + 1 (0 = free).
    std::vector<std::uint32_t> slots;
    std::vector<std::size_t> hashes;                      // per member, while `slots` is in use

    static constexpr std::size_t kScanKeys = 16;

    // Records `k` as the key of the next member; false when the object already has it.
    bool add_key(const std::string& k) {
      const std::size_t n = members.size();  // the index the next member will get
      if (n < kScanKeys) {
        for (const auto& m : members)
          if (m.first == k) return false;
        return true;
      }
      if (slots.empty()) {
        hashes.reserve(2 * n);
        for (const auto& m : members) hashes.push_back(std::hash<std::string>{}(m.first));
        rehash(4 * kScanKeys);
      } else if (2 * (n + 1) > slots.size()) {
        rehash(2 * slots.size());
      }
      const std::size_t h = std::hash<std::string>{}(k);
      const std::size_t mask = slots.size() - 1;
      std::size_t i = h & mask;
      for (; slots[i] != 0; i = (i + 1) & mask) {
        const std::size_t m = slots[i] - 1;
        if (hashes[m] == h && members[m].first == k) return false;
      }
      slots[i] = static_cast<std::uint32_t>(n + 1);
      hashes.push_back(h);
      return true;
    }
    void rehash(std::size_t size) {
      slots.assign(size, 0);
      const std::size_t mask = size - 1;
      for (std::size_t m = 0; m < hashes.size(); ++m) {
        std::size_t i = hashes[m] & mask;
        while (slots[i] != 0) i = (i + 1) & mask;
        slots[i] = static_cast<std::uint32_t>(m + 1);
      }
    }
  };
  // Places a finished value in the innermost open container (or as the root).
  void place(Json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return;
    }
    Frame& f = stack_.back();
    if (f.object)
      f.members.emplace_back(std::move(f.key), std::move(v));  // pair<string, json> moves on growth
    else
      f.items.push_back(std::move(v));  // json's move is noexcept: growth moves, never copies
  }
  bool add(Json&& v) {
    place(std::move(v));
    return true;
  }
  bool open(bool object) {
    if (stack_.size() >= kMaxJsonDepth)
      throw InputError(source_, shorten_pointer(pointer(stack_.size())), "",
                       "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    stack_.emplace_back();
    stack_.back().object = object;
    return true;
  }
  bool close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    Json v;
    if (f.object) {
      v = Json::object();
      auto& map = v.get_ref<Json::object_t&>();
      map.reserve(f.members.size());
      // Straight onto the vector: keys are already known to be distinct.
      auto& slots = static_cast<std::vector<std::pair<const std::string, Json>>&>(map);
      for (auto& [k, member] : f.members) slots.emplace_back(std::move(k), std::move(member));
    } else {
      v = Json::array();
      v.get_ref<Json::array_t&>() = std::move(f.items);
    }
    place(std::move(v));
    return true;
  }
  // Pointer of the child under construction in the first `frames` open containers.
  std::string pointer(std::size_t frames) const {
    std::string p;
    for (std::size_t i = 0; i < frames; ++i) {
      const Frame& f = stack_[i];
      p += "/" + (f.object ? pointer_token(f.key) : std::to_string(f.items.size()));
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

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
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

std::string shown(const Json& j) {
  if (j.is_object()) return "an object with " + std::to_string(j.size()) + " keys";
  if (j.is_array()) return "an array of " + std::to_string(j.size()) + " elements";
  return describe_type(j) + " (" + clip(j.dump()) + ")";
}

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
    fail(shorten_pointer(pointer + "/" + pointer_token(key)),
         "unknown key '" + clip(key) + "' for " + std::string(what) + " (allowed: " + list + ")");
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
