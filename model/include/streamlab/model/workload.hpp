#pragma once
/// \file workload.hpp
/// A workload: a named DAG of ops, read from and written to versioned JSON (docs/formats.md).

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "streamlab/model/op.hpp"
#include "streamlab/model/progress.hpp"
#include "streamlab/model/text.hpp"

namespace streamlab::model {

/// Current workload format version; readers accept 1 (DAG workloads) and 2 (adds programs and declared
/// streams) and refuse others with a clear message.
inline constexpr int kWorkloadFormatVersion = 2;

/// CUDA's stream flavours, which differ in implicit synchronization with the legacy NULL stream.
enum class StreamKind : std::uint8_t {
  blocking,            ///< cudaStreamDefault: synchronizes with the legacy default stream
  non_blocking,        ///< cudaStreamNonBlocking: exempt from the legacy barrier
  legacy_default,      ///< the NULL stream under legacy semantics: an implicit barrier
  per_thread_default,  ///< cudaStreamPerThread: an ordinary stream, exempt from the barrier
};
[[nodiscard]] std::string_view to_string(StreamKind) noexcept;
[[nodiscard]] std::optional<StreamKind> parse_stream_kind(std::string_view) noexcept;

/// A stream a workload declares: the id ops name in "stream", its CUDA priority and kind.
/// Id 0 is the legacy NULL stream (kind legacy_default, priority 0) and need not be declared.
struct StreamDecl {
  std::uint32_t id = 1;
  int priority = 0;  ///< CUDA convention: lower = higher priority (H100: 0 .. -5)
  StreamKind kind = StreamKind::non_blocking;
  std::string label;
  friend bool operator==(const StreamDecl&, const StreamDecl&) = default;
};

class Workload;
struct ShapeLimits;
void resolve_and_check(Workload& w, const std::string& source, const ShapeLimits& limits);

/// A workload. Its ops' texts live in its StringTable (shared by copies of the workload) and their deps
/// in one flat array (CSR: op i's deps are dep_index_[dep_begin_[i], dep_begin_[i + 1])), so an op costs
/// a fixed-size record and four bytes per dep. Build one with add() / add_resolved(), which copy the op's
/// texts into the table (texts just made by intern() are kept as they are). Ops pushed onto `ops`
/// directly have no deps and must hold texts that outlive the workload (literals, intern(), or the table
/// of a workload whose strings this one shares: share_strings()).
class Workload {
 public:
  std::string name;
  std::string description;
  /// A program: ops are the host's calls in issue order, each on its declared stream; cross-stream
  /// ordering comes only from its event_record / event_wait ops. Otherwise a DAG a policy schedules.
  bool program = false;
  /// Declared streams (format 2). A program's ops name only these (or 0, the legacy NULL stream).
  std::vector<StreamDecl> streams;
  /// The ops in order. Append through add() (or push_back an op without deps); reordering or erasing
  /// ops directly would detach them from their deps.
  std::vector<Op> ops;

  /// The table this workload's texts live in (copies of the workload share it).
  [[nodiscard]] const std::shared_ptr<StringTable>& strings() const noexcept { return strings_; }
  /// A copy of `s` kept by this workload's table (for an op's id, name or event set by hand).
  [[nodiscard]] Text intern(std::string_view s) { return strings_->intern(s); }
  /// Keeps `other`'s table alive with this workload and interns into it from now on: ops copied from
  /// `other` keep valid texts however long `other` lives. Call before adding ops.
  void share_strings(const Workload& other) { strings_ = other.strings_; }

  /// Appends `op` (its texts copied into the table, see above) with deps named by id, resolved by
  /// resolve_and_check. Returns the new op's index.
  OpIndex add(const Op& op, std::initializer_list<std::string_view> deps = {});
  OpIndex add(const Op& op, std::span<const std::string> deps);
  OpIndex add(const Op& op, std::span<const std::string_view> deps);
  /// Appends `op` with deps given as indices of ops (earlier or later; resolve_and_check checks them).
  OpIndex add_resolved(const Op& op, std::span<const OpIndex> deps);
  /// Replaces op `i`'s deps (indices): O(edges), for tools that rewire a built workload.
  void set_deps(OpIndex i, std::span<const OpIndex> deps);

