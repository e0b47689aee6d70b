// The experiment suite: the catalog, verdict rules on hand-made numbers, a --quick simulator run producing
// CSV/JSON with the expected columns, determinism, the measured path (through a stand-in device) and the
// report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "streamlab/experiments/catalog.hpp"
#include "streamlab/experiments/charts.hpp"
#include "streamlab/experiments/report.hpp"
#include "streamlab/experiments/results.hpp"
#include "streamlab/experiments/runner.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace ex = streamlab::experiments;
namespace model = streamlab::model;
namespace fs = std::filesystem;
using streamlab::model::DeviceProfile;

namespace {

ex::Experiment get(const std::string& name) {
  auto e = ex::find_experiment(name);
  if (!e) throw std::runtime_error("no experiment " + name);
  return *e;
}

ex::ConfigResult row(ex::Params params, double predicted, double measured = ex::kNone) {
  ex::ConfigResult r;
  for (const auto& [k, v] : params) r.label += k + "=" + v + " ";
  r.params = std::move(params);
  r.predicted.metric = predicted;
  r.predicted.makespan_ns = predicted;
  if (ex::has_value(measured)) {
    r.measured = ex::Measurement{};
    r.measured->metric = measured;
    r.measured->makespan_ns = measured;
  }
  return r;
}

ex::SuiteOptions quick_options() {
  ex::SuiteOptions o;
  o.quick = true;
  o.repeats = 1;
  o.date = "2026-01-01T00:00:00Z";
  o.command_line = "test";
  return o;
}

fs::path temp_dir(const std::string& name) {
  // Per process: test runs of several checkouts on one machine must not share (and delete) a folder.
  const fs::path d = fs::path(::testing::TempDir()) / ("streamlab_experiment_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A stand-in for the GPU: a second simulator whose profile differs (copies at half the bandwidth), so the
// measured path, the errors and the diagnosis can be checked on a CPU.
class SlowCopyDevice final : public ex::MeasuredDevice {
 public:
  SlowCopyDevice() : profile_(streamlab::model::bundled_h100_profile()) {
    profile_.h2d_pinned_gbps.value /= 2;
    profile_.d2h_pinned_gbps.value /= 2;
  }
  [[nodiscard]] ex::DeviceMeta meta() const override { return {"Test GPU X100", "1.0", "13.0", "sim"}; }
  std::unique_ptr<streamlab::policies::Backend> make_backend(std::optional<std::uint32_t> connections) override {
    streamlab::sim::SimOptions o;
    o.connections = connections;
    o.date = "2026-01-01";
    return std::make_unique<streamlab::sim::SimBackend>(profile_, o);
  }
  std::unique_ptr<ex::HostApi> make_host_api(streamlab::policies::Backend& b) override {
    return ex::make_backend_host_api(b);
  }
  [[nodiscard]] bool connections_fixed_per_process() const noexcept override { return false; }
  [[nodiscard]] std::optional<std::uint32_t> process_connections() const override { return std::nullopt; }

 private:
  DeviceProfile profile_;
};

// A stand-in GPU whose host runs at a speed that changes from run to run: every backend it makes (one per
// issue probe, one per measured run, in that order) charges the bundled profile's host costs times
// scale(n), n counting the backends made so far.
class DriftingHostDevice final : public ex::MeasuredDevice {
 public:
  explicit DriftingHostDevice(std::function<double(std::size_t)> scale,
                              streamlab::model::DeviceProfile profile = streamlab::model::bundled_h100_profile())
      : scale_(std::move(scale)), profile_(std::move(profile)) {}
  [[nodiscard]] ex::DeviceMeta meta() const override { return {"Test GPU X100", "1.0", "13.0", "sim"}; }
  std::unique_ptr<streamlab::policies::Backend> make_backend(std::optional<std::uint32_t> connections) override {
    streamlab::sim::SimOptions o;
    o.connections = connections;
    o.date = "2026-01-01";
    o.host_cost_scale = scale_(made_++);
    return std::make_unique<streamlab::sim::SimBackend>(profile_, o);
  }
  std::unique_ptr<ex::HostApi> make_host_api(streamlab::policies::Backend& b) override {
    return ex::make_backend_host_api(b);
  }
  [[nodiscard]] bool connections_fixed_per_process() const noexcept override { return false; }
  [[nodiscard]] std::optional<std::uint32_t> process_connections() const override { return std::nullopt; }

 private:
  std::function<double(std::size_t)> scale_;
  streamlab::model::DeviceProfile profile_;
  std::size_t made_ = 0;
};

// "E" + std::to_string(i) without operator+(const char*, string&&), which GCC 12 flags with a false -Wrestrict.
std::string experiment_name(std::size_t i) {
  std::string s = "E";
  s += std::to_string(i);
  return s;
}

std::string without_date(std::string s) {
  const auto p = s.find("\"date\"");
  if (p == std::string::npos) return s;
  const auto e = s.find('\n', p);
  return s.erase(p, e - p);
}

}  // namespace

TEST(ExperimentCatalog, ListsE1ToE9WithUniqueConfigurations) {
  const auto all = ex::all_experiments();
  ASSERT_EQ(all.size(), 9u);
  const auto profile = streamlab::model::bundled_h100_profile();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& e = all[i];
    EXPECT_EQ(e.name, experiment_name(i + 1));
    EXPECT_FALSE(e.claim.empty());
    EXPECT_FALSE(e.claim_short.empty());
    EXPECT_FALSE(e.source.empty());
    EXPECT_FALSE(e.setup.empty());
    for (bool quick : {false, true}) {
      const auto configs = e.configurations({quick, &profile});
      EXPECT_FALSE(configs.empty()) << e.name;
      std::set<std::string> labels;
      for (const auto& c : configs) {
        EXPECT_TRUE(labels.insert(c.label).second) << e.name << " duplicate label " << c.label;
        EXPECT_TRUE(c.workload) << c.label;
        EXPECT_FALSE(c.params.empty()) << c.label;
      }
    }
    EXPECT_LE(e.configurations({true, &profile}).size(), e.configurations({false, &profile}).size());
  }
  // The ones judged by the 5% makespan target.
  std::set<std::string> target;
  for (const auto& e : all)
    if (e.makespan_target) target.insert(e.name);
  EXPECT_EQ(target, (std::set<std::string>{"E1", "E2", "E3", "E5", "E6", "E7"}));
}

TEST(ExperimentCatalog, FindIsCaseInsensitiveAndRejectsUnknownNames) {
  EXPECT_TRUE(ex::find_experiment("e2"));
  EXPECT_EQ(ex::find_experiment("e2")->name, "E2");
  EXPECT_FALSE(ex::find_experiment("E10"));
  EXPECT_FALSE(ex::find_experiment(""));
}

TEST(ExperimentCatalog, E2ConfigurationsAskForTheirConnectionCount) {
  const auto profile = streamlab::model::bundled_h100_profile();
  std::set<std::uint32_t> conns;
  for (const auto& c : get("E2").configurations({true, &profile})) {
    ASSERT_TRUE(c.connections);
    conns.insert(*c.connections);
  }
  EXPECT_EQ(conns, (std::set<std::uint32_t>{1, 8, 32}));
}

TEST(ExperimentVerdict, E1BandDecidesConfirmedRefutedDepends) {
  const auto e = get("E1");
  auto rows = [](double t3, double t4, double t8) {
    return std::vector<ex::ConfigResult>{row({{"streams", "1"}}, 10, 10), row({{"streams", "2"}}, 7, 7),
                                         row({{"streams", "3"}}, 10, t3), row({{"streams", "4"}}, 10, t4),
                                         row({{"streams", "8"}}, 10, t8)};
  };
  EXPECT_EQ(e.verdict(rows(5, 5, 4.5), ex::Side::measured).outcome, ex::Outcome::confirmed);  // cuts 50/50/55%
  EXPECT_EQ(e.verdict(rows(8, 7, 7), ex::Side::measured).outcome, ex::Outcome::refuted);      // cuts < 40%
  EXPECT_EQ(e.verdict(rows(5, 7, 3), ex::Side::measured).outcome, ex::Outcome::depends);
  // Predicted side: every cut 0 -> refuted.
  EXPECT_EQ(e.verdict(rows(5, 5, 5), ex::Side::predicted).outcome, ex::Outcome::refuted);
  // Nothing measured at all.
  std::vector<ex::ConfigResult> unmeasured{row({{"streams", "1"}}, 10), row({{"streams", "3"}}, 5)};
  EXPECT_EQ(e.verdict(unmeasured, ex::Side::measured).outcome, ex::Outcome::not_measured);
}

TEST(ExperimentVerdict, E3NeedsBothTheTimesAndTheSpeedup) {
  const auto e = get("E3");
  auto rows = [](double t1, double t3) {
    return std::vector<ex::ConfigResult>{row({{"stages", "2/5/2"}, {"buffers", "1"}}, t1, t1),
                                         row({{"stages", "2/5/2"}, {"buffers", "3"}}, t3, t3)};
  };
  EXPECT_EQ(e.verdict(rows(9e6, 5e6), ex::Side::measured).outcome, ex::Outcome::confirmed);
  EXPECT_EQ(e.verdict(rows(7e6, 5e6), ex::Side::measured).outcome, ex::Outcome::depends);  // 1.4x, 7 ms
  EXPECT_EQ(e.verdict(rows(6e6, 5e6), ex::Side::measured).outcome, ex::Outcome::refuted);  // 1.2x
}

TEST(ExperimentVerdict, E5BarrierAndExemption) {
  const auto e = get("E5");
  const char* modes[] = {"explicit non-blocking streams", "non-blocking + legacy NULL housekeeping",
                         "blocking + legacy NULL housekeeping"};
  auto rows = [&](double t1, double t2, double t3) {
    return std::vector<ex::ConfigResult>{row({{"mode", modes[0]}}, t1, t1), row({{"mode", modes[1]}}, t2, t2),
                                         row({{"mode", modes[2]}}, t3, t3)};
  };
  EXPECT_EQ(e.verdict(rows(1, 1.02, 1.6), ex::Side::predicted).outcome, ex::Outcome::confirmed);
  EXPECT_EQ(e.verdict(rows(1, 1.0, 1.01), ex::Side::predicted).outcome, ex::Outcome::refuted);  // no barrier
  EXPECT_EQ(e.verdict(rows(1, 1.5, 1.6), ex::Side::predicted).outcome, ex::Outcome::refuted);   // not exempt
  EXPECT_EQ(e.verdict(rows(1, 1.0, 1.1), ex::Side::predicted).outcome, ex::Outcome::depends);
}

TEST(ExperimentVerdict, E6LargeBatchGainAndSmallBatchStatic) {
  const auto e = get("E6");
  auto rows = [](double small_static, double large_static) {
    std::vector<ex::ConfigResult> r;
    for (const char* d : {"uniform", "heavy-tailed"}) {
      r.push_back(row({{"distribution", d}, {"batch", "64"}, {"assignment", "static"}}, small_static));
      r.push_back(row({{"distribution", d}, {"batch", "64"}, {"assignment", "dynamic"}}, 100));
      r.push_back(row({{"distribution", d}, {"batch", "8192"}, {"assignment", "static"}}, large_static));
      r.push_back(row({{"distribution", d}, {"batch", "8192"}, {"assignment", "dynamic"}}, 100));
    }
    return r;
  };
  EXPECT_EQ(e.verdict(rows(95, 114), ex::Side::predicted).outcome, ex::Outcome::confirmed);
  EXPECT_EQ(e.verdict(rows(100, 114), ex::Side::predicted).outcome, ex::Outcome::depends);  // static not better
  EXPECT_EQ(e.verdict(rows(100, 100), ex::Side::predicted).outcome, ex::Outcome::refuted);
}

TEST(ExperimentVerdict, E7AndE4Thresholds) {
  const auto e7 = get("E7");
  std::vector<ex::ConfigResult> r7{row({{"bg_block_us", "100"}, {"mode", "priority"}}, 0.5),
                                   row({{"bg_block_us", "100"}, {"mode", "equal"}}, 2.0)};
  EXPECT_EQ(e7.verdict(r7, ex::Side::predicted).outcome, ex::Outcome::confirmed);
  r7[0].predicted.metric = 1.98;
  EXPECT_EQ(e7.verdict(r7, ex::Side::predicted).outcome, ex::Outcome::refuted);

  const auto e4 = get("E4");
  std::vector<ex::ConfigResult> r4{row({{"call", "event-create-timed"}}, 1000, 1900),
                                   row({{"call", "event-query"}}, 200, 150)};
  EXPECT_EQ(e4.verdict(r4, ex::Side::measured).outcome, ex::Outcome::confirmed);
  r4[0].measured->metric = 5000;
  EXPECT_EQ(e4.verdict(r4, ex::Side::measured).outcome, ex::Outcome::depends);
}

TEST(ExperimentRun, QuickSimOnlyRunWritesCsvAndJsonWithTheExpectedColumns) {
  const auto e = get("E1");
  const ex::ExperimentResult r = ex::run_experiment(e, quick_options(), nullptr, "sim-only: test");
  ASSERT_EQ(r.configs.size(), 5u);
  EXPECT_FALSE(r.measured());
  EXPECT_EQ(r.meta.device_slug, "sim-h100-profile");
  EXPECT_EQ(r.measured_verdict.outcome, ex::Outcome::not_measured);
  for (const auto& c : r.configs) {
    EXPECT_GT(c.predicted.makespan_ns, 0);
    EXPECT_TRUE(c.predicted.extra.count("overlap"));
  }
  // More streams never make the chunked job slower in the simulator.
  EXPECT_LT(r.configs[2].predicted.makespan_ns, r.configs[0].predicted.makespan_ns);

  const fs::path dir = temp_dir("csv");
  ex::write_result_files(r, dir);
  std::ifstream csv(dir / "E1.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("experiment,config,streams,predicted_makespan_ns,measured_makespan_ns,makespan_error,"
                         "predicted_makespan,measured_makespan,metric_error,measured_runs,measured_spread",
                         0),
            0u)
      << header;
  EXPECT_NE(header.find("predicted_overlap"), std::string::npos);
  std::string first;
  std::getline(csv, first);
  EXPECT_EQ(first.rfind("E1,streams=1,1,", 0), 0u) << first;

