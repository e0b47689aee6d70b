// The five policies on hand-made situations: which stream each op goes to, and why (through the
// Dispatcher and the FakeBackend, reading the decision log).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

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

struct Run {
  sp::DispatchResult result;
  std::vector<std::string> log;
  std::vector<std::string> calls;
  std::vector<std::string> violations;
};

Run run(const sm::Workload& w, std::string_view policy, sp::PolicyConfig cfg, sp::FakeOptions fo = {}) {
  sp::FakeBackend fake(fo);
  auto p = sp::make_policy(policy, cfg);
  Run r;
  r.result = sp::dispatch(fake, w, *p);
  r.log = lines(sp::format_decision_log(w, r.result));
  r.calls = fake.call_log();
  r.violations = fake.violations();
  return r;
}

bool has_line(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& l : v)
    if (l == s) return true;
  return false;
}

sp::FakeOptions fake(sp::FakeCompletion mode) {
  sp::FakeOptions fo;
  fo.completion = mode;
  return fo;
}

sp::PolicyConfig streams(std::uint32_t n, std::uint32_t window = 0) {
  sp::PolicyConfig c;
  c.streams = n;
  c.window = window;
  return c;
}

}  // namespace

TEST(PolicyRegistry, NamesAndFactories) {
  const auto names = sp::policy_names();
  ASSERT_EQ(names.size(), 5u);
  for (auto n : names) EXPECT_EQ(sp::make_policy(n, {})->name(), n);
  try {
    (void)sp::make_policy("fastest", {});
    FAIL() << "unknown policy accepted";
  } catch (const sm::InputError& e) {
    EXPECT_EQ(e.place(), "--policy");
    EXPECT_NE(e.reason().find("work-stealing"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)sp::make_policy("round-robin", streams(0)), sm::InputError);
}

TEST(PolicyRegistry, ConfigParsers) {
  const auto m = sp::parse_priority_map("critical=-5, low=0,normal=-2");
  EXPECT_EQ(m.level[0], -5);
  EXPECT_FALSE(m.level[1].has_value());
  EXPECT_EQ(m.level[2], -2);
  EXPECT_EQ(m.level[3], 0);
  EXPECT_EQ(sp::to_string(m), "critical=-5,normal=-2,low=0");
  EXPECT_THROW((void)sp::parse_priority_map("urgent=-5"), sm::InputError);
  EXPECT_THROW((void)sp::parse_priority_map("high=-5,high=-4"), sm::InputError);
  EXPECT_THROW((void)sp::parse_priority_map("high=x"), sm::InputError);
  EXPECT_THROW((void)sp::parse_priority_map("high"), sm::InputError);
  EXPECT_EQ(sp::parse_stream_kind("legacy"), sp::StreamKind::legacy_default);
  EXPECT_EQ(sp::parse_stream_kind("per-thread"), sp::StreamKind::per_thread_default);
  EXPECT_FALSE(sp::parse_stream_kind("default").has_value());
  EXPECT_EQ(sp::parse_poll_mode("when-blocked"), sp::PollMode::when_blocked);
  EXPECT_EQ(sp::parse_hint_mode("ignore"), sp::HintMode::ignore);
  // Spread over H100's {0, -5}: critical highest, cleanup least.
  const auto spread = sp::resolve_priorities({}, {0, -5});
  EXPECT_EQ(spread, (std::array<int, 5>{-5, -4, -3, -1, 0}));
  EXPECT_EQ(sp::resolve_priorities(m, {0, -5}), (std::array<int, 5>{-5, -4, -2, 0, 0}));
  // A device without priorities: everything on 0.
  EXPECT_EQ(sp::resolve_priorities({}, {0, 0}), (std::array<int, 5>{0, 0, 0, 0, 0}));
}

TEST(RoundRobin, StreamsInTurn) {
  const auto r = run(independent(5), "round-robin", streams(3));
  const std::vector<std::string> want{
      "#0 op 'k0' -> stream 1 (s0) | round-robin: next stream 0",
      "#1 op 'k1' -> stream 2 (s1) | round-robin: next stream 1",
      "#2 op 'k2' -> stream 3 (s2) | round-robin: next stream 2",
      "#3 op 'k3' -> stream 1 (s0) | round-robin: next stream 0",
      "#4 op 'k4' -> stream 2 (s1) | round-robin: next stream 1",
  };
  EXPECT_EQ(r.log, want);
  EXPECT_TRUE(r.violations.empty());
}

TEST(LoadBalanced, LeastOutstandingEstimatedWork) {
  // Nothing completes until the host blocks, so outstanding work only grows: a (100 us) keeps stream 0
  // busy, and d goes to the lighter of the two 10 us streams (the lower one on a tie).
  const auto w = make_workload({{"a", {}, sm::OpKind::kernel, {}, {}, {}, 100'000},
                                {"b"},
                                {"c"},
                                {"d"}});
  const auto r = run(w, "load-balanced", streams(3), fake(sp::FakeCompletion::on_block));
  const std::vector<std::string> want{
      "#0 op 'a' -> stream 1 (s0) | least outstanding work: 0 ns (0 ops)",
      "#1 op 'b' -> stream 2 (s1) | least outstanding work: 0 ns (0 ops)",
      "#2 op 'c' -> stream 3 (s2) | least outstanding work: 0 ns (0 ops)",
      "#3 op 'd' -> stream 2 (s1) | least outstanding work: 10 us (1 ops)",
  };
  EXPECT_EQ(r.log, want);
}

TEST(LoadBalanced, ObservedCompletionsFreeAStream) {
  // The fake completes every op at once and the policy polls before each decision: stream 0 is always
  // observed idle, so everything goes there.
  const auto r = run(independent(4), "load-balanced", streams(3), fake(sp::FakeCompletion::immediate));
  for (const auto& l : r.log) EXPECT_NE(l.find("-> stream 1 (s0) | least outstanding work: 0 ns (0 ops)"), std::string::npos) << l;
  EXPECT_GT(r.result.stats.queries, 0u);
}

TEST(PriorityPolicy, CriticalFirstOntoPriorityStreams) {
  const auto w = make_workload({{"lo", {}, sm::OpKind::kernel, {}, sm::Priority::low},
                                {"cr", {}, sm::OpKind::kernel, {}, sm::Priority::critical},
                                {"no", {}, sm::OpKind::kernel, {}, sm::Priority::normal},
                                {"hi", {}, sm::OpKind::kernel, {}, sm::Priority::high},
                                {"cl", {}, sm::OpKind::kernel, {}, sm::Priority::cleanup}});
  const auto r = run(w, "priority", streams(5));
  const std::vector<std::string> want{
      "#0 op 'cr' -> stream 1 (s0) | priority critical -> stream priority -5",
      "#1 op 'hi' -> stream 2 (s1) | priority high -> stream priority -4",
      "#2 op 'no' -> stream 3 (s2) | priority normal -> stream priority -3",
      "#3 op 'lo' -> stream 4 (s3) | priority low -> stream priority -1",
      "#4 op 'cl' -> stream 5 (s4) | priority cleanup -> stream priority 0",
  };
  EXPECT_EQ(r.log, want);
  EXPECT_TRUE(has_line(r.calls, "create_stream s1 prio=-5 kind=non-blocking label='prio -5 #0'"));
  EXPECT_TRUE(has_line(r.calls, "create_stream s5 prio=0 kind=non-blocking label='prio 0 #4'"));
}

TEST(PriorityPolicy, FewerStreamsThanClassesUseTheNearestLevel) {
  // Two streams take levels -5 and -3; high (-4) is equally near both and goes to the higher one.
  const auto w = make_workload({{"hi", {}, sm::OpKind::kernel, {}, sm::Priority::high},
                                {"cl", {}, sm::OpKind::kernel, {}, sm::Priority::cleanup},
                                {"cr", {}, sm::OpKind::kernel, {}, sm::Priority::critical}});
  const auto r = run(w, "priority", streams(2));
  const std::vector<std::string> want{
      "#0 op 'cr' -> stream 1 (s0) | priority critical -> stream priority -5",
      "#1 op 'hi' -> stream 1 (s0) | priority high -> stream priority -5",
      "#2 op 'cl' -> stream 2 (s1) | priority cleanup -> stream priority -3",
  };
  EXPECT_EQ(r.log, want);
}

TEST(PriorityPolicy, ExplicitMap) {
  sp::PolicyConfig c = streams(2);
  c.priority_map = sp::parse_priority_map("critical=-2,high=-2,normal=0,low=0,cleanup=0");
  const auto w = make_workload({{"n", {}, sm::OpKind::kernel, {}, sm::Priority::normal},
                                {"h", {}, sm::OpKind::kernel, {}, sm::Priority::high}});
  const auto r = run(w, "priority", c);
  const std::vector<std::string> want{
      "#0 op 'h' -> stream 1 (s0) | priority high -> stream priority -2",
      "#1 op 'n' -> stream 2 (s1) | priority normal -> stream priority 0",
  };
  EXPECT_EQ(r.log, want);
}

TEST(WorkloadAware, CopiesByDirectionComputeAndCoordinationByClass) {
  const auto w = make_workload({{"up", {}, sm::OpKind::h2d},
                                {"k", {"up"}},
                                {"m", {}, sm::OpKind::kernel, {}, {}, sm::WorkloadType::memory},
                                {"x", {}, sm::OpKind::kernel, {}, {}, sm::WorkloadType::mixed},
                                {"dn", {"k"}, sm::OpKind::d2h},
                                {"sync", {}, sm::OpKind::host_func, {}, {}, sm::WorkloadType::coordination}});
  const auto r = run(w, "workload-aware", streams(4));  // raised to the 7 classes
  const std::vector<std::string> want{
      "#0 op 'up' -> stream 1 (s0) | class copy-h2d stream 1/1",
      "#1 op 'm' -> stream 6 (s5) | class memory stream 1/1",
      "#2 op 'x' -> stream 7 (s6) | class mixed stream 1/1",
      "#3 op 'sync' -> stream 4 (s3) | class coordination stream 1/1",
      "#4 op 'k' -> stream 5 (s4) | class compute stream 1/1 | wait 'up'@1",
      "#5 op 'dn' -> stream 2 (s1) | class copy-d2h stream 1/1 | wait 'k'@5",
  };
  EXPECT_EQ(r.log, want);
  // Coordination yields: least priority; the work classes sit one step above.
  EXPECT_TRUE(has_line(r.calls, "create_stream s4 prio=0 kind=non-blocking label='coordination'"));
  EXPECT_TRUE(has_line(r.calls, "create_stream s5 prio=-1 kind=non-blocking label='compute'"));
  EXPECT_TRUE(r.violations.empty());
}

TEST(WorkloadAware, ComputeClassRoundRobinsOverItsStreams) {
  // 12 streams: 4 fixed + 8 others = memory 2, mixed 2, compute 4.
  const auto r = run(independent(5), "workload-aware", streams(12));
  EXPECT_EQ(r.log[0], "#0 op 'k0' -> stream 5 (s4) | class compute stream 1/4");
  EXPECT_EQ(r.log[3], "#3 op 'k3' -> stream 8 (s7) | class compute stream 4/4");
  EXPECT_EQ(r.log[4], "#4 op 'k4' -> stream 5 (s4) | class compute stream 1/4");
  EXPECT_EQ(r.result.streams.size(), 12u);
}

TEST(WorkStealing, DrainedStreamStealsFromTheTailOfTheMostLoadedQueue) {
  // Static split: k0..k2 home on stream 0, k3..k5 on stream 1; window 1. The device finishes stream 1's
  // work first (scripted), so stream 1 runs out of its own work and steals k2 from the tail of stream 0.
  sp::FakeOptions fo;
  fo.completion = sp::FakeCompletion::scripted;
  fo.script = {3, 4, 5, 0};
  const auto r = run(independent(6), "work-stealing", streams(2, 1), fo);
  const std::vector<std::string> want{
      "#0 op 'k0' -> stream 1 (s0) | own queue (2 left)",
      "#1 op 'k3' -> stream 2 (s1) | own queue (2 left)",
      "#2 op 'k4' -> stream 2 (s1) | own queue (1 left)",
      "#3 op 'k5' -> stream 2 (s1) | own queue (0 left)",
      "#4 op 'k2' -> stream 2 (s1) | stolen from tail of stream 0 queue (1 left)",
      "#5 op 'k1' -> stream 1 (s0) | own queue (0 left)",
  };
  EXPECT_EQ(r.log, want);
  EXPECT_EQ(r.result.stats.max_in_flight, 2u);  // the window held
  EXPECT_TRUE(r.violations.empty());
}

TEST(WorkStealing, DefaultWindowIsBounded) {
  auto p = sp::make_policy("work-stealing", streams(4));
  EXPECT_EQ(p->window(), 2u);
  EXPECT_FALSE(p->is_static());
  EXPECT_TRUE(sp::make_policy("round-robin", streams(4))->is_static());
  EXPECT_TRUE(sp::make_policy("priority", streams(4))->is_static());
  EXPECT_TRUE(sp::make_policy("workload-aware", streams(4))->is_static());
  EXPECT_FALSE(sp::make_policy("load-balanced", streams(4))->is_static());
}

TEST(Reasons, DescribeIsShortAndHuman) {
  sp::Reason r;
  r.code = sp::ReasonCode::least_outstanding;
  r.value = 12'345;
  r.a = 3;
  EXPECT_EQ(sp::describe(r), "least outstanding work: 12.35 us (3 ops)");
  r.value = 2'500'000;
  EXPECT_EQ(sp::describe(r), "least outstanding work: 2.5 ms (3 ops)");
  r = {};
  r.code = sp::ReasonCode::legacy_hint;
  EXPECT_EQ(sp::describe(r), "stream hint 0 -> legacy NULL stream");
}

namespace {

/// Passes every call to a real policy and checks its upcoming() hints against the choices it then makes:
/// the op it names k choices ahead is the op chosen k choices later (ready ops only join at the back, so
/// nothing can overtake a named one). Counts the hints given, so a policy that gives none is seen.
class UpcomingChecker final : public sp::Policy {
 public:
  explicit UpcomingChecker(std::unique_ptr<sp::Policy> p) : p_(std::move(p)) {}
  [[nodiscard]] std::string_view name() const noexcept override { return p_->name(); }
  [[nodiscard]] const sp::PolicyConfig& config() const noexcept override { return p_->config(); }
  [[nodiscard]] bool is_static() const noexcept override { return p_->is_static(); }
  [[nodiscard]] bool uses_feedback() const noexcept override { return p_->uses_feedback(); }
  [[nodiscard]] std::uint32_t window() const noexcept override { return p_->window(); }
  std::vector<sp::StreamSlot> layout(std::pair<int, int> range) override { return p_->layout(range); }
  void begin(const sp::HostView& v) override {
    p_->begin(v);
    predicted_.clear();
    made_ = 0;
  }
  void on_ready(sm::OpIndex op) override { p_->on_ready(op); }
  std::optional<sp::Choice> choose(const sp::HostView& v) override {
    for (std::size_t k = 0; k < 4; ++k) {
      const sm::OpIndex next = p_->upcoming(k);
      if (next == sp::Policy::kNoUpcoming) break;
      predicted_.emplace_back(made_ + k, next);
      ++hints;
    }
    auto c = p_->choose(v);
    if (c) {
      for (const auto& [at, op] : predicted_)
        if (at == made_ && op != c->op) ++wrong;
      ++made_;
    }
    return c;
  }
  void on_issued(sm::OpIndex op, std::uint32_t s) override { p_->on_issued(op, s); }
  void on_completed(sm::OpIndex op, std::uint32_t s) override { p_->on_completed(op, s); }

  std::size_t hints = 0, wrong = 0;

 private:
  std::unique_ptr<sp::Policy> p_;
  std::vector<std::pair<std::size_t, sm::OpIndex>> predicted_;
  std::size_t made_ = 0;
};

}  // namespace

TEST(Upcoming, FifoPoliciesNameTheOpsTheyChooseNext) {
  const auto w = sm::gen::random_dag({2000, 10, 0.2, 4, 10'000, 200'000, 11});
  for (const char* name : {"load-balanced", "round-robin"}) {
    for (const std::uint32_t window : {0u, 2u}) {
      SCOPED_TRACE(std::string(name) + " window " + std::to_string(window));
      UpcomingChecker checker(sp::make_policy(name, streams(4, window)));
      sp::FakeBackend backend(fake(sp::FakeCompletion::on_block));
      const auto plain = run(w, name, streams(4, window), fake(sp::FakeCompletion::on_block));
      const sp::DispatchResult r = sp::dispatch(backend, w, checker);
      EXPECT_GT(checker.hints, w.size());  // named ahead, most of the time several ops
      EXPECT_EQ(checker.wrong, 0u);
      // Hints change nothing: the same decisions as the policy alone.
      EXPECT_EQ(lines(sp::format_decision_log(w, r)), plain.log);
    }
  }
}
