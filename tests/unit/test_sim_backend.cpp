// SimBackend's contract beyond the golden scenarios: profile validation names the field, handle and
// call-order errors, events (timing, wait_any, timeouts), several simulators in one process, copy-engine
// counts, the sim command path refusing a deadlocking stream program.
#include <fstream>
#include <limits>
#include <memory>
#include <algorithm>
#include <array>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../golden/test_profile.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/generators.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/event_queue.hpp"
#include "streamlab/sim/explain.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace streamlab {
namespace {

using model::Nanos;
using policies::EventTiming;
using policies::StreamDesc;
using policies::WaitStatus;

constexpr Nanos kForever = std::numeric_limits<Nanos>::max();

model::Op kernel(model::Text id, std::uint32_t blocks, std::uint32_t threads, Nanos ns) {
  model::Op op;
  op.id = id;
  op.name = id;
  op.shape = model::KernelShape{{blocks, 1, 1}, {threads, 1, 1}, 32, 0};
  op.duration = model::FixedPerBlock{ns};
  return op;
}
model::Op copy(model::Text id, model::OpKind kind, std::uint64_t bytes) {
  model::Op op;
  op.id = id;
  op.name = id;
  op.kind = kind;
  op.bytes = bytes;
  return op;
}
model::Workload workload(std::vector<model::Op> ops) {
  model::Workload w;
  w.name = "unit";
  w.ops = std::move(ops);
  model::resolve_and_check(w, "unit");
  return w;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SimEventQueue, PopsByTimeThenPushOrder) {
  sim::EventQueue q;
  q.push(30, 1, 0, 0);
  q.push(10, 2, 1, 0);
  q.push(30, 3, 2, 0);
  q.push(10, 4, 3, 0);
  q.push(20, 5, 4, 0);
  std::vector<std::uint32_t> order;
  while (!q.empty()) {
    const sim::SimEvent e = q.pop();
    order.push_back(e.a);
    if (e.a == 1) {
      EXPECT_EQ(e.kind(), 2);
    }
  }
  EXPECT_EQ(order, (std::vector<std::uint32_t>{1, 3, 4, 0, 2}));
}

// Seqs taken without a push stand for events merged into the entry queued just before them (a wave of
// blocks): later pushes at the same time order after all of them, as if each had been queued.
TEST(SimEventQueue, TakenSeqsOrderLaterPushesAfterThem) {
  sim::EventQueue q;
  q.push(10, 1, 0, 0);  // seq 0, standing for itself and the 3 merged below
  q.take_seqs(3);       // seqs 1, 2, 3
  EXPECT_EQ(q.pushed(), 4u);
  q.push(10, 1, 1, 0);  // seq 4
  q.push(5, 1, 2, 0);   // seq 5, earlier in time
  const sim::SimEvent first = q.pop(), second = q.pop(), third = q.pop();
  EXPECT_EQ(first.a, 2u);
  EXPECT_EQ(second.a, 0u);
  EXPECT_EQ(second.seq(), 0u);
  EXPECT_EQ(third.a, 1u);
  EXPECT_EQ(third.seq(), 4u);
  EXPECT_TRUE(q.empty());
}

TEST(SimProfile, InvalidFieldIsNamed) {
  model::DeviceProfile p = golden::test_profile();
  p.sm_count = golden::p(0);
  try {
    sim::SimBackend b(p);
    FAIL() << "expected InputError";
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.place(), "/params/sm_count");
    EXPECT_NE(std::string(e.what()).find("sm_count"), std::string::npos) << e.what();
  }
  // Each direction's bidirectional factor must be in (0, 1], and the error names that direction's field.
  const std::pair<std::string, model::Param model::DeviceProfile::*> factors[] = {
      {"h2d_bidirectional_factor", &model::DeviceProfile::h2d_bidirectional_factor},
      {"d2h_bidirectional_factor", &model::DeviceProfile::d2h_bidirectional_factor}};
  for (const auto& [field, member] : factors) {
    for (const double bad : {0.0, 1.5}) {
      p = golden::test_profile();
      p.*member = golden::p(bad);
      try {
        sim::SimBackend b(p);
        FAIL() << "expected InputError for " << field << " = " << bad;
      } catch (const model::InputError& e) {
        EXPECT_EQ(e.place(), "/params/" + field);
        EXPECT_NE(std::string(e.what()).find("'" + field + "' must be in (0, 1]"), std::string::npos) << e.what();
      }
    }
  }
  p = golden::test_profile();
  p.priority_greatest = golden::p(3);  // above priority_least 0
  try {
    sim::SimBackend b(p);
    FAIL() << "expected InputError";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("priority_greatest"), std::string::npos) << e.what();
  }
}

