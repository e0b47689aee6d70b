// The Dispatcher against the FakeBackend: minimal event insertion (property test), deadlock refusal
// before anything is issued, reproducible decision logs, windows, barriers, callbacks, timeouts, stream
// kinds and hints, event pooling.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/model/dag.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/generators.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/fake_backend.hpp"
#include "streamlab/policies/registry.hpp"
#include "test_policy_helpers.hpp"

namespace sp = streamlab::policies;
namespace sm = streamlab::model;
using streamlab::testing::independent;
using streamlab::testing::lines;
using streamlab::testing::make_workload;

namespace {

sp::FakeOptions fake_opts(sp::FakeCompletion mode) {
  sp::FakeOptions fo;
  fo.completion = mode;
  return fo;
}

sp::PolicyConfig cfg(std::uint32_t streams, std::uint32_t window = 0) {
  sp::PolicyConfig c;
  c.streams = streams;
  c.window = window;
  return c;
}

/// Test-only policy: a random ready op onto a random stream (seeded), to produce arbitrary assignments
/// and issue orders. `static_plan` selects the Dispatcher's plan-then-issue path.
class RandomPolicy final : public sp::Policy {
 public:
  RandomPolicy(std::uint32_t streams, std::uint64_t seed, bool static_plan)
      : rng_(seed), static_(static_plan) {
    config_.streams = streams;
  }
  std::string_view name() const noexcept override { return "random"; }
  const sp::PolicyConfig& config() const noexcept override { return config_; }
  bool is_static() const noexcept override { return static_; }
  std::vector<sp::StreamSlot> layout(std::pair<int, int>) override {
    return std::vector<sp::StreamSlot>(config_.streams);
  }
  void begin(const sp::HostView&) override { ready_.clear(); }
  void on_ready(sm::OpIndex op) override { ready_.push_back(op); }
  std::optional<sp::Choice> choose(const sp::HostView& v) override {
    if (ready_.empty()) return std::nullopt;
    const auto i = static_cast<std::size_t>(rng_() % ready_.size());
    const sm::OpIndex op = ready_[i];
    ready_.erase(ready_.begin() + static_cast<std::ptrdiff_t>(i));
    const auto s = static_cast<std::uint32_t>(rng_() % v.stream_count());
    sp::Choice c{op, s, {}};
    c.reason.code = sp::ReasonCode::round_robin;
    c.reason.a = s;
    return c;
  }

