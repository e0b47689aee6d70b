// Host cost of issuing a 10,000-op DAG through the Dispatcher + CudaBackend, against hand-written CUDA
// issuing the same program (the same kernels, on the same streams, with the same event records and
// waits), measured alternately in one run; the cost of replaying the same program as a CUDA graph; and
// the measuring cost: a program replayed through the Dispatcher + CudaBackend with tracing on against the
// hand-written untraced program making the same calls.
// Without a CUDA device the program says so and exits 0.
#include <algorithm>
#include <chrono>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "streamlab/executor/cuda_backend.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/executor/kernels.hpp"
#include "streamlab/model/generators.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"

namespace ex = streamlab::executor;
namespace model = streamlab::model;
namespace pol = streamlab::policies;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::uint32_t kOps = 10'000;
constexpr std::uint32_t kStreams = 8;

// A random layered DAG of tiny kernels (one 32-thread block that returns at once): the device keeps up,
// so the numbers are the host's issue cost.
const model::Workload& workload() {
  static const model::Workload w = [] {
    model::gen::RandomDag p;
    p.ops = kOps;
    p.layers = 100;
    p.edge_probability = 0.02;
    p.max_deps = 3;
    p.seed = 7;
    model::Workload g = model::gen::random_dag(p);
    for (auto& o : g.ops) {
      o.kind = model::OpKind::kernel;
      o.shape = model::KernelShape{{1, 1, 1}, {32, 1, 1}, 32, 0};
      o.duration = model::FixedPerBlock{0};
      o.stream_hint.reset();
    }
    return g;
  }();
  return w;
}

std::unique_ptr<pol::Policy> round_robin() {
  pol::PolicyConfig c;
  c.streams = kStreams;
  c.hints = pol::HintMode::ignore;
  return pol::make_policy("round-robin", c);
}

/// Forwards to a backend and notes when stream creation (after prepare()) ended and when the Dispatcher
/// first blocked on the device (with a static policy and no window, that is the final synchronize
/// after the last issue): the issue phase lies between the two. Two clock reads per run, none per op.
class Stopwatch final : public pol::Backend {
 public:
  explicit Stopwatch(pol::Backend& b) : b_(b) {}
  std::string_view name() const noexcept override { return b_.name(); }
  void prepare(const model::Workload& w) override { b_.prepare(w); }
  std::pair<int, int> priority_range() const override { return b_.priority_range(); }
  pol::StreamId create_stream(const pol::StreamDesc& d) override {
    const auto s = b_.create_stream(d);
    issue_start_ = Clock::now();
    return s;
  }
  pol::StreamId legacy_default_stream() override { return b_.legacy_default_stream(); }
  void enqueue(pol::StreamId s, model::OpIndex op) override { b_.enqueue(s, op); }
  void launch_host_func(pol::StreamId s, std::function<void()> fn) override { b_.launch_host_func(s, std::move(fn)); }
  pol::EventId create_event(pol::EventTiming t) override { return b_.create_event(t); }
  void destroy_event(pol::EventId e) override { b_.destroy_event(e); }
  void record_event(pol::EventId e, pol::StreamId s) override { b_.record_event(e, s); }
  void stream_wait_event(pol::StreamId s, pol::EventId e) override { b_.stream_wait_event(s, e); }
  bool query_event(pol::EventId e) override { return b_.query_event(e); }
  bool query_stream(pol::StreamId s) override { return b_.query_stream(s); }
  model::Nanos elapsed(pol::EventId a, pol::EventId b) override { return b_.elapsed(a, b); }
  pol::WaitStatus synchronize_event(pol::EventId e, model::Nanos t) override {
    blocked();
    return b_.synchronize_event(e, t);
  }
  pol::WaitStatus synchronize_stream(pol::StreamId s, model::Nanos t) override {
    blocked();
    return b_.synchronize_stream(s, t);
  }
  pol::WaitStatus synchronize_device(model::Nanos t) override {
    blocked();
    return b_.synchronize_device(t);
  }
  std::optional<std::size_t> wait_any_event(std::span<const pol::EventId> e, model::Nanos t) override {
    blocked();
    return b_.wait_any_event(e, t);
  }
  void blocked() {
    if (last_ == Clock::time_point{}) last_ = Clock::now();
  }
  model::Nanos now() override { return b_.now(); }
  void host_work(model::Nanos ns) override { b_.host_work(ns); }
  model::Trace finish() override { return b_.finish(); }

