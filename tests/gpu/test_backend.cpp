// The CUDA backend under the shared Dispatcher: stream kinds, measured traces (CUPTI and events), errors
// that name the op (fault, unsatisfiable allocation, timeout), the decision log against the FakeBackend,
// and graph capture + replay.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "streamlab/executor/cuda_backend.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/model/generators.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/fake_backend.hpp"
#include "streamlab/policies/registry.hpp"

namespace ex = streamlab::executor;
namespace model = streamlab::model;
namespace pol = streamlab::policies;
using namespace std::chrono_literals;

namespace {

/// An op and the ids of its deps, as a test writes them; make() adds them to a workload.
struct Node {
  model::Op op;
  std::vector<std::string> deps;
};

/// The texts of the tests' ops (they outlive every workload built from them).
model::Text text(const std::string& s) {
  static model::StringTable table;
  return table.intern(s);
}

Node kernel(const std::string& id, model::Nanos ns, std::uint32_t blocks = 1, std::uint32_t threads = 64,
            std::vector<std::string> deps = {}) {
  model::Op o;
  o.id = o.name = text(id);
  o.kind = model::OpKind::kernel;
  o.shape = model::KernelShape{{blocks, 1, 1}, {threads, 1, 1}, 32, 0};
  o.duration = model::FixedPerBlock{ns};
  return {o, std::move(deps)};
}

Node copy(const std::string& id, model::OpKind kind, std::uint64_t bytes, model::HostMemory mem = model::HostMemory::pinned,
               std::vector<std::string> deps = {}) {
  model::Op o;
  o.id = o.name = text(id);
  o.kind = kind;
  o.type = model::WorkloadType::memory;
  o.bytes = bytes;
  o.host_memory = mem;
  return {o, std::move(deps)};
}

model::Workload make(std::string name, const std::vector<Node>& ops) {
  model::Workload w;
  w.name = std::move(name);
  for (const Node& n : ops) w.add(n.op, n.deps);
  model::resolve_and_check(w, "<test>");
  return w;
}

const model::Span* span_of(const model::Trace& t, const std::string& id) {
  for (const auto& s : t.spans)
    if (s.op_id == id) return &s;
  return nullptr;
}

std::unique_ptr<pol::Policy> policy(const std::string& name, std::uint32_t streams, std::uint32_t window = 0) {
  pol::PolicyConfig c;
  c.streams = streams;
  c.window = window;
  return pol::make_policy(name, c);
}

constexpr model::Nanos kHostClockSlack = 50'000;

// Every dependency edge is honoured on the device: a span starts no earlier than each dep's end.
void expect_deps_respected(const model::Workload& w, const model::Trace& t, model::Nanos slack_ns) {
  std::map<std::string, const model::Span*> by_id;
  for (const auto& s : t.spans) by_id[s.op_id] = &s;
  for (model::OpIndex i = 0; i < w.ops.size(); ++i) {
    const model::Op& o = w.ops[i];
    const auto it = by_id.find(o.id);
    if (it == by_id.end()) continue;
    for (const std::string_view d : w.dep_ids(i)) {
      const auto dep = by_id.find(std::string(d));
      if (dep == by_id.end()) continue;
      // A host function's span is read on the host clock and mapped onto CUPTI's normalized GPU clock: the
      // mapping adds its own error (seen on the H100, 2026-11-21: 7.3 us once in four runs, then 19 us), so
      // those deps get kHostClockSlack. Tests with a host-function dep make it last far longer than that,
      // so an ignored dependency still shows.
      const model::Nanos slack = dep->second->kind == model::OpKind::host_func ? kHostClockSlack : slack_ns;
      EXPECT_GE(it->second->start_ns + slack, dep->second->end_ns)
          << o.id << " [" << it->second->start_ns << ", " << it->second->end_ns << "] started before its dep " << d
          << " [" << dep->second->start_ns << ", " << dep->second->end_ns << "] ended";
    }
  }
}

}  // namespace