 private:
  std::mt19937_64 rng_;
  bool static_;
  sp::PolicyConfig config_;
  std::vector<sm::OpIndex> ready_;
};

/// Random DAG: edge i -> j (i < j) with probability p; kernels of random length.
sm::Workload random_workload(std::uint32_t n, double p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  sm::Workload w;
  w.name = "random";
  for (std::uint32_t j = 0; j < n; ++j) {
    sm::Op op;
    op.id = op.name = w.intern("o" + std::to_string(j));
    sm::KernelShape shape;
    shape.block.x = 32;
    op.shape = shape;
    op.duration = sm::FixedPerBlock{static_cast<sm::Nanos>(1000 + rng() % 9000)};
    std::vector<sm::OpIndex> deps;
    for (std::uint32_t i = 0; i < j; ++i) {
      if (static_cast<double>(rng() % 10000) / 10000.0 < p) deps.push_back(i);  // o<i> is op i
    }
    w.add_resolved(op, deps);
  }
  sm::resolve_and_check(w, "<random>");
  return w;
}

using EdgeSet = std::set<std::pair<sm::OpIndex, sm::OpIndex>>;

/// The waits a minimal host must insert, computed independently of the Dispatcher.
///
/// Definitions. SO = stream order: for consecutive ops x, y issued to the same backend stream, x -> y.
/// D = the workload's dependency edges. A dependency u -> v is *implied* when the graph D ∪ SO has a
/// path from u to v other than the edge u -> v itself (through stream order, other deps, or both) — the
/// device then runs u before v without a wait for this edge. The minimal wait set is unique: it is
/// TR(D ∪ SO) \ SO (every edge of the transitive reduction must be realised directly; the edges that are
/// not stream order must be waits, and they suffice). Every such edge is a cross-stream edge of TR(D).
EdgeSet expected_waits(const sm::Workload& w, const sp::DispatchResult& r, EdgeSet* so_out, EdgeSet* tr_dag_cross) {
  const auto n = static_cast<std::uint32_t>(w.ops.size());
  std::vector<std::uint32_t> stream_of(n);
  EdgeSet so, all;
  std::map<std::uint32_t, sm::OpIndex> last;
  for (const auto& d : r.log) {
    stream_of[d.op] = d.stream.value();
    auto it = last.find(d.stream.value());
    if (it != last.end()) so.insert({it->second, d.op});
    last[d.stream.value()] = d.op;
  }
  EdgeSet dag;
  for (sm::OpIndex v = 0; v < n; ++v)
    for (sm::OpIndex u : w.deps(v)) dag.insert({u, v});
  all = so;
  all.insert(dag.begin(), dag.end());
  const std::vector<sm::Edge> all_edges(all.begin(), all.end());
  const auto tr = sm::transitive_reduction(sm::Dag(n, all_edges));
  EdgeSet want;
  for (const auto& e : tr)
    if (!so.count(e)) want.insert(e);
  if (tr_dag_cross) {
    const std::vector<sm::Edge> dag_edges(dag.begin(), dag.end());
    for (const auto& e : sm::transitive_reduction(sm::Dag(n, dag_edges)))
      if (stream_of[e.first] != stream_of[e.second]) tr_dag_cross->insert(e);
  }
  if (so_out) *so_out = so;
  return want;
}

EdgeSet inserted_waits(const sp::DispatchResult& r) {
  EdgeSet got;
  for (const auto& d : r.log)
    for (std::uint32_t k = 0; k < d.wait_count; ++k) got.insert({r.waits[d.first_wait + k].producer, d.op});
  return got;
}

bool contains(const std::vector<std::string>& v, const std::string& needle) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

}  // namespace

TEST(MinimalWaits, HandMadeImpliedCases) {
  // a on stream 1; b and c on stream 2 both need a: b waits, c is implied by stream order after b.
  // d on stream 3 needs a and c: the wait for c implies a (transitively through c's stream).
  const auto w = make_workload({{"a", {}, sm::OpKind::kernel, 1},
                                {"b", {"a"}, sm::OpKind::kernel, 2},
                                {"c", {"a"}, sm::OpKind::kernel, 2},
                                {"d", {"a", "c"}, sm::OpKind::kernel, 3}});
  sp::FakeBackend fake;
  auto p = sp::make_policy("round-robin", cfg(3));
  const auto r = sp::dispatch(fake, w, *p);
  const std::vector<std::string> want{
      "#0 op 'a' -> stream 1 (s0) | stream hint 1",
      "#1 op 'b' -> stream 2 (s1) | stream hint 2 | wait 'a'@1",
      "#2 op 'c' -> stream 2 (s1) | stream hint 2",
      "#3 op 'd' -> stream 3 (s2) | stream hint 3 | wait 'c'@2",
  };
  EXPECT_EQ(lines(sp::format_decision_log(w, r)), want);
  EXPECT_EQ(r.stats.waits_inserted, 2u);
  EXPECT_EQ(r.stats.waits_implied, 2u);  // c's dep on a, d's dep on a
  EXPECT_TRUE(fake.violations().empty());
}

