#pragma once
/// \file trace_pair.hpp
/// The viewer's data: a predicted trace and optionally a measured one, preprocessed once into lanes and
/// never changed afterwards (the view state lives in TimelineView). Tracy keeps the same split.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "streamlab/model/trace.hpp"
#include "streamlab/viz/step_function.hpp"

namespace streamlab::viz {

enum class Side : std::uint8_t { predicted, measured };
[[nodiscard]] std::string_view to_string(Side s) noexcept;
[[nodiscard]] constexpr Side other(Side s) noexcept {
  return s == Side::predicted ? Side::measured : Side::predicted;
}

inline constexpr std::size_t kOpKindCount = 9;  ///< number of model::OpKind values

/// Sentinel for "no span" / "no op".
inline constexpr std::uint32_t kNone = 0xffffffffu;

/// Spans of one lane that do not overlap, sorted by start, hence also by end: the fold walk
/// binary-searches both. Stored column-wise because the walk reads only start and end.
struct LaneRow {
  std::vector<model::Nanos> start, end;
  std::vector<std::uint32_t> span;  ///< index into the side's Trace::spans
  std::vector<model::OpKind> kind;
  /// Only for rows holding more than one kind: kind_prefix[k][i] = spans of kind k among the first i, so
  /// a folded run reports its kind mix in O(kinds) whatever its length. Empty vectors otherwise.
  std::array<std::vector<std::uint32_t>, kOpKindCount> kind_prefix;

  [[nodiscard]] std::size_t size() const noexcept { return start.size(); }
  /// Spans of kind k among positions [first, first + count).
  [[nodiscard]] std::uint32_t count_of(model::OpKind k, std::uint32_t first, std::uint32_t count) const noexcept;
  /// The most frequent kind among positions [first, first + count) (lowest kind value on ties).
  [[nodiscard]] model::OpKind majority_kind(std::uint32_t first, std::uint32_t count) const noexcept;
};

enum class LaneKind : std::uint8_t {
  spans,         ///< the ops of one stream of one trace
  sm_occupancy,  ///< busy SMs over time, from Trace::blocks
};

struct Lane {
  LaneKind kind = LaneKind::spans;
  Side side = Side::predicted;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::string label;          ///< e.g. "stream 1  pred"
  std::vector<LaneRow> rows;  ///< usually one; more only where spans of one stream overlap in time
};

/// Busy SMs over time (an SM is busy while at least one block is resident on it).
struct SmOccupancy {
  std::uint32_t sm_count = 0;  ///< highest SM index + 1 seen in the blocks
  StepFunction busy_sms;
};

/// Where a span is drawn.
struct SpanLocation {
  std::uint32_t lane = kNone, row = 0, pos = 0;
};

/// Immutable once built. Lanes: for every (device, stream) seen in either trace, ascending, the
/// predicted lane directly followed by the measured lane (when a measured trace is given); then the SM
/// occupancy lanes of the traces that carry blocks.
class TracePair {
 public:
  explicit TracePair(model::Trace predicted, std::optional<model::Trace> measured = std::nullopt);
  // keys_by_id_ views the strings of key_ids_: a copy would view the original's.
  TracePair(const TracePair&) = delete;
  TracePair& operator=(const TracePair&) = delete;
  TracePair(TracePair&&) = default;
  TracePair& operator=(TracePair&&) = default;
  ~TracePair() = default;

  [[nodiscard]] bool has(Side s) const noexcept { return s == Side::predicted || measured_.has_value(); }
  /// Precondition: has(s).
  [[nodiscard]] const model::Trace& trace(Side s) const noexcept {
    return s == Side::predicted ? predicted_ : *measured_;
  }
  [[nodiscard]] std::span<const Lane> lanes() const noexcept { return lanes_; }
  [[nodiscard]] std::size_t span_count() const noexcept;

  /// Earliest start and latest end over both traces (0, 0 when empty).
  [[nodiscard]] model::Nanos begin_ns() const noexcept { return begin_; }
  [[nodiscard]] model::Nanos end_ns() const noexcept { return end_; }

  /// Ops are identified across the two traces by (op id, engine): the dense key of a span's op.
  [[nodiscard]] std::uint32_t op_key(Side s, std::uint32_t span) const noexcept { return keys_[idx(s)][span]; }
  [[nodiscard]] std::uint32_t op_key_count() const noexcept { return static_cast<std::uint32_t>(key_ids_.size()); }
  /// The op id of a key.
  [[nodiscard]] const std::string& op_id_of_key(std::uint32_t key) const noexcept { return key_ids_[key]; }
  /// The span of this key in trace s, or kNone.
  [[nodiscard]] std::uint32_t span_of_key(Side s, std::uint32_t key) const noexcept { return key_span_[idx(s)][key]; }
  /// The span of the same op on the same engine in the other trace, or kNone.
  [[nodiscard]] std::uint32_t counterpart(Side s, std::uint32_t span) const noexcept {
    return has(other(s)) ? span_of_key(other(s), op_key(s, span)) : kNone;
  }
  /// Keys of every span with this op id (an op may have spans on several engines).
  [[nodiscard]] std::vector<std::uint32_t> keys_of_op_id(std::string_view op_id) const;
  [[nodiscard]] SpanLocation locate(Side s, std::uint32_t span) const noexcept { return where_[idx(s)][span]; }

  /// Busy-SM step function of trace s, when it carries block placements.
  [[nodiscard]] const std::optional<SmOccupancy>& occupancy(Side s) const noexcept { return occupancy_[idx(s)]; }

  /// Op keys present in both traces.
  [[nodiscard]] std::size_t common_op_count() const noexcept { return common_; }

 private:
  [[nodiscard]] static constexpr std::size_t idx(Side s) noexcept { return static_cast<std::size_t>(s); }
  void intern_keys(Side s, std::unordered_map<std::string, std::uint32_t>& index);
  void build_lanes();

  model::Trace predicted_;
  std::optional<model::Trace> measured_;
  std::vector<Lane> lanes_;
  model::Nanos begin_ = 0, end_ = 0;
  std::vector<std::string> key_ids_;
  std::array<std::vector<std::uint32_t>, 2> keys_;      ///< per side: span -> key
  std::array<std::vector<std::uint32_t>, 2> key_span_;  ///< per side: key -> span or kNone
  std::array<std::vector<SpanLocation>, 2> where_;      ///< per side: span -> lane/row/pos
  std::array<std::optional<SmOccupancy>, 2> occupancy_;
  std::unordered_multimap<std::string_view, std::uint32_t> keys_by_id_;
  std::size_t common_ = 0;
};

/// Busy-SM step function from block placements (nullopt when there are none).
[[nodiscard]] std::optional<SmOccupancy> sm_occupancy(std::span<const model::BlockPlacement> blocks);

}  // namespace streamlab::viz
