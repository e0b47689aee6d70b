#pragma once
// Private: the streaming JSON reader behind the workload, trace and profile readers. A file is parsed
// once with simdjson's On-Demand API (no DOM of the whole file); the readers walk its top level and turn
// one element of a large array at a time (one op, one trace event) into a small tree in a reusable
// arena, which the field-by-field checks read like a DOM. Strings and keys point into the parser's
// buffers, so a subtree costs no allocation once the arena has grown.
//
// Errors: any syntax error simdjson reports is re-described by throw_if_malformed (the same
// "line L, column C" and reason the DOM reader gave), so a malformed file reads the same whatever reader
// found it. A key repeated in one object and nesting beyond kMaxJsonDepth are refused while the subtree
// is built.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "json_util.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/mapped_file.hpp"
#include "streamlab/model/progress.hpp"

namespace streamlab::model::detail {

class JsonArena;

/// One value in a JsonArena: cheap to copy, valid until the arena is cleared.
class JsonRef {
 public:
  enum class Type : std::uint8_t { null, boolean, string, integer, unsigned_integer, floating, object, array };

  JsonRef(const JsonArena& arena, std::uint32_t index) : arena_(&arena), index_(index) {}

  [[nodiscard]] Type type() const noexcept;
  [[nodiscard]] bool is_object() const noexcept { return type() == Type::object; }
  [[nodiscard]] bool is_array() const noexcept { return type() == Type::array; }
  [[nodiscard]] bool is_string() const noexcept { return type() == Type::string; }
  /// Integers of either sign (as nlohmann's is_number_integer: unsigned ones count too).
  [[nodiscard]] bool is_integer() const noexcept {
    return type() == Type::integer || type() == Type::unsigned_integer;
  }
  /// Integers >= 0.
  [[nodiscard]] bool is_unsigned() const noexcept { return type() == Type::unsigned_integer; }
  [[nodiscard]] bool is_number() const noexcept { return is_integer() || type() == Type::floating; }
  [[nodiscard]] bool is_boolean() const noexcept { return type() == Type::boolean; }

  /// Children of an array or object.
  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  /// Element `i` of an array (i < size()); constant time for arrays of scalars.
  [[nodiscard]] JsonRef operator[](std::size_t i) const;
  /// The member `key` of an object, or nothing.
  [[nodiscard]] std::optional<JsonRef> find(std::string_view key) const;
  [[nodiscard]] bool contains(std::string_view key) const { return find(key).has_value(); }
  /// The members of an object named in `keys`, found in one pass: out[k] is keys[k]'s member or empty
  /// (a reader of a million records asks for each of its keys once, instead of scanning the object per
  /// key). Returns true when the object also has a member not in `keys`.
  bool members(std::span<const std::string_view> keys, std::span<std::optional<JsonRef>> out) const;
  /// The member `key` of an object, which must be present.
  [[nodiscard]] JsonRef at(std::string_view key) const { return *find(key); }
  [[nodiscard]] JsonRef operator[](std::string_view key) const { return at(key); }

  /// Children in order (array elements, object members); key() names a member.
  class Iterator {
   public:
    Iterator(const JsonArena& a, std::uint32_t i) : arena_(&a), index_(i) {}
    JsonRef operator*() const { return JsonRef(*arena_, index_); }
    Iterator& operator++();
    bool operator!=(const Iterator& o) const { return index_ != o.index_; }

   private:
    const JsonArena* arena_;
    std::uint32_t index_;
  };
  [[nodiscard]] Iterator begin() const;
  [[nodiscard]] Iterator end() const;

  /// The key of an object member ("" otherwise).
  [[nodiscard]] std::string_view key() const noexcept;
  [[nodiscard]] std::string_view string() const noexcept;  ///< strings only
  [[nodiscard]] std::int64_t int64() const noexcept;       ///< Type::integer only
  [[nodiscard]] std::uint64_t uint64() const noexcept;     ///< Type::unsigned_integer only
  [[nodiscard]] double number() const noexcept;            ///< any number, as a double
  [[nodiscard]] bool boolean() const noexcept;