TEST(MinimalWaits, PropertyRandomDagsAndAssignments) {
  int cases = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const std::uint32_t n = 10 + static_cast<std::uint32_t>(seed % 50);
    const double p = 0.02 + 0.3 * static_cast<double>(seed % 7) / 7.0;
    const auto w = seed % 3 == 0 ? sm::gen::random_dag({n, 1 + n / 6, 0.25, 4, 10'000, 200'000, seed})
                                 : random_workload(n, p, seed);
    const std::uint32_t streams = 1 + static_cast<std::uint32_t>(seed % 6);
    const bool static_plan = seed % 2 == 0;
    // on_block: no completion is observed while issuing; immediate: all are. Waits must not differ.
    for (auto mode : {sp::FakeCompletion::on_block, sp::FakeCompletion::immediate}) {
      sp::FakeBackend fake(fake_opts(mode));
      RandomPolicy pol(streams, seed * 7919, static_plan);
      sp::DispatchOptions o;
      o.check_deadlock = true;
      const auto r = sp::dispatch(fake, w, pol, o);
      ASSERT_EQ(r.log.size(), w.ops.size());
      EdgeSet so, tr_cross;
      const EdgeSet want = expected_waits(w, r, &so, &tr_cross);
      const EdgeSet got = inserted_waits(r);
      EXPECT_EQ(got, want) << "seed " << seed << " streams " << streams;
      for (const auto& e : want) EXPECT_TRUE(tr_cross.count(e)) << "a minimal wait is a cross-stream TR edge";
      EXPECT_EQ(r.stats.waits_inserted, got.size());
      EXPECT_TRUE(fake.violations().empty()) << fake.violations().front();
      EXPECT_EQ(fake.wait_count(), got.size());
      ++cases;
    }
  }
  EXPECT_EQ(cases, 240);
}

TEST(MinimalWaits, ElidedWhenCompletionAlreadyObserved) {
  // b on stream 2 needs a (stream 1); a completes immediately and the host observes it before b.
  const auto w = make_workload({{"a", {}, sm::OpKind::kernel, 1}, {"b", {"a"}, sm::OpKind::kernel, 2}});
  sp::FakeBackend fake(fake_opts(sp::FakeCompletion::immediate));
  sp::PolicyConfig c = cfg(2);
  c.poll = sp::PollMode::every_decision;
  auto p = sp::make_policy("round-robin", c);
  sp::DispatchOptions o;
  o.elide_completed_waits = true;
  const auto r = sp::dispatch(fake, w, *p, o);
  EXPECT_EQ(r.stats.waits_inserted, 0u);
  EXPECT_EQ(r.stats.waits_completed, 1u);
  EXPECT_TRUE(fake.violations().empty());
}

TEST(Deadlock, RefusedBeforeAnythingIsIssuedWithTheCycleListed) {
  // Hinted stream programs: stream 1 runs A then B, stream 2 runs C then D. A waits for D and C for B:
  // A -> B (stream) -> C (dep) -> D (stream) -> A (dep). The DAG alone is acyclic.
  const auto w = make_workload({{"A", {"D"}, sm::OpKind::kernel, 1},
                                {"B", {}, sm::OpKind::kernel, 1},
                                {"C", {"B"}, sm::OpKind::kernel, 2},
                                {"D", {}, sm::OpKind::kernel, 2}});
  for (auto name : sp::policy_names()) {
    sp::FakeBackend fake;
    auto p = sp::make_policy(name, cfg(2));
    sp::DispatchOptions o;
    o.source = "deadlock.json";
    try {
      (void)sp::dispatch(fake, w, *p, o);
      ADD_FAILURE() << name << ": deadlocking program was issued";
    } catch (const sm::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("deadlock"), std::string::npos) << what;
      for (const char* id : {"'A'", "'B'", "'C'", "'D'"}) EXPECT_NE(what.find(id), std::string::npos) << what;
      EXPECT_EQ(e.file(), "deadlock.json");
    }
    EXPECT_EQ(fake.enqueue_count(), 0u) << name;
    EXPECT_FALSE(contains(fake.call_log(), "enqueue")) << name;
    EXPECT_FALSE(contains(fake.call_log(), "prepare")) << name << ": refused before the backend is touched";
  }
}

