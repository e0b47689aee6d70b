#pragma once
/// \file metrics.hpp
/// What a trace says about overlap: makespan, busy fractions, copy/compute overlap, concurrency; and the
/// comparison of two traces of one workload (predicted vs measured). Definitions in docs/metrics.md.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamlab/model/trace.hpp"

namespace streamlab::model {

struct TraceMetrics {
  Nanos start_ns = 0;     ///< earliest span start
  Nanos makespan_ns = 0;  ///< latest end - earliest start
  std::map<std::uint32_t, double> stream_busy;  ///< stream id -> union of its spans / makespan
  std::map<Engine, double> engine_busy;         ///< engine -> union of its spans / makespan
  /// Time during which a copy and a kernel both run, over the shorter of total copy time and total
  /// kernel time (1 = the smaller side is fully hidden; 0 when either side is absent).
  double copy_compute_overlap = 0;
  /// Step function of the number of device spans (non-host) running: (time, count) change points.
  std::vector<std::pair<Nanos, std::uint32_t>> concurrency;
  double mean_concurrency = 0;
  std::uint32_t max_concurrency = 0;
};
/// Whether compute_metrics keeps TraceMetrics::concurrency. The step function has up to two points per
/// span (320 MB at ten million spans); mean and max concurrency are computed either way.
enum class ConcurrencySteps : bool { keep, drop };
[[nodiscard]] TraceMetrics compute_metrics(const Trace& t, ConcurrencySteps steps = ConcurrencySteps::keep);
/// Receives the change points of the concurrency step function, in time order.
using ConcurrencyStep = std::function<void(Nanos at, std::uint32_t count)>;
/// compute_metrics that hands each change point of TraceMetrics::concurrency to `step` (when set) instead
/// of keeping them: a caller that stores the function its own way (the viewer's step functions, at ten
/// million spans hundreds of MB) holds it once, not twice.
[[nodiscard]] TraceMetrics compute_metrics(const Trace& t, const ConcurrencyStep& step);

/// Per-op difference, matched by op id and engine; times relative to each trace's start.
struct OpDelta {
  std::string op_id;
  std::string name;
  Engine engine = Engine::sm;
  Nanos a_start = 0, a_end = 0, b_start = 0, b_end = 0;
  [[nodiscard]] Nanos start_error() const noexcept { return a_start - b_start; }
  [[nodiscard]] Nanos end_error() const noexcept { return a_end - b_end; }
  [[nodiscard]] Nanos duration_error() const noexcept { return (a_end - a_start) - (b_end - b_start); }
};

struct TraceComparison {
  TraceMetrics a, b;  ///< a = predicted, b = measured by convention; without their concurrency step functions
  double makespan_rel_error = 0;       ///< (a - b) / b
  double overlap_error = 0;            ///< a.copy_compute_overlap - b.copy_compute_overlap
  std::vector<OpDelta> ops;            ///< matched ops
  std::vector<std::string> only_in_a, only_in_b;  ///< op ids that did not match
  double mean_abs_start_error_ns = 0, mean_abs_duration_error_ns = 0;
  bool workload_hash_mismatch = false;
};
[[nodiscard]] TraceComparison compare_traces(const Trace& a, const Trace& b);

/// A matched op as indices of its two spans (a.spans[a], b.spans[b]) with the times of an OpDelta: the
/// op without copies of its texts (OpDelta's two strings and their heap blocks are most of the memory of
/// a comparison of ten-million-span traces, for a report that shows a few of them).
struct SpanDelta {
  std::uint32_t a = 0, b = 0;
  Nanos a_start = 0, a_end = 0, b_start = 0, b_end = 0;  ///< relative to each trace's start
  [[nodiscard]] Nanos start_error() const noexcept { return a_start - b_start; }
  [[nodiscard]] Nanos end_error() const noexcept { return a_end - b_end; }
  [[nodiscard]] Nanos duration_error() const noexcept { return (a_end - a_start) - (b_end - b_start); }
};
/// How compare_traces orders the matched ops it hands back and groups spans by op id.
struct CompareOptions {
  /// Matched ops by (a_start, op id, engine), as TraceComparison::ops; false: in the order of trace a's
  /// spans, for a report that picks the few it shows itself (sorting ten million of them is most of the
  /// time of matching two traces listed in the same order).
  bool sort_matched = true;
  /// The 64-bit hash that groups spans by op id (std::hash of the id when null). Spans are matched by
  /// the ids themselves whatever it returns (different ids with one hash are told apart by their text):
  /// tests pass a hash that makes ids collide.
  std::uint64_t (*op_id_hash)(std::string_view) = nullptr;
};
/// compare_traces with the matched ops in `matched` (the same ops as TraceComparison::ops, in the same
/// order unless `options` says otherwise) and TraceComparison::ops left empty.
[[nodiscard]] TraceComparison compare_traces(const Trace& a, const Trace& b, std::vector<SpanDelta>& matched,
                                             const CompareOptions& options = {});
/// The order of TraceComparison::ops (by a_start, op id, engine; then trace a's order) of ops matched in
/// trace a's order (compare_traces with CompareOptions::sort_matched false): positions in `matched`.
[[nodiscard]] std::vector<std::uint32_t> ops_order(const Trace& a, const std::vector<SpanDelta>& matched);
/// The OpDelta of a matched op of trace `a` (its id and name copied from a's span).
[[nodiscard]] OpDelta op_delta(const Trace& a, const SpanDelta& d);

/// How far off a matched op (an OpDelta or a SpanDelta) is, for ranking the worst: the larger of |start
/// error| and |end error|.
template <class Delta>
[[nodiscard]] Nanos max_abs_error(const Delta& d) noexcept {
  return std::max(std::abs(d.start_error()), std::abs(d.end_error()));
}
/// The positions (0..n-1) of the `count` largest of n errors visited in one order (`error_at(i)`: the
/// i-th one's), largest first. Only the errors that a heap of the `count` largest so far takes in are
/// kept, then partially sorted by error: which of equal errors come first follows from the order visited.
[[nodiscard]] std::vector<std::size_t> worst_positions(std::size_t n, const std::function<Nanos(std::size_t)>& error_at,
                                                       std::size_t count);
/// The `count` worst of `matched` (ops of trace `a`, in any order) by max_abs_error, as positions in
/// `matched`: worst_positions of them visited in ops_order(a, matched). When the count + 1 largest errors
/// all differ, no order can change the answer and none is made (one pass over `matched`: ordering ten
/// million matched ops for the ten a report shows took longer than matching them); equal errors among
/// them are ranked by worst_positions in that order.
[[nodiscard]] std::vector<std::uint32_t> worst_matched(const Trace& a, const std::vector<SpanDelta>& matched,
                                                       std::size_t count);

}  // namespace streamlab::model
