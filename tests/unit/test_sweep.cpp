// streamlab sweep: spec errors name the line, the plan's order, thread-count independence, the journal's
// recovery and resume.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "streamlab/experiments/sweep.hpp"
#include "streamlab/experiments/sweep_journal.hpp"
#include "streamlab/experiments/sweep_output.hpp"
#include "streamlab/experiments/sweep_spec.hpp"
#include "streamlab/experiments/sweep_unit.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"

namespace ex = streamlab::experiments;
namespace fs = std::filesystem;

namespace {

class SweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("streamlab-sweep-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write_spec(const std::string& text) {
    const fs::path f = dir_ / "spec.toml";
    streamlab::model::write_file_atomically(f, text);
    return f;
  }
  /// The error's place ("line N") for a spec that must be refused.
  std::string refused_at(const std::string& text, const std::string& reason_part) {
    const fs::path f = write_spec(text);
    try {
      (void)ex::plan_sweep(ex::load_sweep_spec(f));
    } catch (const streamlab::model::InputError& e) {
      EXPECT_EQ(e.file(), f.string());
      EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
      return e.place();
    }
    ADD_FAILURE() << "spec accepted:\n" << text;
    return "";
  }
  fs::path dir_;
};

const std::string kGen = "[[workloads]]\ngenerator = \"fork-join\"\nwidth = 4\nstages = 2\n";

TEST_F(SweepTest, BadEntriesNameTheirLine) {
  EXPECT_EQ(refused_at("version = 1\npolicies = [\"round-robin\", \"fastest\"]\n" + kGen, "unknown policy 'fastest'"),
            "line 2");
  EXPECT_EQ(refused_at("streams = [1,\n 0]\n" + kGen, "out of range"), "line 2");
  EXPECT_EQ(refused_at(kGen + "connections = 33\n", "no parameter 'connections'"), "line 5");
  EXPECT_EQ(refused_at("connections = [8, 33]\n" + kGen, "out of range"), "line 1");
  EXPECT_EQ(refused_at("colour = \"red\"\n" + kGen, "unknown key 'colour'"), "line 1");
  EXPECT_EQ(refused_at("\n[[workloads]]\ngenerator = \"mandelbrot\"\n", "unknown generator"), "line 3");
  EXPECT_EQ(refused_at("[[workloads]]\ngenerator = \"fork-join\"\nwidht = 4\n", "no parameter 'widht'"), "line 3");
  EXPECT_EQ(refused_at("[[workloads]]\nfiles = [\"nothing-*.json\"]\n", "matches no file"), "line 2");
  EXPECT_EQ(refused_at("mode = \"predicted\"\n" + kGen, "unknown mode"), "line 1");
  EXPECT_EQ(refused_at("streams = [1, 2\n" + kGen, "TOML syntax"), "line 2");
  EXPECT_EQ(refused_at("stream_kinds = [\"fast\"]\n" + kGen, "unknown stream kind"), "line 1");
  EXPECT_EQ(refused_at("windows = []\n" + kGen, "is empty"), "line 1");
  EXPECT_EQ(refused_at("streams = [2, 2]\n" + kGen, "twice"), "line 1");
  EXPECT_EQ(refused_at("version = 2\n" + kGen, "not supported"), "line 1");
  EXPECT_EQ(refused_at("name = \"x\"\n", "no [[workloads]]"), "");
  // A generator that refuses its parameters is named with the entry's line.
  EXPECT_EQ(refused_at("\n" + std::string("[[workloads]]\ngenerator = \"fork-join\"\nwidth = 0\n"), "fork-join width=0"),
            "line 2");
}

TEST_F(SweepTest, PlanOrderAndUnits) {
  const fs::path f = write_spec("policies = [\"round-robin\", \"load-balanced\"]\nstreams = [1, 4]\nrepeats = 2\n"
                                "[[workloads]]\ngenerator = \"random-dag\"\nops = 20\nlayers = 4\nseed = [1, 2, 3]\n"
                                "[[workloads]]\ngenerator = \"fork-join\"\nmode = \"both\"\n");
  const ex::SweepPlan plan = ex::plan_sweep(ex::load_sweep_spec(f));
  ASSERT_EQ(plan.workloads.size(), 4u);
  EXPECT_EQ(plan.workloads[0].label, "random-dag layers=4 ops=20 seed=1");
  EXPECT_EQ(plan.workloads[2].label, "random-dag layers=4 ops=20 seed=3");
  EXPECT_EQ(plan.workloads[3].label, "fork-join");
  ASSERT_EQ(plan.configs.size(), 16u);
  EXPECT_EQ(plan.configs[1].policy, "round-robin");  // streams is inside policies
  EXPECT_EQ(plan.configs[1].policy_config.streams, 4u);
  EXPECT_EQ(plan.configs[2].policy, "load-balanced");
  EXPECT_EQ(plan.simulated_units, 16u);
  EXPECT_EQ(plan.measured_units(), 4u * 2u);  // the fork-join entry's 4 configurations x 2 repeats
  EXPECT_FALSE(plan.configs[0].traced);
  EXPECT_TRUE(plan.configs[12].traced);  // measured too: predicted as a traced run
}

