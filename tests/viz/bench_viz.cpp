// The viewer's cost at 1,000,000 spans per trace, after the files are read (reading is the model's and is
// measured by tests/viz/bench_first_frame.sh together with this):
// - per frame: lane layout + folding into draw lists (no GL), the work the viewer does every frame.
//   Target: under 33 ms (30 frames per second) on one core. Baseline in the same run: the same frame
//   built by the reference walk that visits every visible span (fold_row_linear), and the legend scan
//   over every span that the viewer used to do each frame.
// - once, when the traces are opened: op matching, lanes in both modes, the summary, the op table's first
//   sort. Baseline in the same run: copying the traces (the least any preparation must touch).
// The report ends with the ratios.
#include <benchmark/benchmark.h>

#include <bitset>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "streamlab/viz/alignment.hpp"
#include "streamlab/viz/frame.hpp"
#include "streamlab/viz/lanes.hpp"
#include "streamlab/viz/op_table.hpp"
#include "streamlab/viz/summary.hpp"
#include "streamlab/viz/trace_set.hpp"
#include "synthetic_trace.hpp"

namespace {

using streamlab::model::Nanos;
using streamlab::model::OpKind;
namespace viz = streamlab::viz;

constexpr float kWidth = 1920.0f;

streamlab::model::Trace make_trace(std::uint64_t seed, double stretch, Nanos jitter_ns) {
  return streamlab::viz::bench::synthetic_trace(seed, stretch, jitter_ns);
}

std::vector<streamlab::model::Trace> make_pair_traces() {
  std::vector<streamlab::model::Trace> v;
  v.push_back(make_trace(1, 1.0, 0));
  v.push_back(make_trace(1, 1.05, 2'000));
  return v;
}

const viz::TraceSet& pair() {
  static const viz::TraceSet p(make_pair_traces());
  return p;
}

const viz::LaneSet& lanes() {
  static const viz::LaneSet l(pair(), viz::LaneMode::stream);
  return l;
}

// The range shown: the whole run, or a window of `range` ns in its middle.
viz::TimelineView view_for(Nanos range) {
  const auto& p = pair();
  viz::TimelineView v(0, 1, kWidth);
  const auto begin = std::min(p.begin_ns(0), p.begin_ns(1)), end = std::max(p.end_ns(0), p.end_ns(1));
  if (range == 0) {
    v.fit(begin, end);
  } else {
    const double mid = 0.5 * static_cast<double>(begin + end);
    v.set_range(mid - static_cast<double>(range) / 2, mid + static_cast<double>(range) / 2);
  }
  return v;
}

void report(benchmark::State& state, const viz::FrameDraw& draw) {
  state.counters["rects"] = static_cast<double>(draw.rect_count());
  state.counters["folded_spans"] = static_cast<double>(draw.folded_span_count());
  state.counters["spans"] = static_cast<double>(pair().span_count());
}

void BM_FrameBuild(benchmark::State& state) {
  const auto& p = pair();
  const auto layout = viz::layout_lanes(lanes());
  const auto view = view_for(state.range(0));
  const auto offsets = viz::alignment_offsets(p, {}).offsets;
  viz::FrameDraw draw;
  for (auto _ : state) {
    viz::build_frame(p, lanes(), layout, view, offsets, draw);
    benchmark::DoNotOptimize(draw.lanes.data());
  }
  report(state, draw);
}

// Baseline: the same frame from the walk that visits every visible span.
void BM_FrameBuildLinearWalk(benchmark::State& state) {
  const auto view = view_for(state.range(0));
  const auto all = lanes().lanes();
  std::vector<std::vector<viz::DrawRect>> rows;
  std::size_t rects = 0;
  for (auto _ : state) {
    rows.resize(all.size());
    rects = 0;
    for (std::size_t l = 0; l < all.size(); ++l) {
      rows[l].clear();
      for (const auto& row : all[l].rows) viz::fold_row_linear(row, view, rows[l]);
      rects += rows[l].size();
    }
    benchmark::DoNotOptimize(rows.data());
  }
  state.counters["rects"] = static_cast<double>(rects);
}

// 0 = fit to the whole run (~2.5 s, every span visible); then 10 ms and 100 us windows.
BENCHMARK(BM_FrameBuild)->Arg(0)->Arg(10'000'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FrameBuildLinearWalk)->Arg(0)->Arg(10'000'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

// What the viewer used to do every frame for its legend: look at every span's kind (now done once, when
// the traces are opened: TraceSet::kinds()).
void BM_LegendScanPerFrame(benchmark::State& state) {
  const auto& p = pair();
  for (auto _ : state) {
    std::bitset<256> present;
    for (viz::TraceIndex t = 0; t < p.size(); ++t)
      for (const auto& sp : p.trace(t).spans) present.set(static_cast<std::size_t>(sp.kind));
    benchmark::DoNotOptimize(present);
  }
}
BENCHMARK(BM_LegendScanPerFrame)->Unit(benchmark::kMillisecond);

// One-off costs when the traces are opened, each step of the viewer's set-up on the same 2,000,000 spans.
// Baseline: copying the two traces.
void BM_OpenCopyTracesBaseline(benchmark::State& state) {
  const auto src = make_pair_traces();
  for (auto _ : state) {
    auto copy = src;
    benchmark::DoNotOptimize(copy.data());
  }
}
BENCHMARK(BM_OpenCopyTracesBaseline)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_OpenTraceSet(benchmark::State& state) {
  const auto src = make_pair_traces();
  for (auto _ : state) {
    state.PauseTiming();
    auto copy = src;
    state.ResumeTiming();
    viz::TraceSet set(std::move(copy));
    benchmark::DoNotOptimize(set.op_key_count());
    state.PauseTiming();
    { auto gone = std::move(set); }  // freeing is not part of opening
    state.ResumeTiming();
  }
}
BENCHMARK(BM_OpenTraceSet)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_OpenLanes(benchmark::State& state) {
  const auto mode = state.range(0) == 0 ? viz::LaneMode::engine : viz::LaneMode::stream;
  for (auto _ : state) {
    viz::LaneSet l(pair(), mode);
    benchmark::DoNotOptimize(l.lanes().data());
    state.PauseTiming();
    { auto gone = std::move(l); }
    state.ResumeTiming();
  }
}
BENCHMARK(BM_OpenLanes)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_OpenSummary(benchmark::State& state) {
  for (auto _ : state) {
    auto s = viz::summarize(pair());
    benchmark::DoNotOptimize(s.metrics.data());
  }
}
BENCHMARK(BM_OpenSummary)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_OpenOpTableSort(benchmark::State& state) {
  const auto offsets = viz::alignment_offsets(pair(), {}).offsets;
  for (auto _ : state) {
    auto keys = viz::all_op_keys(pair());
    viz::sort_op_keys(keys, pair(), offsets, {viz::OpColumn::What::start, 0}, false);
    benchmark::DoNotOptimize(keys.data());
  }
}
BENCHMARK(BM_OpenOpTableSort)->Unit(benchmark::kMillisecond)->Iterations(3);

// Prints the console report, then fold / linear-walk time ratios per view.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  RatioReporter() : ConsoleReporter(OO_Tabular) {}  // no colour codes: the report lands in logs
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    // One time per benchmark: the single run, or the median when repetitions are asked for. Real and CPU
    // time both: on a shared machine the CPU time is the one-core cost.
    for (const auto& r : runs) {
      const bool use = r.run_type == Run::RT_Iteration || r.aggregate_name == "median";
      if (use) times_[r.run_name.str()] = {r.GetAdjustedRealTime(), r.GetAdjustedCPUTime()};
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto cpu = [&](const std::string& name) {
      const auto it = times_.find(name);
      return it == times_.end() ? -1.0 : it->second.second;
    };
    const double copy = cpu("BM_OpenCopyTracesBaseline/iterations:3");
    const double open = cpu("BM_OpenTraceSet/iterations:3") + cpu("BM_OpenLanes/0/iterations:3") +
                        cpu("BM_OpenSummary/iterations:3") + cpu("BM_OpenOpTableSort/iterations:3");
    if (copy > 0 && open > 0)
      std::printf("open (op matching + engine lanes + summary + first table sort) %8.1f ms cpu = %.2fx copying "
                  "the traces (%8.1f ms)\n", open, open / copy, copy);
    const double legend = cpu("BM_LegendScanPerFrame");
    const double fit = cpu("BM_FrameBuild/0");
    if (legend > 0 && fit > 0)
      std::printf("per frame: the old legend scan alone %8.3f ms cpu = %.1fx the whole fit-view frame build "
                  "(%8.3f ms), which no longer includes it\n", legend, legend / fit, fit);
    for (const char* arg : {"0", "10000000", "100000"}) {
      const auto fast = times_.find(std::string("BM_FrameBuild/") + arg);
      const auto slow = times_.find(std::string("BM_FrameBuildLinearWalk/") + arg);
      if (fast == times_.end() || slow == times_.end()) continue;
      const auto [fast_real, fast_cpu] = fast->second;
      const auto [slow_real, slow_cpu] = slow->second;
      std::printf("view %-9s frame build %8.3f ms (cpu %8.3f), linear walk %8.3f ms (cpu %8.3f): %.1fx faster "
                  "by cpu time; target < 33 ms: %s\n",
                  arg[0] == '0' ? "fit" : arg, fast_real, fast_cpu, slow_real, slow_cpu, slow_cpu / fast_cpu,
                  fast_real < 33.0 ? "met" : "MISSED");
    }
  }

 private:
  std::map<std::string, std::pair<double, double>> times_;  ///< name -> (real, cpu) ms
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