TEST(SimProfile, BundledProfileFileMissingFieldIsNamed) {
  const std::string text = read(std::string(STREAMLAB_SOURCE_DIR) + "/model/profiles/h100-sxm.json");
  ASSERT_FALSE(text.empty());
  // The shipped profile loads and the simulator accepts it.
  const model::DeviceProfile ok = model::parse_device_profile(text, "h100-sxm.json");
  EXPECT_NO_THROW(sim::SimBackend{ok});
  EXPECT_EQ(ok, model::bundled_h100_profile());
  for (const char* field : {"h2d_pinned_gbps", "sm_count", "sync_wakeup_ns"}) {
    nlohmann::json j = nlohmann::json::parse(text);
    j["params"].erase(field);
    try {
      (void)model::parse_device_profile(j.dump(), "broken.json");
      FAIL() << "expected InputError for missing " << field;
    } catch (const model::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
  // A value the parser accepts but the simulator cannot use is named by the simulator.
  nlohmann::json j = nlohmann::json::parse(text);
  j["params"]["connections"]["value"] = 40;
  try {
    const model::DeviceProfile p = model::parse_device_profile(j.dump(), "broken.json");
    sim::SimBackend b(p);
    FAIL() << "expected InputError for connections = 40";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("connections"), std::string::npos) << e.what();
  }
}

TEST(SimBackend, CallOrderAndHandleErrors) {
  const model::Workload w = workload({kernel("k", 1, 64, 1000)});
  sim::SimBackend b(golden::test_profile());
  EXPECT_THROW(b.enqueue(b.legacy_default_stream(), 0), std::logic_error);  // before prepare
  b.prepare(w);
  EXPECT_THROW(b.prepare(w), std::logic_error);
  EXPECT_EQ(b.legacy_default_stream(), policies::StreamId{0u});
  const auto s = b.create_stream(StreamDesc{});
  EXPECT_EQ(s, policies::StreamId{1u});
  EXPECT_THROW(b.enqueue(policies::StreamId{7u}, 0), std::invalid_argument);
  EXPECT_THROW(b.enqueue(s, 3), std::invalid_argument);
  EXPECT_THROW((void)b.create_stream(StreamDesc{0, policies::StreamKind::legacy_default, ""}), std::invalid_argument);
  const auto e = b.create_event(EventTiming::untimed);
  b.destroy_event(e);
  EXPECT_THROW(b.record_event(e, s), std::invalid_argument);
  b.enqueue(s, 0);
  EXPECT_THROW(b.enqueue(s, 0), std::logic_error);  // the same op twice
  (void)b.finish();
  EXPECT_THROW(b.enqueue(s, 0), std::logic_error);  // after finish
}

TEST(SimBackend, PrefetchHintsAreHarmlessAnywhere) {
  // A hint (Backend::prefetch_issue) names whatever the host may touch next: before prepare, after
  // finish, out-of-range ops, unknown, invalid or destroyed events. None of it may fault or change a thing.
  const model::Workload w = workload({kernel("k", 1, 64, 1000)});
  sim::SimBackend b(golden::test_profile());
  const policies::EventId odd[] = {policies::EventId{}, policies::EventId{5u}, policies::EventId{0xfffffffeu}};
  b.prefetch_issue(0, odd);
  b.prepare(w);
  const auto s = b.create_stream(StreamDesc{});
  const auto e = b.create_event(EventTiming::untimed);
  const auto gone = b.create_event(EventTiming::untimed);
  b.destroy_event(gone);
  const policies::EventId events[] = {e, gone, policies::EventId{}, policies::EventId{99u}};
  b.prefetch_issue(0, events);
  b.prefetch_issue(12345, events);
  b.enqueue(s, 0);
  b.record_event(e, s);
  const model::Trace t = b.finish();
  b.prefetch_issue(0, events);
  ASSERT_EQ(t.spans.size(), 1u);
  EXPECT_EQ(t.spans[0].end_ns - t.spans[0].start_ns, 1000);
}

TEST(SimBackend, ElapsedBetweenTimedEvents) {
  const model::Workload w = workload({kernel("k", 1, 64, 7000)});
  sim::SimBackend b(golden::test_profile());
  b.prepare(w);
  const auto s = b.create_stream(StreamDesc{});
  const auto t0 = b.create_event(EventTiming::timed);
  const auto t1 = b.create_event(EventTiming::timed);
  const auto u = b.create_event(EventTiming::untimed);
  b.record_event(t0, s);  // completes at once (stream idle): host 200
  b.enqueue(s, 0);        // issued 1200, visible 3200, runs [3200, 10200]
  b.record_event(t1, s);
  b.record_event(u, s);
  EXPECT_THROW((void)b.elapsed(t0, t1), std::logic_error);  // t1 not complete yet
  EXPECT_EQ(b.synchronize_event(t1, kForever), WaitStatus::ready);
  EXPECT_EQ(b.elapsed(t0, t1), 10200 - 200);
  EXPECT_THROW((void)b.elapsed(t0, u), std::logic_error);  // untimed
}

TEST(SimBackend, HostCostScaleMultipliesHostCallsButNotDeviceTime) {
  // As ElapsedBetweenTimedEvents on a host 2.5x slower: the record costs 500 and the launch 2500 of host
  // time; the start latency (2000) and the kernel (7000) are device time and stay.
  const model::Workload w = workload({kernel("k", 1, 64, 7000)});
  sim::SimOptions o;
  o.host_cost_scale = 2.5;
  sim::SimBackend b(golden::test_profile(), o);
  b.prepare(w);
  const auto s = b.create_stream(StreamDesc{});
  const auto t0 = b.create_event(EventTiming::timed);
  const auto t1 = b.create_event(EventTiming::timed);
  b.record_event(t0, s);  // host 500
  b.enqueue(s, 0);        // issued 3000, visible 5000, runs [5000, 12000]
  b.record_event(t1, s);
  EXPECT_EQ(b.synchronize_event(t1, kForever), WaitStatus::ready);
  EXPECT_EQ(b.elapsed(t0, t1), 12000 - 500);
  for (double bad : {0.0, -1.0, 1000.0}) {
    o.host_cost_scale = bad;
    EXPECT_THROW(sim::SimBackend(golden::test_profile(), o), model::InputError) << bad;
  }
}

TEST(SimBackend, HostSpeedPredictsAtTheEndsOfTheHostCallRanges) {
  // The test profile's launch costs 1000 and a timed record 200 (HostCostScale... above); with ranges
  // [800, 1600] and [100, 300] a slow host records t0 at 300 and issues the launch at 1900, a fast one at
  // 100 and 900; the kernel starts 2000 later and runs 7000, and t1 completes with it.
  model::DeviceProfile prof = golden::test_profile();
  prof.kernel_launch_ns.range = model::Param::Range{800, 1600};
  prof.event_record_timed_ns.range = model::Param::Range{100, 300};
  for (const auto& f : model::device_profile_fields())
    if ((f.host_call || f.host_rate) && !(prof.*(f.member)).range) (prof.*(f.member)).range = model::Param::Range{(prof.*(f.member)).value, (prof.*(f.member)).value};
  const model::Workload w = workload({kernel("k", 1, 64, 7000)});
  auto end_of_kernel = [&](model::HostSpeed speed) {
    sim::SimOptions o;
    o.host_speed = speed;
    sim::SimBackend b(prof, o);
    b.prepare(w);
    const auto s = b.create_stream(StreamDesc{});
    const auto t0 = b.create_event(EventTiming::timed);
    const auto t1 = b.create_event(EventTiming::timed);
    b.record_event(t0, s);
    b.enqueue(s, 0);
    b.record_event(t1, s);
    EXPECT_EQ(b.synchronize_event(t1, kForever), WaitStatus::ready);
    return b.elapsed(t0, t1);
  };
  EXPECT_EQ(end_of_kernel(model::HostSpeed::typical), 200 + 1000 + 2000 + 7000 - 200);
  EXPECT_EQ(end_of_kernel(model::HostSpeed::slow), 300 + 1600 + 2000 + 7000 - 300);
  EXPECT_EQ(end_of_kernel(model::HostSpeed::fast), 100 + 800 + 2000 + 7000 - 100);
  sim::SimOptions o;
  o.host_speed = model::HostSpeed::slow;
  EXPECT_THROW(sim::SimBackend(golden::test_profile(), o), model::InputError) << "no ranges in the profile";
}

TEST(SimBackend, DestroyingAnEventCostsTheProfilesDestroyTime) {
  // The host pays event_destroy_ns per cudaEventDestroy once the workload is prepared; a profile without
  // the field charges nothing for it (as before it was measured). Host speed moves it like other calls.
  const model::Workload w = workload({kernel("k", 1, 64, 7000)});
  auto destroy_cost = [&](std::optional<double> cost, model::HostSpeed speed) {
    model::DeviceProfile p = golden::test_profile();
    if (cost) p.event_destroy_ns = model::Param{*cost, "test"};
    for (const auto& f : model::device_profile_fields())
      if ((f.host_call || f.host_rate) && (p.*(f.member)).present()) {
        const double v = (p.*(f.member)).value;
        (p.*(f.member)).range = model::Param::Range{v / 2, v * 2};
      }
    sim::SimOptions o;
    o.host_speed = speed;
    sim::SimBackend b(p, o);
    b.prepare(w);
    const auto e = b.create_event(EventTiming::untimed);
    const Nanos before = b.now();
    b.destroy_event(e);
    return b.now() - before;
  };
  EXPECT_EQ(destroy_cost(std::nullopt, model::HostSpeed::typical), 0);
  EXPECT_EQ(destroy_cost(300.0, model::HostSpeed::typical), 300);
  EXPECT_EQ(destroy_cost(300.0, model::HostSpeed::slow), 600);
  EXPECT_EQ(destroy_cost(300.0, model::HostSpeed::fast), 150);
  EXPECT_EQ(destroy_cost(std::nullopt, model::HostSpeed::slow), 0);
}

TEST(SimBackend, WaitAnyEventAndTimeouts) {
  const model::Workload w = workload({kernel("slow", 1, 64, 50000), kernel("fast", 1, 64, 10000)});
  sim::SimBackend b(golden::test_profile());
  b.prepare(w);
  const auto s1 = b.create_stream(StreamDesc{});
  const auto s2 = b.create_stream(StreamDesc{});
  const auto e1 = b.create_event(EventTiming::untimed);
  const auto e2 = b.create_event(EventTiming::untimed);
  b.enqueue(s1, 0);  // issued 1000, [3000, 53000]
  b.record_event(e1, s1);
  b.enqueue(s2, 1);  // issued 2100, [4100, 14100]
  b.record_event(e2, s2);
  const policies::EventId both[] = {e1, e2};
  // Host at 2200; a 1000 ns budget is not enough: nullopt, host at 2200 + 50 (poll) + 1000.
  EXPECT_EQ(b.wait_any_event(both, 1000), std::nullopt);
  EXPECT_EQ(b.now(), 3250);
  const auto hit = b.wait_any_event(both, kForever);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit, 1u);
  EXPECT_EQ(b.now(), 14100 + 5000);
  EXPECT_FALSE(b.query_event(e1));
  EXPECT_TRUE(b.query_event(e2));
  // A never-recorded event is complete.
  const auto fresh = b.create_event(EventTiming::untimed);
  const policies::EventId one[] = {fresh};
  EXPECT_EQ(b.wait_any_event(one, 0), std::optional<std::size_t>{0});
  EXPECT_EQ(b.synchronize_device(kForever), WaitStatus::ready);
  EXPECT_EQ(b.now(), 53000 + 5000);
}

