#pragma once
/// \file trace_set.hpp
/// The viewer's data: two or more traces of one workload (a measurement and predictions, or predictions
/// under several policies), preprocessed once and never changed afterwards. The view state lives in
/// TimelineView (Tracy keeps the same split). Trace 0 is the reference the other traces are compared to.

#include <bitset>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamlab/model/trace.hpp"
#include "streamlab/viz/key_runs.hpp"
#include "streamlab/viz/step_function.hpp"

namespace streamlab::viz {

/// Position of a trace in its TraceSet (0 = the reference).
using TraceIndex = std::uint32_t;

/// Sentinel for "no span" / "no op" / "no lane".
inline constexpr std::uint32_t kNone = 0xffffffffu;

/// Every value an OpKind can take (it is one byte): the viewer sizes its per-kind tables from the kinds
/// it finds, so kinds the model gains later need no change here.
using KindSet = std::bitset<256>;

/// Busy SMs over time (an SM is busy while at least one block is resident on it).
struct SmOccupancy {
  std::uint32_t sm_count = 0;  ///< highest SM index + 1 seen in the blocks
  StepFunction busy_sms;
};

/// Busy-SM step function from block placements (nullopt when there are none).
[[nodiscard]] std::optional<SmOccupancy> sm_occupancy(std::span<const model::BlockPlacement> blocks);

/// A span that records a host API call (engine host, other than a host function or a barrier, which run
/// in stream order): such spans get a host lane of their own.
[[nodiscard]] bool is_host_call(const model::Span& s) noexcept;

/// "cuda · NVIDIA H100 80GB HBM3 · policy round-robin · 2026-11-21" from a trace's metadata (the parts
/// it has; "trace" when it has none).
[[nodiscard]] std::string describe_trace(const model::TraceMeta& meta);

/// Immutable once built. Ops are identified across traces by (op id, engine): an op *key*; the op table,
/// the selection and the dependency overlay work on keys, so an op is paired with itself in every trace
/// whatever stream each run put it on.
class TraceSet {
 public:
  /// `files` name the traces in labels and messages (may be empty or shorter than `traces`).
  explicit TraceSet(std::vector<model::Trace> traces, std::vector<std::string> files = {});
  // Not copied: it holds whole traces.
  TraceSet(const TraceSet&) = delete;
  TraceSet& operator=(const TraceSet&) = delete;
  TraceSet(TraceSet&&) = default;
  TraceSet& operator=(TraceSet&&) = default;
  ~TraceSet() = default;

  [[nodiscard]] std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(traces_.size()); }
  [[nodiscard]] const model::Trace& trace(TraceIndex t) const noexcept { return traces_[t].trace; }
  /// The file the trace came from ("" when none was given).
  [[nodiscard]] const std::string& file(TraceIndex t) const noexcept { return traces_[t].file; }
  /// "A", "B", ...: the short tag lane labels carry.
  [[nodiscard]] const std::string& tag(TraceIndex t) const noexcept { return traces_[t].tag; }
  /// describe_trace of its metadata.
  [[nodiscard]] const std::string& label(TraceIndex t) const noexcept { return traces_[t].label; }
  [[nodiscard]] std::size_t span_count() const noexcept;

  /// Earliest start and latest end of trace t on its own clock (0, 0 when empty).
  [[nodiscard]] model::Nanos begin_ns(TraceIndex t) const noexcept { return traces_[t].begin; }
  [[nodiscard]] model::Nanos end_ns(TraceIndex t) const noexcept { return traces_[t].end; }
  /// Start of its first device span (not on the host engine); its first span when it has none.
  [[nodiscard]] model::Nanos first_device_start(TraceIndex t) const noexcept { return traces_[t].first_device; }
  [[nodiscard]] bool has_host_calls(TraceIndex t) const noexcept { return traces_[t].host_calls; }
  /// Op kinds present in any trace (the legend).
  [[nodiscard]] const KindSet& kinds() const noexcept { return kinds_; }
  /// The largest device of any span of any trace (0 when there are none).
  [[nodiscard]] std::uint32_t max_device() const noexcept { return max_device_; }
  /// Spans of trace t on one device and engine.
  struct EngineSpans {
    std::uint32_t device = 0;
    model::Engine engine = model::Engine::sm;
    std::size_t spans = 0;
  };
  /// Trace t's span counts of every (device, engine) it has, by device then engine: what the lanes
  /// size their arrays by, counted while the set is made (a pass over ten million spans of their own).
  [[nodiscard]] const std::vector<EngineSpans>& engine_spans(TraceIndex t) const noexcept {
    return traces_[t].engine_spans;
  }