std::string run_all(const ex::SweepPlan& plan, unsigned jobs, ex::SweepJournal* journal = nullptr) {
  ex::SweepResults results(plan, journal);
  ex::SweepRunOptions o;
  o.jobs = jobs;
  ex::run_sweep_local(plan, results, o);
  EXPECT_TRUE(results.all_done());
  return ex::render_sweep(plan, results.payloads()).csv + ex::render_sweep(plan, results.payloads()).json;
}

const std::string kSmall =
    "policies = [\"round-robin\", \"load-balanced\", \"work-stealing\"]\nstreams = [1, 2, 4]\nwindows = [0, 2]\n"
    "[[workloads]]\ngenerator = \"random-dag\"\nops = 60\nlayers = 6\nseed = [1, 2]\n";

TEST_F(SweepTest, ThreadCountDoesNotChangeTheOutput) {
  const ex::SweepPlan plan = ex::plan_sweep(ex::load_sweep_spec(write_spec(kSmall)));
  const std::string one = run_all(plan, 1);
  EXPECT_EQ(one, run_all(plan, 3));
  EXPECT_EQ(one, run_all(plan, 8));
  EXPECT_NE(one.find("work-stealing"), std::string::npos);
}

TEST_F(SweepTest, JournalCutsATornTailAndDropsCorruptLines) {
  const fs::path j = dir_ / "sweep.journal";
  {
    ex::SweepJournal journal(j);
    journal.append("a", "{\"x\":1}");
    journal.append("b", "{\"x\":2}");
    journal.append("c", "{\"x\":3}");
  }
  std::string text = streamlab::model::read_text_file(j);
  const std::size_t second = text.find("\"b\"");
  text[second + 6] = '9';  // corrupt b's payload: its checksum no longer matches
  text += ex::SweepJournal::format_line("d", "{\"x\":4}").substr(0, 10);  // a line torn by a kill
  streamlab::model::write_file_atomically(j, text);
  {
    ex::SweepJournal journal(j);
    EXPECT_EQ(journal.entries().size(), 2u);
    EXPECT_EQ(journal.entries().at("a"), "{\"x\":1}");
    EXPECT_EQ(journal.entries().at("c"), "{\"x\":3}");
    EXPECT_EQ(journal.dropped_lines(), 2u);
    journal.append("d", "{\"x\":4}");
  }
  ex::SweepJournal again(j);
  EXPECT_EQ(again.entries().size(), 3u);
  EXPECT_EQ(again.dropped_lines(), 1u);  // only the corrupt middle line is left
}

TEST_F(SweepTest, SecondSweepIntoTheSameFolderIsRefused) {
  ex::SweepJournal first(dir_ / "sweep.journal");
  EXPECT_THROW(ex::SweepJournal second(dir_ / "sweep.journal"), streamlab::model::InputError);
}

TEST_F(SweepTest, ResumedSweepRunsOnlyWhatIsMissingAndWritesTheSameFiles) {
  const ex::SweepPlan plan = ex::plan_sweep(ex::load_sweep_spec(write_spec(kSmall)));
  const std::string fresh = run_all(plan, 2);
  const fs::path j = dir_ / "sweep.journal";
  {
    // An interrupted sweep: a third of the units journaled, then a torn line.
    ex::SweepJournal journal(j);
    ex::SweepResults partial(plan, &journal);
    for (std::size_t u = 0; u < plan.units.size(); u += 3)
      partial.complete(u, ex::run_simulated_unit(plan, plan.units[u].config));
  }
  {
    std::ofstream torn(j, std::ios::app);
    torn << "\"sim|torn";
  }
  ex::SweepJournal journal(j);
  ex::SweepResults results(plan, &journal);
  const std::size_t resumed = results.resumed();
  EXPECT_EQ(resumed, (plan.units.size() + 2) / 3);
  ex::UnitDealer dealer(plan, results);
  EXPECT_EQ(dealer.simulated_left(), plan.units.size() - resumed);
  ex::SweepRunOptions o;
  o.jobs = 2;
  ex::run_sweep_local(plan, results, o);
  EXPECT_EQ(ex::render_sweep(plan, results.payloads()).csv + ex::render_sweep(plan, results.payloads()).json, fresh);
}

