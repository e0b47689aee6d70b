#pragma once
// Private helpers shared by the JSON readers of model/ (workload, device profile, trace): strict parsing
// with line:column for syntax errors, duplicate-key detection and a nesting limit, and typed accessors whose errors name
// the file, the JSON pointer and the op. Not a public header.

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

/// Parses JSON text; malformed text or a key repeated within one object is an InputError naming
/// `source` and "line L, column C" (syntax) or the JSON pointer (duplicate key, nesting deeper than
/// kMaxJsonDepth). Linear in the text's size; never recurses.
[[nodiscard]] Json parse_json_strict(std::string_view text, const std::string& source);

/// `text` cut to at most `max_chars` characters ("..." marks a cut): user-provided keys and strings in
/// messages stay one readable line.
[[nodiscard]] std::string clip(std::string_view text, std::size_t max_chars = 40);

/// A JSON pointer cut in the middle when long (deep nesting, long keys), for messages.
[[nodiscard]] std::string shorten_pointer(const std::string& pointer);

/// Escapes one reference token of a JSON pointer (RFC 6901: ~ -> ~0, / -> ~1).
[[nodiscard]] std::string pointer_token(std::string_view key);

/// A double for a message: plain where it reads well (132, 0.25), scientific when huge or tiny (1e+300).
[[nodiscard]] std::string format_number(double v);

/// "a string", "an integer", ... for messages.
[[nodiscard]] std::string describe_type(const Json& j);

/// A value for an error message: scalars as written (clipped), containers by kind and size only, so no
/// message ever walks a nested value.
[[nodiscard]] std::string shown(const Json& j);

/// Error context of one reader: the file and, while reading one op, its id.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}
  void set_op(std::string op) { op_ = std::move(op); }
  [[nodiscard]] const std::string& op() const noexcept { return op_; }
  [[nodiscard]] const std::string& source() const noexcept { return source_; }

  [[noreturn]] void fail(const std::string& pointer, const std::string& reason) const;

  /// Throws unless `j` is an object whose keys are all in `allowed`. `what` names the object in the
  /// message ("a kernel op", "the workload").
  void check_keys(const Json& j, const std::string& pointer, std::initializer_list<std::string_view> allowed,
                  std::string_view what) const;
  void expect_object(const Json& j, const std::string& pointer) const;
  void expect_array(const Json& j, const std::string& pointer) const;
  /// The member `key` of object `j`; throws "missing required key" when absent.
  [[nodiscard]] const Json& required(const Json& j, const std::string& pointer, std::string_view key,
                                     std::string_view why = {}) const;

  [[nodiscard]] std::string get_string(const Json& j, const std::string& pointer) const;
  [[nodiscard]] std::int64_t get_int(const Json& j, const std::string& pointer,
                                     std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                                     std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  [[nodiscard]] std::uint64_t get_uint(const Json& j, const std::string& pointer,
                                       std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
  [[nodiscard]] std::uint32_t get_u32(const Json& j, const std::string& pointer) const {
    return static_cast<std::uint32_t>(get_uint(j, pointer, std::numeric_limits<std::uint32_t>::max()));
  }
  /// Any finite JSON number.
  [[nodiscard]] double get_double(const Json& j, const std::string& pointer) const;

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