  // JSON reads back to the same result (compared as JSON: missing numbers are NaN, which never compare equal).
  const auto back = ex::parse_result_json(streamlab::model::read_text_file(dir / "E1.json"), "E1.json");
  EXPECT_EQ(ex::result_to_json(back), ex::result_to_json(r));
  EXPECT_EQ(back.configs.size(), r.configs.size());
  EXPECT_EQ(back.configs[3].params, r.configs[3].params);
  const auto loaded = ex::load_results(dir);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].name, "E1");
}

// The charts come from scripts/plot/experiment_charts.py; without python3-matplotlib the test skips (CI
// installs it through scripts/quickstart.sh).
TEST(ExperimentCharts, DrawsSvgPdfPngFromTheCsvAndReportsABrokenOne) {
  const auto e = get("E6");
  const ex::ExperimentResult r = ex::run_experiment(e, quick_options(), nullptr, "sim-only");
  const fs::path dir = temp_dir("charts");
  ex::write_result_files(r, dir);
  ASSERT_FALSE(ex::plot_script_dir().empty()) << "scripts/plot not found";
  const ex::ChartsRun run = ex::draw_charts(dir, {"E6"});
  if (run.outcome == ex::ChartsOutcome::no_matplotlib || run.outcome == ex::ChartsOutcome::no_python)
    GTEST_SKIP() << run.detail;
  ASSERT_EQ(run.outcome, ex::ChartsOutcome::drawn) << run.detail;
  const std::string png = streamlab::model::read_text_file(dir / "E6.png");
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(streamlab::model::read_text_file(dir / "E6.pdf").substr(0, 5), "%PDF-");
  const std::string svg = streamlab::model::read_text_file(dir / "E6.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_EQ(svg.find("<dc:date>"), std::string::npos) << "no date: unchanged data give unchanged files";

  // Same data, same bytes.
  ASSERT_EQ(ex::draw_charts(dir, {"E6"}).outcome, ex::ChartsOutcome::drawn);
  EXPECT_EQ(streamlab::model::read_text_file(dir / "E6.svg"), svg);

  // A CSV without rows is an input error of the script: reported as failed, nothing half-written.
  streamlab::model::write_file_atomically(dir / "E6.csv", "experiment,config\n");
  const ex::ChartsRun bad = ex::draw_charts(dir, {"E6"});
  EXPECT_EQ(bad.outcome, ex::ChartsOutcome::bad_input);
  EXPECT_NE(bad.detail.find("exit 2"), std::string::npos) << bad.detail;
  for (const auto& f : fs::directory_iterator(dir)) EXPECT_NE(f.path().filename().string().front(), '.') << f.path();
}

TEST(ExperimentRun, SimulatorOnlyResultsAreIdenticalRunToRun) {
  for (const char* name : {"E1", "E6", "E4"}) {
    const auto e = get(name);
    auto a = quick_options();
    auto b = quick_options();
    b.date = "2027-06-30T12:00:00Z";
    const std::string ja = ex::result_to_json(ex::run_experiment(e, a, nullptr, "sim-only"));
    const std::string jb = ex::result_to_json(ex::run_experiment(e, b, nullptr, "sim-only"));
    EXPECT_NE(ja, jb) << "the dates differ";
    EXPECT_EQ(without_date(ja), without_date(jb)) << name;
    EXPECT_EQ(ex::result_to_csv(ex::run_experiment(e, a, nullptr, "")),
              ex::result_to_csv(ex::run_experiment(e, b, nullptr, "")));
  }
}

TEST(ExperimentRun, MeasuredPathRecordsErrorsDiagnosisAndVerdict) {
  const auto e = get("E1");
  SlowCopyDevice device;
  auto o = quick_options();
  o.repeats = 3;
  std::vector<std::string> progress;
  o.progress = [&](const std::string& s) { progress.push_back(s); };
  const ex::ExperimentResult r = ex::run_experiment(e, o, &device);
  ASSERT_TRUE(r.measured());
  EXPECT_EQ(r.meta.device_slug, "x100");
  EXPECT_EQ(r.meta.repeats, 3u);
  // One line per round (warm-up + 3), then one per configuration.
  ASSERT_EQ(progress.size(), 4 + r.configs.size());
  EXPECT_NE(progress[0].find("E1: warm-up round over 5 configurations done"), std::string::npos) << progress[0];
  EXPECT_NE(progress[3].find("E1: round 3/3"), std::string::npos) << progress[3];
  EXPECT_NE(progress[4].find("E1 [1/5] streams=1: predicted "), std::string::npos) << progress[4];
  EXPECT_NE(progress[4].find("measured"), std::string::npos);
  for (const auto& c : r.configs) {
    ASSERT_TRUE(c.measured);
    EXPECT_EQ(c.measured_runs, 3u);
    EXPECT_EQ(c.measured_spread, 0.0);  // the stand-in is deterministic
    // Slower copies on the "GPU": the prediction is too short.
    EXPECT_LT(c.makespan_error(), 0);
    ASSERT_TRUE(c.diagnosis.available);
    const auto& h2d = c.diagnosis.duration.at("h2d");
    // Half the bandwidth doubles each copy's transfer time; the spans come out slightly more than twice as
    // long with the calibrated H100 profile (2.10-2.14 on 2026-11-21), so the bound leaves room above 2.
    EXPECT_GE(h2d.measured_mean_ns / h2d.predicted_mean_ns, 1.9);
    EXPECT_LE(h2d.measured_mean_ns / h2d.predicted_mean_ns, 2.3);
    EXPECT_DOUBLE_EQ(c.diagnosis.duration.at("kernel").measured_mean_ns, c.diagnosis.duration.at("kernel").predicted_mean_ns);
  }
  const std::string why = ex::explain_miss(r.configs[0]);
  EXPECT_NE(why.find("h2d spans"), std::string::npos) << why;
  EXPECT_NE(why.find("GB/s"), std::string::npos) << why;
  EXPECT_NE(r.measured_verdict.outcome, ex::Outcome::not_measured);
}

TEST(ExperimentRun, TracesDirKeepsWorkloadPredictedAndMeasuredTracesPerConfiguration) {
  const auto e = get("E1");
  SlowCopyDevice device;
  auto o = quick_options();
  o.repeats = 1;
  o.traces_dir = temp_dir("traces");
  const ex::ExperimentResult r = ex::run_experiment(e, o, &device);
  ASSERT_FALSE(r.configs.empty());
  for (const auto& c : r.configs) {
    const fs::path stem = o.traces_dir / "E1" / ex::label_slug(c.label);
    const model::Workload w = model::load_workload(stem.string() + ".workload.json");
    const model::Trace p = model::load_trace(stem.string() + ".predicted.json");
    const model::Trace m = model::load_trace(stem.string() + ".measured.json");
    EXPECT_EQ(p.spans.size(), w.ops.size()) << c.label;
    EXPECT_EQ(m.spans.size(), w.ops.size()) << c.label;
    // The files are the runs the result reports: their makespans are the recorded ones.
    EXPECT_DOUBLE_EQ(static_cast<double>(model::compute_metrics(p).makespan_ns), c.predicted.makespan_ns) << c.label;
    EXPECT_DOUBLE_EQ(static_cast<double>(model::compute_metrics(m).makespan_ns), c.measured->makespan_ns) << c.label;
  }
  EXPECT_EQ(ex::label_slug("connections=8 order=depth-first streams=64"), "connections-8_order-depth-first_streams-64");
  EXPECT_EQ(ex::label_slug("stages=3/3/3 buffers=3"), "stages-3-3-3_buffers-3");
}

TEST(ExperimentRun, RepredictKeepsMeasurementsAndTakesTheNewProfile) {
  // Measured on the stand-in (copies at half the bundled bandwidth), predicted with the bundled profile.
  SlowCopyDevice device;
  const auto e = get("E3");
  auto o = quick_options();
  const ex::ExperimentResult measured = ex::run_experiment(e, o, &device);
  ASSERT_TRUE(measured.measured());
  ASSERT_FALSE(measured.meta.profile_data.empty());
  const DeviceProfile sizing =
      streamlab::model::parse_device_profile(measured.meta.profile_data, "profile_data");

  // Re-predicted with the stand-in's own profile, the prediction matches the measurement exactly.
  auto o2 = quick_options();
  o2.profile.h2d_pinned_gbps.value /= 2;
  o2.profile.d2h_pinned_gbps.value /= 2;
  o2.profile_label = "halved";
  const ex::ExperimentResult again = ex::repredict(e, measured, o2, sizing);
  ASSERT_EQ(again.configs.size(), measured.configs.size());
  for (std::size_t i = 0; i < again.configs.size(); ++i) {
    const auto& a = again.configs[i];
    const auto& m = measured.configs[i];
    ASSERT_TRUE(a.measured);
    EXPECT_EQ(a.measured->makespan_ns, m.measured->makespan_ns) << a.label;  // measurements untouched
    EXPECT_NEAR(a.makespan_error(), 0.0, 1e-9) << a.label;
    EXPECT_NE(m.makespan_error(), 0.0) << m.label;
    const auto& h2d = a.diagnosis.duration.at("h2d");
    EXPECT_DOUBLE_EQ(h2d.predicted_mean_ns, h2d.measured_mean_ns);
    EXPECT_TRUE(std::isnan(a.diagnosis.mean_abs_start_error_ns));
  }
  EXPECT_NE(again.meta.note.find("predictions recomputed"), std::string::npos);
  EXPECT_NE(again.meta.profile.find("halved"), std::string::npos);
  // The JSON still reads back.
  const auto back = ex::parse_result_json(ex::result_to_json(again), "again.json");
  EXPECT_EQ(ex::result_to_json(back), ex::result_to_json(again));
}

TEST(ExperimentRun, RepredictComparesPerOpWithTheMeasuredTracesOfItsOwnRunOnly) {
  // Measured on the stand-in with --traces: re-predicted with the stand-in's own profile, every op starts
  // where it was measured, so the per-op start error is known again and zero, and the predicted trace files
  // are the new predictions.
  SlowCopyDevice device;
  const auto e = get("E3");
  auto o = quick_options();
  o.traces_dir = temp_dir("repredict-traces");
  const ex::ExperimentResult measured = ex::run_experiment(e, o, &device);
  ASSERT_TRUE(measured.measured());
  const DeviceProfile sizing = streamlab::model::parse_device_profile(measured.meta.profile_data, "profile_data");
  auto o2 = quick_options();
  o2.profile.h2d_pinned_gbps.value /= 2;
  o2.profile.d2h_pinned_gbps.value /= 2;
  o2.traces_dir = o.traces_dir;
  const ex::ExperimentResult again = ex::repredict(e, measured, o2, sizing);
  for (const auto& c : again.configs) {
    EXPECT_EQ(c.diagnosis.mean_abs_start_error_ns, 0.0) << c.label;
    const model::Trace p = model::load_trace(o.traces_dir / "E3" / (ex::label_slug(c.label) + ".predicted.json"));
    EXPECT_DOUBLE_EQ(static_cast<double>(model::compute_metrics(p).makespan_ns), c.predicted.makespan_ns) << c.label;
  }
  EXPECT_NE(again.meta.note.find("per-op comparison against"), std::string::npos) << again.meta.note;

  // A later run of the same configurations that left no traces: the folder's traces are not its runs, so
  // they are not used (the start error stays unknown) and the predicted traces beside them stay as they were.
  ex::ExperimentResult later = measured;
  for (auto& c : later.configs) c.measured->makespan_ns += 1000;
  const auto before = model::read_text_file(o.traces_dir / "E3" / (ex::label_slug(later.configs[0].label) + ".predicted.json"));
  auto o3 = quick_options();
  o3.traces_dir = o.traces_dir;
  const ex::ExperimentResult not_theirs = ex::repredict(e, later, o3, sizing);
  for (const auto& c : not_theirs.configs) EXPECT_TRUE(std::isnan(c.diagnosis.mean_abs_start_error_ns)) << c.label;
  EXPECT_EQ(model::read_text_file(o.traces_dir / "E3" / (ex::label_slug(later.configs[0].label) + ".predicted.json")), before);
  EXPECT_EQ(not_theirs.meta.note.find("per-op comparison against"), std::string::npos) << not_theirs.meta.note;
}

TEST(ExperimentRun, HeadlinePredictionsUseTheProfileAloneAndTheIssueProbeIsADiagnostic) {
  // The host is 2.5x slower than the profile says for the whole run. E2's 64 streams issued breadth-first
  // wait for the host, so the profile's prediction (the headline, which errors and verdicts use) is far too
  // short; the issue probe before each run measures the slow host, and the prediction with host costs
  // scaled by it is kept beside the headline as a diagnostic, where it follows the run.
  // The profile is one without the busy-queue launch costs (calibrated 2026-11-21): with them, a slower
  // host finds fewer queues still busy at each launch, so the probe reads less than the host's slowdown
  // and the ratio below would not be exact.
  auto o = quick_options();
  o.profile = streamlab::model::load_device_profile(fs::path(STREAMLAB_SOURCE_DIR) / "model" / "profiles" /
                                                    "h100-sxm-2026-11-21.json");
  DriftingHostDevice device([](std::size_t) { return 2.5; }, o.profile);
  o.repeats = 3;
  const ex::ExperimentResult r = ex::run_experiment(get("E2"), o, &device);
  ASSERT_TRUE(r.measured());
  bool host_bound_seen = false;
  for (const auto& c : r.configs) {
    ASSERT_TRUE(c.measured) << c.label;
    // The simulator's costs are integer ns, so the measured ratio is 2.5 to within rounding.
    EXPECT_NEAR(c.predicted.extra.at("host_cost_scale"), 2.5, 0.01) << c.label;
    EXPECT_NEAR(c.measured->extra.at("issue_probe_ns_per_op") / c.predicted.extra.at("issue_probe_ns_per_op"), 2.5, 0.01);
    const double scaled = c.predicted.extra.at("makespan_host_scaled_ns");
    EXPECT_LT(std::abs(scaled - c.measured->makespan_ns) / c.measured->makespan_ns, 0.005) << c.label;
    EXPECT_LE(c.predicted.makespan_ns, scaled * 1.0001) << c.label << ": a faster host cannot make it longer";
    if (c.label == "connections=32 order=breadth-first streams=64") {
      host_bound_seen = true;
      // The headline: more than 20% short (the device's 500 us rounds bound how much of the 2.5x shows).
      EXPECT_LT(c.makespan_error(), -0.2) << "host-bound: the profile's host costs predict far too short";
    }
  }
  EXPECT_TRUE(host_bound_seen);
  // Re-predicting with the same profile recomputes the same predictions and diagnostics from the stored probe.
  const DeviceProfile sizing = streamlab::model::parse_device_profile(r.meta.profile_data, "profile_data");
  const ex::ExperimentResult again = ex::repredict(get("E2"), r, o, sizing);
  for (std::size_t i = 0; i < r.configs.size(); ++i)
    EXPECT_EQ(again.configs[i].predicted, r.configs[i].predicted) << r.configs[i].label;
}

TEST(ExperimentRun, RoundsSpreadAHostSpellOverConfigurationsInsteadOfDecidingOne) {
  // Runs go in rounds: every configuration once per round. A spell of a 4x slower host that lasts six
  // backends -- as long as three back-to-back runs of one configuration with their probes -- falls on one
  // run each of three configurations, so every median is a normal-speed run.
  const auto e = get("E2");
  auto o = quick_options();
  o.repeats = 3;
  const std::size_t configs = e.configurations({true, &o.profile}).size();
  const std::size_t spell_start = 2 * (configs + 5);  // round 1, configuration 6: probe + run per configuration
  DriftingHostDevice device([&](std::size_t n) { return n >= spell_start && n < spell_start + 6 ? 4.0 : 1.0; });
  const ex::ExperimentResult r = ex::run_experiment(e, o, &device);
  ASSERT_EQ(r.configs.size(), configs);
  for (std::size_t i = 0; i < configs; ++i) {
    const auto& c = r.configs[i];
    ASSERT_TRUE(c.measured) << c.label;
    EXPECT_EQ(c.predicted.extra.at("host_cost_scale"), 1.0) << c.label;
    EXPECT_EQ(c.makespan_error(), 0.0) << c.label;
  }
  // The spell shows as spread in the host-bound configuration it hit.
  EXPECT_EQ(r.configs[7].label, "connections=1 order=breadth-first streams=64");
  EXPECT_GT(r.configs[7].measured_spread, 0.5);
}

TEST(ExperimentRun, ProbeExperimentsReadTheSimulatorsCharges) {
  const auto r = ex::run_experiment(get("E4"), quick_options(), nullptr);
  const auto profile = streamlab::model::bundled_h100_profile();
  std::map<std::string, double> charged = {{"event-create-timed", profile.event_create_ns.value},
                                            {"event-record-untimed", profile.event_record_untimed_ns.value},
                                            {"event-record-timed", profile.event_record_timed_ns.value},
                                            {"event-query", profile.event_query_ns.value},
                                            {"stream-wait-event", profile.stream_wait_event_ns.value}};
  if (profile.event_destroy_ns.present()) charged["event-destroy"] = profile.event_destroy_ns.value;
  std::size_t checked = 0;
  for (const auto& c : r.configs) {
    auto it = charged.find(c.param("call"));
    if (it == charged.end()) continue;
    // The simulator's clock is integer ns: measured profile values are rounded to the nearest ns.
    EXPECT_DOUBLE_EQ(c.predicted.metric, static_cast<double>(std::llround(it->second))) << c.label;
    ++checked;
  }
  EXPECT_EQ(checked, charged.size());
  const auto r8 = ex::run_experiment(get("E8"), quick_options(), nullptr);
  for (const auto& c : r8.configs) {
    if (c.param("wait") == "device-synchronize") {
      EXPECT_GT(c.predicted.metric, 1.9e6);  // waits for B (2 ms later)
    } else {
      EXPECT_LT(c.predicted.metric, 50'000) << c.label;
    }
  }
}

// A stand-in GPU with a tracer: its Dispatcher backends charge three times the profile's host costs (as an
// attached CUPTI makes calls dearer), its probe backends start none and charge the profile's own.
class TracedHostDevice final : public ex::MeasuredDevice {
 public:
  explicit TracedHostDevice(bool tracer_started) : tracer_started_(tracer_started) {}
  [[nodiscard]] ex::DeviceMeta meta() const override { return {"Test GPU X100", "1.0", "13.0", "sim"}; }
  std::unique_ptr<streamlab::policies::Backend> make_backend(std::optional<std::uint32_t> connections) override {
    return make(connections, 3.0);
  }
  std::unique_ptr<streamlab::policies::Backend> make_probe_backend(std::optional<std::uint32_t> connections) override {
    ++probe_backends;
    return make(connections, 1.0);
  }
  [[nodiscard]] bool probes_perturbed() const override { return tracer_started_; }
  std::unique_ptr<ex::HostApi> make_host_api(streamlab::policies::Backend& b) override {
    return ex::make_backend_host_api(b);
  }
  [[nodiscard]] bool connections_fixed_per_process() const noexcept override { return true; }
  [[nodiscard]] std::optional<std::uint32_t> process_connections() const override { return 8; }
  std::size_t probe_backends = 0;

 private:
  static std::unique_ptr<streamlab::policies::Backend> make(std::optional<std::uint32_t> connections, double scale) {
    streamlab::sim::SimOptions o;
    o.connections = connections;
    o.date = "2026-01-01";
    o.host_cost_scale = scale;
    return std::make_unique<streamlab::sim::SimBackend>(streamlab::model::bundled_h100_profile(), o);
  }
  bool tracer_started_;
};

TEST(ExperimentRun, ProbesTimeCallsOnABackendWithoutATracerAndInAFreshProcessAfterOne) {
  // No tracer started yet: measured here, on probe backends, so the calls cost what the profile says.
  TracedHostDevice fresh(false);
  const auto r = ex::run_experiment(get("E4"), quick_options(), &fresh);
  EXPECT_EQ(fresh.probe_backends, 2 * r.configs.size());  // a warm-up round and one measured round
  for (const auto& c : r.configs) {
    ASSERT_TRUE(c.measured) << c.label;
    EXPECT_DOUBLE_EQ(c.measured->metric, c.predicted.metric) << c.label;  // 1x, not the traced 3x
  }
  // A tracer started in this process: the probes go to a fresh child process (here one that cannot start),
  // never measured in this one.
  TracedHostDevice traced(true);
  ex::SuiteOptions o = quick_options();
  o.self_exe = "/nonexistent/streamlab";
  const auto t = ex::run_experiment(get("E4"), o, &traced);
  EXPECT_EQ(traced.probe_backends, 0u);
  for (const auto& c : t.configs) EXPECT_FALSE(c.measured) << c.label;
  EXPECT_NE(t.meta.note.find("measurement failed for probes child process"), std::string::npos) << t.meta.note;
  // Without a way to start a child, the probes are measured here after all (on a probe backend).
  TracedHostDevice no_child(true);
  const auto u = ex::run_experiment(get("E4"), quick_options(), &no_child);
  EXPECT_EQ(no_child.probe_backends, 2 * u.configs.size());
}

TEST(ExperimentReport, SaysNotMeasuredAndListsEveryExperimentRun) {
  std::vector<ex::LoadedResult> loaded;
  const fs::path dir = temp_dir("report");
  for (const char* name : {"E1", "E5"}) {
    auto r = ex::run_experiment(get(name), quick_options(), nullptr, "sim-only: test");
    loaded.push_back({dir / "sim-h100-profile", std::move(r)});
  }
  const std::string md = ex::generate_report(loaded, dir);
  EXPECT_NE(md.find("## Summary"), std::string::npos);
  EXPECT_NE(md.find("| E1 Multi-stream copy/compute overlap |"), std::string::npos);
  EXPECT_NE(md.find("## E5: "), std::string::npos);
  EXPECT_NE(md.find("not measured on a GPU yet"), std::string::npos);
  EXPECT_EQ(md.find("## E2: "), std::string::npos);
}

TEST(ExperimentReport, MeasuredResultsWinAndMissesAreExplained) {
  SlowCopyDevice device;
  const fs::path dir = temp_dir("report_measured");
  std::vector<ex::LoadedResult> loaded;
  loaded.push_back({dir / "sim", ex::run_experiment(get("E1"), quick_options(), nullptr, "sim-only")});
  loaded.push_back({dir / "x100", ex::run_experiment(get("E1"), quick_options(), &device)});
  const std::string md = ex::generate_report(loaded, dir);
  EXPECT_NE(md.find("measured on Test GPU X100"), std::string::npos);
  EXPECT_NE(md.find("**Verdict (measured):"), std::string::npos);
  EXPECT_NE(md.find("configurations miss it"), std::string::npos);
  EXPECT_NE(md.find("- `streams=1`: predicted makespan"), std::string::npos);
}

TEST(ExperimentReport, AMetricOtherThanTheMakespanIsNotHiddenByAMakespanWithin5Percent) {
  // E7's metric is the foreground latency: measured here as predicted except one configuration's latency,
  // 20% longer at the same makespan. The 5% line says the makespans hold and names the metric's miss.
  auto r = ex::run_experiment(get("E7"), quick_options(), nullptr, "sim-only");
  ASSERT_FALSE(r.configs.empty());
  r.meta.measured = true;
  r.meta.device_name = "Test GPU";
  for (auto& c : r.configs) {
    c.measured = c.predicted;
    c.measured_runs = 3;
  }
  r.configs[0].measured->metric *= 1.2;
  for (auto& c : r.configs) c.predicted_range.reset();  // as in a result from before ranges were predicted
  ex::judge(get("E7"), r);
  const fs::path dir = temp_dir("report_metric");
  std::vector<ex::LoadedResult> loaded;
  loaded.push_back({dir / "x", r});
  const std::string md = ex::generate_report(loaded, dir);
  const std::string line = "*5% target:* every measured configuration's makespan is within 5%. Its metric, foreground "
                           "latency, is over 5% in 1 of " + std::to_string(r.configs.size()) + ": `" + r.configs[0].label +
                           "` -16.7%";
  EXPECT_NE(md.find(line + "."), std::string::npos) << md;
  // With a range that holds the measured latency, the line says so.
  r.configs[0].predicted_range = ex::PredictedRange{12, ex::kNone, ex::kNone, r.configs[0].predicted.metric,
                                                    r.configs[0].measured->metric, {}};
  loaded[0].result = r;
  const std::string with_range = ex::generate_report(loaded, dir);
  EXPECT_NE(with_range.find(line + " (1 of 1 with the measured median inside the predicted range)."), std::string::npos)
      << with_range;
}

TEST(ExperimentReport, TraceReplaySectionAndItsVerdictRow) {
  const fs::path dir = temp_dir("report_trace_replay");
  std::vector<ex::LoadedResult> loaded;
  loaded.push_back({dir / "sim", ex::run_experiment(get("E1"), quick_options(), nullptr, "sim-only")});
  const std::string replay =
      "## Replaying real traces\n\n| trace | error |\n| --- | ---: |\n| a.json.gz | +1.00% |\n\n"
      "Makespan |error|: median 1.00%, max 1.00% (target: median within 3%, max within 5%): **met**.\n";
  const std::string md = ex::generate_report(loaded, dir, {}, replay);
  EXPECT_NE(md.find("| R1 Replay of imported real traces |"), std::string::npos) << md;
  EXPECT_NE(md.find("Makespan \\|error\\|: median 1.00%, max 1.00%"), std::string::npos) << "the verdict line, in a cell";
  EXPECT_NE(md.find("| a.json.gz | +1.00% |"), std::string::npos) << "the section as written";
  EXPECT_EQ(ex::generate_report(loaded, dir).find("R1 "), std::string::npos);
}

TEST(ExperimentResults, DeviceSlugsAndBadFiles) {
  EXPECT_EQ(ex::device_slug("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(ex::device_slug("NVIDIA H200"), "h200");
  EXPECT_EQ(ex::device_slug("NVIDIA GeForce RTX 4090"), "nvidia-geforce-rtx-4090");  // no letters+digits token
  EXPECT_EQ(ex::device_slug("NVIDIA H100 SXM (public figures)"), "h100");
  EXPECT_THROW((void)ex::parse_result_json("{\"format\":\"other\"}", "x.json"), streamlab::model::InputError);
  EXPECT_THROW((void)ex::parse_result_json("{", "x.json"), streamlab::model::InputError);
  try {
    (void)ex::parse_result_json(R"({"format":"streamlab-experiment-result","format_version":1,"experiment":3})", "x.json");
    FAIL();
  } catch (const streamlab::model::InputError& err) {
    EXPECT_EQ(err.place(), "/experiment");
    EXPECT_EQ(err.file(), "x.json");
  }
}

TEST(ExperimentCli, ListPrintsEveryExperiment) {
  const fs::path exe = fs::path(STREAMLAB_BINARY_DIR) / "cli" / "streamlab";
  if (!fs::exists(exe)) GTEST_SKIP() << "streamlab not built";
  const fs::path out = fs::path(::testing::TempDir()) / "streamlab_experiment_list.txt";
  const std::string cmd = exe.string() + " experiment --list > " + out.string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string text = streamlab::model::read_text_file(out);
  for (std::size_t i = 1; i <= 9; ++i) EXPECT_NE(text.find(experiment_name(i) + " "), std::string::npos) << text;
  EXPECT_NE(text.find("claim"), std::string::npos);
}

namespace {

// The makespan of one configuration simulated with `so` (as the runner's predictions are).
double simulated_makespan(const ex::Configuration& c, const model::Workload& w, const streamlab::sim::SimOptions& so) {
  const DeviceProfile profile = model::bundled_h100_profile();
  streamlab::sim::SimBackend be(profile, so);
  auto api = ex::make_backend_host_api(be);
  return ex::run_configuration(c, w, be, api.get(), profile).measurement.makespan_ns;
}

}  // namespace

TEST(ExperimentRange, VariantsAreHostSpeedTimesCopyQueuesTimesQueueOrderTimesKernelRaceOrder) {
  streamlab::sim::SimOptions point;
  point.connections = 8;
  const auto v = ex::range_variants(model::bundled_h100_profile(), point);
  ASSERT_EQ(v.size(), 108u) << "9 host speeds x 2 queue layouts x 2 queue orders x 3 race rules";
  std::set<std::tuple<double, std::uint32_t, bool, streamlab::sim::KernelRace>> seen;
  std::set<double> speeds;
  for (const auto& so : v) {
    EXPECT_EQ(so.connections, point.connections);
    seen.emplace(so.host_speed.position, so.copy_queues_per_engine.value_or(0),
                 so.bit_reversed_copy_queues.value_or(false), so.kernel_race);
    speeds.insert(so.host_speed.position);
  }
  EXPECT_EQ(seen.size(), 108u) << "every variant differs";
  EXPECT_EQ(speeds, (std::set<double>{-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1})) << "the ends and between them";
  EXPECT_TRUE(seen.count({model::HostSpeed::typical.position, ex::kCopyQueuesShared, false,
                          streamlab::sim::KernelRace::ready_order}))
      << "the point itself (the simulator's defaults, named)";
  EXPECT_TRUE(seen.count({model::HostSpeed::slow.position, ex::kCopyQueuePerStream, true,
                          streamlab::sim::KernelRace::higher_stream_first}));
  // A profile whose host costs have no measured range cannot predict a fast or slow host: the 12 queue
  // and race variants at the profile's host.
  DeviceProfile flat = model::bundled_h100_profile();
  for (const auto& f : model::device_profile_fields()) (flat.*f.member).range.reset();
  const auto q = ex::range_variants(flat, point);
  ASSERT_EQ(q.size(), 12u);
  for (const auto& so : q) EXPECT_EQ(so.host_speed, model::HostSpeed::typical);
  // What each set varies, as the result files record it.
  EXPECT_EQ(ex::range_axes(model::bundled_h100_profile()),
            (std::vector<std::string>{"host-speed", "copy-queues", "copy-queue-order", "kernel-race"}));
  EXPECT_EQ(ex::range_axes(flat), (std::vector<std::string>{"copy-queues", "copy-queue-order", "kernel-race"}));
}

TEST(ExperimentRange, CoversThePointPredictionAndTheBitReversedQueueOrder) {
  // E3's copy-bound 3/3/3 ms pipeline over 3 buffers (full size): which buffer's upload the copy engine
  // takes next moves the makespan, and with the bit-reversed order (H100 run 84's machine) a slow host's
  // makespan is longer than any default-order variant's: the range reaches up to it.
  const ex::Experiment e = get("E3");
  ex::SuiteOptions o = quick_options();
  o.quick = false;
  const ex::ExperimentResult r = ex::run_experiment(e, o, nullptr, "sim-only");
  for (const auto& c : r.configs) {
    ASSERT_TRUE(c.predicted_range) << c.label;
    EXPECT_EQ(c.predicted_range->variants, 108u);
    EXPECT_TRUE(c.predicted_range->makespan_contains(c.predicted.makespan_ns)) << c.label;
    EXPECT_TRUE(c.predicted_range->metric_contains(c.predicted.metric)) << c.label;
  }
  const DeviceProfile profile = model::bundled_h100_profile();
  const ex::ConfigContext ctx{false, &profile};
  const auto configs = e.configurations(ctx);
  const auto it = std::find_if(configs.begin(), configs.end(),
                               [](const ex::Configuration& c) { return c.label == "stages=3/3/3 buffers=3"; });
  ASSERT_NE(it, configs.end());
  const model::Workload w = it->workload();
  streamlab::sim::SimOptions point;
  point.connections = it->connections;
  // Over the default-order variants and over the bit-reversed ones.
  std::vector<double> in_order, bit_reversed;
  for (const auto& so : ex::range_variants(profile, point))
    (so.bit_reversed_copy_queues.value_or(false) ? bit_reversed : in_order).push_back(simulated_makespan(*it, w, so));
  ASSERT_EQ(in_order.size(), 54u);
  ASSERT_EQ(bit_reversed.size(), 54u);
  const double high = *std::max_element(in_order.begin(), in_order.end());
  const double reversed_high = *std::max_element(bit_reversed.begin(), bit_reversed.end());
  const double low = std::min(*std::min_element(in_order.begin(), in_order.end()),
                              *std::min_element(bit_reversed.begin(), bit_reversed.end()));
  // At the profile's host the order alone moves it too.
  streamlab::sim::SimOptions reversed = point;
  reversed.bit_reversed_copy_queues = true;
  EXPECT_NE(simulated_makespan(*it, w, reversed), simulated_makespan(*it, w, point));
  const ex::ConfigResult& row = *std::find_if(r.configs.begin(), r.configs.end(),
                                              [&](const ex::ConfigResult& c) { return c.label == it->label; });
  EXPECT_GT(reversed_high, high) << "the bit-reversed order is not what decides the range here";
  EXPECT_EQ(row.predicted_range->makespan_high_ns, reversed_high);
  EXPECT_EQ(row.predicted_range->makespan_low_ns, low);
}

TEST(ExperimentRange, CoversBothOrdersOfAKernelRace) {
  // E7 with equal priorities: foreground and background kernels become ready within a microsecond of each
  // other. The foreground (stream 1) winning the races is the least latency: two of its kernels run
  // alongside a background kernel's blocks and it waits behind two whole background kernels (8 waves of
  // 100 us blocks each); the background (stream 2) winning them the greatest: behind three.
  const ex::Experiment e = get("E7");
  const ex::ExperimentResult r = ex::run_experiment(e, quick_options(), nullptr, "sim-only");
  for (const auto& c : r.configs) {
    ASSERT_TRUE(c.predicted_range) << c.label;
    const double point = c.predicted.metric;
    EXPECT_TRUE(c.predicted_range->metric_contains(point)) << c.label;
    const bool equal = std::find(c.params.begin(), c.params.end(), std::pair<std::string, std::string>{"mode", "equal"}) !=
                       c.params.end();
    if (equal) {
      EXPECT_LT(c.predicted_range->metric_low, 2.5 * 8 * 100'000.0) << c.label;
      EXPECT_GT(c.predicted_range->metric_high, 3 * 8 * 100'000.0) << c.label;
    } else if (std::find(c.params.begin(), c.params.end(), std::pair<std::string, std::string>{"mode", "priority"}) !=
               c.params.end()) {
      // Priorities: a race all the same (H100 run 106). The foreground winning it is the point; the next
      // background kernel winning it takes every SM first, and the foreground waits one background block
      // (100 us) for room.
      EXPECT_EQ(c.predicted_range->metric_low, point) << c.label;
      EXPECT_NEAR(c.predicted_range->metric_high, point + 100'000.0, 2'000.0) << c.label;
    } else {
      // Alone: one background kernel, nothing to race with.
      EXPECT_EQ(c.predicted_range->metric_high, point) << c.label;
      EXPECT_EQ(c.predicted_range->metric_low, point) << c.label;
    }
  }
}

TEST(ExperimentRange, ResultFilesKeepItAndOlderFilesWithoutItStillLoad) {
  const ex::ExperimentResult r = ex::run_experiment(get("E1"), quick_options(), nullptr, "sim-only");
  ASSERT_TRUE(r.configs[0].predicted_range);
  const std::string json = ex::result_to_json(r);
  const auto back = ex::parse_result_json(json, "E1.json");
  EXPECT_EQ(back.configs[0].predicted_range, r.configs[0].predicted_range);
  EXPECT_EQ(back.configs[0].predicted_range->axes.size(), 4u);
  const std::string csv = ex::result_to_csv(r);
  EXPECT_NE(csv.find(",measured_spread,predicted_makespan_low_ns,predicted_makespan_high_ns,predicted_makespan_low,"
                     "predicted_makespan_high,"),
            std::string::npos);
  // A file from before ranges were predicted: no key at all.
  auto j = nlohmann::json::parse(json);
  for (auto& c : j["configurations"]) c.erase("predicted_range");
  const auto old = ex::parse_result_json(j.dump(), "old.json");
  for (const auto& c : old.configs) EXPECT_FALSE(c.predicted_range);
  // A range whose low end is above its high end is a wrong file.
  auto bad = nlohmann::json::parse(json);
  bad["configurations"][0]["predicted_range"]["makespan_low_ns"] = 2 * r.configs[0].predicted_range->makespan_high_ns;
  try {
    (void)ex::parse_result_json(bad.dump(), "bad.json");
    FAIL();
  } catch (const streamlab::model::InputError& err) {
    EXPECT_EQ(err.place(), "/configurations/0/predicted_range/makespan_low_ns");
  }
  // An axis the simulator does not vary is a wrong file too.
  auto axis = nlohmann::json::parse(json);
  axis["configurations"][0]["predicted_range"]["axes"][1] = "weather";
  try {
    (void)ex::parse_result_json(axis.dump(), "axis.json");
    FAIL();
  } catch (const streamlab::model::InputError& err) {
    EXPECT_EQ(err.place(), "/configurations/0/predicted_range/axes/1");
  }
}

TEST(ExperimentReport, PredictedRangeColumnAndHowManyMissesAreInsideIt) {
  // E1 "measured" as predicted, except two configurations 10% off: one inside a range set around it, one
  // outside a range that is its point.
  auto r = ex::run_experiment(get("E1"), quick_options(), nullptr, "sim-only");
  ASSERT_EQ(r.configs.size(), 5u);
  r.meta.measured = true;
  r.meta.device_name = "Test GPU";
  for (auto& c : r.configs) {
    c.measured = c.predicted;
    c.measured_runs = 3;
  }
  auto scale = [](ex::ConfigResult& c, double f, double low, double high) {
    c.measured->makespan_ns = c.measured->metric = c.predicted.makespan_ns * f;
    c.predicted_range = ex::PredictedRange{12, c.predicted.makespan_ns * low, c.predicted.makespan_ns * high,
                                           c.predicted.makespan_ns * low, c.predicted.makespan_ns * high, {}};
  };
  scale(r.configs[0], 1.1, 0.9, 1.2);
  scale(r.configs[1], 0.9, 1.0, 1.0);
  ex::judge(get("E1"), r);
  const fs::path dir = temp_dir("report_range");
  std::vector<ex::LoadedResult> loaded;
  loaded.push_back({dir / "x", r});
  const std::string md = ex::generate_report(loaded, dir);
  EXPECT_NE(md.find("| error | predicted range (ms) | runs | spread |"), std::string::npos) << md;
  EXPECT_NE(md.find("*5% target:* 2 of 5 configurations miss it; 1 of them has the measured median inside the predicted "
                    "range (the fix"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("; 2/5 over 5% (1 inside the predicted range) |"), std::string::npos) << md;
  EXPECT_NE(md.find("The measured median makespan is inside it for 4 of 5 configurations."), std::string::npos) << md;
  EXPECT_NE(md.find("the measured median inside it."), std::string::npos) << md;
  EXPECT_NE(md.find("the measured median below it."), std::string::npos) << md;
  // Without recorded axes 12 variants were the host speeds x queues x orders of files from before the kernel
  // races; a profile without host ranges gives 12 too, over queues x orders x races, and the text says so.
  for (auto& c : r.configs) *c.predicted_range = ex::PredictedRange{12, c.predicted_range->makespan_low_ns,
                                                                    c.predicted_range->makespan_high_ns,
                                                                    c.predicted_range->metric_low,
                                                                    c.predicted_range->metric_high, {}};
  loaded[0].result = r;
  const std::string old = ex::generate_report(loaded, dir);
  EXPECT_NE(old.find("in a fast and a slow spell"), std::string::npos) << old;
  EXPECT_EQ(old.find("the lower stream's first"), std::string::npos) << old;
  for (auto& c : r.configs) c.predicted_range->axes = {"copy-queues", "copy-queue-order", "kernel-race"};
  loaded[0].result = r;
  const std::string flat = ex::generate_report(loaded, dir);
  EXPECT_EQ(flat.find("in a fast and a slow spell"), std::string::npos) << flat;
  EXPECT_NE(flat.find("the lower stream's first"), std::string::npos) << flat;
}
