#pragma once
/// \file dag.hpp
/// A compact dependency graph (Boost.Graph bidirectional compressed sparse row) built once from a workload
/// or from raw edges, and the analyses on it: topological order, cycles (every strongly connected
/// component), critical path with earliest start and slack, maximum width and parallelism profile,
/// transitive reduction.
///
/// Costs (n ops, m edges): construction, find_cycles, topological_order, critical_path, analyze_dag,
/// levels and widest_level are O(n + m) and fine at 10^6 ops. max_width is O(n^2/8) bytes and about
/// O(m n/64 + sqrt(n) n^2/64) word operations, so it refuses graphs over kMaxWidthOps. transitive_reduction
/// is O(m n/64) word operations in at most ~64 MiB of bitsets: well under a second up to ~10^5 ops.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/model/op.hpp"

namespace streamlab::model {

class Workload;
namespace detail {
struct DagAccess;  // dag.cpp's analyses read the CSR arrays directly
}

/// Edge u -> v: v depends on u (u must finish before v starts).
using Edge = std::pair<OpIndex, OpIndex>;

/// Immutable DAG (or would-be DAG: cycles are reported, not assumed away). Parallel edges are kept as
/// given; self-loops are cycles.
class Dag {
 public:
  /// Throws std::out_of_range when an edge names a vertex >= vertex_count.
  Dag(std::uint32_t vertex_count, std::span<const Edge> edges);
  /// Edges dep -> op from every Workload::deps. Throws std::invalid_argument when deps were not
  /// resolved (Workload::resolved) or an index is out of range.
  explicit Dag(const Workload& w);
  ~Dag();
  Dag(Dag&&) noexcept;
  Dag& operator=(Dag&&) noexcept;

  [[nodiscard]] std::uint32_t vertex_count() const noexcept;
  [[nodiscard]] std::size_t edge_count() const noexcept;
  /// The ops that depend on v (out-edges), in edge input order.
  [[nodiscard]] std::span<const OpIndex> successors(OpIndex v) const;
  /// The ops v depends on (in-edges).
  [[nodiscard]] std::span<const OpIndex> predecessors(OpIndex v) const;

