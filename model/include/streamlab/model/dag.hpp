#pragma once
/// \file dag.hpp
/// A compact dependency graph (Boost.Graph compressed sparse row) built once from a workload or from raw
/// edges, and the analyses on it: topological order, cycles (every strongly connected component),
/// critical path with earliest start and slack, maximum width and parallelism profile, transitive
/// reduction.

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

struct Workload;

/// Edge u -> v: v depends on u (u must finish before v starts).
using Edge = std::pair<OpIndex, OpIndex>;

/// Immutable DAG (or would-be DAG: cycles are reported, not assumed away).
class Dag {
 public:
  Dag(std::uint32_t vertex_count, std::span<const Edge> edges);
  explicit Dag(const Workload& w);
  ~Dag();
  Dag(Dag&&) noexcept;
  Dag& operator=(Dag&&) noexcept;

  [[nodiscard]] std::uint32_t vertex_count() const noexcept;
  [[nodiscard]] std::size_t edge_count() const noexcept;
  [[nodiscard]] std::span<const OpIndex> successors(OpIndex v) const;
  [[nodiscard]] std::span<const OpIndex> predecessors(OpIndex v) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One cycle: the ops of a strongly connected component of size > 1, or a self-loop.
struct Cycle {
  std::vector<OpIndex> ops;
};

/// Every cycle (one per non-trivial SCC), ops ascending within each, cycles ordered by smallest op.
[[nodiscard]] std::vector<Cycle> find_cycles(const Dag& g);
/// Topological order; empty optional when the graph has a cycle.
[[nodiscard]] std::optional<std::vector<OpIndex>> topological_order(const Dag& g);

/// Duration estimate per op (e.g. from a device profile).
using DurationOf = std::function<Nanos(OpIndex)>;

struct CriticalPath {
  Nanos length = 0;                  ///< makespan with unlimited resources
  std::vector<OpIndex> ops;          ///< one longest path, in order
  std::vector<Nanos> earliest_start; ///< per op
  std::vector<Nanos> latest_start;   ///< per op, without delaying the makespan
  std::vector<Nanos> slack;          ///< latest_start - earliest_start
};
/// Requires an acyclic graph (throws std::invalid_argument otherwise).
[[nodiscard]] CriticalPath critical_path(const Dag& g, const DurationOf& duration);

/// Largest antichain (ops no two of which are ordered), by Dilworth / bipartite matching on the
/// reachability relation. Cost grows with n * reachable pairs: meant for workloads up to ~10^4 ops.
struct Width {
  std::size_t width = 0;
  std::vector<OpIndex> antichain;
};
[[nodiscard]] Width max_width(const Dag& g);

/// Number of ops running at each instant of the earliest-start schedule (unlimited resources): a step
/// function as (time, count) change points, starting at (0, n0).
[[nodiscard]] std::vector<std::pair<Nanos, std::uint32_t>> parallelism_profile(const CriticalPath& cp,
                                                                               const DurationOf& duration);

/// The minimal edge set with the same reachability (the deps that must become waits). Acyclic only.
[[nodiscard]] std::vector<Edge> transitive_reduction(const Dag& g);

/// "op 'a' (load A) -> op 'b' (gemm) -> ..." for messages.
[[nodiscard]] std::string describe_cycle(const Workload& w, const Cycle& c);

}  // namespace streamlab::model
