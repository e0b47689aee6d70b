#pragma once
/// \file workload.hpp
/// A workload: a named DAG of ops, read from and written to versioned JSON (docs/formats.md).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "streamlab/model/op.hpp"
#include "streamlab/model/progress.hpp"

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

struct Workload {
  std::string name;
  std::string description;
  /// A program: ops are the host's calls in issue order, each on its declared stream; cross-stream
  /// ordering comes only from its event_record / event_wait ops. Otherwise a DAG a policy schedules.
  bool program = false;
  /// Declared streams (format 2). A program's ops name only these (or 0, the legacy NULL stream).
  std::vector<StreamDecl> streams;
  std::vector<Op> ops;  ///< dep_indices resolved (validated workloads only)

  [[nodiscard]] std::size_t size() const noexcept { return ops.size(); }
  /// Index of the op with this id, or throws std::out_of_range. A linear scan: resolve once, then use
  /// Op::dep_indices.
  [[nodiscard]] OpIndex index_of(std::string_view id) const;
  /// Number of dependency edges.
  [[nodiscard]] std::size_t edge_count() const noexcept;
  /// Stable content hash (hex) of the canonical JSON; traces carry it to tie them to their workload.
  [[nodiscard]] std::string hash() const;
  friend bool operator==(const Workload&, const Workload&) = default;
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
[[nodiscard]] Workload load_workload(const std::filesystem::path& file, const ShapeLimits& limits = {},
                                     ProgressCounter* progress = nullptr);
/// Canonical JSON (format_version first, keys in a fixed order, defaults written out). With indent >= 0
/// the document is indented and each op sits on one line (diff-friendly); indent < 0 gives one line.
[[nodiscard]] std::string workload_to_json(const Workload& w, int indent = 2);
/// Writes atomically (temporary file + rename): a failure leaves no half-written file.
void save_workload(const Workload& w, const std::filesystem::path& file);

/// Resolves deps to indices and checks every cross-op rule (duplicate ids, dangling deps, cycles).
/// parse_workload calls it; generators call it too. Throws InputError naming `source`.
void resolve_and_check(Workload& w, const std::string& source, const ShapeLimits& limits = {});

}  // namespace streamlab::model