TEST_F(SweepTest, MeasuredUnitsWithoutAGpuAreRefusedBeforeAnythingRuns) {
  const ex::SweepPlan plan = ex::plan_sweep(ex::load_sweep_spec(write_spec("mode = \"measured\"\n" + kGen)));
  ex::SweepResults results(plan, nullptr);
  ex::SweepRunOptions o;
  o.gpus = std::vector<std::uint32_t>{};
  EXPECT_THROW(ex::run_sweep_local(plan, results, o), std::runtime_error);
  EXPECT_EQ(results.completed(), 0u);
}

}  // namespace

namespace {

/// A stand-in for `streamlab run` on N GPUs: it logs when it runs on which GPU, sleeps a little, and
/// writes a trace with `streamlab sim` (same flags, `--device G` dropped, `--profile` -> `--device`).
fs::path fake_measuring_streamlab(const fs::path& dir, const fs::path& log) {
  const fs::path script = dir / "fake-streamlab";
  const std::string streamlab = (fs::path(STREAMLAB_BINARY_DIR) / "cli" / "streamlab").string();
  streamlab::model::write_file_atomically(script, R"sh(#!/bin/sh
shift  # "run"
args=""; gpu=""
while [ $# -gt 0 ]; do
  case "$1" in
    --device) gpu=$2; shift 2 ;;
    --profile) args="$args --device $2"; shift 2 ;;
    *) args="$args $1"; shift ;;
  esac
done
echo "start $gpu $(date +%s%N) conn=${CUDA_DEVICE_MAX_CONNECTIONS:-unset}" >> )sh" + log.string() + R"sh(
sleep 0.2
)sh" + streamlab + R"sh( sim $args > /dev/null || exit 1
echo "end $gpu $(date +%s%N)" >> )sh" + log.string() + "\n");
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

}  // namespace

TEST_F(SweepTest, OneMeasuringWorkerPerGpuAndNeverTwoRunsOnOneGpu) {
  if (!fs::exists(fs::path(STREAMLAB_BINARY_DIR) / "cli" / "streamlab")) GTEST_SKIP() << "streamlab not built";
  const fs::path log = dir_ / "runs.log";
  const ex::SweepPlan plan = ex::plan_sweep(ex::load_sweep_spec(write_spec(
      "mode = \"both\"\nrepeats = 2\nstreams = [1, 2]\nconnections = [1, 8]\n" + kGen)));
  ASSERT_EQ(plan.measured_units(), 8u);
  ex::SweepResults results(plan, nullptr);
  ex::SweepRunOptions o;
  o.jobs = 2;
  o.gpus = std::vector<std::uint32_t>{0, 1};  // two GPUs: two measuring workers
  o.streamlab = fake_measuring_streamlab(dir_, log);
  o.work_dir = dir_ / "work";
  ex::run_sweep_local(plan, results, o);
  ASSERT_TRUE(results.all_done());

  // Every measured row has its metrics, and the connection count reached the child's environment.
  const ex::SweepTables t = ex::render_sweep(plan, results.payloads());
  EXPECT_EQ(t.failed_rows, 0u) << t.csv;
  const std::string runs = streamlab::model::read_text_file(log);
  EXPECT_NE(runs.find("conn=1"), std::string::npos);
  EXPECT_NE(runs.find("conn=8"), std::string::npos);

  // Per GPU, runs never overlap; both GPUs were busy at once at some point.
  std::map<std::string, std::vector<std::pair<long long, long long>>> per_gpu;
  std::map<std::string, long long> open;
  std::istringstream in(runs);
  std::string what, gpu;
  long long ns = 0;
  std::string rest;
  while (in >> what >> gpu >> ns) {
    std::getline(in, rest);
    if (what == "start") {
      EXPECT_EQ(open.count(gpu), 0u) << "two runs at once on GPU " << gpu;
      open[gpu] = ns;
    } else {
      per_gpu[gpu].emplace_back(open[gpu], ns);
      open.erase(gpu);
    }
  }
  ASSERT_EQ(per_gpu.size(), 2u);
  EXPECT_EQ(per_gpu["0"].size() + per_gpu["1"].size(), 8u);
  bool concurrent = false;
  for (const auto& a : per_gpu["0"])
    for (const auto& b : per_gpu["1"]) concurrent = concurrent || (a.first < b.second && b.first < a.second);
  EXPECT_TRUE(concurrent) << runs;
}
