#pragma once
// Private helpers shared by the JSON readers of model/ (workload, device profile, trace): the words and
// place of syntax errors (line:column), the nesting limit, and typed accessors whose errors name the file,
// the JSON pointer and the op. The values they read come from json_view.hpp. Not a public header.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace streamlab::model::detail {

/// Insertion-ordered so canonical output keeps our field order and errors follow the file's order.
using Json = nlohmann::ordered_json;

/// 1-based line and column of byte offset `byte` (0-based) in `text`.
struct LineColumn {
  std::size_t line = 1, column = 1;
};
[[nodiscard]] LineColumn line_column(std::string_view text, std::size_t byte) noexcept;

/// Deepest nesting of arrays and objects a reader accepts. Real inputs nest four or five levels; the
/// limit keeps every later recursive walk of a parsed value (dump, copy, compare) shallow.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// Throws the InputError for malformed JSON text ("line L, column C" and the reason, the words of
/// nlohmann's strict parser) and returns when the text is well-formed. Builds nothing; never recurses.
/// The readers (json_view.hpp) call it once they have found something wrong with a text's syntax.
void throw_if_malformed(std::string_view text, const std::string& source);

/// `text` cut to at most `max_chars` characters ("..." marks a cut): user-provided keys and strings in
/// messages stay one readable line.
[[nodiscard]] std::string clip(std::string_view text, std::size_t max_chars = 40);

/// A JSON pointer cut in the middle when long (deep nesting, long keys), for messages.
[[nodiscard]] std::string shorten_pointer(const std::string& pointer);

/// Escapes one reference token of a JSON pointer (RFC 6901: ~ -> ~0, / -> ~1).
[[nodiscard]] std::string pointer_token(std::string_view key);

/// A double for a message: plain where it reads well (132, 0.25), scientific when huge or tiny (1e+300).
[[nodiscard]] std::string format_number(double v);

class JsonRef;

/// Where a value sits, for messages: a JSON pointer given whole or as a parent place and a suffix
/// (Place(op, "/grid") under "/ops/12"). The readers name a place for every value they read but need its
/// text only for an error, so the string is built then and the hot paths allocate nothing (at a million
/// ops, building each field's pointer eagerly cost more than the parse). Holds views and a pointer to its
/// parent: both must outlive it (pass places down the call stack, never store them).
class Place {
 public:
  Place(const std::string& pointer) noexcept : piece_(pointer) {}  // NOLINT(google-explicit-constructor)
  Place(std::string_view pointer) noexcept : piece_(pointer) {}    // NOLINT(google-explicit-constructor)
  Place(const char* pointer) noexcept : piece_(pointer) {}         // NOLINT(google-explicit-constructor)
  /// `base` + `suffix`. (Taking a std::string here rather than converting it to a temporary Place keeps
  /// `const Place d(pointer, "/duration");` from pointing at a temporary.)
  Place(const std::string& base, std::string_view suffix) noexcept : base_(base), piece_(suffix) {}
  Place(const Place& parent, std::string_view suffix) noexcept : parent_(&parent), piece_(suffix) {}
  [[nodiscard]] std::string str() const;

 private:
  const Place* parent_ = nullptr;
  std::string_view base_;
  std::string_view piece_;
};

/// "/<index>", the reference token of an array element, formatted without allocating (a Place suffix).
class IndexToken {
 public:
  explicit IndexToken(std::size_t index) noexcept;
  [[nodiscard]] std::string_view view() const noexcept { return {buf_.data(), size_}; }

 private:
  std::array<char, 24> buf_{};
  std::size_t size_ = 0;
};

/// Error context of one reader: the file and, while reading one op, its id.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}
  /// Assigns into the one buffer (no allocation per op or span once it is long enough).
  void set_op(std::string_view op) { op_.assign(op.data(), op.size()); }
  [[nodiscard]] const std::string& op() const noexcept { return op_; }
  [[nodiscard]] const std::string& source() const noexcept { return source_; }

  [[noreturn]] void fail(const Place& pointer, const std::string& reason) const;

  /// Throws unless `j` is an object whose keys are all in `allowed`. `what` names the object in the
  /// message ("a kernel op", "the workload").
  void check_keys(JsonRef j, const Place& pointer, std::initializer_list<std::string_view> allowed,
                  std::string_view what) const;
  void expect_object(JsonRef j, const Place& pointer) const;
  void expect_array(JsonRef j, const Place& pointer) const;
  /// The member `key` of object `j`; throws "missing required key" when absent.
  [[nodiscard]] JsonRef required(JsonRef j, const Place& pointer, std::string_view key,
                                 std::string_view why = {}) const;

  /// Valid while the document is (views into its text).
  [[nodiscard]] std::string_view get_string(JsonRef j, const Place& pointer) const;
  [[nodiscard]] std::int64_t get_int(JsonRef j, const Place& pointer,
                                     std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                                     std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  [[nodiscard]] std::uint64_t get_uint(JsonRef j, const Place& pointer,
                                       std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
  [[nodiscard]] std::uint32_t get_u32(JsonRef j, const Place& pointer) const;
  /// Any finite JSON number.
  [[nodiscard]] double get_double(JsonRef j, const Place& pointer) const;
  [[nodiscard]] bool get_bool(JsonRef j, const Place& pointer) const;

 private:
  const std::string& source_;
  std::string op_;
};

/// FNV-1a, 64 bit: a stable, dependency-free content hash (not cryptographic).
inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
/// `seed` continues a hash over several pieces: fnv1a64(b, fnv1a64(a)) == fnv1a64(a + b).
[[nodiscard]] std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = kFnvOffset) noexcept;
[[nodiscard]] std::string hex64(std::uint64_t v);

}  // namespace streamlab::model::detail
