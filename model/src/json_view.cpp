#include "json_view.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_set>


#include "json_util.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"

namespace streamlab::model::detail {

namespace ondemand = simdjson::ondemand;
using Type = JsonRef::Type;

// ---------------------------------------------------------------------------------------------------
// JsonRef

Type JsonRef::type() const noexcept { return arena_->nodes_[index_].type; }
std::size_t JsonRef::size() const noexcept { return arena_->nodes_[index_].count; }
std::string_view JsonRef::key() const noexcept { return arena_->nodes_[index_].key; }
std::string_view JsonRef::string() const noexcept { return arena_->nodes_[index_].text; }
std::int64_t JsonRef::int64() const noexcept { return arena_->nodes_[index_].num.i; }
std::uint64_t JsonRef::uint64() const noexcept { return arena_->nodes_[index_].num.u; }
bool JsonRef::boolean() const noexcept { return arena_->nodes_[index_].boolean; }

double JsonRef::number() const noexcept {
  const auto& n = arena_->nodes_[index_];
  switch (n.type) {
    case Type::integer: return static_cast<double>(n.num.i);
    case Type::unsigned_integer: return static_cast<double>(n.num.u);
    case Type::floating: return n.num.d;
    default: return 0;
  }
}

JsonRef JsonRef::operator[](std::size_t i) const {
  const auto& n = arena_->nodes_[index_];
  // Children of scalars only sit one node apart: index directly.
  if (n.end - index_ - 1 == n.count) return JsonRef(*arena_, index_ + 1 + static_cast<std::uint32_t>(i));
  Iterator it = begin();
  for (std::size_t k = 0; k < i; ++k) ++it;
  return *it;
}

std::optional<JsonRef> JsonRef::find(std::string_view key) const {
  for (JsonRef member : *this)
    if (member.key() == key) return member;
  return std::nullopt;
}

bool JsonRef::members(std::span<const std::string_view> keys, std::span<std::optional<JsonRef>> out) const {
  bool other = false;
  for (JsonRef member : *this) {
    const std::string_view key = member.key();
    bool known = false;
    for (std::size_t k = 0; k < keys.size() && !known; ++k) {
      // First characters before memcmp: most keys differ there.
      if (keys[k].size() == key.size() && (key.empty() || keys[k][0] == key[0]) && keys[k] == key) {
        out[k] = member;
        known = true;
      }
    }
    other = other || !known;
  }
  return other;
}

void JsonArena::begin_object() {
  nodes_.clear();
  nodes_.emplace_back();
  nodes_[0].type = Type::object;
}

void JsonArena::end_object() {
  std::uint32_t count = 0;
  for (auto i = static_cast<std::uint32_t>(1); i < nodes_.size(); i = nodes_[i].end) ++count;
  nodes_[0].count = count;
  nodes_[0].end = static_cast<std::uint32_t>(nodes_.size());
}

JsonRef::Iterator& JsonRef::Iterator::operator++() {
  index_ = arena_->nodes_[index_].end;
  return *this;
}
JsonRef::Iterator JsonRef::begin() const { return Iterator(*arena_, index_ + 1); }
JsonRef::Iterator JsonRef::end() const { return Iterator(*arena_, arena_->nodes_[index_].end); }

std::string JsonRef::describe_type() const {
  switch (type()) {
    case Type::null: return "null";
    case Type::boolean: return "a boolean";
    case Type::string: return "a string";
    case Type::integer:
    case Type::unsigned_integer: return "an integer";
    case Type::floating: return "a number with a fraction";
    case Type::object: return "an object";
    case Type::array: return "an array";
  }
  return "?";
}

std::string JsonRef::shown() const {
  switch (type()) {
    case Type::object: return "an object with " + std::to_string(size()) + " keys";
    case Type::array: return "an array of " + std::to_string(size()) + " elements";
    case Type::null: return "null (null)";
    case Type::boolean: return describe_type() + (boolean() ? " (true)" : " (false)");
    case Type::string: return describe_type() + " (" + clip(Json(std::string(string())).dump()) + ")";
    case Type::integer: return describe_type() + " (" + std::to_string(int64()) + ")";
    case Type::unsigned_integer: return describe_type() + " (" + std::to_string(uint64()) + ")";
    case Type::floating: return describe_type() + " (" + clip(Json(number()).dump()) + ")";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------------
// JsonDocument

namespace {


// A simdjson error while walking: carried out of the callbacks to the one place that describes it.
struct SyntaxFailure {
  simdjson::error_code code;
};

template <class T>
T take(simdjson::simdjson_result<T>&& r) {
  T v{};
  if (const auto err = std::move(r).get(v)) throw SyntaxFailure{err};
  return v;
}

// The content of a string token (after its opening quote) when it needs no unescaping: a view into
// the text itself, so reading ids and names copies nothing. Returns false for an escaped string. A raw
// control character is malformed JSON: reported as a string error.
bool plain_string(const char* raw, std::string_view& out) {
  const char* p = raw;
  for (;;) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"') break;
    if (c == '\\') return false;
    if (c < 0x20) throw SyntaxFailure{simdjson::STRING_ERROR};
    ++p;
  }
  out = std::string_view(raw, static_cast<std::size_t>(p - raw));
  return true;
}

std::string_view string_of(ondemand::value& v) {
  const ondemand::raw_json_string raw = take(v.get_raw_json_string());
  std::string_view s;
  if (plain_string(raw.raw(), s)) return s;
  return take(v.get_string());
}

std::string_view key_of(ondemand::field& f) {
  std::string_view s;
  if (plain_string(f.key().raw(), s)) return s;
  return take(f.unescaped_key());
}

}  // namespace

std::optional<PaddedText> PaddedText::map(const std::filesystem::path& file, bool populate) {
  auto mapped = MappedFile::map(file, simdjson::SIMDJSON_PADDING, populate);
  if (!mapped) return std::nullopt;
  PaddedText t;
  t.file_ = std::move(mapped);
  return t;
}

JsonDocument::JsonDocument(const std::filesystem::path& file) : source_(file.string()) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw InputError(source_, "", "", "is a directory, not a file");
  if (auto mapped = PaddedText::map(file)) {
    text_ = std::move(*mapped);
    return;
  }
  auto loaded = simdjson::padded_string::load(file.string());
  if (loaded.error() != simdjson::SUCCESS) {
    (void)read_text_file(file);  // throws with the operating system's reason (missing, permissions)
    throw InputError(source_, "", "", "cannot read file");
  }
  text_ = PaddedText(std::move(loaded).value_unsafe());
}

JsonDocument::JsonDocument(std::string_view text, std::string source)
    : source_(std::move(source)), text_(simdjson::padded_string(text.data(), text.size())) {}

void JsonDocument::reset(std::string_view text) {
  text_ = PaddedText(simdjson::padded_string(text.data(), text.size()));
  iterated_ = false;
  failed_ = false;
}

void PaddedText::load_ahead(std::size_t offset, std::size_t length) const noexcept {
  if (file_) file_->load_ahead(offset, length);
}

void PaddedText::release_before(std::size_t offset) const noexcept {
  if (file_) file_->release_before(offset);
}

std::size_t JsonDocument::offset() noexcept {
  const char* at = nullptr;
  if (doc_.current_location().get(at) != simdjson::SUCCESS || at == nullptr) return text_.size();
  return static_cast<std::size_t>(at - text_.data());
}

bool JsonDocument::at_end() noexcept {
  const char* at = nullptr;
  return doc_.current_location().get(at) == simdjson::OUT_OF_BOUNDS;
}

void JsonDocument::syntax_error(simdjson::error_code code) const {
  // simdjson could not allocate its index: out of memory, which the caller's step names (with_step).
  if (code == simdjson::MEMALLOC) throw std::bad_alloc();
  const std::string_view text(text_.data(), text_.size());
  // The strict lexer's own words and place for the first thing it refuses.
  throw_if_malformed(text, source_);
  // Valid JSON simdjson cannot read (a number beyond 64 bits or a double's range).
  throw InputError(source_, "top level", "", std::string("unreadable JSON: ") + simdjson::error_message(code));
}

void JsonDocument::start() {
  // A walk that met an error leaves the document unusable for rewind(): index the text again then (an
  // error path only; a good walk is rewound at no cost).
  if (!iterated_ || failed_) {
    failed_ = true;
    doc_ = take(parser_.iterate(text_.view()));
    iterated_ = true;
  } else {
    doc_.rewind();
  }
  failed_ = true;  // until the walk completes
}

void JsonDocument::for_each_root_member(const MemberFn& member, JsonArena& arena,
                                        const std::function<void(JsonRef)>& not_object) {
  try {
    start();
    if (take(doc_.type()) != ondemand::json_type::object) {
      // Readers name the wrong type in their own words; build the root to show it.
      ondemand::value v = take(doc_.get_value());
      arena.clear();
      (void)build_node(v, arena, 0, 0, "");
      if (!at_end()) throw SyntaxFailure{simdjson::TRAILING_CONTENT};
      failed_ = false;
      not_object(arena.root());
      return;
    }
    ondemand::object root = take(doc_.get_object());
    std::unordered_set<std::string_view> seen;
    for (auto f : root) {
      ondemand::field field = take(std::move(f));
      const std::string_view key = key_of(field);
      if (!seen.insert(key).second)
        throw InputError(source_, shorten_pointer("/" + pointer_token(key)), "",
                         "key '" + clip(key) + "' appears twice in one object");
      ondemand::value v = field.value();
      member(key, v);
    }
    if (!at_end()) throw SyntaxFailure{simdjson::TRAILING_CONTENT};
    failed_ = false;
  } catch (const SyntaxFailure& e) {
    syntax_error(e.code);
  }
}

void JsonDocument::for_each_element(ondemand::value& value, const std::string& pointer, JsonArena& arena,
                                    const std::function<void(std::size_t)>& count,
                                    const std::function<void(std::size_t, JsonRef)>& element,
                                    const std::function<void(JsonRef)>& not_array, ProgressCounter* progress) {
  try {
    if (take(value.type()) != ondemand::json_type::array) {
      arena.clear();
      (void)build_node(value, arena, 0, 1, pointer);
      not_array(arena.root());
      return;
    }
    ondemand::array array = take(value.get_array());
    count(take(array.count_elements()));
    if (progress) progress->set_total(text_.size());
    const Place array_place(pointer);
    std::size_t i = 0;
    for (auto e : array) {
      ondemand::value v = take(std::move(e));
      arena.clear();
      const IndexToken index(i);
      (void)build_node(v, arena, 0, 2, Place(array_place, index.view()));
      element(i, arena.root());
      ++i;
      if (progress && i % 4096 == 0) progress->set_done(offset());
    }
  } catch (const SyntaxFailure& e) {
    syntax_error(e.code);
  }
}

JsonRef JsonDocument::build(ondemand::value& value, const std::string& pointer, JsonArena& arena,
                            std::string_view key) {
  const auto root = static_cast<std::uint32_t>(arena.nodes_.size());
  try {
    (void)build_node(value, arena, root, 1, pointer, key);
  } catch (const SyntaxFailure& e) {
    syntax_error(e.code);
  }
  return JsonRef(arena, root);
}

JsonRef JsonDocument::build_root(JsonArena& arena) {
  arena.clear();
  try {
    start();
    ondemand::value v = take(doc_.get_value());
    (void)build_node(v, arena, 0, 0, "");
    if (!at_end()) throw SyntaxFailure{simdjson::TRAILING_CONTENT};
    failed_ = false;
  } catch (const SyntaxFailure& e) {
    syntax_error(e.code);
  }
  return arena.root();
}

std::vector<std::string> JsonDocument::root_keys() {
  std::vector<std::string> keys;
  try {
    start();
    if (take(doc_.type()) != ondemand::json_type::object) return {};
    ondemand::object root = take(doc_.get_object());
    for (auto f : root) {
      ondemand::field field = take(std::move(f));
      keys.emplace_back(key_of(field));
    }
    failed_ = false;
  } catch (const SyntaxFailure&) {
    return {};
  }
  return keys;
}

std::uint32_t JsonDocument::build_node(ondemand::value& value, JsonArena& arena, std::uint32_t root,
                                       std::size_t depth, const Place& pointer, std::string_view key) {
  const auto self = static_cast<std::uint32_t>(arena.nodes_.size());
  arena.nodes_.emplace_back();
  arena.nodes_[self].key = key;
  const ondemand::json_type type = take(value.type());
  const bool container = type == ondemand::json_type::array || type == ondemand::json_type::object;
  if (container && depth >= kMaxJsonDepth)
    throw InputError(source_, shorten_pointer(pointer_to(arena, root, self, pointer)), "",
                     "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  switch (type) {
    case ondemand::json_type::null:
      if (!take(value.is_null())) throw SyntaxFailure{simdjson::N_ATOM_ERROR};
      arena.nodes_[self].type = Type::null;
      break;
    case ondemand::json_type::boolean:
      arena.nodes_[self].boolean = take(value.get_bool());
      arena.nodes_[self].type = Type::boolean;
      break;
    case ondemand::json_type::string:
      arena.nodes_[self].text = string_of(value);
      arena.nodes_[self].type = Type::string;
      break;
    case ondemand::json_type::number: {
      const ondemand::number n = take(value.get_number());
      auto& node = arena.nodes_[self];
      switch (n.get_number_type()) {
        case ondemand::number_type::signed_integer:
          // As nlohmann reads numbers: an integer >= 0 is unsigned, a negative one signed.
          if (n.get_int64() >= 0) {
            node.type = Type::unsigned_integer;
            node.num.u = static_cast<std::uint64_t>(n.get_int64());
          } else {
            node.type = Type::integer;
            node.num.i = n.get_int64();
          }
          break;
        case ondemand::number_type::unsigned_integer:
          node.type = Type::unsigned_integer;
          node.num.u = n.get_uint64();
          break;
        case ondemand::number_type::floating_point_number:
          node.type = Type::floating;
          node.num.d = n.get_double();
          break;
      }
      break;
    }
    case ondemand::json_type::array: {
      arena.nodes_[self].type = Type::array;
      ondemand::array array = take(value.get_array());
      std::uint32_t count = 0;
      for (auto e : array) {
        ondemand::value v = take(std::move(e));
        (void)build_node(v, arena, root, depth + 1, pointer);
        ++count;
      }
      arena.nodes_[self].count = count;
      break;
    }
    case ondemand::json_type::object: {
      arena.nodes_[self].type = Type::object;
      ondemand::object object = take(value.get_object());
      std::uint32_t count = 0;
      for (auto f : object) {
        ondemand::field field = take(std::move(f));
        const std::string_view member = key_of(field);
        ondemand::value v = field.value();
        (void)build_node(v, arena, root, depth + 1, pointer, member);
        ++count;
      }
      arena.nodes_[self].count = count;
      arena.nodes_[self].end = static_cast<std::uint32_t>(arena.nodes_.size());
      if (count > 1) check_keys_unique(arena, root, self, pointer);
      break;
    }
  }
  arena.nodes_[self].end = static_cast<std::uint32_t>(arena.nodes_.size());
  return self;
}

std::string JsonDocument::pointer_to(const JsonArena& arena, std::uint32_t root, std::uint32_t target,
                                     const Place& base) {
  // Down from the subtree's root through the child whose range holds the target. Containers still being
  // built have no end yet (0): they hold everything after them.
  const auto& nodes = arena.nodes_;
  std::string p = base.str();
  std::uint32_t at = root;
  while (at != target) {
    const auto& node = nodes[at];
    std::uint32_t child = at + 1;
    for (std::size_t i = 0;; ++i) {
      const std::uint32_t end = nodes[child].end;
      if (target >= child && (end == 0 || target < end)) {
        p += '/';
        p += node.type == Type::object ? pointer_token(nodes[child].key) : std::to_string(i);
        break;
      }
      child = end;
    }
    at = child;
  }
  return p;
}

void JsonDocument::check_keys_unique(const JsonArena& arena, std::uint32_t root, std::uint32_t object,
                                     const Place& pointer) const {
  const JsonRef obj(arena, object);
  const std::size_t n = obj.size();
  std::string_view twice;
  if (n <= 16) {
    // A signature bit per key (length, first and last character): distinct bits mean distinct keys,
    // which settles an object at once; a shared bit falls back to comparing pairs. The weights give the
    // keys of a trace event, its args, a kernel or copy op and a duration distinct bits each.
    std::uint64_t bits = 0;
    bool shared = false;
    for (JsonRef m : obj) {
      const std::string_view key = m.key();
      const unsigned sig = key.empty() ? 0u
                                       : static_cast<unsigned>(key.size() + static_cast<unsigned char>(key.front()) * 2u +
                                                               static_cast<unsigned char>(key.back()) * 9u);
      const std::uint64_t b = std::uint64_t{1} << (sig % 64u);
      shared = shared || (bits & b) != 0;
      bits |= b;
    }
    if (!shared) return;
    // Pairwise for the usual handful of keys.
    std::array<std::string_view, 16> seen;
    std::size_t k = 0;
    for (JsonRef m : obj) {
      const std::string_view key = m.key();
      for (std::size_t j = 0; j < k; ++j)
        if (seen[j].size() == key.size() && (key.empty() || seen[j][0] == key[0]) && seen[j] == key) twice = key;
      if (!twice.empty()) break;
      seen[k++] = m.key();
    }
  } else {
    // A sorted copy for a wide object: n log n, never quadratic.
    std::vector<std::string_view> keys;
    keys.reserve(n);
    for (JsonRef m : obj) keys.push_back(m.key());
    std::sort(keys.begin(), keys.end());
    const auto it = std::adjacent_find(keys.begin(), keys.end());
    if (it != keys.end()) twice = *it;
  }
  if (twice.empty()) return;
  // The place is the second occurrence, as a reader reading in order meets it.
  std::uint32_t at = object;
  int found = 0;
  for (JsonRef m : obj)
    if (m.key() == twice && ++found == 2) {
      at = m.index_;
      break;
    }
  throw InputError(source_, shorten_pointer(pointer_to(arena, root, at, pointer)), "",
                   "key '" + clip(twice) + "' appears twice in one object");
}

}  // namespace streamlab::model::detail