  [[nodiscard]] std::size_t size() const noexcept { return ops.size(); }
  /// Op `i`'s deps as op indices, in the order written (valid once resolved: resolve_and_check).
  [[nodiscard]] std::span<const OpIndex> deps(OpIndex i) const noexcept {
    if (std::size_t{i} + 1 >= dep_begin_.size()) return {};
    return std::span<const OpIndex>(dep_index_).subspan(dep_begin_[i], dep_begin_[i + 1] - dep_begin_[i]);
  }
  /// Asks the cache for the entry deps(i) reads first (where op `i`'s deps begin and end), for a caller
  /// that knows some steps ahead which ops it will read (the Dispatcher): ops taken in random order miss
  /// there, and deps(i) must have that entry before it can even name the deps' line.
  void prefetch_deps(OpIndex i) const noexcept {
    if (std::size_t{i} + 1 < dep_begin_.size()) __builtin_prefetch(dep_begin_.data() + i);
  }
  /// Every op's dependents (the ops that list it as a dep), as compressed sparse rows: op `i`'s are
  /// rows[start[i], start[i + 1]), ascending, one entry per dep naming it (valid once resolved).
  void dependents(std::vector<std::uint32_t>& start, std::vector<OpIndex>& rows) const;
  /// Op `i`'s deps as the ids written (before resolution, the ids given to add()).
  [[nodiscard]] std::vector<std::string_view> dep_ids(OpIndex i) const;
  /// True once every dep names an op by index (resolve_and_check, or add_resolved only).
  [[nodiscard]] bool resolved() const noexcept { return dep_name_.empty(); }
  /// Index of the op with this id, or throws std::out_of_range. A linear scan: resolve once, then use
  /// deps().
  [[nodiscard]] OpIndex index_of(std::string_view id) const;
  /// Number of dependency edges.
  [[nodiscard]] std::size_t edge_count() const noexcept { return dep_index_.size(); }
  /// Stable content hash (hex) of the canonical JSON; traces carry it to tie them to their workload.
  [[nodiscard]] std::string hash() const;
  /// Same name, description, program flag, streams, ops (by content) and deps.
  friend bool operator==(const Workload& a, const Workload& b);

 private:
  friend void resolve_and_check(Workload& w, const std::string& source, const ShapeLimits& limits);
  friend struct WorkloadBuilder;  // the readers' access (model/src)
  /// Appends op's texts interned and its deps' entries; `dep` is called for k < n and fills one entry.
  template <class Fill>
  OpIndex append(const Op& op, std::size_t n, Fill&& dep);
  void pad_deps();

  static constexpr OpIndex kUnresolved = ~OpIndex{0};
  std::shared_ptr<StringTable> strings_ = std::make_shared<StringTable>();
  std::vector<std::uint32_t> dep_begin_;  ///< ops.size() + 1 entries once any op was added (else none)
  std::vector<OpIndex> dep_index_;        ///< kUnresolved where dep_name_ holds the id
  std::vector<Text> dep_name_;            ///< ids not yet resolved (empty once resolved)
};

/// The workload type an op of this kind gets when its JSON leaves "type" out: kernels and task pools
/// compute, copies/memset/prefetch memory, host functions and barriers coordination.
[[nodiscard]] WorkloadType default_workload_type(OpKind k) noexcept;

/// Per-device limits validation checks kernel shapes against (defaults: Hopper / H100).
struct ShapeLimits {
  std::uint32_t max_threads_per_block = 1024;
  std::uint32_t max_block_z = 64;                       ///< blockDim.z limit (x and y: max_threads_per_block)
  std::uint32_t max_shared_mem_per_block = 227 * 1024;  ///< opt-in maximum on sm_90
  std::uint32_t max_registers_per_thread = 255;
  std::uint32_t max_registers_per_block = 65536;        ///< one block must fit one SM's register file
  std::uint32_t max_grid_x = 0x7fffffffu;
  std::uint32_t max_grid_yz = 65535;
};

/// Parses and strictly validates a workload from JSON text. `source` names the file in errors.
/// Throws InputError on malformed JSON, unknown keys, wrong types, missing fields, duplicate ids,
/// dangling deps, cycles and impossible kernel shapes.
[[nodiscard]] Workload parse_workload(std::string_view json_text, const std::string& source,
                                      const ShapeLimits& limits = {});
/// Reads a file and parses it; a missing or unreadable file is an InputError too.
/// Reads the file in one pass (no document tree of the whole file); `progress` counts bytes read.
/// With `hash`, also the workload's hash() there (a file laid out one op per line, as streamlab writes
/// them, has it computed as its ops are read, without a second pass over the ops).
[[nodiscard]] Workload load_workload(const std::filesystem::path& file, const ShapeLimits& limits = {},
                                     ProgressCounter* progress = nullptr, std::string* hash = nullptr);
/// Canonical JSON (format_version first, keys in a fixed order, defaults written out). With indent >= 0
/// the document is indented and each op sits on one line (diff-friendly); indent < 0 gives one line.
[[nodiscard]] std::string workload_to_json(const Workload& w, int indent = 2);
/// Writes atomically (temporary file + rename): a failure leaves no half-written file.
void save_workload(const Workload& w, const std::filesystem::path& file);

/// Resolves deps to indices and checks every cross-op rule (duplicate ids, dangling deps, cycles).
/// parse_workload calls it; generators call it too. Throws InputError naming `source`.
void resolve_and_check(Workload& w, const std::string& source, const ShapeLimits& limits = {});

}  // namespace streamlab::model