TEST(SimBackend, QueriesSeeACompletionTheProfilesCompletionSeenAfterItHappened) {
  // One 10 us kernel and an event after it; the host polls the event (and then the stream) until it says
  // done. Each query costs 50 ns and sees the state at its end; with completion_seen_ns 2000 the first
  // query to say done is the first to end at least 2000 ns after the kernel's end, without it the first to
  // end at or after the kernel's end.
  const model::Workload w = workload({kernel("k", 1, 64, 10000)});
  auto first_done = [&](std::optional<double> seen, bool stream_query) {
    model::DeviceProfile p = golden::test_profile();
    if (seen) p.completion_seen_ns = model::Param{*seen, "test"};
    sim::SimBackend b(p);
    b.prepare(w);
    const auto s = b.create_stream(StreamDesc{});
    const auto e = b.create_event(EventTiming::untimed);
    b.enqueue(s, 0);
    b.record_event(e, s);
    Nanos before = b.now();
    while (!(stream_query ? b.query_stream(s) : b.query_event(e))) before = b.now();
    const Nanos done = b.now();
    const model::Trace t = b.finish();
    const auto k = std::find_if(t.spans.begin(), t.spans.end(), [](const model::Span& x) { return x.op == 0; });
    return std::array<Nanos, 3>{before, done, k->end_ns};
  };
  for (bool stream_query : {false, true}) {
    const auto [before0, done0, end0] = first_done(std::nullopt, stream_query);
    EXPECT_LT(before0, end0);
    EXPECT_GE(done0, end0);
    EXPECT_EQ(done0 - before0, 50);
    const auto [before, done, end] = first_done(2000.0, stream_query);
    EXPECT_EQ(end, end0);  // the device is not changed, only what the host sees
    EXPECT_LT(before, end + 2000) << stream_query;
    EXPECT_GE(done, end + 2000) << stream_query;
    EXPECT_EQ(done - before, 50);
  }
  // A synchronize returns no earlier than the host can see the completion (nor than its wake-up, 5000 ns
  // in the test profile), and queries see it from then on.
  for (double seen : {2000.0, 8000.0}) {
    model::DeviceProfile p = golden::test_profile();
    p.completion_seen_ns = model::Param{seen, "test"};
    sim::SimBackend b(p);
    b.prepare(w);
    const auto s = b.create_stream(StreamDesc{});
    const auto e = b.create_event(EventTiming::untimed);
    b.enqueue(s, 0);
    b.record_event(e, s);
    ASSERT_EQ(b.synchronize_event(e, kForever), WaitStatus::ready);
    const Nanos after = b.now();
    EXPECT_TRUE(b.query_event(e));
    EXPECT_TRUE(b.query_stream(s));
    ASSERT_EQ(b.synchronize_device(kForever), WaitStatus::ready);  // already seen: only the call's own cost
    EXPECT_EQ(b.now(), after + 2 * 50 + 50);
    const model::Trace t = b.finish();
    const auto k = std::find_if(t.spans.begin(), t.spans.end(), [](const model::Span& x) { return x.op == 0; });
    EXPECT_EQ(after, k->end_ns + std::max<Nanos>(5000, static_cast<Nanos>(seen))) << seen;
  }
}

