// Hand-made cases for the DAG analyses: edge cases, error contracts, messages, and sizes where recursion
// or bitset blocking would show.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "streamlab/model/dag.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::model {
namespace {

/// Adds an op with deps given as indices (add_resolved keeps copies of the texts).
void add_op(Workload& w, const std::string& id, const std::string& name, const std::vector<OpIndex>& deps) {
  Op op;
  op.id = Text::borrow(id);
  op.name = Text::borrow(name);
  w.add_resolved(op, deps);
}

TEST(Dag, BuildsSuccessorsAndPredecessors) {
  const std::vector<Edge> edges{{0, 2}, {1, 2}, {2, 3}, {0, 3}};
  const Dag g(4, edges);
  EXPECT_EQ(g.vertex_count(), 4u);
  EXPECT_EQ(g.edge_count(), 4u);
  auto sorted = [](std::span<const OpIndex> s) {
    std::vector<OpIndex> v(s.begin(), s.end());
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(g.successors(0)), (std::vector<OpIndex>{2, 3}));
  EXPECT_EQ(sorted(g.predecessors(3)), (std::vector<OpIndex>{0, 2}));
  EXPECT_TRUE(g.predecessors(0).empty());
  EXPECT_THROW((void)g.successors(4), std::out_of_range);
  const std::vector<Edge> bad{{0, 5}};
  EXPECT_THROW(Dag(3, bad), std::out_of_range);
}

// The rows' order is part of the contract: successors in edge input order, predecessors by source (with
// repeated edges in input order). The workload constructor builds them its own way (from the dep rows)
// and must give the same rows as the edge-list constructor given the workload's edges in op order.
TEST(Dag, RowOrderIsTheSameFromEdgesAndFromAWorkload) {
  const std::vector<Edge> edges{{2, 3}, {0, 3}, {1, 3}, {0, 2}, {2, 4}, {0, 4}, {3, 4}, {1, 2}};
  const Dag g(5, edges);
  const auto row = [](std::span<const OpIndex> s) { return std::vector<OpIndex>(s.begin(), s.end()); };
  EXPECT_EQ(row(g.successors(0)), (std::vector<OpIndex>{3, 2, 4}));
  EXPECT_EQ(row(g.successors(2)), (std::vector<OpIndex>{3, 4}));
  EXPECT_EQ(row(g.predecessors(3)), (std::vector<OpIndex>{0, 1, 2}));
  EXPECT_EQ(row(g.predecessors(4)), (std::vector<OpIndex>{0, 2, 3}));

  std::uint64_t state = 5;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  Workload w;
  std::vector<Edge> in_op_order;
  for (OpIndex v = 0; v < 300; ++v) {
    std::vector<OpIndex> deps;
    for (OpIndex u = 0; u < v && deps.size() < 6; ++u)
      if (next() % 40 == 0) deps.push_back(u);
    std::reverse(deps.begin(), deps.end());  // deps written out of order
    for (const OpIndex u : deps) in_op_order.emplace_back(u, v);
    add_op(w, "op" + std::to_string(v), "", deps);
  }
  const Dag from_w(w);
  const Dag from_edges(300, in_op_order);
  ASSERT_EQ(from_w.edge_count(), from_edges.edge_count());
  for (OpIndex v = 0; v < 300; ++v) {
    EXPECT_EQ(row(from_w.successors(v)), row(from_edges.successors(v))) << v;
    EXPECT_EQ(row(from_w.predecessors(v)), row(from_edges.predecessors(v))) << v;
  }
}

TEST(Dag, FromWorkloadUsesDepIndices) {
  Workload w;
  add_op(w, "a", "A", {});
  add_op(w, "b", "B", {0});
  add_op(w, "c", "C", {0, 1});
  const Dag g(w);
  EXPECT_EQ(g.edge_count(), 3u);
  EXPECT_EQ(topological_order(g), (std::vector<OpIndex>{0, 1, 2}));
  Workload unresolved = w;
  Op d;
  d.id = "d";
  unresolved.add(d, {"a"});  // named, not yet resolved
  EXPECT_THROW(Dag{unresolved}, std::invalid_argument);
}

TEST(Dag, EmptyGraph) {
  const Dag g(0, {});
  EXPECT_TRUE(find_cycles(g).empty());
  EXPECT_EQ(topological_order(g), std::vector<OpIndex>{});
  const CriticalPath cp = critical_path(g, [](OpIndex) { return Nanos{1}; });
  EXPECT_EQ(cp.length, 0);
  EXPECT_TRUE(cp.ops.empty());
  EXPECT_EQ(max_width(g).width, 0u);
  EXPECT_TRUE(transitive_reduction(g).empty());
  EXPECT_TRUE(parallelism_profile(cp, [](OpIndex) { return Nanos{1}; }).empty());
}

TEST(Dag, SelfLoopAndTwoComponentsAreCycles) {
  // 0 -> 0; 1 -> 2 -> 1; 3 -> 4 -> 5 -> 3; 6 alone; 2 -> 3 links two components without merging them.
  const std::vector<Edge> edges{{0, 0}, {1, 2}, {2, 1}, {3, 4}, {4, 5}, {5, 3}, {2, 3}, {6, 1}};
  const Dag g(7, edges);
  const auto cycles = find_cycles(g);
  ASSERT_EQ(cycles.size(), 3u);
  EXPECT_EQ(cycles[0].ops, (std::vector<OpIndex>{0}));
  EXPECT_EQ(cycles[1].ops, (std::vector<OpIndex>{1, 2}));
  EXPECT_EQ(cycles[2].ops, (std::vector<OpIndex>{3, 4, 5}));
  EXPECT_FALSE(topological_order(g).has_value());
  EXPECT_THROW((void)critical_path(g, [](OpIndex) { return Nanos{1}; }), std::invalid_argument);
  EXPECT_THROW((void)max_width(g), std::invalid_argument);
  EXPECT_THROW((void)transitive_reduction(g), std::invalid_argument);
  EXPECT_THROW((void)levels(g), std::invalid_argument);
}

TEST(Dag, ParallelEdgesAreHarmless) {
  const std::vector<Edge> edges{{0, 1}, {0, 1}, {1, 2}, {0, 2}};
  const Dag g(3, edges);
  EXPECT_TRUE(find_cycles(g).empty());
  EXPECT_EQ(topological_order(g), (std::vector<OpIndex>{0, 1, 2}));
  EXPECT_EQ(transitive_reduction(g), (std::vector<Edge>{{0, 1}, {1, 2}}));
}

TEST(Dag, CriticalPathByHand) {
  // load(10) -> gemm(50) -> store(5); load -> small(20) -> store. Critical: load, gemm, store = 65.
  const std::vector<Edge> edges{{0, 1}, {1, 3}, {0, 2}, {2, 3}};
  const std::vector<Nanos> d{10, 50, 20, 5};
  const CriticalPath cp = critical_path(Dag(4, edges), [&](OpIndex v) { return d[v]; });
  EXPECT_EQ(cp.length, 65);
  EXPECT_EQ(cp.ops, (std::vector<OpIndex>{0, 1, 3}));
  EXPECT_EQ(cp.earliest_start, (std::vector<Nanos>{0, 10, 10, 60}));
  EXPECT_EQ(cp.latest_start, (std::vector<Nanos>{0, 10, 40, 60}));
  EXPECT_EQ(cp.slack, (std::vector<Nanos>{0, 0, 30, 0}));
  const auto profile = parallelism_profile(cp, [&](OpIndex v) { return d[v]; });
  // At 60 gemm ends and store starts together, so the count stays 1 and there is no change point.
  EXPECT_EQ(profile, (std::vector<std::pair<Nanos, std::uint32_t>>{{0, 1}, {10, 2}, {30, 1}, {65, 0}}));
  EXPECT_THROW((void)critical_path(Dag(4, edges), [](OpIndex) { return Nanos{-1}; }), std::invalid_argument);
}

TEST(Dag, WidthOfForkJoinAndLimit) {
  // 0 -> {1..5} -> 6: width 5, antichain {1..5}.
  std::vector<Edge> edges;
  for (OpIndex v = 1; v <= 5; ++v) {
    edges.emplace_back(0, v);
    edges.emplace_back(v, 6);
  }
  const Dag g(7, edges);
  const Width w = max_width(g);
  EXPECT_EQ(w.width, 5u);
  EXPECT_EQ(w.antichain, (std::vector<OpIndex>{1, 2, 3, 4, 5}));
  EXPECT_EQ(widest_level(g).antichain, w.antichain);
  EXPECT_THROW((void)max_width(Dag(kMaxWidthOps + 1, {})), std::length_error);
}

TEST(Dag, WidestLevelIsOnlyALowerBound) {
  // Chain 0->1->2->3 with 4->3, 0->6 and 5 alone. Levels: {0,4,5} {1,6} {2} {3}, so the widest level
  // holds 3; but {1,4,5,6} is an antichain of 4 (one chain op plus the three off-chain ops).
  const std::vector<Edge> edges{{0, 1}, {1, 2}, {2, 3}, {4, 3}, {0, 6}};
  const Dag g(7, edges);
  EXPECT_EQ(levels(g), (std::vector<std::uint32_t>{0, 1, 2, 3, 0, 0, 1}));
  EXPECT_EQ(widest_level(g).antichain, (std::vector<OpIndex>{0, 4, 5}));
  EXPECT_EQ(max_width(g).width, 4u);
}

TEST(Dag, TransitiveReductionAcrossColumnBlocks) {
  // Two chains of 15000 ops (A = 0..m-1, B = m..2m-1) with rungs A_i -> B_i and shortcuts A_i -> B_{i+5}:
  // 30000 ops need more than one 64 MiB column block, and the rungs cross block boundaries. Expected:
  // both chains and every rung; every shortcut is redundant (A_i -> B_i -> ... -> B_{i+5}).
  constexpr OpIndex m = 15000;
  std::vector<Edge> edges, expect;
  for (OpIndex i = 0; i + 1 < m; ++i) {
    expect.emplace_back(i, i + 1);
    expect.emplace_back(m + i, m + i + 1);
  }
  for (OpIndex i = 0; i < m; ++i) expect.emplace_back(i, m + i);
  edges = expect;
  for (OpIndex i = 0; i + 5 < m; i += 3) edges.emplace_back(i, m + i + 5);
  std::reverse(edges.begin(), edges.end());
  std::sort(expect.begin(), expect.end());
  EXPECT_EQ(transitive_reduction(Dag(2 * m, edges)), expect);
}

TEST(Dag, LongChainWithBackEdgeDoesNotOverflowTheStack) {
  // 300000 ops in one cycle: a recursive DFS would need 300000 frames.
  constexpr OpIndex n = 300000;
  std::vector<Edge> edges;
  for (OpIndex i = 0; i + 1 < n; ++i) edges.emplace_back(i, i + 1);
  edges.emplace_back(n - 1, 0);
  const auto cycles = find_cycles(Dag(n, edges));
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].ops.size(), n);
  edges.pop_back();
  const Dag chain(n, edges);
  EXPECT_TRUE(find_cycles(chain).empty());
  EXPECT_EQ(critical_path(chain, [](OpIndex) { return Nanos{2}; }).length, 2 * Nanos{n});
}

TEST(Dag, DescribeCycleWalksTheDependencies) {
  Workload w;
  // b depends on a, c on b, a on c: a -> b -> c -> a. Then d depends on c and a on d: same component.
  add_op(w, "a", "load A", {2});
  add_op(w, "b", "b", {0});
  add_op(w, "c", "gemm", {1});
  add_op(w, "x", "", {});
  EXPECT_EQ(describe_cycle(w, Cycle{{0, 1, 2}}), "op 'a' (load A) -> op 'b' -> op 'c' (gemm) -> op 'a' (load A)");
  add_op(w, "d", "d", {2});
  w.set_deps(0, std::vector<OpIndex>{2, 4});
  const std::string text = describe_cycle(w, Cycle{{0, 1, 2, 4}});
  EXPECT_EQ(text.rfind("op 'a' (load A) -> op 'b' -> op 'c' (gemm) -> ", 0), 0u) << text;
  EXPECT_NE(text.find("op 'd'"), std::string::npos) << text;
  // Ops that are not a cycle of the workload are still named.
  EXPECT_EQ(describe_cycle(w, Cycle{{3}}), "op 'x' (no dependency cycle among them)");
}

}  // namespace
}  // namespace streamlab::model