 private:
  friend struct detail::DagAccess;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One cycle: the ops of a strongly connected component of size > 1, or a self-loop.
struct Cycle {
  std::vector<OpIndex> ops;
  friend bool operator==(const Cycle&, const Cycle&) = default;
};

/// Every cycle (one per non-trivial SCC), ops ascending within each, cycles ordered by smallest op.
/// An O(n + m) Kahn pass answers the acyclic case; only a cyclic graph pays for Tarjan's SCC
/// (boost::strong_components, whose DFS is iterative, so 10^6 ops do not overflow the stack).
[[nodiscard]] std::vector<Cycle> find_cycles(const Dag& g);
/// Topological order (Kahn, FIFO: ties broken by readiness, then index); empty optional when the graph
/// has a cycle.
[[nodiscard]] std::optional<std::vector<OpIndex>> topological_order(const Dag& g);

/// Duration estimate per op (e.g. estimate_duration with a device profile). Must be >= 0.
using DurationOf = std::function<Nanos(OpIndex)>;

struct CriticalPath {
  Nanos length = 0;                  ///< makespan with unlimited resources
  std::vector<OpIndex> ops;          ///< one longest path, in order
  std::vector<Nanos> earliest_start; ///< per op
  std::vector<Nanos> latest_start;   ///< per op, without delaying the makespan
  std::vector<Nanos> slack;          ///< latest_start - earliest_start
};
/// Requires an acyclic graph (throws std::invalid_argument otherwise, or for a negative duration).
[[nodiscard]] CriticalPath critical_path(const Dag& g, const DurationOf& duration);

/// "Is it a DAG, in what order, how long at best, how deep" in one Kahn pass that also computes earliest
/// starts and levels, plus one reverse pass for latest starts: what find_cycles + topological_order +
/// critical_path + levels give, at about a third of their cost. For a cyclic graph: cycles filled, order empty, no critical path.
struct DagAnalysis {
  std::vector<Cycle> cycles;
  std::vector<OpIndex> order;  ///< empty when asked to omit it (TopologicalOrder::omit)
  std::optional<CriticalPath> critical;
  std::vector<std::uint32_t> level;  ///< what levels() gives, from the same pass (empty when cyclic)
};
/// Whether analyze_dag gives DagAnalysis::order. Without it, a graph whose vertices are numbered in a
/// topological order already (every edge to a higher index: generated and saved workloads) is analyzed in
/// that order, without Kahn's pass over the whole graph (same cycles, critical path and levels).
enum class TopologicalOrder : bool { omit, keep };
[[nodiscard]] DagAnalysis analyze_dag(const Dag& g, const DurationOf& duration,
                                      TopologicalOrder order = TopologicalOrder::keep);
/// The same from every op's duration, by op index (one per op, none negative: std::invalid_argument
/// otherwise), read where they are: no copy of them is made and no function is called per op (at ten
/// million ops the copy alone was 80 MB of fresh memory).
[[nodiscard]] DagAnalysis analyze_dag(const Dag& g, std::span<const Nanos> durations,
                                      TopologicalOrder order = TopologicalOrder::keep);

/// level[v] = number of edges on the longest path ending at v (sources are level 0). Acyclic only
/// (throws std::invalid_argument). The topological depth is max level + 1.
[[nodiscard]] std::vector<std::uint32_t> levels(const Dag& g);

/// Largest antichain (ops no two of which are ordered). Dilworth: the width equals the minimum number of
/// chains covering the reachability order = n - maximum matching in the bipartite graph (u_out, v_in) for
/// every v reachable from u; the matching is Hopcroft-Karp over per-vertex reachability bitsets, and the
/// antichain comes from the minimum vertex cover by Koenig's theorem (ops whose out-copy is reached and
/// whose in-copy is not reached by alternating paths from unmatched out-copies).
struct Width {
  std::size_t width = 0;
  std::vector<OpIndex> antichain;  ///< ascending
};
/// Largest op count max_width accepts: its bitsets take n^2/8 bytes (32 MiB at this limit).
inline constexpr std::uint32_t kMaxWidthOps = 16384;
/// Exact maximum width. Acyclic only (std::invalid_argument); std::length_error above kMaxWidthOps.
[[nodiscard]] Width max_width(const Dag& g);
/// The widest level of `levels` (ops on one level are never ordered): an antichain, hence a lower bound
/// on the width, in O(n + m) for graphs too large for max_width. Acyclic only.
[[nodiscard]] Width widest_level(const Dag& g);
/// The same from levels(g) already computed (a caller that needs both passes over the graph once).
[[nodiscard]] Width widest_level(const std::vector<std::uint32_t>& level);

/// Number of ops running at each instant of the earliest-start schedule (unlimited resources): a step
/// function as (time, count) change points, starting at (0, n0) and ending with (cp.length, 0); count
/// holds on [time, next time). Ops of zero duration never count. Empty for an empty graph.
[[nodiscard]] std::vector<std::pair<Nanos, std::uint32_t>> parallelism_profile(const CriticalPath& cp,
                                                                               const DurationOf& duration);
/// The same from every op's duration, by op index (one per op: std::invalid_argument otherwise).
[[nodiscard]] std::vector<std::pair<Nanos, std::uint32_t>> parallelism_profile(const CriticalPath& cp,
                                                                               std::span<const Nanos> durations);

/// The minimal edge set with the same reachability (the deps that must become waits), sorted, parallel
/// edges merged. Acyclic only (std::invalid_argument). An edge u -> v is kept iff v is not a strict
/// descendant of another successor of u; descendants are bitsets filled in reverse topological order,
/// in column blocks so memory stays under ~64 MiB: O(m n/64) word operations in all.
[[nodiscard]] std::vector<Edge> transitive_reduction(const Dag& g);

/// "op 'a' (load A) -> op 'b' (gemm) -> op 'a' (load A)" for messages: one closed walk through the
/// cycle along the workload's dependency edges (ops named by id, and name where it differs); when the
/// component has ops off that walk they are listed after it.
[[nodiscard]] std::string describe_cycle(const Workload& w, const Cycle& c);

}  // namespace streamlab::model