TEST(SimBackend, ManySimulatorsInOneProcessDoNotInterfere) {
  const model::Workload w = workload({kernel("a", 8, 1024, 10000), kernel("b", 8, 1024, 10000),
                                      copy("c", model::OpKind::h2d, 100000)});
  auto program = [&](sim::SimBackend& b, int step) {
    static const int kSteps = 3;
    const auto s = policies::StreamId{static_cast<std::uint32_t>(1 + step % 2)};
    if (step < kSteps) b.enqueue(s, static_cast<model::OpIndex>(step));
  };
  sim::SimOptions o;
  o.date = "2026-01-01";
  sim::SimBackend x(golden::test_profile(), o), y(golden::test_profile(), o), alone(golden::test_profile(), o);
  for (auto* b : {&x, &y, &alone}) {
    b->prepare(w);
    (void)b->create_stream(StreamDesc{});
    (void)b->create_stream(StreamDesc{});
  }
  for (int step = 0; step < 3; ++step) {  // interleave x and y call by call
    program(x, step);
    program(y, step);
  }
  for (int step = 0; step < 3; ++step) program(alone, step);
  const model::Trace tx = x.finish(), ty = y.finish(), ta = alone.finish();
  EXPECT_EQ(tx, ta);
  EXPECT_EQ(ty, ta);
}

TEST(SimBackend, CopyQueuesPerEngineDecideWhichStreamsCopiesGoNext) {
  // Two H2Ds on each of 8 streams, issued breadth-first (every stream's first, then every stream's
  // second) at 8 connections. The engine serves one queue's copies back to back. Streams s and s + 4
  // sharing a queue (the default, 4 per engine): 0a 4a 0b 4b 1a 5a 1b 5b ...; a queue per stream (8): 0a 0b
  // 1a 1b ... (H100 runs 5 and 62 against run 71).
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> v;
    for (const char* round : {"a", "b"})
      for (int s = 0; s < 8; ++s) v.push_back(std::to_string(s) + round);
    return v;
  }();
  std::vector<model::Op> ops;
  for (const std::string& id : ids) ops.push_back(copy(model::Text::borrow(id), model::OpKind::h2d, 100000));
  const model::Workload w = workload(std::move(ops));
  auto order = [&](std::optional<std::uint32_t> queues, std::optional<bool> bit_reversed = false,
                   const model::DeviceProfile& profile = golden::test_profile()) {
    sim::SimOptions o;
    o.connections = 8;
    o.copy_queues_per_engine = queues;
    o.bit_reversed_copy_queues = bit_reversed;
    sim::SimBackend b(profile, o);
    b.prepare(w);
    std::vector<policies::StreamId> st;
    for (int s = 0; s < 8; ++s) st.push_back(b.create_stream(StreamDesc{}));
    for (model::OpIndex i = 0; i < 16; ++i) b.enqueue(st[i % 8], i);
    const model::Trace t = b.finish();
    std::vector<std::pair<Nanos, std::string>> starts;
    for (const model::Span& x : t.spans) starts.emplace_back(x.start_ns, std::string(ids[x.op]));
    std::sort(starts.begin(), starts.end());
    std::string out;
    for (const auto& [at, id] : starts) out += id + " ";
    return out;
  };
  EXPECT_EQ(order(std::nullopt), "0a 4a 0b 4b 1a 5a 1b 5b 2a 6a 2b 6b 3a 7a 3b 7b ");
  EXPECT_EQ(order(8), "0a 0b 1a 1b 2a 2b 3a 3b 4a 4b 5a 5b 6a 6b 7a 7b ");
  EXPECT_EQ(order(32), order(8)) << "capped at the connections";
  // Bit-reversed arbitration (H100 run 84's machine): once a queue is empty the engine goes on with the
  // next queue in the order 0, 2, 1, 3 (of four; 0, 4, 2, 6, 1, 5, 3, 7 of eight), counted from the first
  // stream's queue.
  EXPECT_EQ(order(std::nullopt, true), "0a 4a 0b 4b 2a 6a 2b 6b 1a 5a 1b 5b 3a 7a 3b 7b ");
  EXPECT_EQ(order(8, true), "0a 0b 4a 4b 2a 2b 6a 6b 1a 1b 5a 5b 3a 3b 7a 7b ");
  EXPECT_EQ(order(std::nullopt, std::nullopt), order(std::nullopt, false)) << "unset: oldest first";
  sim::SimOptions bad;
  bad.copy_queues_per_engine = 0;
  EXPECT_THROW(sim::SimBackend(golden::test_profile(), bad), model::InputError);
}

TEST(SimBackend, KernelRaceRulesDecideWhichOfTwoKernelsReadyTogetherGoesFirst) {
  // Two kernels that each fill the device (8 x 1024 threads, 10 us blocks: one wave), a on the first
  // stream and b on the second, issued back to back: a visible at 1000 + 2000 = 3000, b at 2000 + 2000 =
  // 4000.
  const model::Workload w = workload({kernel("a", 8, 1024, 10000), kernel("b", 8, 1024, 10000)});
  auto run = [&](sim::KernelRace rule, Nanos window = 1000, int priority_b = 0) {
    sim::SimOptions o;
    o.warp_launch_ns = 0.0;  // the synthetic device's round numbers
    o.kernel_race = rule;
    o.kernel_race_window_ns = window;
    sim::SimBackend b(golden::test_profile(), o);
    b.prepare(w);
    const auto s1 = b.create_stream(StreamDesc{});
    const auto s2 = b.create_stream(StreamDesc{priority_b, policies::StreamKind::non_blocking, ""});
    b.enqueue(s1, 0);
    b.enqueue(s2, 1);
    const model::Trace t = b.finish();
    return std::array<Nanos, 4>{t.spans[0].start_ns, t.spans[0].end_ns, t.spans[1].start_ns, t.spans[1].end_ns};
  };
  using R = sim::KernelRace;
  // In the order they became ready (the default): a [3000, 13000], b waits for room: [13000, 23000].
  const std::array<Nanos, 4> a_first{3000, 13000, 13000, 23000};
  EXPECT_EQ(run(R::ready_order), a_first);
  EXPECT_EQ(run(R::lower_stream_first), a_first) << "a is on the lower stream and ready first";
  // The higher stream wins: b, ready 1000 after a (within the window), [4000, 14000]; a held until b
  // arrived, then waits for room: [14000, 24000].
  EXPECT_EQ(run(R::higher_stream_first), (std::array<Nanos, 4>{14000, 24000, 4000, 14000}));
  // Outside the window there is no race: the default order.
  EXPECT_EQ(run(R::higher_stream_first, 999), a_first);
  // At another priority level it is a race all the same (H100 run 106: a higher-priority kernel ready
  // within a microsecond of a lower one got the device first in some runs and waited a block in others).
  EXPECT_EQ(run(R::higher_stream_first, 1000, -1), (std::array<Nanos, 4>{14000, 24000, 4000, 14000}))
      << "b, the higher priority, wins and a waits for room";
  EXPECT_EQ(run(R::lower_stream_first, 1000, -1), a_first) << "a wins; b's higher priority does not evict a's blocks";
  EXPECT_EQ(run(R::ready_order, 1000, -1), a_first);
}

