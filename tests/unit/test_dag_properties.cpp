// Properties of the DAG analyses on seeded random graphs, each checked against a brute-force answer
// computed independently (Floyd-Warshall reachability, path enumeration, subset enumeration).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "streamlab/model/dag.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::model {
namespace {

struct RandomGraph {
  std::uint32_t n = 0;
  std::vector<Edge> edges;
  std::vector<Nanos> duration;
};

/// Seeded graphs of 2..60 vertices. Even seeds: acyclic (edges go forward in a random permutation).
/// Odd seeds: edges in any direction, so a cycle appears in some of them and not in others.
RandomGraph random_graph(std::uint32_t seed, std::uint32_t max_n = 60) {
  std::mt19937 rng(seed);
  RandomGraph g;
  g.n = std::uniform_int_distribution<std::uint32_t>(2, max_n)(rng);
  std::vector<OpIndex> perm(g.n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  const double density = std::uniform_real_distribution<double>(0.3, 3.0)(rng) / g.n;
  std::bernoulli_distribution edge(std::min(1.0, density));
  const bool acyclic = seed % 2 == 0;
  for (std::uint32_t i = 0; i < g.n; ++i)
    for (std::uint32_t j = 0; j < g.n; ++j) {
      if (i == j || (acyclic && i > j)) continue;
      if (edge(rng)) g.edges.emplace_back(perm[i], perm[j]);
    }
  if (!acyclic && seed % 7 == 1) {
    const OpIndex v = std::uniform_int_distribution<OpIndex>(0, g.n - 1)(rng);
    g.edges.emplace_back(v, v);  // a self-loop now and then
  }
  if (!g.edges.empty() && seed % 5 == 0) g.edges.push_back(g.edges.front());  // a parallel edge
  g.duration.resize(g.n);
  for (auto& d : g.duration) d = std::uniform_int_distribution<Nanos>(0, 100)(rng);
  return g;
}

/// reach[u][v]: a path of one or more edges from u to v (Floyd-Warshall).
std::vector<std::vector<char>> closure(std::uint32_t n, const std::vector<Edge>& edges) {
  std::vector<std::vector<char>> r(n, std::vector<char>(n, 0));
  for (auto [u, v] : edges) r[u][v] = 1;
  for (std::uint32_t k = 0; k < n; ++k)
    for (std::uint32_t i = 0; i < n; ++i)
      if (r[i][k])
        for (std::uint32_t j = 0; j < n; ++j)
          if (r[k][j]) r[i][j] = 1;
  return r;
}

bool has_cycle(const std::vector<std::vector<char>>& reach) {
  for (std::size_t v = 0; v < reach.size(); ++v)
    if (reach[v][v]) return true;
  return false;
}

bool has_edge(const std::vector<Edge>& edges, OpIndex u, OpIndex v) {
  return std::find(edges.begin(), edges.end(), Edge{u, v}) != edges.end();
}

/// Longest path weight (sum of vertex durations) by enumerating every path from every vertex.
Nanos longest_path_brute(const RandomGraph& g, const std::vector<std::vector<OpIndex>>& succ) {
  Nanos best = 0;
  std::vector<std::pair<OpIndex, Nanos>> stack;
  for (OpIndex s = 0; s < g.n; ++s) stack.emplace_back(s, g.duration[s]);
  while (!stack.empty()) {
    auto [u, len] = stack.back();
    stack.pop_back();
    best = std::max(best, len);
    for (OpIndex v : succ[u]) stack.emplace_back(v, len + g.duration[v]);
  }
  return best;
}

std::vector<std::vector<OpIndex>> successor_lists(const RandomGraph& g) {
  std::vector<std::vector<OpIndex>> succ(g.n);
  for (auto [u, v] : g.edges) succ[u].push_back(v);
  return succ;
}

/// Largest antichain by enumerating every subset (small graphs only).
std::size_t max_antichain_brute(std::uint32_t n, const std::vector<std::vector<char>>& reach) {
  std::vector<std::uint32_t> comparable(n, 0);  // bit v of comparable[u]: u reaches v or v reaches u
  for (std::uint32_t u = 0; u < n; ++u)
    for (std::uint32_t v = 0; v < n; ++v)
      if (reach[u][v] || reach[v][u]) comparable[u] |= 1u << v;
  std::size_t best = 0;
  for (std::uint32_t set = 1; set < (1u << n); ++set) {
    bool ok = true;
    for (std::uint32_t u = 0; u < n && ok; ++u)
      if ((set >> u & 1u) && (comparable[u] & set)) ok = false;
    if (ok) best = std::max<std::size_t>(best, static_cast<std::size_t>(std::popcount(set)));
  }
  return best;
}

constexpr std::uint32_t kGraphs = 200;

TEST(DagProperties, TopologicalOrderRespectsEveryEdgeAndExistsExactlyWhenAcyclic) {
  int acyclic_seen = 0, cyclic_seen = 0;
  for (std::uint32_t seed = 0; seed < kGraphs; ++seed) {
    const RandomGraph g = random_graph(seed);
    const Dag dag(g.n, g.edges);
    const bool cyclic = has_cycle(closure(g.n, g.edges));
    (cyclic ? cyclic_seen : acyclic_seen)++;
    const auto order = topological_order(dag);
    ASSERT_EQ(order.has_value(), !cyclic) << "seed " << seed;
    if (!order) continue;
    ASSERT_EQ(order->size(), g.n);
    std::vector<std::uint32_t> pos(g.n, g.n);
    for (std::uint32_t i = 0; i < g.n; ++i) pos[(*order)[i]] = i;
    for (std::uint32_t v = 0; v < g.n; ++v) ASSERT_LT(pos[v], g.n) << "seed " << seed << ": op " << v << " missing";
    for (auto [u, v] : g.edges) EXPECT_LT(pos[u], pos[v]) << "seed " << seed << ": edge " << u << "->" << v;
  }
  // The generator must exercise both outcomes, or the test above proves little.
  EXPECT_GT(acyclic_seen, 100);
  EXPECT_GT(cyclic_seen, 30);
}

TEST(DagProperties, CyclesAreExactlyTheNonTrivialStronglyConnectedComponents) {
  for (std::uint32_t seed = 0; seed < kGraphs; ++seed) {
    const RandomGraph g = random_graph(seed);
    const auto reach = closure(g.n, g.edges);
    const std::vector<Cycle> cycles = find_cycles(Dag(g.n, g.edges));
    EXPECT_EQ(!cycles.empty(), has_cycle(reach)) << "seed " << seed;
    std::set<OpIndex> reported;
    for (std::size_t i = 0; i < cycles.size(); ++i) {
      const auto& ops = cycles[i].ops;
      ASSERT_FALSE(ops.empty());
      EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
      if (i > 0) {
        EXPECT_LT(cycles[i - 1].ops.front(), ops.front()) << "cycles ordered by smallest op";
      }
      for (OpIndex u : ops) {
        EXPECT_TRUE(reported.insert(u).second) << "seed " << seed << ": op " << u << " in two cycles";
        for (OpIndex v : ops) EXPECT_TRUE(reach[u][v]) << "seed " << seed << ": " << u << " does not reach " << v;
        // The whole component: everything mutually reachable with u is in this cycle.
        for (OpIndex v = 0; v < g.n; ++v)
          if (reach[u][v] && reach[v][u]) {
            EXPECT_TRUE(std::binary_search(ops.begin(), ops.end(), v));
          }
      }
    }
    for (OpIndex v = 0; v < g.n; ++v)
      EXPECT_EQ(reported.count(v) == 1, reach[v][v] != 0) << "seed " << seed << ": op " << v;
  }
}

TEST(DagProperties, CriticalPathIsTheLongestPathAndSlackIsConsistent) {
  for (std::uint32_t seed = 0; seed < kGraphs; seed += 2) {  // acyclic seeds
    const RandomGraph g = random_graph(seed);
    const Dag dag(g.n, g.edges);
    const DurationOf d = [&](OpIndex v) { return g.duration[v]; };
    const CriticalPath cp = critical_path(dag, d);
    const auto succ = successor_lists(g);

    // Longest by an independent method: every path enumerated (graphs here stay small and sparse
    // enough), else Bellman-Ford-style relaxation to a fixed point.
    Nanos longest = 0;
    if (g.n <= 24) {
      longest = longest_path_brute(g, succ);
    } else {
      std::vector<Nanos> best(g.duration);
      for (std::uint32_t round = 0; round < g.n; ++round)
        for (auto [u, v] : g.edges) best[v] = std::max(best[v], best[u] + g.duration[v]);
      longest = *std::max_element(best.begin(), best.end());
    }
    EXPECT_EQ(cp.length, longest) << "seed " << seed;

    // The reported path is a path of the graph whose durations add up to the length.
    ASSERT_FALSE(cp.ops.empty());
    Nanos along = 0;
    for (std::size_t i = 0; i < cp.ops.size(); ++i) {
      along += g.duration[cp.ops[i]];
      if (i > 0) {
        EXPECT_TRUE(has_edge(g.edges, cp.ops[i - 1], cp.ops[i])) << "seed " << seed;
      }
    }
    EXPECT_EQ(along, cp.length) << "seed " << seed;

    ASSERT_EQ(cp.earliest_start.size(), g.n);
    for (OpIndex v = 0; v < g.n; ++v) {
      EXPECT_GE(cp.slack[v], 0);
      EXPECT_EQ(cp.slack[v], cp.latest_start[v] - cp.earliest_start[v]);
      EXPECT_LE(cp.latest_start[v] + g.duration[v], cp.length);
      EXPECT_GE(cp.earliest_start[v], 0);
    }
    for (auto [u, v] : g.edges) {
      EXPECT_GE(cp.earliest_start[v], cp.earliest_start[u] + g.duration[u]);
      EXPECT_LE(cp.latest_start[u] + g.duration[u], cp.latest_start[v]);
    }
    for (OpIndex v : cp.ops) EXPECT_EQ(cp.slack[v], 0) << "seed " << seed << ": critical op " << v;

    // analyze_dag is the fused version of the same three answers.
    const DagAnalysis all = analyze_dag(dag, d);
    EXPECT_TRUE(all.cycles.empty());
    EXPECT_EQ(all.order, *topological_order(dag));
    ASSERT_TRUE(all.critical.has_value());
    EXPECT_EQ(all.critical->length, cp.length);
    EXPECT_EQ(all.critical->ops, cp.ops);
    EXPECT_EQ(all.critical->slack, cp.slack);
    EXPECT_EQ(all.level, levels(dag));
  }
}

// Without the order, a graph numbered in a topological order is analyzed in index order: the same
// critical path (the same op kept where predecessors finish together), slack and levels. Durations from
// a small range make such ties common; a permuted numbering or a parallel edge takes Kahn's pass again.
TEST(DagProperties, AnalyzeDagWithoutTheOrderGivesTheSameAnswers) {
  int in_index_order = 0;
  for (std::uint32_t seed = 0; seed < kGraphs; ++seed) {
    std::mt19937 rng(seed);
    const auto n = std::uniform_int_distribution<std::uint32_t>(1, 80)(rng);
    std::vector<Edge> edges;
    std::bernoulli_distribution edge(seed % 3 == 0 ? 0.3 : 0.08);
    for (OpIndex i = 0; i < n; ++i)
      for (OpIndex j = i + 1; j < n; ++j)
        if (edge(rng)) edges.emplace_back(i, j);
    if (seed % 7 == 3 && !edges.empty()) edges.push_back(edges.back());  // a parallel edge
    if (seed % 11 == 5 && n > 1) edges.emplace_back(n - 1, 0);           // one edge backwards (may close a cycle)
    std::vector<Nanos> duration(n);
    const Nanos top = seed % 2 == 0 ? 2 : 1'000'000;
    for (auto& d : duration) d = std::uniform_int_distribution<Nanos>(0, top)(rng);
    const Dag dag(n, edges);
    const DurationOf d = [&](OpIndex v) { return duration[v]; };
    const DagAnalysis all = analyze_dag(dag, d);
    // Half of them from a workload: a Dag that makes its successor rows only if Kahn's pass needs them.
    Workload w;
    std::vector<std::vector<OpIndex>> deps(n);
    for (const auto& [u, v] : edges) deps[v].push_back(u);
    for (OpIndex v = 0; v < n; ++v) {
      Op op;
      const std::string id = std::to_string(v);  // a number is an id too
      op.id = op.name = w.intern(id);
      op.kind = OpKind::barrier;
      w.add_resolved(op, deps[v]);
    }
    const Dag from_w(w);
    // Odd seeds: the durations as an array, read in place (what analyze does); even: through the function.
    const Dag& g = seed % 4 < 2 ? dag : from_w;
    const DagAnalysis some = seed % 2 == 1 ? analyze_dag(g, std::span<const Nanos>(duration), TopologicalOrder::omit)
                                           : analyze_dag(g, d, TopologicalOrder::omit);
    EXPECT_TRUE(some.order.empty());
    EXPECT_EQ(some.cycles, all.cycles) << "seed " << seed;
    EXPECT_EQ(some.level, all.level) << "seed " << seed;
    ASSERT_EQ(some.critical.has_value(), all.critical.has_value()) << "seed " << seed;
    if (!all.critical) continue;
    in_index_order += seed % 11 != 5;
    EXPECT_EQ(some.critical->length, all.critical->length) << "seed " << seed;
    EXPECT_EQ(some.critical->ops, all.critical->ops) << "seed " << seed;
    EXPECT_EQ(some.critical->earliest_start, all.critical->earliest_start) << "seed " << seed;
    EXPECT_EQ(some.critical->latest_start, all.critical->latest_start) << "seed " << seed;
    EXPECT_EQ(some.critical->slack, all.critical->slack) << "seed " << seed;
  }
  EXPECT_GT(in_index_order, static_cast<int>(kGraphs) / 2);
}

TEST(DagProperties, DurationArraysMustHaveOneNonNegativeDurationPerOp) {
  const std::vector<Edge> chain{{0, 1}, {1, 2}};
  const Dag dag(3, chain);
  const std::vector<Nanos> short_by_one{1, 2}, negative{1, -1, 2}, fine{1, 2, 3};
  EXPECT_THROW((void)analyze_dag(dag, std::span<const Nanos>(short_by_one)), std::invalid_argument);
  EXPECT_THROW((void)analyze_dag(dag, std::span<const Nanos>(negative), TopologicalOrder::omit), std::invalid_argument);
  const DagAnalysis all = analyze_dag(dag, std::span<const Nanos>(fine));
  ASSERT_TRUE(all.critical.has_value());
  EXPECT_EQ(all.critical->length, 6);
  EXPECT_THROW((void)parallelism_profile(*all.critical, std::span<const Nanos>(short_by_one)), std::invalid_argument);
}

TEST(DagProperties, AnalyzeDagReportsCyclesInsteadOfAPath) {
  for (std::uint32_t seed = 1; seed < kGraphs; seed += 2) {
    const RandomGraph g = random_graph(seed);
    const Dag dag(g.n, g.edges);
    const DagAnalysis all = analyze_dag(dag, [](OpIndex) { return Nanos{1}; });
    EXPECT_EQ(all.cycles, find_cycles(dag));
    EXPECT_EQ(all.critical.has_value(), all.cycles.empty());
    EXPECT_EQ(all.order.empty(), !all.cycles.empty());
  }
}

TEST(DagProperties, ParallelismProfileCountsRunningOpsOfTheEarliestSchedule) {
  for (std::uint32_t seed = 0; seed < kGraphs; seed += 2) {
    const RandomGraph g = random_graph(seed);
    const DurationOf d = [&](OpIndex v) { return g.duration[v]; };
    const CriticalPath cp = critical_path(Dag(g.n, g.edges), d);
    const auto profile = parallelism_profile(cp, d);
    EXPECT_EQ(parallelism_profile(cp, std::span<const Nanos>(g.duration)), profile) << "seed " << seed;
    ASSERT_FALSE(profile.empty());
    EXPECT_EQ(profile.front().first, 0);
    EXPECT_EQ(profile.back(), (std::pair<Nanos, std::uint32_t>{cp.length, 0}));
    for (std::size_t i = 0; i < profile.size(); ++i) {
      if (i > 0) {
        EXPECT_LT(profile[i - 1].first, profile[i].first);
        EXPECT_NE(profile[i - 1].second, profile[i].second) << "no redundant change points";
      }
      const Nanos t = profile[i].first;
      std::uint32_t running = 0;
      for (OpIndex v = 0; v < g.n; ++v)
        if (cp.earliest_start[v] <= t && t < cp.earliest_start[v] + g.duration[v]) ++running;
      EXPECT_EQ(profile[i].second, running) << "seed " << seed << " at t=" << t;
    }
  }
}

TEST(DagProperties, MaxWidthIsTheLargestAntichain) {
  int compared = 0;
  for (std::uint32_t seed = 0; seed < kGraphs; seed += 2) {
    const RandomGraph g = random_graph(seed);
    const auto reach = closure(g.n, g.edges);
    const Dag dag(g.n, g.edges);
    const Width w = max_width(dag);
    EXPECT_EQ(w.width, w.antichain.size());
    EXPECT_TRUE(std::is_sorted(w.antichain.begin(), w.antichain.end()));
    for (OpIndex u : w.antichain)
      for (OpIndex v : w.antichain) EXPECT_FALSE(reach[u][v]) << "seed " << seed << ": " << u << " reaches " << v;
    if (g.n <= 18) {
      EXPECT_EQ(w.width, max_antichain_brute(g.n, reach)) << "seed " << seed;
      ++compared;
    }
    const Width level = widest_level(dag);
    EXPECT_LE(level.width, w.width);
    EXPECT_EQ(level.width, level.antichain.size());
    for (OpIndex u : level.antichain)
      for (OpIndex v : level.antichain) EXPECT_FALSE(reach[u][v]);
  }
  EXPECT_GT(compared, 20);
}

TEST(DagProperties, MaxWidthOnLargerSmallGraphsAgainstBruteForce) {
  // Denser, 10..20 vertices: where greedy matchings go wrong and Hopcroft-Karp has to augment.
  for (std::uint32_t seed = 0; seed < 60; ++seed) {
    std::mt19937 rng(1000 + seed);
    const std::uint32_t n = std::uniform_int_distribution<std::uint32_t>(10, 20)(rng);
    std::bernoulli_distribution edge(std::uniform_real_distribution<double>(0.05, 0.4)(rng));
    std::vector<Edge> edges;
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = i + 1; j < n; ++j)
        if (edge(rng)) edges.emplace_back(n - 1 - i, n - 1 - j);  // reversed indices: order != index order
    const auto reach = closure(n, edges);
    const Width w = max_width(Dag(n, edges));
    EXPECT_EQ(w.width, max_antichain_brute(n, reach)) << "seed " << seed;
    for (OpIndex u : w.antichain)
      for (OpIndex v : w.antichain) EXPECT_FALSE(reach[u][v]);
  }
}

TEST(DagProperties, TransitiveReductionKeepsReachabilityAndIsMinimal) {
  for (std::uint32_t seed = 0; seed < kGraphs; seed += 2) {
    const RandomGraph g = random_graph(seed);
    const auto reach = closure(g.n, g.edges);
    const std::vector<Edge> kept = transitive_reduction(Dag(g.n, g.edges));
    EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
    EXPECT_EQ(std::adjacent_find(kept.begin(), kept.end()), kept.end()) << "parallel edges merged";
    for (auto [u, v] : kept) EXPECT_TRUE(has_edge(g.edges, u, v)) << "only original edges";
    EXPECT_EQ(closure(g.n, kept), reach) << "seed " << seed;
    // Minimal: without any one kept edge u -> v, v is no longer reachable from u (a DFS that skips it).
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const auto [from, to] = kept[i];
      std::vector<char> seen(g.n, 0);
      std::vector<OpIndex> stack{from};
      while (!stack.empty()) {
        const OpIndex u = stack.back();
        stack.pop_back();
        for (std::size_t k = 0; k < kept.size(); ++k)
          if (k != i && kept[k].first == u && !seen[kept[k].second]) {
            seen[kept[k].second] = 1;
            stack.push_back(kept[k].second);
          }
      }
      EXPECT_FALSE(seen[to]) << "seed " << seed << ": edge " << from << "->" << to << " is redundant";
    }
  }
}

TEST(DagProperties, LevelsAreLongestEdgeCountsFromASource) {
  for (std::uint32_t seed = 0; seed < kGraphs; seed += 2) {
    const RandomGraph g = random_graph(seed);
    const auto level = levels(Dag(g.n, g.edges));
    std::vector<std::uint32_t> expect(g.n, 0);
    for (std::uint32_t round = 0; round < g.n; ++round)
      for (auto [u, v] : g.edges) expect[v] = std::max(expect[v], expect[u] + 1);
    EXPECT_EQ(level, expect) << "seed " << seed;
  }
}

}  // namespace
}  // namespace streamlab::model
