// Stream programs: stream order plus event waits can deadlock although the workload DAG is acyclic.
#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/stream_program.hpp"

namespace streamlab::model {
namespace {

/// Adds an op with deps given as indices (add_resolved keeps copies of the texts).
void add_op(Workload& w, const std::string& id, const std::string& name, const std::vector<OpIndex>& deps) {
  Op op;
  op.id = Text::borrow(id);
  op.name = Text::borrow(name);
  w.add_resolved(op, deps);
}

/// The classic: stream A runs a1 then a2, stream B runs b1 then b2. a1 waits on an event recorded after
/// b2; b1 waits on an event recorded after a2. The DAG (b2 -> a1, a2 -> b1) has no cycle, but a1 waits
/// for b2, which waits (stream order) for b1, which waits for a2, which waits (stream order) for a1.
Workload crossed_waits() {
  Workload w;
  w.name = "crossed";
  add_op(w, "a1", "copy in", {3});
  add_op(w, "a2", "gemm", {});
  add_op(w, "b1", "reduce", {1});
  add_op(w, "b2", "b2", {});
  return w;
}

TEST(StreamProgram, AcyclicDagCanStillDeadlock) {
  const Workload w = crossed_waits();
  EXPECT_TRUE(find_cycles(Dag(w)).empty()) << "the workload itself is a DAG";
  const StreamProgram bad{{{0, 1}, {2, 3}}};
  const auto cycles = find_stream_program_cycles(w, bad);
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].ops, (std::vector<OpIndex>{0, 1, 2, 3}));

  try {
    check_stream_program(w, bad, "plan.json");
    FAIL() << "expected a deadlock error";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.file(), "plan.json");
    EXPECT_EQ(msg.rfind("plan.json: deadlock", 0), 0u) << msg;
    for (const char* part : {"op 'a1' (copy in) [stream 0]", "next on its stream: op 'a2' (gemm) [stream 0]",
                             "waited on by op 'b1' (reduce) [stream 1]", "next on its stream: op 'b2' [stream 1]",
                             "waited on by op 'a1' (copy in)"})
      EXPECT_NE(msg.find(part), std::string::npos) << "missing \"" << part << "\" in: " << msg;
  }
}

TEST(StreamProgram, SameWorkInAnotherIssueOrderIsFine) {
  const Workload w = crossed_waits();
  // Issue b2 before b1 on stream B: a1 waits for b2 (free), a2 follows, b1 waits for a2.
  EXPECT_TRUE(find_stream_program_cycles(w, StreamProgram{{{0, 1}, {3, 2}}}).empty());
  EXPECT_NO_THROW(check_stream_program(w, StreamProgram{{{0, 1}, {3, 2}}}, "plan.json"));
  // All on one stream in a topological order.
  EXPECT_NO_THROW(check_stream_program(w, StreamProgram{{{1, 3, 0, 2}}}, "plan.json"));
  // One stream against the dependencies: a1 before b2 which it waits on.
  EXPECT_FALSE(find_stream_program_cycles(w, StreamProgram{{{0, 3, 1, 2}}}).empty());
}

TEST(StreamProgram, EveryCycleIsListed) {
  Workload w = crossed_waits();
  const std::size_t base = w.ops.size();
  const Workload second = crossed_waits();  // a second, independent copy of the trap
  for (OpIndex i = 0; i < second.ops.size(); ++i) {
    Op copy = second.ops[i];
    const std::string id = "x_" + copy.id;
    copy.id = Text::borrow(id);
    std::vector<OpIndex> deps;
    for (OpIndex d : second.deps(i)) deps.push_back(d + static_cast<OpIndex>(base));
    w.add_resolved(copy, deps);
  }
  const StreamProgram p{{{0, 1}, {2, 3}, {4, 5}, {6, 7}}};
  EXPECT_EQ(find_stream_program_cycles(w, p).size(), 2u);
  try {
    check_stream_program(w, p, "two.json");
    FAIL();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("2 cycles"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cycle 1: op 'a1'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cycle 2: op 'x_a1'"), std::string::npos) << msg;
  }
}

TEST(StreamProgram, BadProgramsAreInputErrors) {
  const Workload w = crossed_waits();
  EXPECT_THROW((void)find_stream_program_cycles(w, StreamProgram{{{0, 1}, {1}}}), InputError);
  try {
    check_stream_program(w, StreamProgram{{{0, 9}}}, "p.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.place(), "/streams/0/1");
    EXPECT_NE(std::string(e.what()).find("not in the workload"), std::string::npos);
  }
  try {
    check_stream_program(w, StreamProgram{{{0, 1}, {2, 0}}}, "p.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.op(), "a1");
    EXPECT_NE(std::string(e.what()).find("issued twice"), std::string::npos);
  }
  // Ops left out of the program are ignored: b1 alone waits on nothing issued.
  EXPECT_TRUE(find_stream_program_cycles(w, StreamProgram{{{2}}}).empty());
}

TEST(StreamProgram, RandomProgramsDeadlockExactlyWhenTheCombinedGraphHasACycle) {
  int deadlocks = 0, fine = 0;
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    std::mt19937 rng(seed);
    const std::uint32_t n = std::uniform_int_distribution<std::uint32_t>(2, 24)(rng);
    Workload w;
    std::bernoulli_distribution edge(2.0 / n);
    for (OpIndex v = 0; v < n; ++v) {
      std::vector<OpIndex> deps;
      for (OpIndex u = 0; u < v; ++u)
        if (edge(rng)) deps.push_back(u);
      add_op(w, "op" + std::to_string(v), "", deps);
    }
    const std::uint32_t k = std::uniform_int_distribution<std::uint32_t>(1, 4)(rng);
    std::vector<OpIndex> issue(n);
    std::iota(issue.begin(), issue.end(), 0);
    const bool topological = seed % 3 == 0;  // issue in index order = a topological order
    if (!topological) std::shuffle(issue.begin(), issue.end(), rng);
    StreamProgram p;
    p.streams.resize(k);
    for (OpIndex v : issue) p.streams[std::uniform_int_distribution<std::uint32_t>(0, k - 1)(rng)].push_back(v);

    // Brute force: Floyd-Warshall over deps + stream order.
    std::vector<std::vector<char>> reach(n, std::vector<char>(n, 0));
    for (OpIndex v = 0; v < n; ++v)
      for (OpIndex d : w.deps(v)) reach[d][v] = 1;
    for (const auto& s : p.streams)
      for (std::size_t i = 1; i < s.size(); ++i) reach[s[i - 1]][s[i]] = 1;
    for (OpIndex m = 0; m < n; ++m)
      for (OpIndex i = 0; i < n; ++i)
        if (reach[i][m])
          for (OpIndex j = 0; j < n; ++j)
            if (reach[m][j]) reach[i][j] = 1;
    bool cyclic = false;
    for (OpIndex v = 0; v < n; ++v) cyclic = cyclic || reach[v][v];

    const auto cycles = find_stream_program_cycles(w, p);
    EXPECT_EQ(!cycles.empty(), cyclic) << "seed " << seed;
    if (topological) {
      EXPECT_TRUE(cycles.empty()) << "issue in a topological order never deadlocks";
    }
    for (const auto& c : cycles)
      for (OpIndex u : c.ops)
        for (OpIndex v : c.ops) EXPECT_TRUE(reach[u][v]);
    (cyclic ? deadlocks : fine)++;
  }
  EXPECT_GT(deadlocks, 20);
  EXPECT_GT(fine, 60);
}

}  // namespace
}  // namespace streamlab::model