TEST(CudaBackend, StreamKindsMapOntoCuda) {
  ex::CudaBackend be;
  const model::Workload w = make("empty", {kernel("k", 1000)});
  be.prepare(w);
  EXPECT_EQ(be.legacy_default_stream().value(), 0u);
  EXPECT_EQ(be.handle(be.legacy_default_stream()), cudaStreamLegacy);
  const auto [least, greatest] = be.priority_range();
  const pol::StreamId blocking = be.create_stream({greatest, pol::StreamKind::blocking, "b"});
  const pol::StreamId nonblocking = be.create_stream({least, pol::StreamKind::non_blocking, "n"});
  const pol::StreamId per_thread = be.create_stream({0, pol::StreamKind::per_thread_default, "p"});
  const pol::StreamId legacy = be.create_stream({0, pol::StreamKind::legacy_default, "l"});
  EXPECT_EQ(blocking.value(), 1u);
  EXPECT_EQ(legacy.value(), 4u);
  unsigned flags = 0;
  ASSERT_EQ(cudaStreamGetFlags(be.handle(blocking), &flags), cudaSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaStreamDefault));
  ASSERT_EQ(cudaStreamGetFlags(be.handle(nonblocking), &flags), cudaSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaStreamNonBlocking));
  int prio = 0;
  ASSERT_EQ(cudaStreamGetPriority(be.handle(blocking), &prio), cudaSuccess);
  EXPECT_EQ(prio, greatest);
  EXPECT_EQ(be.handle(per_thread), cudaStreamPerThread);
  EXPECT_EQ(be.handle(legacy), cudaStreamLegacy);
  be.enqueue(nonblocking, 0);
  EXPECT_EQ(be.synchronize_stream(nonblocking, 10'000'000'000), pol::WaitStatus::ready);
  const model::Trace t = be.finish();
  EXPECT_EQ(t.meta.backend, "cuda");
  EXPECT_FALSE(t.meta.device_name.empty());
  ASSERT_EQ(t.spans.size(), 1u);
  EXPECT_EQ(t.spans[0].stream, nonblocking.value());
}

TEST(CudaBackend, SingleKernelTraceAgreesWithEventsWithin3us) {
  if (streamlab::test::under_sanitizer()) GTEST_SKIP() << "timing is meaningless under compute-sanitizer";
  // A 2 ms kernel holds the stream while the host records A, launches k and records B, so the events
  // bracket k on the device and not the host's launch latency (which they would on an idle stream).
  const model::Workload w = make("one kernel", {kernel("hold", 2'000'000, 1, 32), kernel("k", 100'000, 132, 128)});
  // Both ways kernels are self-timed: block clocks mapped through CUPTI anchors, or through clock links.
  for (const ex::TimingMode mode : {ex::TimingMode::cupti, ex::TimingMode::gpu_timer}) {
    SCOPED_TRACE(std::string(ex::to_string(mode)));
    std::vector<double> diffs;
    for (int rep = 0; rep < 5; ++rep) {
      ex::CudaBackendOptions o;
      o.timing = mode;
      ex::CudaBackend be(o);
      try {
        be.prepare(w);
      } catch (const ex::CuptiUnavailable& e) {
        GTEST_SKIP() << "CUPTI unavailable: " << e.what();
      }
      ASSERT_EQ(be.timing(), mode);
      const pol::StreamId s = be.create_stream({0, pol::StreamKind::non_blocking, "s"});
      const pol::EventId a = be.create_event(pol::EventTiming::timed), b = be.create_event(pol::EventTiming::timed);
      be.enqueue(s, 0);
      be.record_event(a, s);
      be.enqueue(s, 1);
      be.record_event(b, s);
      ASSERT_FALSE(be.query_event(a)) << "the hold kernel ended before the events were issued";
      ASSERT_EQ(be.synchronize_event(b, 10'000'000'000), pol::WaitStatus::ready);
      const model::Nanos events_ns = be.elapsed(a, b);
      const model::Trace t = be.finish();
      const model::Span* k = span_of(t, "k");
      ASSERT_NE(k, nullptr);
      const model::Nanos span_ns = k->end_ns - k->start_ns;
      EXPECT_EQ(k->engine, model::Engine::sm);
      // The span is the blocks' own %globaltimer (self-timed kernels), mapped onto CUPTI's clock: the 100 us
      // the block spins, within the timer's step and the mapping's rounding.
      EXPECT_GE(span_ns, 100'000 - 512);
      diffs.push_back(static_cast<double>(events_ns - span_ns));
      std::printf("rep %d: events %lld ns, traced span %lld ns, diff %+lld ns\n", rep, static_cast<long long>(events_ns),
                  static_cast<long long>(span_ns), static_cast<long long>(events_ns - span_ns));
    }
    std::sort(diffs.begin(), diffs.end());
    // Measured on the H100: events exceed CUPTI's kernel span by 2.2-2.5 us (2026-11-21) and the blocks'
    // own span by 3.1-3.5 us (2026-11-23, self-timed kernels: CUPTI's span had ~0.8 us of pad around the
    // blocks). That is the front end's work between an event record and the kernel's first block (and
    // between its last block and the next record), which events include and the blocks' clock does not.
    EXPECT_LE(std::abs(diffs[2]), 4000.0) << "median |events - trace| over 5 runs";
  }
}

TEST(CudaBackend, GpuTimerPlacesKernelsAfterTheirLaunch) {
  if (streamlab::test::under_sanitizer()) GTEST_SKIP() << "timing is meaningless under compute-sanitizer";
  // On an idle device a kernel starts a few microseconds after its launch call began and well before
  // 1 ms: the clock links (before and after the run) put the blocks' %globaltimer onto the host clock.
  const model::Workload w = make("launch", {kernel("a", 50'000, 1, 32), kernel("b", 50'000, 4, 64)});
  ex::CudaBackend be;
  be.prepare(w);
  ASSERT_EQ(be.timing(), ex::TimingMode::gpu_timer) << "auto picks gpu-timer for a program without copies";
  const pol::StreamId s = be.create_stream({0, pol::StreamKind::non_blocking, "s"});
  std::vector<model::Nanos> called;
  for (model::OpIndex i = 0; i < 2; ++i) {
    called.push_back(be.now());
    be.enqueue(s, i);
    ASSERT_EQ(be.synchronize_stream(s, 10'000'000'000), pol::WaitStatus::ready);
  }
  const model::Trace t = be.finish();
  const double uncertainty = std::stod(t.meta.extra.at("clock_link_uncertainty_ns"));
  EXPECT_LT(uncertainty, 20'000.0) << "a mapped-memory round trip is a few microseconds";
  for (model::OpIndex i = 0; i < 2; ++i) {
    const model::Span* k = span_of(t, w.ops[i].id);
    ASSERT_NE(k, nullptr);
    EXPECT_GE(static_cast<double>(k->start_ns - called[i]), -uncertainty) << w.ops[i].id << " starts before its launch";
    EXPECT_LT(k->start_ns - called[i], 1'000'000) << w.ops[i].id;
    EXPECT_GE(k->end_ns - k->start_ns, 50'000 - 512) << w.ops[i].id;
  }
}

TEST(CudaBackend, GpuTimerLeavesCopiesUntimedAndTimesTheKernels) {
  if (streamlab::test::under_sanitizer()) GTEST_SKIP() << "timing is meaningless under compute-sanitizer";
  // Asked for explicitly, gpu-timer runs a program with copies: the kernel times itself, the copies get no
  // span (timing one makes the copy engine write a timestamp, which lengthens it), and the trace says so.
  // auto still times the copies.
  const model::Workload w = make("copies", {copy("up", model::OpKind::h2d, 1 << 20), kernel("k", 50'000, 4, 64, {"up"}),
                                            copy("down", model::OpKind::d2h, 1 << 20, model::HostMemory::pinned, {"k"})});
  ex::CudaBackendOptions o;
  o.timing = ex::TimingMode::gpu_timer;
  ex::CudaBackend be(o);
  be.prepare(w);
  ASSERT_EQ(be.timing(), ex::TimingMode::gpu_timer);
  const pol::StreamId s = be.create_stream({0, pol::StreamKind::non_blocking, "s"});
  const model::Nanos called = be.now();
  for (model::OpIndex i = 0; i < 3; ++i) be.enqueue(s, i);
  ASSERT_EQ(be.synchronize_stream(s, 10'000'000'000), pol::WaitStatus::ready);
  const model::Trace t = be.finish();
  EXPECT_EQ(span_of(t, "up"), nullptr);
  EXPECT_EQ(span_of(t, "down"), nullptr);
  const model::Span* k = span_of(t, "k");
  ASSERT_NE(k, nullptr);
  const double uncertainty = std::stod(t.meta.extra.at("clock_link_uncertainty_ns"));
  EXPECT_GE(static_cast<double>(k->start_ns - called), -uncertainty) << "the kernel starts after the first call";
  EXPECT_GE(k->end_ns - k->start_ns, 50'000 - 512);
  EXPECT_EQ(t.meta.extra.at("untimed_ops"), "2");
  EXPECT_NE(t.meta.extra.at("clock").find("copies and memsets: not timed"), std::string::npos);

  ex::CudaBackend automatic;
  try {
    automatic.prepare(w);
  } catch (const ex::CuptiUnavailable& e) {
    GTEST_SKIP() << "CUPTI unavailable: " << e.what();
  }
  EXPECT_NE(automatic.timing(), ex::TimingMode::gpu_timer) << "auto times copies (CUPTI, else events)";
}

TEST(CudaBackend, RecordBlocksPutsEveryBlockInsideItsKernelsSpan) {
  if (streamlab::test::under_sanitizer()) GTEST_SKIP() << "timing is meaningless under compute-sanitizer";
  // 4 blocks and 264 blocks (two waves' worth of slots on some SMs at 1024 threads): every block is in the
  // trace once, on a real SM, and inside its kernel's span, whose ends are its first start and last end.
  const model::Workload w = make("blocks", {kernel("four", 20'000, 4, 64), kernel("many", 20'000, 264, 1024)});
  ex::CudaBackendOptions o;
  o.record_blocks = true;
  ex::CudaBackend be(o);
  be.prepare(w);
  ASSERT_EQ(be.timing(), ex::TimingMode::gpu_timer);
  const pol::StreamId s = be.create_stream({0, pol::StreamKind::non_blocking, "s"});
  be.enqueue(s, 0);
  be.enqueue(s, 1);
  ASSERT_EQ(be.synchronize_stream(s, 10'000'000'000), pol::WaitStatus::ready);
  const model::Trace t = be.finish();
  ASSERT_EQ(t.blocks.size(), 4u + 264u);
  const int sms = ex::query_device(0).props.multiProcessorCount;
  for (model::OpIndex i = 0; i < 2; ++i) {
    const model::Span* k = span_of(t, w.ops[i].id);
    ASSERT_NE(k, nullptr);
    model::Nanos first = k->end_ns, last = k->start_ns;
    std::set<std::uint32_t> seen;
    for (const auto& b : t.blocks) {
      if (b.op != i) continue;
      EXPECT_TRUE(seen.insert(b.block).second) << "block " << b.block << " twice";
      EXPECT_LT(b.sm, static_cast<std::uint32_t>(sms));
      EXPECT_GE(b.end_ns - b.start_ns, 20'000 - 512);
      first = std::min(first, b.start_ns);
      last = std::max(last, b.end_ns);
    }
    EXPECT_EQ(seen.size(), w.ops[i].shape->blocks()) << w.ops[i].id;
    EXPECT_EQ(first, k->start_ns) << w.ops[i].id;
    EXPECT_EQ(last, k->end_ns) << w.ops[i].id;
  }
  ex::CudaBackend plain;  // off by default: no blocks
  plain.prepare(w);
  const pol::StreamId s2 = plain.create_stream({0, pol::StreamKind::non_blocking, "s"});
  plain.enqueue(s2, 0);
  ASSERT_EQ(plain.synchronize_stream(s2, 10'000'000'000), pol::WaitStatus::ready);
  EXPECT_TRUE(plain.finish().blocks.empty());
}

TEST(CudaBackend, DispatcherRunHonoursEveryDependencyOnTheDevice) {
  model::gen::ChunkedCopyCompute p;
  p.chunks = 6;
  p.streams = 3;
  p.bytes_per_chunk = 2u << 20;
  p.kernel_ns_per_block = 50'000;
  const model::Workload w = model::gen::chunked_copy_compute(p);
  for (const ex::TimingMode mode : {ex::TimingMode::automatic, ex::TimingMode::events}) {
    ex::CudaBackendOptions o;
    o.timing = mode;
    ex::CudaBackend be(o);
    auto pl = policy("round-robin", 3);
    const pol::DispatchResult r = pol::dispatch(be, w, *pl);
    EXPECT_EQ(r.trace.spans.size(), w.ops.size()) << "timing " << ex::to_string(be.timing());
    EXPECT_EQ(r.trace.meta.policy, "round-robin");
    EXPECT_EQ(r.trace.meta.workload_hash, w.hash());
    // CUPTI gives device timestamps: exact ordering. Events: 0.5 us resolution.
    expect_deps_respected(w, r.trace, be.timing() == ex::TimingMode::cupti ? 0 : 1000);
    for (const auto& s : r.trace.spans) {
      EXPECT_GE(s.start_ns, 0) << s.op_id;
      EXPECT_GT(s.end_ns, s.start_ns) << s.op_id;
    }
  }
}

TEST(CudaBackend, EveryOpKindRunsAndGetsASpan) {
  Node h2d = copy("h2d", model::OpKind::h2d, 1 << 20);
  Node h2d_pageable = copy("h2d-pageable", model::OpKind::h2d, 1 << 20, model::HostMemory::pageable);
  Node d2d = copy("d2d", model::OpKind::d2d, 4 << 20, model::HostMemory::pinned, {"h2d"});
  Node ms = copy("memset", model::OpKind::memset, 4 << 20);
  Node pf = copy("prefetch", model::OpKind::prefetch, 1 << 20);
  Node d2h = copy("d2h", model::OpKind::d2h, 1 << 20, model::HostMemory::pinned, {"d2d", "memset"});
  Node hf;
  hf.op.id = hf.op.name = "host-fn";
  hf.op.kind = model::OpKind::host_func;
  hf.op.type = model::WorkloadType::coordination;
  hf.op.host_ns = 6 * kHostClockSlack;  // an ignored dependency would start the barrier ~300 us early
  hf.deps = {"d2h"};
  Node tp;
  tp.op.id = tp.op.name = "tasks";
  tp.op.kind = model::OpKind::task_pool;
  tp.op.shape = model::KernelShape{{8, 1, 1}, {64, 1, 1}, 32, 0};
  tp.op.tasks = model::TaskList{std::vector<model::Nanos>(40, 10'000), model::TaskAssignment::dynamic_queue};
  tp.deps = {"prefetch"};
  Node cost = kernel("cost", 0, 132, 256);
  cost.op.duration = model::CostModel{64e6, 1e9};
  Node list = kernel("per-block", 0, 4, 64);
  list.op.duration = model::PerBlockList{{10'000, 20'000, 30'000, 40'000}};
  Node bar;
  bar.op.id = bar.op.name = "barrier";
  bar.op.kind = model::OpKind::barrier;
  bar.op.type = model::WorkloadType::coordination;
  bar.deps = {"host-fn", "tasks", "cost", "per-block", "h2d-pageable"};
  Node last = kernel("after-barrier", 20'000, 1, 32, {"barrier"});
  const model::Workload w = make("every kind", {h2d, h2d_pageable, d2d, ms, pf, d2h, hf, tp, cost, list, bar, last});
  ex::CudaBackend be;
  auto pl = policy("round-robin", 4);
  const pol::DispatchResult r = pol::dispatch(be, w, *pl);
  for (const auto& o : w.ops) {
    const model::Span* s = span_of(r.trace, o.id);
    ASSERT_NE(s, nullptr) << "no span for " << o.id << " (timing " << ex::to_string(be.timing()) << ")";
    EXPECT_EQ(s->engine, model::engine_for(o.kind)) << o.id;
  }
  const model::Span* host_fn = span_of(r.trace, "host-fn");
  const model::Span* tasks = span_of(r.trace, "tasks");
  ASSERT_TRUE(host_fn != nullptr && tasks != nullptr);
  EXPECT_GE(host_fn->end_ns - host_fn->start_ns, hf.op.host_ns);
  EXPECT_GE(tasks->end_ns - tasks->start_ns, 5 * 10'000);  // 40 tasks over 8 workers
  expect_deps_respected(w, r.trace, 5'000);  // host and event-timed spans sit on other clocks
}

TEST(CudaBackend, ABarrierSitsWhereItsDependenciesAndItsStreamEnded) {
  // A fork-join: four kernels on four streams, a barrier joining them, four more after it. The barrier
  // does no device work: its span has zero length at the latest end among the kernels it joins (and its
  // stream's previous op), never before them (timed by events it once landed 90-360 us before them).
  std::vector<Node> nodes;
  std::vector<std::string> fork;
  for (int k = 0; k < 4; ++k) {
    nodes.push_back(kernel("fork" + std::to_string(k), 20'000 + 10'000 * k, 8, 128));
    fork.push_back("fork" + std::to_string(k));
  }
  Node bar;
  bar.op.id = bar.op.name = "join";
  bar.op.kind = model::OpKind::barrier;
  bar.op.type = model::WorkloadType::coordination;
  bar.deps = fork;
  nodes.push_back(bar);
  for (int k = 0; k < 4; ++k) nodes.push_back(kernel("after" + std::to_string(k), 20'000, 8, 128, {"join"}));
  const model::Workload w = make("fork-join", nodes);
  ex::CudaBackend be;
  auto pl = policy("round-robin", 4);
  const pol::DispatchResult r = pol::dispatch(be, w, *pl);
  const model::Span* join = span_of(r.trace, "join");
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(join->start_ns, join->end_ns);
  model::Nanos latest = 0;
  for (const auto& id : fork) {
    const model::Span* f = span_of(r.trace, id);
    ASSERT_NE(f, nullptr) << id;
    latest = std::max(latest, f->end_ns);
  }
  EXPECT_GE(join->start_ns, latest);
  for (int k = 0; k < 4; ++k) {
    const model::Span* a = span_of(r.trace, "after" + std::to_string(k));
    ASSERT_NE(a, nullptr);
    EXPECT_GE(a->start_ns, join->end_ns) << k;
  }
  for (const auto& s : r.trace.spans) EXPECT_GE(s.start_ns, 0) << s.op_id;
  expect_deps_respected(w, r.trace, 0);
}

TEST(CudaBackend, UnsatisfiableAllocationNamesTheOp) {
  // 8 TiB: inside the input limit on one op's bytes (16 TiB), beyond any device's memory.
  const model::Workload w = make("huge", {copy("huge-upload", model::OpKind::h2d, std::uint64_t{1} << 43)});
  ex::CudaBackend be;
  try {
    be.prepare(w);
    FAIL() << "prepare allocated 8 TiB";
  } catch (const ex::CudaError& e) {
    EXPECT_EQ(e.status(), cudaErrorMemoryAllocation);
    EXPECT_NE(std::string(e.what()).find("op 'huge-upload'"), std::string::npos) << e.what();
  }
}

TEST(CudaBackend, WaitThatTimesOutNamesTheOp) {
  const model::Workload w = make("slow", {kernel("slow-kernel", 300'000'000), kernel("next", 1'000, 1, 32, {"slow-kernel"})});
  {
    ex::CudaBackend be;
    be.prepare(w);
    const pol::StreamId s = be.create_stream({0, pol::StreamKind::non_blocking, "s"});
    be.enqueue(s, 0);
    EXPECT_EQ(be.synchronize_stream(s, 2'000'000), pol::WaitStatus::timed_out);
    try {
      be.synchronize_stream_or_throw(s, 2'000'000);
      FAIL() << "no timeout";
    } catch (const ex::TimeoutError& e) {
      EXPECT_NE(std::string(e.what()).find("op 'slow-kernel'"), std::string::npos) << e.what();
    }
  }
  // Through the Dispatcher: a window of 1 makes it block on the slow op.
  ex::CudaBackend be;
  auto pl = policy("round-robin", 1, 1);
  pol::DispatchOptions d;
  d.timeout_ns = 5'000'000;
  try {
    (void)pol::dispatch(be, w, *pl, d);
    FAIL() << "no timeout";
  } catch (const pol::DispatchTimeout& e) {
    EXPECT_EQ(e.op_id(), "slow-kernel");
    EXPECT_NE(std::string(e.what()).find("slow-kernel"), std::string::npos) << e.what();
  }
}

TEST(CudaBackendDeathTest, FaultingKernelNamesTheOpWithoutHanging) {
  const model::Workload w = make("fault", {kernel("fine", 1'000), kernel("boom", 1'000, 1, 32, {"fine"})});
  EXPECT_EXIT(
      {
        ex::CudaBackendOptions o;
        o.fault_op = 1;
        ex::CudaBackend be(o);
        be.prepare(w);
        const pol::StreamId s = be.create_stream({0, pol::StreamKind::non_blocking, "s"});
        be.enqueue(s, 0);
        be.enqueue(s, 1);
        try {
          (void)be.synchronize_stream(s, 10'000'000'000);
        } catch (const ex::CudaError& e) {
          std::fprintf(stderr, "%s sticky=%d\n", e.what(), e.sticky() ? 1 : 0);
          std::_Exit(3);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(3), "cudaErrorIllegalAddress.*op 'boom'.*sticky=1");
}

TEST(CudaBackend, DecisionLogMatchesTheFakeBackendForTheSameCompletionOrder) {
  if (streamlab::test::under_sanitizer()) GTEST_SKIP() << "completion order depends on timing";
  // Independent kernels of well-separated lengths: completions never coincide, and none happens during
  // an issue burst, so what the host observes is fixed by the completion order alone.
  std::vector<Node> ops;
  for (int i = 0; i < 9; ++i) ops.push_back(kernel("k" + std::to_string(i), 1'500'000 + 900'000 * ((i * 5) % 9)));
  ops.push_back(kernel("join", 10'000, 1, 32, {"k0", "k4", "k8"}));
  const model::Workload w = make("separated", ops);
  for (const std::string name : {"round-robin", "load-balanced", "work-stealing"}) {
    // The completion order is the device's (CUPTI end times), not the order the host happened to observe.
    ex::CudaBackendOptions o;
    o.timing = ex::TimingMode::cupti;
    ex::CudaBackend cuda(o);
    auto p1 = policy(name, 3, 2);
    pol::DispatchResult rc;
    try {
      rc = pol::dispatch(cuda, w, *p1);
    } catch (const ex::CuptiUnavailable& e) {
      GTEST_SKIP() << "needs CUPTI for the device completion order: " << e.what();
    }
    std::vector<model::Span> spans = rc.trace.spans;
    ASSERT_EQ(spans.size(), w.ops.size());
    std::sort(spans.begin(), spans.end(), [](const model::Span& a, const model::Span& b) {
      return a.end_ns != b.end_ns ? a.end_ns < b.end_ns : a.op < b.op;
    });
    std::vector<model::OpIndex> order;
    for (const auto& sp : spans) order.push_back(sp.op);

    pol::FakeOptions fo;
    fo.completion = pol::FakeCompletion::scripted;
    fo.script = order;
    fo.priority_range = cuda.priority_range();
    pol::FakeBackend fake(fo);
    auto p2 = policy(name, 3, 2);
    pol::DispatchOptions d2;
    const pol::DispatchResult rf = pol::dispatch(fake, w, *p2, d2);
    EXPECT_EQ(pol::format_decision_log(w, rc), pol::format_decision_log(w, rf)) << "policy " << name;
  }
}

TEST(CudaBackend, GraphModeCapturesTheDispatchersProgramAndReplaysIt) {
  model::gen::ForkJoin p;
  p.width = 4;
  p.stages = 3;
  p.kernel_ns = 20'000;
  const model::Workload w = model::gen::fork_join(p);
  ex::CudaBackendOptions o;
  o.capture_graph = true;
  ex::CudaBackend be(o);
  auto pl = policy("round-robin", 4);
  const pol::DispatchResult r = pol::dispatch(be, w, *pl);
  EXPECT_TRUE(r.trace.spans.empty());  // captured, not run
  ASSERT_TRUE(be.graph().valid());
  std::size_t working_ops = 0;  // barriers join streams but are no graph node
  for (const auto& op : w.ops) working_ops += op.kind == model::OpKind::barrier ? 0 : 1;
  EXPECT_GE(be.graph().node_count(), working_ops);
  const ex::GraphReplayStats st = be.replay(5, 1);
  EXPECT_EQ(st.replays, 5u);
  EXPECT_GT(st.device_ns, 0.0);
  EXPECT_GT(st.host_ns_per_node(), 0.0);
  if (be.timing() == ex::TimingMode::cupti) {
    const model::Trace t = be.replay_trace();
    EXPECT_EQ(t.spans.size(), working_ops) << "graph nodes matched to ops through CUPTI graph node ids";
    expect_deps_respected(w, t, 0);
  }
  // Graph mode refuses to block (a window makes the Dispatcher wait for completions).
  ex::CudaBackend be2(o);
  auto windowed = policy("round-robin", 2, 1);
  EXPECT_THROW((void)pol::dispatch(be2, w, *windowed), std::logic_error);
}