  Clock::time_point issue_start_{};
  Clock::time_point last_{};

 private:
  pol::Backend& b_;
};

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// One Dispatcher run; returns the host time of its issue loop (from the end of stream creation to the
/// last enqueue / record / wait). Planning and the deadlock check run before prepare(); they are reported
/// separately (DispatchStats::plan_ns).
double dispatcher_issue_ms(pol::DispatchResult* keep = nullptr, std::size_t prewarm_events = 0) {
  ex::CudaBackendOptions o;
  // The hand-written side creates its events before timing; pre-creating as many in the backend's pool
  // gives the Dispatcher the same treatment (0 = the pool's default, growing on demand while timed).
  if (prewarm_events > 0) o.event_pool.initial_untimed = prewarm_events;
  o.timing = ex::TimingMode::none;  // measured traces cost per-op work; the issue path is what is timed
  o.nvtx = true;
  ex::CudaBackend be(o);
  Stopwatch sw(be);
  auto p = round_robin();
  pol::DispatchOptions d;
  d.keep_log = false;
  d.measure_cpu = false;  // a statistics knob: two clock reads per op the hand-written side does not make
  static const std::string hash = workload().hash();
  d.workload_hash = hash;
  pol::DispatchResult r = pol::dispatch(sw, workload(), *p, d);
  const double issue = ms(sw.last_ - sw.issue_start_);
  if (keep != nullptr) *keep = std::move(r);
  return issue;
}