TEST(Deadlock, HintedCycleThroughAnUnhintedOpIsSeen) {
  // A and B hinted to stream 1 in that order; B -> x -> A through an unhinted x.
  const auto w = make_workload({{"A", {"x"}, sm::OpKind::kernel, 1},
                                {"B", {}, sm::OpKind::kernel, 1},
                                {"x", {"B"}}});
  sp::FakeBackend fake;
  auto p = sp::make_policy("load-balanced", cfg(2));
  EXPECT_THROW((void)sp::dispatch(fake, w, *p), sm::InputError);
  EXPECT_EQ(fake.enqueue_count(), 0u);
}

TEST(Deadlock, HintedProgramsThatCannotDeadlockRunWhicheverWayTheirDepsPoint) {
  // Deps only on earlier ops (the check's shortcut: every edge goes forward) and a dep on a later op on
  // the other stream (the full check: no cycle, since B is first on its stream). Both run, each checked.
  const auto forward = make_workload({{"A", {}, sm::OpKind::kernel, 1},
                                      {"B", {}, sm::OpKind::kernel, 2},
                                      {"C", {"A", "B"}, sm::OpKind::kernel, 1}});
  const auto backward = make_workload({{"A", {"B"}, sm::OpKind::kernel, 1},
                                       {"B", {}, sm::OpKind::kernel, 2},
                                       {"C", {"A"}, sm::OpKind::kernel, 2}});
  for (const auto* w : {&forward, &backward}) {
    sp::FakeBackend fake;
    auto p = sp::make_policy("load-balanced", cfg(2));
    const auto r = sp::dispatch(fake, *w, *p);
    EXPECT_EQ(r.stats.deadlock_checks, 1u);
    EXPECT_EQ(fake.enqueue_count(), 3u);
    EXPECT_TRUE(fake.violations().empty());
  }
}

TEST(DecisionLog, IdenticalAcrossRunsAndRecordingModes) {
  const auto w = sm::gen::random_dag({300, 12, 0.2, 4, 10'000, 200'000, 42});
  for (auto name : sp::policy_names()) {
    std::string first;
    for (int rep = 0; rep < 3; ++rep) {
      sp::FakeOptions fo = fake_opts(sp::FakeCompletion::on_block);
      fo.record = rep != 2;  // the third run records nothing: decisions must not care
      sp::FakeBackend fake(fo);
      auto p = sp::make_policy(name, cfg(8, 2));
      const auto r = sp::dispatch(fake, w, *p);
      ASSERT_EQ(r.log.size(), w.ops.size()) << name;
      EXPECT_TRUE(fake.violations().empty()) << name;
      const std::string log = sp::format_decision_log(w, r);
      if (rep == 0) {
        first = log;
      } else {
        EXPECT_EQ(log, first) << name;
      }
    }
  }
}

TEST(Dispatcher, WindowBoundsOpsInFlight) {
  sp::FakeBackend fake(fake_opts(sp::FakeCompletion::on_block));
  auto p = sp::make_policy("round-robin", cfg(2, 1));
  const auto r = sp::dispatch(fake, independent(6), *p);
  EXPECT_EQ(r.stats.max_in_flight, 2u);
  EXPECT_GE(r.stats.blocking_waits, 4u);
  EXPECT_EQ(r.log.size(), 6u);
  EXPECT_TRUE(fake.violations().empty());
}

TEST(Dispatcher, BarrierJoinsAcrossStreams) {
  const auto w = make_workload({{"a0"}, {"a1"}, {"a2"}, {"a3"},
                                {"j", {"a0", "a1", "a2", "a3"}, sm::OpKind::barrier},
                                {"b0", {"j"}}, {"b1", {"j"}}, {"b2", {"j"}}, {"b3", {"j"}}});
  sp::FakeBackend fake;
  auto p = sp::make_policy("round-robin", cfg(4));
  const auto r = sp::dispatch(fake, w, *p);
  const auto log = lines(sp::format_decision_log(w, r));
  EXPECT_EQ(log[4], "#4 op 'j' -> stream 1 (s0) | round-robin: next stream 0 | wait 'a3'@4, 'a2'@3, 'a1'@2");
  EXPECT_EQ(log[5], "#5 op 'b0' -> stream 2 (s1) | round-robin: next stream 1 | wait 'j'@1");
  EXPECT_EQ(log[8], "#8 op 'b3' -> stream 1 (s0) | round-robin: next stream 0");
  EXPECT_EQ(r.stats.waits_inserted, 6u);  // 3 into the barrier + 3 out of it, instead of 4 x 3 = 12
  EXPECT_TRUE(contains(fake.call_log(), "enqueue s1 op 'j'"));
  EXPECT_TRUE(fake.violations().empty());
}