TEST(SimBackend, CopyEngineCount) {
  // h2d and d2h of 100 000 B each, issued at 1000 and 2000 (test device: 1000 + 10 000 ns alone).
  const model::Workload w = workload({copy("up", model::OpKind::h2d, 100000), copy("down", model::OpKind::d2h, 100000),
                                      copy("dd", model::OpKind::d2d, 100000)});
  auto run = [&](double engines) {
    model::DeviceProfile p = golden::test_profile();
    p.copy_engines = golden::p(engines);
    p.h2d_bidirectional_factor = golden::p(1.0);
    p.d2h_bidirectional_factor = golden::p(1.0);
    sim::SimBackend b(p);
    b.prepare(w);
    const auto s1 = b.create_stream(StreamDesc{}), s2 = b.create_stream(StreamDesc{}),
               s3 = b.create_stream(StreamDesc{});
    b.enqueue(s1, 0);
    b.enqueue(s2, 1);
    b.enqueue(s3, 2);
    return b.finish();
  };
  const model::Trace one = run(1), two = run(2), three = run(3);
  // One engine: everything serializes: up [1000, 12000], down [12000, 23000], dd [23000, 25000].
  EXPECT_EQ(one.spans[1].start_ns, 12000);
  EXPECT_EQ(one.spans[2].start_ns, 23000);
  // Two engines: up and down overlap; D2D shares the H2D engine: after up.
  EXPECT_EQ(two.spans[1].start_ns, 2000);
  EXPECT_EQ(two.spans[2].start_ns, 12000);
  // Three: all overlap (D2D: 3000 + 1000 + 1000).
  EXPECT_EQ(three.spans[2].start_ns, 3000);
  EXPECT_EQ(three.spans[2].end_ns, 5000);
}

TEST(SimBackend, PriorityIsClampedToTheDeviceRange) {
  const model::Workload w = workload({kernel("low", 16, 1024, 10000), kernel("high", 4, 1024, 10000)});
  sim::SimOptions o;
  o.warp_launch_ns = 0.0;  // the synthetic device's round numbers (no block launch ramp)
  sim::SimBackend b(golden::test_profile(), o);
  b.prepare(w);
  const auto lo = b.create_stream(StreamDesc{7, policies::StreamKind::non_blocking, ""});     // -> 0
  const auto hi = b.create_stream(StreamDesc{-100, policies::StreamKind::non_blocking, ""});  // -> -5
  b.enqueue(lo, 0);
  b.enqueue(hi, 1);
  const model::Trace t = b.finish();
  EXPECT_EQ(t.spans[1].start_ns, 13000);  // dispatched before low's second wave (see priority_dispatch)
  EXPECT_EQ(t.spans[0].end_ns, 33000);
}

TEST(SimBackend, BlocksRampUpAtTheWarpLaunchRate) {
  // 8 blocks of 1024 threads (32 warps; one wave on the 4-SM test device) at 10 ns per warp: block b starts
  // 320 b ns after the first, so the grid spans 10000 + 7 x 320 = 12240 ns; a grid of 4 x 64 threads (2 warps
  // a block) ramps 20 ns per block: 10000 + 3 x 20 = 10060 ns.
  const model::Workload w = workload({kernel("big", 8, 1024, 10000), kernel("small", 4, 64, 10000)});
  sim::SimOptions o;
  o.warp_launch_ns = 10.0;
  sim::SimBackend b(golden::test_profile(), o);
  b.prepare(w);
  const auto s = b.create_stream(StreamDesc{0, policies::StreamKind::non_blocking, ""});
  b.enqueue(s, 0);
  b.enqueue(s, 1);
  const model::Trace t = b.finish();
  ASSERT_EQ(t.spans.size(), 2u);
  EXPECT_EQ(t.spans[0].end_ns - t.spans[0].start_ns, 12240);
  EXPECT_EQ(t.spans[1].end_ns - t.spans[1].start_ns, 10060);
  o.warp_launch_ns = -1.0;
  EXPECT_THROW(sim::SimBackend(golden::test_profile(), o), model::InputError);
}

TEST(SimBackend, TraceMetadata) {
  const model::Workload w = workload({kernel("k", 1, 64, 1000)});
  sim::SimOptions o;
  o.date = "2026-02-03";
  o.profile_label = "test.json";
  sim::SimBackend b(golden::test_profile(), o);
  b.prepare(w);
  b.enqueue(b.legacy_default_stream(), 0);
  const model::Trace t = b.finish();
  EXPECT_EQ(t.meta.backend, "sim");
  EXPECT_EQ(t.meta.device_name, "golden test device");
  EXPECT_EQ(t.meta.profile, "test.json");
  EXPECT_EQ(t.meta.date, "2026-02-03");
  ASSERT_EQ(t.spans.size(), 1u);
  EXPECT_EQ(t.spans[0].stream, 0u);
  EXPECT_TRUE(t.blocks.empty());  // not asked for
  EXPECT_GT(b.stats().events_processed, 0u);
}

// A trace's span ids and names are the workload's texts (Backend::finish): the trace shares the workload's
// string table, so they stay readable after the workload and the backend are gone (ASan would see a
// dangling view), and a copy of the trace shares the table too.
TEST(SimBackend, TraceKeepsTheWorkloadsTextsAlive) {
  std::optional<model::Trace> t;
  {
    auto w = std::make_unique<model::Workload>(workload({kernel("first kernel of a longer id", 1, 64, 1000)}));
    w->ops[0].name = w->intern("a kernel name longer than any inline buffer");
    sim::SimOptions o;
    o.date = "2026-02-03";
    sim::SimBackend b(golden::test_profile(), o);
    b.prepare(*w);
    b.enqueue(b.legacy_default_stream(), 0);
    t = b.finish();
    EXPECT_EQ(t->strings, w->strings());
  }
  const model::Trace copy = *t;
  t.reset();
  ASSERT_EQ(copy.spans.size(), 1u);
  EXPECT_EQ(copy.spans[0].op_id, "first kernel of a longer id");
  EXPECT_EQ(copy.spans[0].name, "a kernel name longer than any inline buffer");
}

