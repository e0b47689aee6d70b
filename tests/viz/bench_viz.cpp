// Frame-build time of the timeline (lane layout + folding into draw lists, no GL) for a pair of
// 1,000,000-span traces, the work the viewer does every frame. Target: under 33 ms (30 frames per
// second) on one core. Baseline, measured in the same run: the same frame built by the reference walk
// that visits every visible span (fold_row_linear); the report ends with the ratio.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "streamlab/viz/frame.hpp"
#include "streamlab/viz/trace_pair.hpp"

namespace {

using streamlab::model::Nanos;
using streamlab::model::OpKind;
namespace viz = streamlab::viz;

constexpr std::size_t kSpansPerTrace = 1'000'000;
constexpr std::uint32_t kStreams = 8;
constexpr float kWidth = 1920.0f;

// 8 streams of copy -> kernel -> copy chains with log-uniform durations (1 us .. 300 us) and short gaps:
// at fit-to-trace nearly every span is sub-pixel; zoomed in, most are wide. The measured trace is the
// predicted one stretched 5% with per-span jitter.
streamlab::model::Trace make_trace(std::uint64_t seed, double stretch, Nanos jitter_ns) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_dur(std::log(1'000.0), std::log(300'000.0));
  std::uniform_int_distribution<Nanos> gap(0, 5'000), jitter(0, jitter_ns);
  streamlab::model::Trace t;
  t.meta.backend = "sim";
  t.spans.reserve(kSpansPerTrace);
  std::vector<Nanos> clock(kStreams, 0);
  const OpKind kinds[3] = {OpKind::h2d, OpKind::kernel, OpKind::d2h};
  for (std::size_t i = 0; i < kSpansPerTrace; ++i) {
    const auto s = static_cast<std::uint32_t>(i % kStreams);
    const auto kind = kinds[(i / kStreams) % 3];
    const auto d = static_cast<Nanos>(std::exp(log_dur(rng)) * stretch);
    const Nanos start = clock[s] + gap(rng) + jitter(rng);
    streamlab::model::Span sp;
    sp.op = static_cast<std::uint32_t>(i);
    sp.op_id = std::to_string(i);  // short ids stay in the string's inline buffer
    sp.kind = kind;
    sp.stream = s + 1;
    sp.engine = streamlab::model::engine_for(kind);
    sp.start_ns = start;
    sp.end_ns = start + d;
    clock[s] = sp.end_ns;
    t.spans.push_back(std::move(sp));
  }
  return t;
}

const viz::TracePair& pair() {
  static const viz::TracePair p(make_trace(1, 1.0, 0), make_trace(1, 1.05, 2'000));
  return p;
}

// The range shown: the whole run, or a window of `range` ns in its middle.
viz::TimelineView view_for(Nanos range) {
  const auto& p = pair();
  viz::TimelineView v(0, 1, kWidth);
  if (range == 0) {
    v.fit(p.begin_ns(), p.end_ns());
  } else {
    const double mid = 0.5 * static_cast<double>(p.begin_ns() + p.end_ns());
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
  const auto layout = viz::layout_lanes(p);
  const auto view = view_for(state.range(0));
  viz::FrameDraw draw;
  for (auto _ : state) {
    viz::build_frame(p, layout, view, draw);
    benchmark::DoNotOptimize(draw.lanes.data());
  }
  report(state, draw);
}

// Baseline: the same frame from the walk that visits every visible span.
void BM_FrameBuildLinearWalk(benchmark::State& state) {
  const auto& p = pair();
  const auto view = view_for(state.range(0));
  std::vector<std::vector<viz::DrawRect>> rows;
  std::size_t rects = 0;
  for (auto _ : state) {
    rows.resize(p.lanes().size());
    rects = 0;
    for (std::size_t l = 0; l < p.lanes().size(); ++l) {
      rows[l].clear();
      for (const auto& row : p.lanes()[l].rows) viz::fold_row_linear(row, view, rows[l]);
      rects += rows[l].size();
    }
    benchmark::DoNotOptimize(rows.data());
  }
  state.counters["rects"] = static_cast<double>(rects);
}

// 0 = fit to the whole run (~2.5 s, every span visible); then 10 ms and 100 us windows.
BENCHMARK(BM_FrameBuild)->Arg(0)->Arg(10'000'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FrameBuildLinearWalk)->Arg(0)->Arg(10'000'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

// One-off cost of preparing the pair (sorting lanes, matching ops) when files are opened.
void BM_TracePairBuild(benchmark::State& state) {
  const auto a = make_trace(1, 1.0, 0), b = make_trace(1, 1.05, 2'000);
  for (auto _ : state) {
    state.PauseTiming();
    auto ca = a;
    auto cb = b;
    state.ResumeTiming();
    viz::TracePair p(std::move(ca), std::move(cb));
    benchmark::DoNotOptimize(p.lanes().data());
  }
}
BENCHMARK(BM_TracePairBuild)->Unit(benchmark::kMillisecond)->Iterations(2);

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