  /// "a string", "an integer", ... for messages.
  [[nodiscard]] std::string describe_type() const;
  /// The value for a message: scalars as written (long strings shortened), containers as [...] / {...}
  /// with their size, never their contents.
  [[nodiscard]] std::string shown() const;

 private:
  friend class JsonArena;
  friend class JsonDocument;
  const JsonArena* arena_;
  std::uint32_t index_;
};

/// Nodes of the subtrees built from the document, in pre-order. Cleared per element by the readers.
class JsonArena {
 public:
  void clear() noexcept { nodes_.clear(); }
  [[nodiscard]] JsonRef root() const { return JsonRef(*this, 0); }
  /// Starts (on an empty arena) an object at the root, whose members JsonDocument::build adds with their
  /// keys: the top level of a document minus the large arrays read element by element.
  void begin_object();
  void end_object();

 private:
  friend class JsonRef;
  friend class JsonDocument;
  struct Node {
    JsonRef::Type type = JsonRef::Type::null;
    bool boolean = false;
    std::uint32_t count = 0;  ///< children
    std::uint32_t end = 0;    ///< index one past this node's subtree
    std::string_view key;
    std::string_view text;    ///< strings
    union {
      std::int64_t i;
      std::uint64_t u;
      double d;
    } num{};
  };
  std::vector<Node> nodes_;
};

/// The bytes of a JSON text followed by the padding simdjson may read past its end. A file is mapped
/// read-only, not read: the page cache's pages are used in place, where reading copied the file into
/// fresh memory the kernel first had to zero (a fifth of a large workload's validate time was system
/// time). A file that shrinks while it is mapped ends the process with SIGBUS, as with any mapped file.
class PaddedText {
 public:
  PaddedText() = default;
  /// The file mapped, or nothing where it cannot be (not a regular file, empty, no mapping): the caller
  /// reads it instead. `populate` reads every page in at once (a parser that indexes the whole text);
  /// without it pages come in as they are read (a reader that walks the text once, see release_before).
  [[nodiscard]] static std::optional<PaddedText> map(const std::filesystem::path& file, bool populate = true);
  /// Gives the pages of a mapped text before `offset` back (they stay readable: touched again, they are
  /// read again from the file): a reader that has passed them keeps the resident size of the text small.
  /// Does nothing for a text held in memory.
  void release_before(std::size_t offset) const noexcept;
  /// Reads the pages of [offset, offset + length) of a mapped text in at once (one request instead of a
  /// fault per few pages), for a reader about to walk them. Does nothing for a text held in memory.
  void load_ahead(std::size_t offset, std::size_t length) const noexcept;
  explicit PaddedText(simdjson::padded_string text) : copy_(std::move(text)) {}
  PaddedText(PaddedText&& o) noexcept { swap(o); }
  PaddedText& operator=(PaddedText&& o) noexcept {
    PaddedText(std::move(o)).swap(*this);
    return *this;
  }
  PaddedText(const PaddedText&) = delete;
  PaddedText& operator=(const PaddedText&) = delete;
  ~PaddedText() = default;

  [[nodiscard]] const char* data() const noexcept { return file_ ? file_->data() : copy_.data(); }
  [[nodiscard]] std::size_t size() const noexcept { return file_ ? file_->size() : copy_.size(); }
  [[nodiscard]] simdjson::padded_string_view view() const noexcept {
    return simdjson::padded_string_view(data(), size(), size() + simdjson::SIMDJSON_PADDING);
  }