// The `streamlab sim` path: the Dispatcher refuses a hinted stream program that can deadlock, naming
// every op of the cycle, before anything runs on the simulator.
TEST(SimBackend, DeadlockingStreamProgramIsRefusedWithTheCycle) {
  // Stream 0 runs a1 then a2; stream 1 runs b1 then b2; a1 needs b2 and b1 needs a2: a1 -> a2 -> b1 ->
  // b2 -> a1 around stream order and deps, though the DAG itself is acyclic.
  const std::string text = read(std::string(STREAMLAB_SOURCE_DIR) + "/tests/golden/inputs/deadlock.json");
  const model::Workload w = model::parse_workload(text, "deadlock.json");
  sim::SimBackend b(model::bundled_h100_profile());
  auto pol = policies::make_policy("round-robin", policies::PolicyConfig{});
  try {
    (void)policies::dispatch(b, w, *pol);
    FAIL() << "expected a deadlock refusal";
  } catch (const model::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deadlock"), std::string::npos) << what;
    for (const char* id : {"a1", "a2", "b1", "b2"}) EXPECT_NE(what.find(id), std::string::npos) << what;
  }
  EXPECT_EQ(b.stats().commands, 0u);  // nothing was issued
}

// The scheduling-detail profile fields (warp_launch_ns, same_stream_gap_ns, task_fetch_ns,
// block_dispatch_per_warp_ns, traced_launch_overhead_ns): each on the synthetic device, with hand arithmetic.

TEST(SimBackend, WarpLaunchRateComesFromTheProfile) {
  // As BlocksRampUpAtTheWarpLaunchRate, but from the profile field; the option still overrides it.
  const model::Workload w = workload({kernel("big", 8, 1024, 10000)});
  model::DeviceProfile p = golden::test_profile();
  p.warp_launch_ns = golden::p(10);
  sim::SimBackend b(p);
  b.prepare(w);
  b.enqueue(b.create_stream(StreamDesc{}), 0);
  const model::Trace t = b.finish();
  EXPECT_EQ(t.spans[0].end_ns - t.spans[0].start_ns, 10000 + 7 * 320);
  sim::SimOptions o;
  o.warp_launch_ns = 0.0;
  sim::SimBackend b0(p, o);
  b0.prepare(w);
  b0.enqueue(b0.create_stream(StreamDesc{}), 0);
  const model::Trace t0 = b0.finish();
  EXPECT_EQ(t0.spans[0].end_ns - t0.spans[0].start_ns, 10000);
}

TEST(SimBackend, SameStreamGapBetweenDeviceOpsNotBeforeRecords) {
  const model::Workload w = workload({kernel("a", 1, 64, 10000), kernel("b", 1, 64, 10000), kernel("c", 1, 64, 10000)});
  model::DeviceProfile p = golden::test_profile();
  p.same_stream_gap_ns = golden::p(3000);
  sim::SimBackend b(p);
  b.prepare(w);
  const auto s1 = b.create_stream(StreamDesc{});
  const auto s2 = b.create_stream(StreamDesc{});
  const auto e = b.create_event(EventTiming::untimed);
  b.enqueue(s1, 0);        // host 1000, visible 3000: [3000, 13000]
  b.record_event(e, s1);   // host 1100; completes with a at 13000 (no gap before a record)
  b.enqueue(s1, 1);        // host 2100; a ended 13000 + gap 3000: [16000, 26000]
  b.stream_wait_event(s2, e);  // host 2200
  b.enqueue(s2, 2);        // host 3200; record at 13000 + event wait latency 500: [13500, 23500]
  const model::Trace t = b.finish();
  ASSERT_EQ(t.spans.size(), 3u);
  EXPECT_EQ(t.spans[0].start_ns, 3000);
  EXPECT_EQ(t.spans[1].start_ns, 16000);
  EXPECT_EQ(t.spans[1].end_ns, 26000);
  EXPECT_EQ(t.spans[2].start_ns, 13500);
}

TEST(SimBackend, SameStreamGapOnlyWhenTheNextOpWasWaiting) {
  // b is issued after a ended: it starts at its own visibility, not a's end + gap.
  const model::Workload w = workload({kernel("a", 1, 64, 1000), kernel("b", 1, 64, 1000)});
  model::DeviceProfile p = golden::test_profile();
  p.same_stream_gap_ns = golden::p(3000);
  sim::SimBackend b(p);
  b.prepare(w);
  const auto s = b.create_stream(StreamDesc{});
  b.enqueue(s, 0);  // host 1000: [3000, 4000]
  EXPECT_EQ(b.synchronize_stream(s, kForever), WaitStatus::ready);  // host 4000 + wake-up 5000 = 9000
  b.enqueue(s, 1);  // host 10000, visible 12000 > 4000 + 3000
  const model::Trace t = b.finish();
  EXPECT_EQ(t.spans[1].start_ns, 12000);
}

model::Op pool(model::Text id, std::vector<Nanos> tasks, model::TaskAssignment how) {
  model::Op op;
  op.id = id;
  op.name = id;
  op.kind = model::OpKind::task_pool;
  op.shape = model::KernelShape{{1, 1, 1}, {64, 1, 1}, 32, 0};
  op.tasks = model::TaskList{std::move(tasks), how};
  return op;
}

TEST(SimBackend, DynamicTaskPoolsPayTheFetchPerTask) {
  const model::Workload w = workload({pool("static", {1000, 2000, 3000}, model::TaskAssignment::static_index),
                                      pool("dynamic", {1000, 2000, 3000}, model::TaskAssignment::dynamic_queue)});
  model::DeviceProfile p = golden::test_profile();
  p.task_fetch_ns = golden::p(100);
  sim::SimBackend b(p);
  b.prepare(w);
  b.enqueue(b.create_stream(StreamDesc{}), 0);
  b.enqueue(b.create_stream(StreamDesc{}), 1);
  const model::Trace t = b.finish();
  EXPECT_EQ(t.spans[0].end_ns - t.spans[0].start_ns, 6000);           // static: no fetch
  EXPECT_EQ(t.spans[1].end_ns - t.spans[1].start_ns, 6000 + 3 * 100);  // one fetch per task
}

TEST(SimBackend, BlockReplacementGapGrowsWithTheBlocksWarps) {
  // 9 blocks of 1024 threads on 4 SMs x 2: eight run [3000, 13000]; the ninth takes the first freed room
  // block_dispatch 100 + 32 warps x 10 = 420 ns later: [13420, 23420]. 64-thread blocks: 100 + 2 x 10.
  const model::Workload w = workload({kernel("big", 9, 1024, 10000), kernel("small", 129, 64, 10000)});
  model::DeviceProfile p = golden::test_profile();
  p.block_dispatch_ns = golden::p(100);
  p.block_dispatch_per_warp_ns = golden::p(10);
  sim::SimBackend b(p);
  b.prepare(w);
  const auto s = b.create_stream(StreamDesc{});
  b.enqueue(s, 0);
  EXPECT_EQ(b.synchronize_stream(s, kForever), WaitStatus::ready);
  const Nanos small_start = b.now() + 1000 + 2000;  // issue cost + start latency on an idle device
  b.enqueue(s, 1);  // 129 blocks of 64 threads: 16 per SM (the block limit), 64 at once
  const model::Trace t = b.finish();
  EXPECT_EQ(t.spans[0].start_ns, 3000);
  EXPECT_EQ(t.spans[0].end_ns, 23420);
  // Blocks 64..127 follow 120 ns after the first round ends, block 128 120 ns after the second: three
  // rounds of 10000 + 2 x 120.
  EXPECT_EQ(t.spans[1].start_ns, small_start);
  EXPECT_EQ(t.spans[1].end_ns, small_start + 3 * 10000 + 2 * 120);
}