TEST(Dispatcher, CompletionCallbacksOncePerOp) {
  const auto w = sm::gen::fork_join({4, 3, 50'000, 1, 16, 128});
  std::vector<int> seen(w.ops.size(), 0);
  sp::DispatchOptions o;
  o.on_complete = [&](sm::OpIndex op) { ++seen.at(op); };
  for (auto mode : {sp::FakeCompletion::immediate, sp::FakeCompletion::on_block}) {
    std::fill(seen.begin(), seen.end(), 0);
    sp::FakeBackend fake(fake_opts(mode));
    auto p = sp::make_policy("work-stealing", cfg(3));
    (void)sp::dispatch(fake, w, *p, o);
    for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << w.ops[i].id;
  }
}

TEST(Dispatcher, TimeoutNamesTheOp) {
  sp::FakeOptions fo = fake_opts(sp::FakeCompletion::scripted);  // empty script: nothing ever completes
  sp::FakeBackend fake(fo);
  auto p = sp::make_policy("round-robin", cfg(1, 1));
  sp::DispatchOptions o;
  o.source = "t.json";
  try {
    (void)sp::dispatch(fake, independent(2), *p, o);
    FAIL() << "no timeout";
  } catch (const sp::DispatchTimeout& e) {
    EXPECT_EQ(e.op_id(), "k0");
    EXPECT_NE(std::string(e.what()).find("'k0'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("t.json"), std::string::npos) << e.what();
  }
}

TEST(StreamKinds, LegacyCollapsesEverythingOntoTheNullStream) {
  sp::PolicyConfig c = cfg(3);
  c.stream_kind = sp::StreamKind::legacy_default;
  const auto w = make_workload({{"a"}, {"b", {"a"}}, {"c", {"b"}}});
  sp::FakeBackend fake;
  auto p = sp::make_policy("round-robin", c);
  const auto r = sp::dispatch(fake, w, *p);
  EXPECT_FALSE(contains(fake.call_log(), "create_stream"));
  for (const auto& d : r.log) EXPECT_EQ(d.stream.value(), 0u);
  EXPECT_EQ(r.stats.waits_inserted, 0u);  // one stream: order is stream order
  EXPECT_EQ(r.log[1].logical_stream, 1u);  // the policy still thinks in its own streams
}

TEST(StreamKinds, PerThreadIsOneRequestedStream) {
  sp::PolicyConfig c = cfg(4);
  c.stream_kind = sp::StreamKind::per_thread_default;
  sp::FakeBackend fake;
  auto p = sp::make_policy("round-robin", c);
  const auto r = sp::dispatch(fake, independent(4), *p);
  int creates = 0;
  for (const auto& l : fake.call_log()) creates += l.rfind("create_stream", 0) == 0;
  EXPECT_EQ(creates, 1);
  EXPECT_TRUE(contains(fake.call_log(), "kind=per-thread"));
  for (const auto& d : r.log) EXPECT_EQ(d.stream.value(), 1u);
}

TEST(StreamKinds, BlockingKindAndHintZeroOnTheLegacyStream) {
  sp::PolicyConfig c = cfg(2);
  c.stream_kind = sp::StreamKind::blocking;
  const auto w = make_workload({{"a", {}, sm::OpKind::kernel, 0}, {"b", {"a"}, sm::OpKind::kernel, 1}, {"c", {"b"}}});
  sp::FakeBackend fake;
  auto p = sp::make_policy("round-robin", c);
  const auto r = sp::dispatch(fake, w, *p);
  const std::vector<std::string> want{
      "#0 op 'a' -> stream 0 (legacy lane) | stream hint 0 -> legacy NULL stream",
      "#1 op 'b' -> stream 1 (s0) | stream hint 1 | wait 'a'@0",
      "#2 op 'c' -> stream 1 (s0) | round-robin: next stream 0",
  };
  EXPECT_EQ(lines(sp::format_decision_log(w, r)), want);
  EXPECT_TRUE(contains(fake.call_log(), "create_stream s1 prio=0 kind=blocking"));
  EXPECT_TRUE(contains(fake.call_log(), "legacy_default_stream"));
}

TEST(StreamHints, IgnoredWhenAsked) {
  sp::PolicyConfig c = cfg(2);
  c.hints = sp::HintMode::ignore;
  const auto w = make_workload({{"a", {}, sm::OpKind::kernel, 2}, {"b", {}, sm::OpKind::kernel, 2}});
  sp::FakeBackend fake;
  auto p = sp::make_policy("round-robin", c);
  const auto r = sp::dispatch(fake, w, *p);
  EXPECT_EQ(r.log[0].stream.value(), 1u);
  EXPECT_EQ(r.log[1].stream.value(), 2u);
  EXPECT_EQ(r.log[1].reason.code, sp::ReasonCode::round_robin);
}

TEST(Events, PooledAndReusedOnceObservedComplete) {
  sm::gen::StreamChains sc;
  sc.chains = 1;
  sc.length = 50;
  const auto w = sm::gen::stream_chains(sc);
  {
    sp::FakeBackend fake(fake_opts(sp::FakeCompletion::immediate));
    auto p = sp::make_policy("round-robin", cfg(1));
    const auto r = sp::dispatch(fake, w, *p);
    EXPECT_EQ(r.stats.events_created, 1u);
    EXPECT_EQ(r.stats.events_reused, 49u);
  }
  {
    // Nothing observed complete while issuing, and still no query: an op's event goes back to the pool
    // once its dependents are issued and a newer op of its stream records one, so a chain re-records one.
    sp::FakeBackend fake(fake_opts(sp::FakeCompletion::on_block));
    auto p = sp::make_policy("round-robin", cfg(1));
    const auto r = sp::dispatch(fake, w, *p);
    EXPECT_EQ(r.stats.events_created, 1u);
    EXPECT_EQ(r.stats.events_reused, 49u);
    EXPECT_EQ(r.stats.queries, 0u);
    EXPECT_EQ(fake.events_created(), 1u);
    int destroyed = 0;
    for (const auto& l : fake.call_log()) destroyed += l.rfind("destroy_event", 0) == 0;
    EXPECT_EQ(destroyed, 1);
  }
  {
    // A producer whose consumer on another stream is not issued yet keeps its event: the wait needs it.
    sm::gen::StreamChains two;
    two.chains = 2;
    two.length = 3;
    auto w2 = sm::gen::stream_chains(two);
    // chain 1's last op also depends on chain 0's first op (a cross-stream edge issued late)
    const auto last = static_cast<sm::OpIndex>(w2.ops.size() - 1);
    std::vector<sm::OpIndex> deps(w2.deps(last).begin(), w2.deps(last).end());
    deps.push_back(0);
    w2.set_deps(last, deps);
    sm::resolve_and_check(w2, "<test>");
    sp::FakeBackend fake(fake_opts(sp::FakeCompletion::on_block));
    auto p = sp::make_policy("round-robin", cfg(2));
    const auto r = sp::dispatch(fake, w2, *p);
    ASSERT_EQ(r.stats.waits_inserted, 1u);
    // The waited event is the one recorded right after chain 0's first op, and it was not re-recorded
    // before the wait was issued.
    const auto& wait = r.waits.front();
    EXPECT_EQ(w2.ops[wait.producer].id, w2.ops.front().id);
    const auto& calls = fake.call_log();
    const std::string ev = " e" + std::to_string(wait.event.value());
    std::size_t producer_at = calls.size(), wait_at = calls.size();
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].find("op '" + w2.ops.front().id + "'") != std::string::npos) producer_at = i;
      if (calls[i].rfind("wait", 0) == 0) wait_at = i;
    }
    ASSERT_LT(wait_at, calls.size());
    std::size_t record_at = producer_at + 1;
    while (record_at < calls.size() && calls[record_at].rfind("record", 0) != 0) ++record_at;
    ASSERT_LT(record_at, wait_at);
    EXPECT_NE(calls[record_at].find(ev + " "), std::string::npos) << calls[record_at] << " vs" << ev;
    for (std::size_t i = record_at + 1; i < wait_at; ++i)
      EXPECT_FALSE(calls[i].rfind("record", 0) == 0 && calls[i].find(ev + " ") != std::string::npos) << calls[i];
    EXPECT_TRUE(fake.violations().empty());
  }
}

TEST(Dispatcher, TraceMetadataAndCoordinationTime) {
  const auto w = sm::gen::fork_join({4, 2, 50'000, 1, 16, 128});
  sp::FakeBackend fake;
  auto p = sp::make_policy("load-balanced", cfg(4));
  const auto r = sp::dispatch(fake, w, *p);
  EXPECT_EQ(r.trace.meta.backend, "fake");
  EXPECT_EQ(r.trace.meta.policy, "load-balanced");
  EXPECT_EQ(r.trace.meta.workload, w.name);
  EXPECT_EQ(r.trace.meta.workload_hash, w.hash());
  EXPECT_EQ(r.trace.meta.extra.at("policy_config").rfind("streams=4", 0), 0u);
  EXPECT_EQ(r.trace.spans.size(), w.ops.size());
  // The fake's clock ticks once per call: every op costs at least enqueue + record.
  for (const auto& d : r.log) EXPECT_GE(d.host_ns, 2 + static_cast<sm::Nanos>(d.wait_count)) << d.op;
  EXPECT_GT(r.stats.average_coordination_ns(), 2.0);
  // Spans land on the stream the decision named.
  for (const auto& s : r.trace.spans) EXPECT_EQ(s.stream, fake.stream_of(s.op).value());
}

TEST(Dispatcher, EmptyWorkloadIssuesNothing) {
  sm::Workload w;
  w.name = "empty";
  for (auto name : sp::policy_names()) {
    sp::FakeBackend fake;
    auto p = sp::make_policy(name, cfg(3));
    const auto r = sp::dispatch(fake, w, *p);
    EXPECT_TRUE(r.log.empty()) << name;
    EXPECT_EQ(fake.enqueue_count(), 0u) << name;
  }
}

TEST(Dispatcher, HintedOpsUnderAWindowWithADynamicPolicy) {
  // Two chains hinted to streams 1 and 2 (kept in workload order), window 1, completions only when the
  // host blocks: every op after the first of its chain waits for room, and no wait is needed (each chain
  // lives on one stream).
  sm::gen::StreamChains sc;
  sc.chains = 2;
  sc.length = 5;
  const auto w = sm::gen::stream_chains(sc);
  sp::FakeBackend fake(fake_opts(sp::FakeCompletion::on_block));
  auto p = sp::make_policy("load-balanced", cfg(2, 1));
  const auto r = sp::dispatch(fake, w, *p);
  ASSERT_EQ(r.log.size(), 10u);
  EXPECT_EQ(r.stats.max_in_flight, 2u);
  EXPECT_EQ(r.stats.waits_inserted, 0u);
  for (const auto& d : r.log) EXPECT_EQ(d.reason.code, sp::ReasonCode::stream_hint);
  EXPECT_TRUE(fake.violations().empty());
}
