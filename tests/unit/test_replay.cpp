// The replay policy: a program's calls exactly as written (the FakeBackend's call log is the oracle: no
// completion events, no queries, declared streams and priorities), its trace (host-call spans, program
// stream ids, time 0 at the program's start), what-ifs on the DAG view, and its refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/program.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/fake_backend.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace sp = streamlab::policies;
namespace sm = streamlab::model;

namespace {

const sm::Workload& example() {
  static const sm::Workload w = sm::parse_workload(R"({
  "format_version": 2, "name": "fg-after-bg", "program": true,
  "streams": [{"id": 1, "priority": 0, "kind": "non-blocking", "label": "bg"},
              {"id": 4, "priority": -9, "kind": "blocking", "label": "fg"}],
  "ops": [
    {"id": "up",  "kind": "h2d", "stream": 1, "bytes": 8388608, "host_gap_ns": 5000},
    {"id": "bg",  "kind": "kernel", "stream": 1, "grid": 264, "block": 1024, "duration": {"per_block_ns": 50000}},
    {"id": "r",   "kind": "event_record", "stream": 1, "event": "bg_done"},
    {"id": "w",   "kind": "event_wait", "stream": 4, "event": "bg_done"},
    {"id": "fg",  "kind": "kernel", "stream": 4, "grid": 132, "block": 256, "duration": {"per_block_ns": 20000}},
    {"id": "cp",  "kind": "d2h", "stream": 4, "bytes": 4096, "blocking": true},
    {"id": "s",   "kind": "stream_sync", "stream": 1},
    {"id": "es",  "kind": "event_sync", "stream": 4, "event": "bg_done"},
    {"id": "all", "kind": "device_sync", "host_gap_ns": 1000}
  ]})",
                                                   "example.json");
  return w;
}

sp::DispatchResult replay(sp::Backend& be, const sm::Workload& w, sp::DispatchOptions o = {}) {
  auto policy = sp::make_policy(sp::kReplayPolicy, {});
  return sp::dispatch(be, w, *policy, o);
}

}  // namespace

TEST(Replay, IssuesExactlyTheProgramsCalls) {
  sp::FakeBackend fake;
  const auto r = replay(fake, example());
  // Streams as declared (priority -9 clamped into the device's 0 .. -5), one untimed event per name, the
  // device idle before time 0 (as a program synchronizes after its set-up), then the program's calls and
  // nothing else: no completion event after each op, no query; one device synchronize at the end.
  const std::vector<std::string> expected{
      "prepare 'fg-after-bg' 9 ops",
      "legacy_default_stream -> s0",
      "create_stream s1 prio=0 kind=non-blocking label='bg'",
      "create_stream s2 prio=-5 kind=blocking label='fg'",
      "create_event e0 untimed",
      "synchronize_device -> ready",  // before time 0
      "host_work 5000",
      "enqueue s1 op 'up'",
      "enqueue s1 op 'bg'",
      "record e0 s1",
      "wait s2 e0",
      "enqueue s2 op 'fg'",
      "enqueue s2 op 'cp'",  // blocking: the call returned once the copy was done
      "synchronize s1 -> ready",
      "synchronize e0 -> ready",
      "host_work 1000",
      "synchronize_device -> ready",
      "synchronize_device -> ready",  // the end of the run
      "destroy_event e0",
      "finish",
  };
  EXPECT_EQ(fake.call_log(), expected) << fake.call_log_text();
  EXPECT_TRUE(fake.violations().empty());
  EXPECT_EQ(r.stats.ops, 9u);
  EXPECT_EQ(r.stats.event_records, 1u);
  EXPECT_EQ(r.stats.queries, 0u);
  EXPECT_EQ(r.stats.streams_created, 2u);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.trace.meta.policy, "replay");
  EXPECT_EQ(r.trace.meta.workload_hash, example().hash());
  ASSERT_EQ(r.log.size(), 9u);
  EXPECT_EQ(sp::describe(r.log[3].reason), "as written: program stream 4");
}

TEST(Replay, DecisionLogNamesTheProgramsStreams) {
  sp::FakeBackend fake;
  const auto r = replay(fake, example());
  const std::string log = sp::format_decision_log(example(), r);
  EXPECT_NE(log.find("#4 op 'fg' -> stream 2 (s1) | as written: program stream 4"), std::string::npos) << log;
  EXPECT_NE(log.find("#8 op 'all' -> stream 0 (legacy lane) | as written: legacy NULL stream"), std::string::npos)
      << log;
}

