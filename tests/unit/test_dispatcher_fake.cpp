// The FakeBackend as an oracle (it must catch a missing wait), its call log, and "same completion order
// -> same decision log" between two ways of driving it.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "streamlab/model/generators.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/fake_backend.hpp"
#include "streamlab/policies/registry.hpp"
#include "test_policy_helpers.hpp"

namespace sp = streamlab::policies;
namespace sm = streamlab::model;
using streamlab::testing::make_workload;

namespace {
sp::FakeOptions scripted(std::vector<sm::OpIndex> script) {
  sp::FakeOptions fo;
  fo.completion = sp::FakeCompletion::scripted;
  fo.script = std::move(script);
  return fo;
}
}  // namespace

TEST(FakeBackend, ReportsADependencyTheProgramDidNotEnforce) {
  // b (stream 2) depends on a (stream 1) but nobody inserted a wait: let b finish first.
  const auto w = make_workload({{"a"}, {"b", {"a"}}});
  sp::FakeBackend fake(scripted({1, 0}));
  fake.prepare(w);
  const auto s1 = fake.create_stream({});
  const auto s2 = fake.create_stream({});
  fake.enqueue(s1, 0);
  fake.enqueue(s2, 1);
  EXPECT_EQ(fake.synchronize_device(1000), sp::WaitStatus::ready);
  ASSERT_EQ(fake.violations().size(), 1u);
  EXPECT_EQ(fake.violations()[0], "op 'b' completed before its dep 'a'");
  EXPECT_EQ(fake.completion_order(), (std::vector<sm::OpIndex>{1, 0}));
}

TEST(FakeBackend, AWaitHoldsTheStream) {
  const auto w = make_workload({{"a"}, {"b", {"a"}}});
  sp::FakeBackend fake(scripted({1, 0}));
  fake.prepare(w);
  const auto s1 = fake.create_stream({});
  const auto s2 = fake.create_stream({});
  const auto e = fake.create_event(sp::EventTiming::untimed);
  fake.enqueue(s1, 0);
  fake.record_event(e, s1);
  fake.stream_wait_event(s2, e);
  fake.enqueue(s2, 1);
  EXPECT_FALSE(fake.query_event(e));
  // The script asks for b first, which the wait forbids.
  EXPECT_THROW((void)fake.synchronize_stream(s2, 1000), std::logic_error);
}

TEST(FakeBackend, CallLogAndEventSemantics) {
  const auto w = make_workload({{"a"}, {"b"}});
  sp::FakeOptions fo;
  fo.completion = sp::FakeCompletion::on_block;
  sp::FakeBackend fake(fo);
  fake.prepare(w);
  const auto s = fake.create_stream({-2, sp::StreamKind::blocking, "x"});
  const auto e = fake.create_event(sp::EventTiming::timed);
  EXPECT_TRUE(fake.query_event(e));  // never recorded: complete, as in CUDA
  fake.enqueue(s, 0);
  fake.record_event(e, s);
  fake.enqueue(s, 1);
  EXPECT_FALSE(fake.query_event(e));
  const std::vector<sp::EventId> evs{e};
  EXPECT_EQ(fake.wait_any_event(evs, 10), std::optional<std::size_t>{0});
  EXPECT_TRUE(fake.query_event(e));
  EXPECT_FALSE(fake.query_stream(s));  // b still pending: only a had to run
  const std::vector<std::string> want{
      "prepare 'test' 2 ops",
      "create_stream s1 prio=-2 kind=blocking label='x'",
      "create_event e0 timed",
      "query e0 -> done",
      "enqueue s1 op 'a'",
      "record e0 s1",
      "enqueue s1 op 'b'",
      "query e0 -> busy",
      "wait_any [e0] -> e0",
      "query e0 -> done",
      "query s1 -> busy",
  };
  EXPECT_EQ(fake.call_log(), want);
  EXPECT_THROW(fake.enqueue(s, 0), std::logic_error);  // twice
  EXPECT_THROW(fake.enqueue(sp::StreamId{9}, 1), std::logic_error);
  const auto t = fake.finish();
  EXPECT_EQ(t.spans.size(), 2u);
  EXPECT_LE(t.spans[0].end_ns, t.spans[1].start_ns);
}

TEST(DecisionLog, SameCompletionOrderSameLogAcrossFakeModes) {
  // Run 1 lets the fake pick (on_block: oldest runnable first); run 2 replays that completion order as a
  // script. Dynamic policies with windows read every completion, so the logs can only match if the
  // Dispatcher's decisions depend on the observed completion order and nothing else.
  const auto w = sm::gen::random_dag({120, 8, 0.2, 3, 10'000, 200'000, 7});
  for (auto name : sp::policy_names()) {
    sp::PolicyConfig cfg;
    cfg.streams = 5;
    cfg.window = 2;
    sp::FakeOptions fo;
    fo.completion = sp::FakeCompletion::on_block;
    sp::FakeBackend first(fo);
    auto p1 = sp::make_policy(name, cfg);
    const auto r1 = sp::dispatch(first, w, *p1);
    sp::FakeBackend second(scripted(first.completion_order()));
    auto p2 = sp::make_policy(name, cfg);
    const auto r2 = sp::dispatch(second, w, *p2);
    EXPECT_EQ(sp::format_decision_log(w, r1), sp::format_decision_log(w, r2)) << name;
    EXPECT_EQ(first.completion_order(), second.completion_order()) << name;
    EXPECT_TRUE(second.violations().empty()) << name;
  }
}