void BM_IssueDag10k_DispatcherVsHandWritten(benchmark::State& state) {
  // The program to replay by hand: one logged Dispatcher run.
  ex::CudaBackendOptions lo;
  lo.timing = ex::TimingMode::none;
  lo.log_calls = true;
  ex::CudaBackend logged(lo);
  {
    auto p = round_robin();
    (void)pol::dispatch(logged, workload(), *p);
  }
  const std::vector<ex::IssuedCall> calls = logged.issued_calls();
  std::uint32_t max_event = 0;
  std::size_t records = 0, waits = 0;
  for (const auto& c : calls) {
    if (c.kind != ex::IssuedCall::Kind::op) max_event = std::max(max_event, c.index);
    records += c.kind == ex::IssuedCall::Kind::record ? 1 : 0;
    waits += c.kind == ex::IssuedCall::Kind::wait ? 1 : 0;
  }
  std::vector<cudaEvent_t> events(max_event + 1);
  for (auto& e : events) STREAMLAB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  // The logged backend still owns the streams and the prepared workload: issue through it by hand.
  logged.prepare(workload());
  std::vector<cudaStream_t> streams;
  for (std::uint32_t i = 0; i <= kStreams; ++i) streams.push_back(i == 0 ? cudaStreamLegacy : logged.handle(pol::StreamId{i}));

  auto hand_written_ms = [&] {
    STREAMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = Clock::now();
    for (const auto& c : calls) {
      const cudaStream_t s = streams[c.stream];
      switch (c.kind) {
        case ex::IssuedCall::Kind::op: logged.issue_raw(s, c.index); break;
        case ex::IssuedCall::Kind::record: STREAMLAB_CUDA_CHECK(cudaEventRecord(events[c.index], s)); break;
        case ex::IssuedCall::Kind::wait: STREAMLAB_CUDA_CHECK(cudaStreamWaitEvent(s, events[c.index], 0)); break;
        case ex::IssuedCall::Kind::host_func: break;
      }
    }
    const double t = ms(Clock::now() - t0);
    STREAMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    return t;
  };

  std::vector<double> disp, disp_cold, raw;
  pol::DispatchResult sample;
  (void)dispatcher_issue_ms(&sample);  // warm-up both paths
  (void)hand_written_ms();
  const std::size_t live_events = sample.stats.events_created;
  for (auto _ : state) {
    for (int r = 0; r < 7; ++r) {
      disp.push_back(dispatcher_issue_ms(nullptr, live_events));
      raw.push_back(hand_written_ms());
      disp_cold.push_back(dispatcher_issue_ms());
    }
  }
  const double d = median(disp), h = median(raw), dc = median(disp_cold);
  state.counters["dispatcher_cold_pool_ms"] = dc;
  state.counters["ratio_cold_pool"] = dc / h;
  state.counters["dispatcher_ms"] = d;
  state.counters["hand_written_ms"] = h;
  state.counters["ratio"] = d / h;
  state.counters["dispatcher_ns_per_op"] = d * 1e6 / kOps;
  state.counters["hand_written_ns_per_op"] = h * 1e6 / kOps;
  state.counters["records"] = static_cast<double>(records);
  state.counters["waits"] = static_cast<double>(waits);
  const pol::DispatchStats& st = sample.stats;
  state.counters["plan_ms"] = static_cast<double>(st.plan_ns) / 1e6;
  state.counters["queries"] = static_cast<double>(st.queries);
  state.counters["events_created"] = static_cast<double>(st.events_created);
  {
    std::vector<double> per_call;
    for (int r = 0; r < 5; ++r) {
      const auto t0 = Clock::now();
      Clock::time_point x{};
      for (int i = 0; i < 100'000; ++i) x = std::max(x, Clock::now());
      per_call.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / 100'000);
    }
    state.counters["steady_clock_now_ns"] = median(per_call);
    std::printf("host clock read (steady_clock::now): %.1f ns; the Dispatcher reads the backend clock twice per op\n",
                median(per_call));
  }
  std::printf("dispatcher run: plan + deadlock check %.3f ms (before prepare, not in the ratio), %llu queries, "
              "%llu events created, %llu reused, own bookkeeping %.1f ns/op\n",
              static_cast<double>(st.plan_ns) / 1e6, static_cast<unsigned long long>(st.queries),
              static_cast<unsigned long long>(st.events_created), static_cast<unsigned long long>(st.events_reused),
              static_cast<double>(st.cpu_ns) / kOps);
  std::printf("issue 10,000-op DAG (%zu records, %zu waits, %u streams): Dispatcher+CudaBackend %.3f ms, "
              "hand-written CUDA %.3f ms, ratio %.3f (median of 7 alternating runs; %zu events pre-created on both "
              "sides); with the backend's default event pool growing while timed: %.3f ms, ratio %.3f\n",
              records, waits, kStreams, d, h, d / h, live_events, dc, dc / h);
  for (auto& e : events) STREAMLAB_CUDA_CHECK(cudaEventDestroy(e));
}
BENCHMARK(BM_IssueDag10k_DispatcherVsHandWritten)->Iterations(1)->Unit(benchmark::kMillisecond);

/// A backend whose calls do nothing (every event complete): what the Dispatcher's own loop costs per op
/// on this host, for the breakdown of the ratio above.
class NullBackend final : public pol::Backend {
 public:
  std::string_view name() const noexcept override { return "null"; }
  void prepare(const model::Workload&) override {}
  std::pair<int, int> priority_range() const override { return {0, -5}; }
  pol::StreamId create_stream(const pol::StreamDesc&) override {
    issue_start_ = Clock::now();
    return pol::StreamId{++streams_};
  }
  pol::StreamId legacy_default_stream() override { return pol::StreamId{0u}; }
  void enqueue(pol::StreamId, model::OpIndex) override {}
  void launch_host_func(pol::StreamId, std::function<void()>) override {}
  pol::EventId create_event(pol::EventTiming) override { return pol::EventId{events_++}; }
  void destroy_event(pol::EventId) override {}
  void record_event(pol::EventId, pol::StreamId) override {}
  void stream_wait_event(pol::StreamId, pol::EventId) override {}
  bool query_event(pol::EventId) override { return false; }  // like a busy GPU: every wait is inserted
  bool query_stream(pol::StreamId) override { return false; }
  model::Nanos elapsed(pol::EventId, pol::EventId) override { return 0; }
  pol::WaitStatus synchronize_event(pol::EventId, model::Nanos) override { return end(); }
  pol::WaitStatus synchronize_stream(pol::StreamId, model::Nanos) override { return end(); }
  pol::WaitStatus synchronize_device(model::Nanos) override { return end(); }
  std::optional<std::size_t> wait_any_event(std::span<const pol::EventId>, model::Nanos) override {
    end();
    return 0;
  }
  model::Nanos now() override { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count(); }
  void host_work(model::Nanos) override {}
  model::Trace finish() override { return {}; }
  pol::WaitStatus end() {
    if (last_ == Clock::time_point{}) last_ = Clock::now();
    return pol::WaitStatus::ready;
  }
  Clock::time_point issue_start_{}, last_{};

 private:
  std::uint32_t streams_ = 0, events_ = 0;
};

void BM_DispatcherLoopOnNullBackend(benchmark::State& state) {
  std::vector<double> v;
  for (auto _ : state) {
    for (int r = 0; r < 7; ++r) {
      NullBackend nb;
      auto p = round_robin();
      pol::DispatchOptions d;
      d.keep_log = false;
      d.measure_cpu = false;
      static const std::string hash = workload().hash();
      d.workload_hash = hash;
      (void)pol::dispatch(nb, workload(), *p, d);
      v.push_back(ms(nb.last_ - nb.issue_start_));
    }
  }
  const double m = median(v);
  state.counters["dispatcher_only_ms"] = m;
  state.counters["dispatcher_only_ns_per_op"] = m * 1e6 / kOps;
  std::printf("the Dispatcher's own issue loop on a do-nothing backend (same DAG, same policy): %.3f ms, %.0f ns/op\n",
              m, m * 1e6 / kOps);
}
BENCHMARK(BM_DispatcherLoopOnNullBackend)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_GraphReplayDag10k(benchmark::State& state) {
  ex::CudaBackendOptions o;
  o.timing = ex::TimingMode::none;
  o.capture_graph = true;
  ex::CudaBackend be(o);
  auto p = round_robin();
  const auto t0 = Clock::now();
  (void)pol::dispatch(be, workload(), *p);
  const double capture_ms = ms(Clock::now() - t0);
  ex::GraphReplayStats st;
  for (auto _ : state) st = be.replay(20, 3);
  state.counters["nodes"] = static_cast<double>(st.nodes);
  state.counters["capture_ms"] = capture_ms;
  state.counters["host_launch_us"] = st.host_launch_ns / 1e3;
  state.counters["host_ns_per_node"] = st.host_ns_per_node();
  state.counters["device_us"] = st.device_ns / 1e3;
  state.counters["device_ns_per_node"] = st.device_ns_per_node();
  std::printf("graph of the same DAG: %zu nodes, capture %.2f ms; replay: cudaGraphLaunch %.1f us host (%.2f ns/node), "
              "%.1f us device (%.1f ns/node)\n",
              st.nodes, capture_ms, st.host_launch_ns / 1e3, st.host_ns_per_node(), st.device_ns / 1e3,
              st.device_ns_per_node());
}
BENCHMARK(BM_GraphReplayDag10k)->Iterations(1)->Unit(benchmark::kMillisecond);

// A program of 9,000 calls on 8 streams, replayed: 6,000 one-block kernels of 0 ns round-robin over the
// streams, and after every 4th kernel an event record on its stream and a wait for it on the next stream.
// The device keeps up, so the numbers are the host's issue cost.
constexpr std::uint32_t kProgramKernels = 6'000;

const model::Workload& program() {
  static const model::Workload w = [] {
    std::string j = R"({"format_version":2,"name":"issue-program","program":true,"streams":[)";
    for (std::uint32_t s = 1; s <= kStreams; ++s) {
      if (s > 1) j += ',';
      j += R"({"id":)";
      j += std::to_string(s);
      j += R"(,"priority":0,"kind":"non-blocking"})";
    }
    j += R"(],"ops":[)";
    auto call = [&](const char* id_prefix, std::uint32_t i, const char* kind, std::uint32_t stream, const char* rest) {
      if (j.back() != '[') j += ',';
      j += R"({"id":")";
      j += id_prefix;
      j += std::to_string(i);
      j += R"(","kind":")";
      j += kind;
      j += R"(","stream":)";
      j += std::to_string(stream);
      j += rest;
      if (kind[0] == 'e') {  // event_record / event_wait name the event of kernel i
        j += R"(,"event":"e)";
        j += std::to_string(i);
        j += '"';
      }
      j += '}';
    };
    for (std::uint32_t i = 0; i < kProgramKernels; ++i) {
      const std::uint32_t s = i % kStreams + 1;
      call("k", i, "kernel", s, R"(,"grid":1,"block":32,"duration":{"per_block_ns":0})");
      if (i % 4 == 3) {
        call("r", i, "event_record", s, "");
        call("w", i, "event_wait", (i + 1) % kStreams + 1, "");
      }
    }
    j += "]}";
    return model::parse_workload(j, "<bench program>");
  }();
  return w;
}