  [[nodiscard]] std::uint32_t op_key(TraceIndex t, std::uint32_t span) const noexcept { return traces_[t].keys[span]; }
  [[nodiscard]] std::uint32_t op_key_count() const noexcept { return static_cast<std::uint32_t>(key_engines_.size()); }
  [[nodiscard]] std::string_view op_id_of_key(std::uint32_t key) const noexcept;
  [[nodiscard]] model::Engine engine_of_key(std::uint32_t key) const noexcept { return key_engines_[key]; }
  /// The span of this key in trace t (its first, if the trace repeats the pair), or kNone.
  [[nodiscard]] std::uint32_t span_of_key(TraceIndex t, std::uint32_t key) const noexcept {
    return traces_[t].key_span[key];
  }
  /// Any span of the key, searching traces in order: (trace, span), or (kNone, kNone).
  [[nodiscard]] std::pair<TraceIndex, std::uint32_t> any_span_of_key(std::uint32_t key) const noexcept;
  /// Keys of every span with this op id (an op may have spans on several engines), ascending.
  [[nodiscard]] std::vector<std::uint32_t> keys_of_op_id(std::string_view op_id) const;
  /// Keys present in both trace 0 and trace t.
  [[nodiscard]] std::size_t common_op_count(TraceIndex t) const noexcept { return traces_[t].common; }

  /// Busy-SM step function of trace t, when it carries block placements.
  [[nodiscard]] const std::optional<SmOccupancy>& occupancy(TraceIndex t) const noexcept {
    return traces_[t].occupancy;
  }

 private:
  struct Entry {
    model::Trace trace;
    std::string file, tag, label;
    std::vector<std::uint32_t> keys;      ///< span -> key
    std::vector<std::uint32_t> key_span;  ///< key -> span or kNone
    model::Nanos begin = 0, end = 0, first_device = 0;
    bool host_calls = false;
    std::vector<EngineSpans> engine_spans;
    std::size_t common = 0;
    std::optional<SmOccupancy> occupancy;
  };
  void intern_keys();
  /// Keys of trace `e`'s spans from `from` on through the table (made before).
  void intern_by_table(Entry& e, std::size_t from);
  /// A table of `slots` slots (a power of two) holding every key made so far.
  void make_key_slots(std::size_t slots);

  std::vector<Entry> traces_;
  /// A key's op id is that of the span that made it: key_first_[key] in the first trace that has the key,
  /// the trace whose range of new keys holds it (keys_made_[t]: keys made by traces 0..t). Four bytes a
  /// key instead of a view of the id's characters (sixteen).
  std::vector<std::uint32_t> key_first_;
  std::vector<std::uint32_t> keys_made_;
  std::vector<model::Engine> key_engines_;
  /// Keys whose ids number them (KeyRuns), while every key made fits; once one does not, the keys are
  /// looked up in key_slots_ from there on, which then holds every key.
  KeyRuns key_runs_;
  /// Open-addressing table over op ids: (32 bits of the id's hash << 32) | key, or kEmptySlot; empty
  /// while key_runs_ hold every key.
  std::vector<std::uint64_t> key_slots_;
  static constexpr std::uint64_t kEmptySlot = ~std::uint64_t{0};
  KindSet kinds_;
  std::uint32_t max_device_ = 0;
};

}  // namespace streamlab::viz