TEST(Replay, RefusesADagWorkload) {
  const sm::Workload dag = sm::parse_workload(
      R"({"format_version": 1, "name": "d", "ops": [{"id": "k", "kind": "kernel", "grid": 1, "block": 32,
          "duration": {"per_block_ns": 5}}]})",
      "d.json");
  sp::FakeBackend fake;
  sp::DispatchOptions o;
  o.source = "d.json";
  try {
    (void)replay(fake, dag, o);
    FAIL() << "replayed a DAG";
  } catch (const sm::InputError& e) {
    EXPECT_EQ(e.place(), "--policy");
    EXPECT_NE(std::string(e.what()).find("is a DAG"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fake.call_log().empty());  // refused before the backend was touched
}

TEST(Replay, SimTraceHasHostCallsOnTheProgramsStreams) {
  streamlab::sim::SimOptions so;
  streamlab::sim::SimBackend sim(sm::bundled_h100_profile(), so);
  const auto r = replay(sim, example());
  std::vector<const sm::Span*> calls, device;
  for (const auto& s : r.trace.spans) (s.host_call ? calls : device).push_back(&s);
  ASSERT_EQ(calls.size(), 9u);  // one per call, in issue order, back to back on one host thread
  ASSERT_EQ(device.size(), 4u);
  EXPECT_EQ(calls[0]->name, "cudaMemcpyAsync");
  EXPECT_EQ(calls[0]->start_ns, 5000);  // time 0 = the program's start; its first host gap comes first
  EXPECT_EQ(calls[5]->name, "cudaMemcpy");
  EXPECT_EQ(calls[8]->name, "cudaDeviceSynchronize");
  EXPECT_EQ(calls[8]->stream, 0u);
  for (std::size_t i = 1; i < calls.size(); ++i) {
    const sm::Nanos gap = example().ops[i].host_gap_ns;
    EXPECT_EQ(calls[i]->start_ns, calls[i - 1]->end_ns + gap) << calls[i]->op_id;
    EXPECT_EQ(calls[i]->engine, sm::Engine::host);
  }
  for (const auto* s : device) {
    const auto& op = example().ops[s->op];
    EXPECT_EQ(s->op_id, op.id);
    EXPECT_EQ(s->stream, *op.stream_hint) << s->op_id;  // declared ids (4, not the backend's 2)
  }
  // The blocking copy's call returns after the copy ends; the stream sync after everything on stream 1.
  const auto find = [&](const std::string& id) {
    return *std::find_if(device.begin(), device.end(), [&](const sm::Span* s) { return s->op_id == id; });
  };
  EXPECT_GE(calls[5]->end_ns, find("cp")->end_ns);
  EXPECT_GE(calls[6]->end_ns, find("bg")->end_ns);
  // The foreground kernel waited for the background one through the program's event pair.
  EXPECT_GE(find("fg")->start_ns, find("bg")->end_ns);
  // The GPU makespan leaves the host calls out.
  const sm::TraceMetrics m = sm::compute_metrics(r.trace);
  EXPECT_EQ(m.start_ns, find("up")->start_ns);
}

TEST(Replay, WhatIfRunsTheDagViewAndReportsProgramIndices) {
  for (const auto hints : {sp::HintMode::honor, sp::HintMode::ignore}) {
    sp::PolicyConfig cfg;
    cfg.hints = hints;
    auto policy = sp::make_policy("round-robin", cfg);
    sp::FakeBackend fake;
    const auto r = sp::dispatch(fake, example(), *policy);
    EXPECT_EQ(r.warnings.size(), hints == sp::HintMode::honor ? 1u : 0u);
    if (!r.warnings.empty()) {
      EXPECT_NE(r.warnings[0].find("decides nothing"), std::string::npos) << r.warnings[0];
    }
    EXPECT_EQ(r.trace.meta.workload_hash, example().hash());
    EXPECT_EQ(r.trace.meta.extra.at("program_view"), "dag");
    ASSERT_EQ(r.log.size(), 4u);  // the device work only
    for (const auto& d : r.log) EXPECT_TRUE(sm::does_device_work(example().ops[d.op].kind));
    for (const auto& s : r.trace.spans) EXPECT_EQ(example().ops[s.op].id, s.op_id);
    EXPECT_TRUE(fake.violations().empty());
  }
}

TEST(Replay, FullyHintedDagWarnsThatThePolicyDecidesNothing) {
  const sm::Workload w = sm::parse_workload(
      R"({"format_version": 1, "name": "pinned", "ops": [
          {"id": "a", "kind": "kernel", "stream": 1, "grid": 1, "block": 32, "duration": {"per_block_ns": 5}},
          {"id": "b", "kind": "kernel", "stream": 2, "grid": 1, "block": 32, "duration": {"per_block_ns": 5}}]})",
      "p.json");
  auto policy = sp::make_policy("load-balanced", {});
  sp::FakeBackend fake;
  const auto r = sp::dispatch(fake, w, *policy);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("policy 'load-balanced' decides nothing"), std::string::npos) << r.warnings[0];
}

TEST(Replay, HostCallSpansRoundTripThroughTheTraceFile) {
  streamlab::sim::SimBackend sim(sm::bundled_h100_profile(), {});
  const auto r = replay(sim, example());
  const std::string text = sm::trace_to_chrome_json(r.trace);
  EXPECT_EQ(sm::parse_chrome_trace(text, "t.json"), r.trace);
  EXPECT_NE(text.find(R"x("tid":1000000,"args":{"name":"host thread (API calls)"})x"), std::string::npos);
  // A host call on a device engine is refused, naming the place.
  std::string bad = text;
  const auto at = bad.find(R"("engine":"host","stream":1)");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, 15, R"("engine":"sm")");
  try {
    (void)sm::parse_chrome_trace(bad, "t.json");
    FAIL() << "accepted a host call on the SMs";
  } catch (const sm::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("host_call"), std::string::npos) << e.what();
  }
}