 private:
  void swap(PaddedText& o) noexcept {
    std::swap(file_, o.file_);
    std::swap(copy_, o.copy_);
  }
  std::optional<MappedFile> file_;  ///< the file's pages, then zero pages for the padding
  simdjson::padded_string copy_;  ///< a text given as a string (or a file that could not be mapped)
};

/// One JSON file or text, parsed once. The readers walk its root object member by member and build the
/// subtrees they need.
class JsonDocument {
 public:
  /// Maps (or reads) `file`; errors name it. The text is kept with the padding simdjson needs.
  explicit JsonDocument(const std::filesystem::path& file);
  /// Copies `text` (padded) and names it `source` in errors.
  JsonDocument(std::string_view text, std::string source);
  /// Replaces the text by a copy of `text`, keeping the parser (and the memory it has grown): a reader
  /// parsing a large file piece by piece.
  void reset(std::string_view text);
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;

  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  [[nodiscard]] std::size_t size() const noexcept { return text_.size(); }

  /// Calls member(key, value) for each member of the root object in file order; the callback reads
  /// `value` (build(), for_each_element()) or leaves it, which skips it. A root that is not an object is
  /// built into `arena` whole and handed to not_object() instead. Throws the InputError of a syntax
  /// error, a repeated key or too deep a nesting anywhere it reads.
  using MemberFn = std::function<void(std::string_view key, simdjson::ondemand::value& value)>;
  void for_each_root_member(const MemberFn& member, JsonArena& arena, const std::function<void(JsonRef)>& not_object);

  /// Calls element(i, e) for each element of the array `value` (a member of the root named `pointer`,
  /// e.g. "/ops"), each built into `arena`, which is cleared before each. First calls count(n) with the
  /// number of elements (a skim over the parser's index: the caller reserves once instead of growing,
  /// which moved every op twice on average and doubled the array's peak). A `value` that is not an array
  /// is built into `arena` and handed to not_array(). Reports bytes read to `progress`.
  void for_each_element(simdjson::ondemand::value& value, const std::string& pointer, JsonArena& arena,
                        const std::function<void(std::size_t n)>& count,
                        const std::function<void(std::size_t index, JsonRef element)>& element,
                        const std::function<void(JsonRef)>& not_array, ProgressCounter* progress = nullptr);

  /// Adds `value` (a member of the root named `pointer`) to `arena` with key `key`, after what it holds
  /// already (see JsonArena::begin_object).
  JsonRef build(simdjson::ondemand::value& value, const std::string& pointer, JsonArena& arena,
                std::string_view key = {});
  /// The whole document in `arena` (small files: device profiles).
  JsonRef build_root(JsonArena& arena);
  /// The keys of the root object, values skipped ({} for anything else, malformed text included).
  [[nodiscard]] std::vector<std::string> root_keys();

 private:
  void start();
  std::uint32_t build_node(simdjson::ondemand::value& value, JsonArena& arena, std::uint32_t root,
                           std::size_t depth, const Place& pointer, std::string_view key = {});
  /// The JSON pointer of node `target` inside the subtree at `root` whose pointer is `base`.
  static std::string pointer_to(const JsonArena& arena, std::uint32_t root, std::uint32_t target,
                                const Place& base);
  void check_keys_unique(const JsonArena& arena, std::uint32_t root, std::uint32_t object,
                         const Place& pointer) const;
  /// Throws the InputError for a simdjson error: the strict reader's line, column and reason.
  [[noreturn]] void syntax_error(simdjson::error_code code) const;
  /// Byte offset of where the parser stands (for errors).
  [[nodiscard]] std::size_t offset() noexcept;
  /// Nothing but whitespace follows the root value.
  [[nodiscard]] bool at_end() noexcept;

  std::string source_;
  PaddedText text_;
  simdjson::ondemand::parser parser_;
  simdjson::ondemand::document doc_;
  bool iterated_ = false;
  bool failed_ = false;  ///< the last walk stopped early (an error): start() indexes the text again
};

/// Reads `file` and hands its document to `read`; running out of memory reading the file or parsing it
/// (simdjson's index, the reader's own data) becomes OutOfMemory naming the file and the step.
template <class Read>
auto read_json_file(const std::filesystem::path& file, Read&& read) {
  const std::string name = file.string();
  std::optional<JsonDocument> doc;
  with_step(name, "reading", [&] { doc.emplace(file); });
  return with_step(name, "parsing", [&] { return read(*doc); });
}

}  // namespace streamlab::model::detail