/// One replay through Dispatcher + CudaBackend; returns the host time from the program's first call to
/// the end of its last (its host-lane spans, which the replay times with the backend's clock).
double replay_issue_ms(ex::TimingMode timing, std::string* timing_used = nullptr) {
  ex::CudaBackendOptions o;
  o.timing = timing;
  ex::CudaBackend be(o);
  auto p = pol::make_policy("replay", pol::PolicyConfig{});
  pol::DispatchOptions d;
  static const std::string hash = program().hash();
  d.workload_hash = hash;
  const pol::DispatchResult r = pol::dispatch(be, program(), *p, d);
  model::Nanos first = -1, last = 0;
  for (const auto& s : r.trace.spans) {
    if (s.engine != model::Engine::host) continue;
    first = first < 0 ? s.start_ns : std::min(first, s.start_ns);
    last = std::max(last, s.end_ns);
  }
  if (first < 0) throw std::runtime_error("replay trace has no host-lane spans");
  if (timing_used != nullptr) *timing_used = r.trace.meta.extra.count("clock") ? r.trace.meta.extra.at("clock") : "";
  return static_cast<double>(last - first) / 1e6;
}

void BM_ProgramReplay_TracedVsHandWritten(benchmark::State& state) {
  const model::Workload& w = program();
  // The hand-written program: the same calls on streams and events made before the clock starts.
  std::vector<cudaStream_t> streams(kStreams + 1, nullptr);
  for (std::uint32_t s = 1; s <= kStreams; ++s)
    STREAMLAB_CUDA_CHECK(cudaStreamCreateWithPriority(&streams[s], cudaStreamNonBlocking, 0));
  std::vector<cudaEvent_t> events(w.ops.size(), nullptr);
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    const auto& o = w.ops[i];
    if (o.kind != model::OpKind::event_record) continue;
    STREAMLAB_CUDA_CHECK(cudaEventCreateWithFlags(&events[i], cudaEventDisableTiming));
    for (std::size_t k = i + 1; k < w.ops.size(); ++k)
      if (w.ops[k].kind == model::OpKind::event_wait && w.ops[k].event == o.event) events[k] = events[i];
  }
  (void)ex::kernels::launch_spin(dim3(1), dim3(32), 0, cudaStreamLegacy, 0);
  STREAMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  // clocked: the same calls, each followed by one steady-clock read stored in a preallocated array (the
  // first call also preceded by one), as the replay times its host-lane spans: the floor under any traced
  // replay.
  std::vector<std::int64_t> stamps(w.ops.size() + 1);
  auto hand_written_ms = [&](bool clocked) {
    const auto t0 = Clock::now();
    if (clocked) stamps[0] = Clock::now().time_since_epoch().count();
    for (std::size_t i = 0; i < w.ops.size(); ++i) {
      const auto& o = w.ops[i];
      const cudaStream_t s = streams[*o.stream_hint];
      switch (o.kind) {
        case model::OpKind::kernel: STREAMLAB_CUDA_CHECK(ex::kernels::launch_spin(dim3(1), dim3(32), 0, s, 0)); break;
        case model::OpKind::event_record: STREAMLAB_CUDA_CHECK(cudaEventRecord(events[i], s)); break;
        case model::OpKind::event_wait: STREAMLAB_CUDA_CHECK(cudaStreamWaitEvent(s, events[i], 0)); break;
        default: break;
      }
      if (clocked) stamps[i + 1] = Clock::now().time_since_epoch().count();
    }
    const double t = ms(Clock::now() - t0);
    STREAMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    return t;
  };
  std::vector<double> traced, untraced, raw, clocked;
  std::string clock;
  (void)replay_issue_ms(ex::TimingMode::automatic);  // warm-up of every path
  (void)replay_issue_ms(ex::TimingMode::none);
  (void)hand_written_ms(false);
  (void)hand_written_ms(true);
  for (auto _ : state) {
    for (int r = 0; r < 7; ++r) {
      traced.push_back(replay_issue_ms(ex::TimingMode::automatic, &clock));
      raw.push_back(hand_written_ms(false));
      untraced.push_back(replay_issue_ms(ex::TimingMode::none));
      clocked.push_back(hand_written_ms(true));
    }
  }
  const double t = median(traced), h = median(raw), u = median(untraced), c = median(clocked);
  const double calls = static_cast<double>(w.ops.size());
  state.counters["replay_traced_ms"] = t;
  state.counters["replay_untraced_ms"] = u;
  state.counters["hand_written_ms"] = h;
  state.counters["ratio"] = t / h;
  state.counters["ratio_untraced"] = u / h;
  state.counters["hand_written_clocked_ms"] = c;
  state.counters["ratio_clocked"] = c / h;
  state.counters["overhead_ns_per_call"] = (t - h) * 1e6 / calls;
  std::printf("replay of a %zu-call program (%u kernels, record/wait pairs, %u streams): Dispatcher+CudaBackend "
              "traced %.3f ms, untraced %.3f ms, hand-written CUDA (untraced) %.3f ms; ratio traced %.3f, untraced "
              "%.3f; remaining overhead %.0f ns per call traced, %.0f untraced (median of 7 alternating runs; "
              "tracing: %s)\n",
              w.ops.size(), kProgramKernels, kStreams, t, u, h, t / h, u / h, (t - h) * 1e6 / calls,
              (u - h) * 1e6 / calls, clock.c_str());
  std::printf("the same hand-written calls, each followed by one steady-clock read (the replay's host-lane timing): "
              "%.3f ms, ratio %.3f (%.0f ns per call)\n",
              c, c / h, (c - h) * 1e6 / calls);
  for (std::size_t i = 0; i < w.ops.size(); ++i)
    if (w.ops[i].kind == model::OpKind::event_record) STREAMLAB_CUDA_CHECK(cudaEventDestroy(events[i]));
  for (cudaStream_t s : streams)
    if (s != nullptr) STREAMLAB_CUDA_CHECK(cudaStreamDestroy(s));
}
BENCHMARK(BM_ProgramReplay_TracedVsHandWritten)->Iterations(1)->Unit(benchmark::kMillisecond);

/// What one host clock read costs here: the replay reads std::chrono::steady_clock once per call.
void BM_SteadyClockNow(benchmark::State& state) {
  std::int64_t sink = 0;
  for (auto _ : state) {
    sink += Clock::now().time_since_epoch().count();
    benchmark::DoNotOptimize(sink);
  }
}
BENCHMARK(BM_SteadyClockNow);

#if defined(__x86_64__)
/// What reading the CPU's time-stamp counter costs here: the floor under any host clock on this machine
/// (steady_clock adds the kernel's conversion; on a virtual machine, the hypervisor's clock page).
void BM_TimeStampCounter(benchmark::State& state) {
  std::uint64_t sink = 0;
  for (auto _ : state) {
    sink += __rdtsc();
    benchmark::DoNotOptimize(sink);
  }
}
BENCHMARK(BM_TimeStampCounter);
#endif

}  // namespace

int main(int argc, char** argv) {
  if (ex::device_count() == 0) {
    std::printf("no CUDA device: bench_executor skipped\n");
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
