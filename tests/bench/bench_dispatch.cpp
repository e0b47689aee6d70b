// Decision cost: policy decision + Dispatcher bookkeeping per op, 64 streams, 10,000 ready ops, against a
// backend whose calls do nothing (every event reads as complete: a device that keeps up). The baseline in
// the same run is the least any dispatcher could do: push the same op indices round-robin into 64
// std::vector queues. The summary at the end prints ns/op and the ratio to that baseline.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/fake_backend.hpp"
#include "streamlab/policies/registry.hpp"

namespace sp = streamlab::policies;
namespace sm = streamlab::model;

namespace {

constexpr std::uint32_t kOps = 10'000;
constexpr std::uint32_t kStreams = 64;

/// Every call is a no-op; ids count up.
class NullBackend final : public sp::Backend {
 public:
  std::string_view name() const noexcept override { return "null"; }
  void prepare(const sm::Workload&) override {}
  std::pair<int, int> priority_range() const override { return {0, -5}; }
  sp::StreamId create_stream(const sp::StreamDesc&) override { return sp::StreamId{++streams_}; }
  sp::StreamId legacy_default_stream() override { return sp::StreamId{0}; }
  void enqueue(sp::StreamId, sm::OpIndex op) override { benchmark::DoNotOptimize(op); }
  void launch_host_func(sp::StreamId, std::function<void()>) override {}
  sp::EventId create_event(sp::EventTiming) override { return sp::EventId{events_++}; }
  void destroy_event(sp::EventId) override {}
  void record_event(sp::EventId e, sp::StreamId) override { benchmark::DoNotOptimize(e); }
  void stream_wait_event(sp::StreamId, sp::EventId) override {}
  bool query_event(sp::EventId) override { return true; }
  bool query_stream(sp::StreamId) override { return true; }
  sm::Nanos elapsed(sp::EventId, sp::EventId) override { return 0; }
  sp::WaitStatus synchronize_event(sp::EventId, sm::Nanos) override { return sp::WaitStatus::ready; }
  sp::WaitStatus synchronize_stream(sp::StreamId, sm::Nanos) override { return sp::WaitStatus::ready; }
  sp::WaitStatus synchronize_device(sm::Nanos) override { return sp::WaitStatus::ready; }
  std::optional<std::size_t> wait_any_event(std::span<const sp::EventId>, sm::Nanos) override { return 0; }
  sm::Nanos now() override { return ++clock_; }
  void host_work(sm::Nanos ns) override { clock_ += ns; }
  sm::Trace finish() override { return {}; }