TEST(SimBackend, TracedRunsPayTheTracedLaunchOverhead) {
  const model::Workload w = workload({kernel("k", 1, 64, 1000)});
  model::DeviceProfile p = golden::test_profile();
  p.traced_launch_overhead_ns = golden::p(700);
  for (const bool traced : {false, true}) {
    sim::SimOptions o;
    o.traced = traced;
    sim::SimBackend b(p, o);
    b.prepare(w);
    b.enqueue(b.create_stream(StreamDesc{}), 0);
    EXPECT_EQ(b.now(), traced ? 1700 : 1000);
    const model::Trace t = b.finish();
    EXPECT_EQ(t.spans[0].start_ns, traced ? 3700 : 3000);
  }
}

TEST(SimBackend, TracedRunsPayTheCopyRecords) {
  // CUPTI's copy records: every copy call costs the host 300 ns more, and after its transfer the engine
  // writes the record for 500 ns, which its stream's next op and the engine's next copy wait for; the
  // copy's span is the transfer. up: H2D 100 000 B (1000 + 10 000 ns); k: a kernel behind it on the same
  // stream; up2: an H2D on another stream, queued on the same engine.
  //   untraced: up host 1000 [1000, 12000]; k host 2000 [12000, 13000]; up2 host 3000 [12000, 23000]
  //   traced:   up host 1300 [1300, 12300] + record to 12800; k host 2300 [12800, 13800];
  //             up2 host 3600 [12800, 23800] + record to 24300
  const model::Workload w = workload({copy("up", model::OpKind::h2d, 100000), kernel("k", 1, 64, 1000),
                                      copy("up2", model::OpKind::h2d, 100000)});
  model::DeviceProfile p = golden::test_profile();
  p.traced_copy_record_ns = golden::p(500);
  p.traced_copy_issue_overhead_ns = golden::p(300);
  for (const bool traced : {false, true}) {
    sim::SimOptions o;
    o.traced = traced;
    sim::SimBackend b(p, o);
    b.prepare(w);
    const auto s1 = b.create_stream(StreamDesc{}), s2 = b.create_stream(StreamDesc{});
    b.enqueue(s1, 0);
    b.enqueue(s1, 1);
    b.enqueue(s2, 2);
    EXPECT_EQ(b.now(), traced ? 3600 : 3000);
    EXPECT_EQ(b.synchronize_device(kForever), WaitStatus::ready);
    const Nanos done = b.now();
    const model::Trace t = b.finish();
    auto span = [&](model::OpIndex op) {
      return *std::find_if(t.spans.begin(), t.spans.end(), [&](const model::Span& x) { return x.op == op; });
    };
    EXPECT_EQ(span(0).start_ns, traced ? 1300 : 1000);
    EXPECT_EQ(span(0).end_ns, traced ? 12300 : 12000) << "the span is the transfer";
    EXPECT_EQ(span(1).start_ns, traced ? 12800 : 12000) << "the stream waits for the record";
    EXPECT_EQ(span(2).start_ns, traced ? 12800 : 12000) << "so does the engine";
    EXPECT_EQ(span(2).end_ns, traced ? 23800 : 23000);
    EXPECT_EQ(done, (traced ? 24300 : 23000) + 5000) << "the host wakes after the last record";
  }
}

TEST(SimBackend, TracedReplacementGapFollowsTheBlockTime) {
  // As BlockReplacementGapGrowsWithTheBlocksWarps, traced: 10 ns/warp for blocks up to 20 us, 30 ns/warp
  // from 60 us, linear in between. Nine 1024-thread blocks on 8 slots: the ninth starts 32 warps x rate
  // after the first wave ends (block_dispatch 0). 10 us blocks: 320; 40 us (halfway): 640; 80 us: 960.
  model::DeviceProfile p = golden::test_profile();
  p.traced_block_dispatch_per_warp_ns = golden::p(10);
  p.traced_block_dispatch_per_warp_long_ns = golden::p(30);
  p.traced_dispatch_short_block_ns = golden::p(20000);
  p.traced_dispatch_long_block_ns = golden::p(60000);
  for (const auto& [block_ns, gap] : {std::pair<Nanos, Nanos>{10000, 320}, {40000, 640}, {80000, 960}}) {
    const model::Workload w = workload({kernel("k", 9, 1024, block_ns)});
    for (const bool traced : {false, true}) {
      sim::SimOptions o;
      o.traced = traced;
      sim::SimBackend b(p, o);
      b.prepare(w);
      b.enqueue(b.create_stream(StreamDesc{}), 0);
      const model::Trace t = b.finish();
      // Untraced: the profile's block_dispatch_per_warp_ns (0 here), whatever the block time.
      EXPECT_EQ(t.spans[0].end_ns - t.spans[0].start_ns, 2 * block_ns + (traced ? gap : 0)) << block_ns << traced;
    }
  }
  p.traced_dispatch_long_block_ns = golden::p(10000);  // shorter than the short probe
  EXPECT_THROW(sim::SimBackend(p, sim::SimOptions{}), model::InputError);
}

TEST(SimBackend, TracedLaunchRateFollowsHowFullTheFirstWaveIs) {
  // Traced: 10 ns/warp when the first wave fills every SM's 2048 thread slots, 0 when it fills half, linear
  // in between. Untraced: the profile's warp_launch_ns (0 here) whatever the fill. One kernel per run, 10 us
  // blocks, first block at 3000 (issue 1000 + start latency 2000); block k starts k x warps x rate later.
  //   8 x 1024 (2 per SM: full): 7 x 32 x 10 = 2240;  4 x 1024 (half): 0;
  //   12 x 512 (3 per SM: 3/4 full, 5 ns/warp): 11 x 16 x 5 = 880;  2 x 64 (tiny): 0.
  model::DeviceProfile p = golden::test_profile();
  p.traced_warp_launch_ns = golden::p(10);
  p.traced_warp_launch_half_fill_ns = golden::p(0);
  for (const auto& [blocks, threads, ramp] :
       {std::tuple<std::uint32_t, std::uint32_t, Nanos>{8, 1024, 2240}, {4, 1024, 0}, {12, 512, 880}, {2, 64, 0}}) {
    const model::Workload w = workload({kernel("k", blocks, threads, 10000)});
    for (const bool traced : {false, true}) {
      sim::SimOptions o;
      o.traced = traced;
      sim::SimBackend b(p, o);
      b.prepare(w);
      b.enqueue(b.create_stream(StreamDesc{}), 0);
      const model::Trace t = b.finish();
      EXPECT_EQ(t.spans[0].start_ns, 3000) << blocks << "x" << threads;
      EXPECT_EQ(t.spans[0].end_ns, 3000 + 10000 + (traced ? ramp : 0)) << blocks << "x" << threads << " " << traced;
    }
  }
}

