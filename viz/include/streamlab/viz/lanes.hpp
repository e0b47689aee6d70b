#pragma once
/// \file lanes.hpp
/// The timeline's lanes: each trace's spans grouped by stream or by engine (copy H2D, SMs, copy D2H, ...),
/// with a host lane for host API calls, and each lane's spans split into non-overlapping rows sorted by
/// time so a frame can binary-search and fold them (fold.hpp).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamlab/viz/trace_set.hpp"

namespace streamlab::viz {

/// Spans of one lane that do not overlap, sorted by start, hence also by end: the fold walk
/// binary-searches both. Stored column-wise because the walk reads only start and end.
struct LaneRow {
  std::vector<model::Nanos> start, end;
  std::vector<std::uint32_t> span;  ///< index into the trace's spans
  std::vector<model::OpKind> kind;
  /// Only for rows holding more than one kind: kind_prefix[k][i] = spans of kind k among the first i, so
  /// a folded run reports its kind mix in O(kinds) whatever its length. Empty otherwise (and empty
  /// vectors for kinds the row lacks).
  std::vector<std::vector<std::uint32_t>> kind_prefix;

  [[nodiscard]] std::size_t size() const noexcept { return start.size(); }
  /// Spans of kind k among positions [first, first + count).
  [[nodiscard]] std::uint32_t count_of(model::OpKind k, std::uint32_t first, std::uint32_t count) const noexcept;
  /// The most frequent kind among positions [first, first + count) (lowest kind value on ties).
  [[nodiscard]] model::OpKind majority_kind(std::uint32_t first, std::uint32_t count) const noexcept;
};

/// What building rows needs of a span, read from the trace once (a Span is 64 bytes; these are 24).
struct RowSpan {
  model::Nanos start = 0, end = 0;  ///< end >= start
  std::uint32_t index = 0;          ///< in the trace's spans
  model::OpKind kind = model::OpKind::kernel;
  /// Which of the lane's streams the span is of (0, 1, ... as the lane first meets them; the same for
  /// every span of a stream lane), or 0xffff: spans of one run are often already in time order, which
  /// make_rows then merges instead of sorting. It fits in the record's padding.
  std::uint16_t run = 0;
  [[nodiscard]] static RowSpan of(const model::Span& s, std::uint32_t index, std::uint16_t run = 0) noexcept;
};

/// Splits spans (any order) into rows: sorted by (start, end, index), each span goes to the
/// lowest-numbered row free at its start. Spans of one stream run in order, so a stream lane is almost
/// always one row; the SM engine gets a row per concurrently running kernel. Spans whose runs
/// (RowSpan::run) each come in that order are merged, not sorted: the same rows, in linear time.
[[nodiscard]] std::vector<LaneRow> make_rows(std::vector<RowSpan> spans);

enum class LaneMode : std::uint8_t {
  stream,  ///< per trace: its host calls, then one lane per (device, stream)
  engine,  ///< per (device, engine): one lane per trace, side by side; then SM occupancy per trace
};
[[nodiscard]] std::string_view to_string(LaneMode m) noexcept;

enum class LaneKind : std::uint8_t {
  spans,         ///< spans of one trace
  sm_occupancy,  ///< busy SMs over time, from Trace::blocks
};

struct Lane {
  LaneKind kind = LaneKind::spans;
  TraceIndex trace = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;                ///< stream mode (not for the host lane)
  model::Engine engine = model::Engine::sm;  ///< engine mode; host for host lanes in either mode
  bool host_calls = false;                 ///< the host API call lane of stream mode
  std::uint32_t group = 0;                 ///< lanes of one group are drawn close together
  std::string label;                       ///< e.g. "stream 3", "copy H2D", "SMs", "host calls"
  std::vector<LaneRow> rows;               ///< spans lanes: usually one
};

/// Where a span is drawn.
struct SpanLocation {
  std::uint32_t lane = kNone, row = 0, pos = 0;
};

/// The lanes of a TraceSet in one mode, immutable once built.
class LaneSet {
 public:
  LaneSet() = default;
  LaneSet(const TraceSet& set, LaneMode mode);

  [[nodiscard]] LaneMode mode() const noexcept { return mode_; }
  [[nodiscard]] std::span<const Lane> lanes() const noexcept { return lanes_; }
  /// Where span `span` of trace t of `set` (the set these lanes were built from) is drawn (lane kNone
  /// when it is not). Found when asked (the viewer asks for the few spans it outlines): its lane from
  /// the span's fields, then a binary search of each row of the lane by start. A table of every span's
  /// place cost 12 bytes per span and mode. A LaneSet keeps no reference to its TraceSet.
  [[nodiscard]] SpanLocation locate(const TraceSet& set, TraceIndex t, std::uint32_t span) const noexcept;

 private:
  void add_span_lane(Lane lane, std::vector<LaneRow> rows);

  LaneMode mode_ = LaneMode::engine;
  std::vector<Lane> lanes_;
};

/// "host", "copy H2D", "SMs", "copy D2H", "copy D2D".
[[nodiscard]] std::string_view engine_label(model::Engine e) noexcept;

}  // namespace streamlab::viz