 private:
  std::uint32_t streams_ = 0, events_ = 0;
  sm::Nanos clock_ = 0;
};

const sm::Workload& ready_ops() {
  static const sm::Workload w = [] {
    sm::Workload wl;
    wl.name = "10k-ready";
    for (std::uint32_t i = 0; i < kOps; ++i) {
      sm::Op op;
      op.id = op.name = wl.intern(std::string(1, 'k').append(std::to_string(i)));  // (not "k" + ...: GCC 12 -Wrestrict)
      sm::KernelShape shape;
      shape.grid.x = 1 + i % 264;
      shape.block.x = 128;
      op.shape = shape;
      op.duration = sm::FixedPerBlock{10'000 + static_cast<sm::Nanos>(i % 97) * 1000};
      wl.ops.push_back(std::move(op));
    }
    sm::resolve_and_check(wl, "<bench>");
    return wl;
  }();
  return w;
}

const sm::DeviceProfile& profile() {
  static const sm::DeviceProfile p = sm::bundled_h100_profile();
  return p;
}

void BM_Baseline_VectorQueues(benchmark::State& state) {
  std::vector<std::vector<sm::OpIndex>> queues(kStreams);
  for (auto& q : queues) q.reserve(kOps / kStreams + 1);
  for (auto _ : state) {
    for (auto& q : queues) q.clear();
    for (sm::OpIndex i = 0; i < kOps; ++i) queues[i % kStreams].push_back(i);
    benchmark::DoNotOptimize(queues.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kOps);
}
BENCHMARK(BM_Baseline_VectorQueues);

/// args: policy index, deadlock check on/off, decision log + cpu timing on/off.
void BM_Dispatch(benchmark::State& state) {
  const auto name = sp::policy_names()[static_cast<std::size_t>(state.range(0))];
  sp::PolicyConfig cfg;
  cfg.streams = kStreams;
  sp::DispatchOptions opt;
  opt.profile = &profile();
  opt.workload_hash = ready_ops().hash();  // metadata, computed once as a CLI would
  opt.check_deadlock = state.range(1) != 0;
  opt.keep_log = state.range(2) != 0;
  opt.measure_cpu = state.range(2) != 0;
  const auto& w = ready_ops();
  std::uint64_t waits = 0;
  for (auto _ : state) {
    NullBackend be;
    auto policy = sp::make_policy(name, cfg);
    auto r = sp::Dispatcher(be, *policy, opt).run(w);
    waits += r.stats.waits_inserted;
    benchmark::DoNotOptimize(r.log.data());
  }
  state.SetLabel(std::string(name) + (opt.check_deadlock ? "" : " no-check") + (opt.keep_log ? " log" : " no-log"));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kOps);
  benchmark::DoNotOptimize(waits);
}
BENCHMARK(BM_Dispatch)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {1}, {1}})
    ->ArgsProduct({{0, 2, 3}, {0}, {1}})
    ->ArgsProduct({{0, 1, 4}, {1}, {0}})
    ->Unit(benchmark::kMicrosecond);

/// The recording fake with recording off (it still models stream order), for comparison.
void BM_Dispatch_FakeBackend(benchmark::State& state) {
  sp::PolicyConfig cfg;
  cfg.streams = kStreams;
  sp::DispatchOptions opt;
  opt.profile = &profile();
  opt.workload_hash = ready_ops().hash();
  for (auto _ : state) {
    sp::FakeOptions fo;
    fo.record = false;
    fo.completion = sp::FakeCompletion::on_block;
    sp::FakeBackend be(fo);
    auto policy = sp::make_policy("round-robin", cfg);
    auto r = sp::Dispatcher(be, *policy, opt).run(ready_ops());
    benchmark::DoNotOptimize(r.log.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kOps);
}
BENCHMARK(BM_Dispatch_FakeBackend)->Unit(benchmark::kMicrosecond);

/// Prints the usual table, then ns/op and the ratio to the baseline measured in this run.
class RatioReporter final : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
      const double to_ns = benchmark::GetTimeUnitMultiplier(benchmark::kNanosecond) /
                           benchmark::GetTimeUnitMultiplier(r.time_unit) / kOps;
      std::string name = r.benchmark_name();
      if (!r.report_label.empty()) name.append(" [").append(r.report_label).append("]");
      rows_.push_back({name, r.GetAdjustedCPUTime() * to_ns, r.GetAdjustedRealTime() * to_ns});
    }
  }
  /// CPU time is the figure of merit (single-threaded; on a shared machine wall time includes waiting
  /// for a core); wall time is printed next to it.
  void Summary() const {
    double base = 0;
    for (const auto& r : rows_)
      if (r.name.find("Baseline") != std::string::npos) base = r.cpu_ns;
    std::printf("\n%-56s %11s %11s %11s\n", "per op (10,000 ready ops, 64 streams)", "cpu ns/op", "x baseline",
                "wall ns/op");
    for (const auto& r : rows_) {
      const bool is_base = r.name.find("Baseline") != std::string::npos;
      std::printf("%-56s %11.1f %11.1f %11.1f %s\n", r.name.c_str(), r.cpu_ns, base > 0 ? r.cpu_ns / base : 0.0,
                  r.wall_ns, is_base ? "" : (r.cpu_ns < 1000.0 ? "(< 1 us)" : "(OVER 1 us)"));
    }
  }

 private:
  struct Row {
    std::string name;
    double cpu_ns, wall_ns;
  };
  std::vector<Row> rows_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.Summary();
  benchmark::Shutdown();
  return 0;
}