TEST(SimBackend, TracedKernelsAreReportedAsCuptiSpansWithTheTracedGap) {
  // Two 1-block kernels of 1000 ns back to back on one stream. Untraced: same_stream_gap 200, spans as the
  // blocks ran: [3000, 4000], [4200, 5200]. Traced: the blocks are traced_same_stream_gap 700 apart,
  // [3000, 4000] and [4700, 5700], and each span is reported traced_span_pad 300 wider, at its start (its
  // end is the completion the host sees): [2700, 4000], [4400, 5700]. A copy is not padded.
  model::DeviceProfile p = golden::test_profile();
  p.same_stream_gap_ns = golden::p(200);
  p.traced_same_stream_gap_ns = golden::p(700);
  p.traced_span_pad_ns = golden::p(300);
  const model::Workload w = workload({kernel("a", 1, 64, 1000), kernel("b", 1, 64, 1000)});
  for (const bool traced : {false, true}) {
    sim::SimOptions o;
    o.traced = traced;
    sim::SimBackend b(p, o);
    b.prepare(w);
    const auto s = b.create_stream(StreamDesc{});
    b.enqueue(s, 0);
    b.enqueue(s, 1);
    const model::Trace t = b.finish();
    ASSERT_EQ(t.spans.size(), 2u);
    if (traced) {
      EXPECT_EQ(t.spans[0].start_ns, 2700);
      EXPECT_EQ(t.spans[0].end_ns, 4000);
      EXPECT_EQ(t.spans[1].start_ns, 4400);
      EXPECT_EQ(t.spans[1].end_ns, 5700);
    } else {
      EXPECT_EQ(t.spans[0].start_ns, 3000);
      EXPECT_EQ(t.spans[0].end_ns, 4000);
      EXPECT_EQ(t.spans[1].start_ns, 4200);
      EXPECT_EQ(t.spans[1].end_ns, 5200);
    }
  }
  const model::Workload wc = workload({copy("up", model::OpKind::h2d, 1000)});
  sim::SimOptions o;
  o.traced = true;
  sim::SimBackend b(p, o);
  b.prepare(wc);
  b.enqueue(b.create_stream(StreamDesc{}), 0);
  const model::Trace t = b.finish();
  ASSERT_EQ(t.spans.size(), 1u);
  EXPECT_EQ(t.spans[0].end_ns - t.spans[0].start_ns, 1000 + 1000 / 10);  // latency + bytes / 10 B/ns, unpadded
}

TEST(SimBackend, FirstWorkIntoACreatedStreamPaysTheFirstUseCost) {
  // stream_first_use 400: the first call that puts work into each created stream costs 400 more, once;
  // the legacy stream is never charged it.
  const model::Workload w = workload({kernel("a", 1, 64, 1000), kernel("b", 1, 64, 1000), kernel("c", 1, 64, 1000),
                                      kernel("d", 1, 64, 1000)});
  model::DeviceProfile p = golden::test_profile();
  p.stream_first_use_ns = golden::p(400);
  sim::SimBackend b(p);
  b.prepare(w);
  const auto s1 = b.create_stream(StreamDesc{});
  const auto s2 = b.create_stream(StreamDesc{});
  const auto e = b.create_event(EventTiming::untimed);
  b.record_event(e, s1);  // 100 + 400
  EXPECT_EQ(b.now(), 500);
  b.enqueue(s1, 0);  // 1000
  EXPECT_EQ(b.now(), 1500);
  b.stream_wait_event(s2, e);  // 100 + 400
  EXPECT_EQ(b.now(), 2000);
  b.enqueue(s2, 1);  // 1000
  EXPECT_EQ(b.now(), 3000);
  b.enqueue(b.legacy_default_stream(), 2);  // 1000
  b.enqueue(b.legacy_default_stream(), 3);  // 1000
  EXPECT_EQ(b.now(), 5000);
}

// explain_only keeps one op's explanation, and it is the one a run keeping every op's gives (an op waiting
// behind copies, kernels of other streams and events; the first, a middle and the last op).
TEST(SimBackend, ExplainOnlyKeepsOneOpsExplanationUnchanged) {
  const model::DeviceProfile profile = model::bundled_h100_profile();
  model::gen::ChunkedCopyCompute cp;
  cp.chunks = 12;
  const model::Workload chunked = model::gen::chunked_copy_compute(cp);
  model::gen::RandomDag rp;
  rp.ops = 300;
  const model::Workload dag = model::gen::random_dag(rp);
  for (const model::Workload* w : {&chunked, &dag}) {
    const auto run = [&](std::optional<model::OpIndex> only) {
      sim::SimOptions so;
      so.explain = true;
      so.explain_only = only;
      so.date = "2026-01-01";
      auto b = std::make_unique<sim::SimBackend>(profile, so);
      policies::PolicyConfig cfg;
      cfg.streams = 3;
      auto pol = policies::make_policy("load-balanced", cfg);
      policies::DispatchOptions d;
      d.profile = &profile;
      d.keep_log = false;
      (void)policies::dispatch(*b, *w, *pol, d);
      return b;
    };
    const auto all = run(std::nullopt);
    const auto n = static_cast<model::OpIndex>(w->size());
    for (const model::OpIndex op : {model::OpIndex{0}, n / 2, n - 1}) {
      SCOPED_TRACE(w->name + " op " + std::to_string(op));
      const auto one = run(op);
      ASSERT_NE(all->explain(op), nullptr);
      ASSERT_NE(one->explain(op), nullptr);
      EXPECT_EQ(sim::format_explanation(*w, *one->explain(op)), sim::format_explanation(*w, *all->explain(op)));
      EXPECT_EQ(one->explain(op == 0 ? 1 : 0), nullptr);
      EXPECT_EQ(one->stats().events_processed, all->stats().events_processed);
    }
  }
}

}  // namespace
}  // namespace streamlab
