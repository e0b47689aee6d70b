#pragma once
/// \file trace.hpp
/// The common trace: what ran where and when, as predicted by the simulator or measured on a GPU.
/// Records carry stream *ids*, never runtime handles. File format: docs/formats.md.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamlab/model/op.hpp"
#include "streamlab/model/progress.hpp"
#include "streamlab/model/text.hpp"

namespace streamlab::model {

/// The device resource a span occupied.
enum class Engine : std::uint8_t { host, sm, copy_h2d, copy_d2h, copy_d2d };

[[nodiscard]] std::string_view to_string(Engine) noexcept;
[[nodiscard]] std::optional<Engine> parse_engine(std::string_view) noexcept;
/// The engine an op of this kind runs on.
[[nodiscard]] Engine engine_for(OpKind) noexcept;
/// One of the copy engines (H2D, D2H, D2D).
[[nodiscard]] constexpr bool is_copy_engine(Engine e) noexcept {
  return e == Engine::copy_h2d || e == Engine::copy_d2h || e == Engine::copy_d2d;
}

/// One op on one engine: [start_ns, end_ns) on the trace's clock (0 = start of the run).
///
/// Its id and name are `Text` views of characters its trace's StringTable keeps (Trace::intern), of the
/// workload's table the trace shares (Trace::share_strings), or of literals: a span is a fixed-size
/// record with no heap block of its own, and a span kept beyond its trace must keep the trace's table
/// alive with it. The members are laid out widest first, so a span takes 64 bytes (96 with two
/// std::strings, which also put a heap block per name longer than 15 characters: at ten million spans
/// the first touch of fresh memory is most of the time of reading a trace). The constructor takes them
/// in the order callers name them (op, op_id, name, kind, device, stream, engine, start_ns, end_ns,
/// host_call).
struct Span {
  Nanos start_ns = 0;
  Nanos end_ns = 0;
  Text op_id;  ///< the workload's id (survives reordering)
  Text name;
  OpIndex op = 0;            ///< index in the workload
  std::uint32_t device = 0;
  std::uint32_t stream = 0;  ///< logical stream id assigned by the dispatcher
  OpKind kind = OpKind::kernel;
  Engine engine = Engine::sm;
  /// A host API call of a program (kernel launch, cudaMemcpyAsync, event record/wait, a synchronize), on
  /// the host thread (engine host), not device work. Makespans and comparisons leave these out; a
  /// host function's execution on the host is device-side work and has host_call false.
  bool host_call = false;

  Span() = default;
  Span(OpIndex op_, Text op_id_, Text name_, OpKind kind_ = OpKind::kernel, std::uint32_t device_ = 0,
       std::uint32_t stream_ = 0, Engine engine_ = Engine::sm, Nanos start_ns_ = 0, Nanos end_ns_ = 0,
       bool host_call_ = false)
      : start_ns(start_ns_),
        end_ns(end_ns_),
        op_id(op_id_),
        name(name_),
        op(op_),
        device(device_),
        stream(stream_),
        kind(kind_),
        engine(engine_),
        host_call(host_call_) {}

  [[nodiscard]] Nanos duration() const noexcept { return end_ns - start_ns; }
  friend bool operator==(const Span&, const Span&) = default;
};

/// The Chrome trace thread (tid) that holds a trace's host API calls: the program's one host thread.
inline constexpr std::uint32_t kHostThreadTid = 1'000'000;

/// Where one thread block of a kernel ran (sim --blocks, or run --blocks from the blocks' own clock reads; the
/// viewer's SM occupancy strip).
struct BlockPlacement {
  OpIndex op = 0;
  std::uint32_t block = 0;
  std::uint32_t sm = 0;
  Nanos start_ns = 0;
  Nanos end_ns = 0;
  friend bool operator==(const BlockPlacement&, const BlockPlacement&) = default;
};

struct TraceMeta {
  std::string backend;      ///< "sim" or "cuda"
  std::string device_name;  ///< e.g. "NVIDIA H100 80GB HBM3"
  std::string profile;      ///< device profile name/path the run used
  std::string policy;
  std::string workload;     ///< workload name
  std::string workload_hash;
  std::string version;      ///< streamlab version
  std::string date;         ///< ISO 8601
  std::map<std::string, std::string> extra;  ///< driver, cuda version, clock source, ...
  friend bool operator==(const TraceMeta&, const TraceMeta&) = default;
};

/// A trace: its metadata, spans and block placements, and the table its spans' texts live in.
struct Trace {
  TraceMeta meta;
  std::vector<Span> spans;
  std::vector<BlockPlacement> blocks;  ///< optional
  /// Where the spans' ids and names live (copies of the trace share it, as copies of a workload share
  /// theirs). Readers intern every span's texts here: one arena of characters, no block per span.
  std::shared_ptr<StringTable> strings = std::make_shared<StringTable>();

  /// A copy of `s` kept by this trace's table, for a span's id or name made at run time.
  [[nodiscard]] Text intern(std::string_view s) { return strings->intern(s); }
  /// Keeps `table` (a workload's, whose op ids and names the spans view) alive with this trace and
  /// interns into it from now on. Call before adding spans.
  void share_strings(std::shared_ptr<StringTable> table) { strings = std::move(table); }

  /// Same metadata, spans (their texts compared by value) and block placements; where the texts live
  /// does not matter.
  friend bool operator==(const Trace& a, const Trace& b) {
    return a.meta == b.meta && a.spans == b.spans && a.blocks == b.blocks;
  }
};

/// Chrome Trace Event JSON (opens in Perfetto and chrome://tracing). Exact ns are kept in args so
/// reading back gives the same Trace.
[[nodiscard]] std::string trace_to_chrome_json(const Trace& t);
[[nodiscard]] Trace parse_chrome_trace(std::string_view json_text, const std::string& source);
/// What load_trace keeps of each span (every field is read and checked either way).
struct TraceReadOptions {
  /// The spans' names (Span::name; left empty when false). A reader that never shows them (compare's text
  /// report) leaves them out: at ten million spans their characters are hundreds of MB of memory
  /// written once and never read.
  bool names = true;
};
/// Reads the file in one pass (no document tree of the whole file); `progress` counts bytes read.
[[nodiscard]] Trace load_trace(const std::filesystem::path& file, ProgressCounter* progress = nullptr,
                               const TraceReadOptions& options = {});
/// Atomic write (temporary file + rename).
void save_trace(const Trace& t, const std::filesystem::path& file);

}  // namespace streamlab::model
