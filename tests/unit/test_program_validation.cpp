// The program validation section of REPORT.md: results parsing, errors against the plain program, the
// verdict counts, and refusal of malformed files.
#include <gtest/gtest.h>

#include <string>

#include "streamlab/experiments/program_validation.hpp"
#include "streamlab/experiments/report.hpp"
#include "streamlab/model/errors.hpp"

namespace ex = streamlab::experiments;

namespace {

const char* kResults = R"({
  "format": "streamlab-program-validation", "name": "V1",
  "meta": {"device": "NVIDIA H100 80GB HBM3", "driver": "580.159.04", "cuda_version": "13.0",
           "date": "2026-11-23", "profile": "bundled", "predicted_with": "streamlab sim", "repeats": 3,
           "failures": ["x run r1: exit 1"]},
  "configs": [
    {"label": "a", "scenario": "chunked", "params": {}, "connections": 8, "metric": "end", "predicted_ns": 1030000,
     "plain": {"runs_ns": [1000000, 990000, 1010000]}, "run": {"runs_ns": [1010000, 1000000, 1020000]},
     "records": {"runs_ns": [1000000, 1000000, 1000000]}},
    {"label": "b", "scenario": "chains", "params": {}, "connections": 1, "metric": "end", "predicted_ns": 1300000,
     "plain": {"runs_ns": [1000000, 800000, 1400000]}, "run": {"runs_ns": [1100000, 1100000, 1100000]}},
    {"label": "c", "scenario": "priority", "params": {}, "connections": 8, "metric": "fg_done", "predicted_ns": null,
     "plain": {"runs_ns": [400000]}}
  ]})";

}  // namespace

TEST(ProgramValidation, ErrorsAreAgainstThePlainProgramsMedian) {
  const ex::ProgramValidation v = ex::parse_program_validation(kResults, "v1.json");
  ASSERT_EQ(v.configs.size(), 3u);
  const auto& a = v.configs[0];
  EXPECT_NEAR(*a.run_error(), 0.01, 1e-12);
  EXPECT_NEAR(*a.sim_error(), 0.03, 1e-12);
  EXPECT_NEAR(*a.variants.at("plain").spread(), 0.02, 1e-12);
  EXPECT_FALSE(a.predicted_inside_measured());
  const auto& b = v.configs[1];
  EXPECT_NEAR(*b.sim_error(), 0.3, 1e-12);
  EXPECT_TRUE(b.predicted_inside_measured()) << "1.3 ms lies in the plain runs' 0.8..1.4 ms";
  EXPECT_FALSE(v.configs[2].sim_error()) << "no prediction";
  EXPECT_FALSE(v.configs[2].run_error()) << "no run";
}

TEST(ProgramValidation, SummaryRowCountsTargetsAndSectionListsFailures) {
  const ex::ProgramValidation v = ex::parse_program_validation(kResults, "v1.json");
  const std::string row = ex::program_validation_row(v);
  EXPECT_NE(row.find("1/2 runs within 2% of the plain program, 1 more not told apart from its runs"), std::string::npos)
      << row;  // b: +10%, but its runs sit inside the plain program's 0.8..1.4 ms (p = 0.70)
  EXPECT_NE(row.find("sim: 1/2 within 5%"), std::string::npos) << row;
  EXPECT_NE(row.find("1 more inside the measured range"), std::string::npos) << row;
  EXPECT_NE(row.find("**partly**"), std::string::npos) << row;
  const std::string sec = ex::program_validation_section(v, ".");
  EXPECT_NE(sec.find("| `a` | 8 | 1.000 | 2.0% | 1.010 | 2.0% | +1.0% | 0.50 | 1.030 | +3.0% | no | +0.0% |"),
            std::string::npos)
      << sec;
  EXPECT_NE(sec.find("x run r1: exit 1"), std::string::npos);
}

TEST(ProgramValidation, PredictedRangesCountThePlainRunsInside) {
  std::string text = kResults;
  const std::string b = R"("predicted_ns": 1300000,)";
  text.replace(text.find(b), b.size(), b + R"( "predicted_range_ns": [900000, 1350000],)");
  const ex::ProgramValidation v = ex::parse_program_validation(text, "v1.json");
  const auto& cfg = v.configs[1];
  ASSERT_TRUE(cfg.predicted_range_ns.has_value());
  EXPECT_EQ(cfg.plain_runs_inside_predicted_range(), 1u) << "of 0.8, 1.0 and 1.4 ms only 1.0 lies in 0.9..1.35";
  EXPECT_TRUE(cfg.plain_median_inside_predicted_range());
  EXPECT_EQ(v.configs[0].plain_runs_inside_predicted_range(), 0u) << "no range";
  const std::string row = ex::program_validation_row(v);
  EXPECT_NE(row.find("1 more with the plain median inside the predicted range"), std::string::npos) << row;
  const std::string sec = ex::program_validation_section(v, ".");
  EXPECT_NE(sec.find("sim range (ms): plain runs inside"), std::string::npos) << sec;
  EXPECT_NE(sec.find("| 0.900-1.350: 1/3, median inside |"), std::string::npos) << sec;

  std::string bad = kResults;
  bad.replace(bad.find(b), b.size(), b + R"( "predicted_range_ns": [2, 1],)");
  try {
    (void)ex::parse_program_validation(bad, "bad.json");
    FAIL() << "low > high";
  } catch (const streamlab::model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("low <= high"), std::string::npos) << e.what();
  }
}

TEST(ProgramValidation, MalformedFilesAreRefusedNamingThem) {
  EXPECT_THROW((void)ex::parse_program_validation(R"({"format": "other"})", "f.json"), streamlab::model::InputError);
  try {
    (void)ex::parse_program_validation(R"({"format": "streamlab-program-validation", "meta": {}})", "g.json");
    FAIL() << "no configs";
  } catch (const streamlab::model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("g.json"), std::string::npos) << e.what();
  }
}

TEST(ProgramValidation, RankSumTestIsExact) {
  // Completely separated groups of 5: 2 of the C(10,5) = 252 splits are as extreme (both tails).
  const auto p = ex::rank_sum_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(*p, 2.0 / 252.0, 1e-12);
  // Interleaved groups (rank sum 25 vs mean 27.5): 174 of 252 splits are as far or farther.
  EXPECT_NEAR(*ex::rank_sum_p({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 174.0 / 252.0, 1e-12);
  EXPECT_DOUBLE_EQ(*ex::rank_sum_p({4, 4, 4}, {4, 4, 4}), 1.0);  // all tied
  // Rank sum 7 vs mean 10.5 for 3 of 6: sums 6, 7, 14 and 15 are as far, 4 of the 20 splits.
  EXPECT_NEAR(*ex::rank_sum_p({1, 2, 4}, {3, 5, 6}), 4.0 / 20.0, 1e-12);
  EXPECT_FALSE(ex::rank_sum_p({}, {1.0}).has_value());
}

TEST(ProgramValidation, RunsWithCopiesUntimedAreJudgedBesideTheTracedRuns) {
  // a has copies: its traced run is +3% (CUPTI's timestamps lengthen the copies; its runs are not told
  // apart from the plain ones, p = 0.10), its run with copies untimed +0.5%. b has none, so the suite measured no run-gpu-timer for it (an empty list) and its
  // "run" stands for both.
  std::string text = kResults;
  const std::string a_run = R"("run": {"runs_ns": [1010000, 1000000, 1020000]},)";
  text.replace(text.find(a_run), a_run.size(),
               R"("run": {"runs_ns": [1030000, 1030000, 1030000]}, "run-gpu-timer": {"runs_ns": [1005000, 1005000, 1005000]},)");
  const std::string b_run = R"("run": {"runs_ns": [1100000, 1100000, 1100000]})";
  text.replace(text.find(b_run), b_run.size(), R"("run": {"runs_ns": [1000000, 1010000, 990000]}, "run-gpu-timer": {"runs_ns": []})");
  const ex::ProgramValidation v = ex::parse_program_validation(text, "v1.json");
  const auto& a = v.configs[0];
  EXPECT_EQ(a.untimed_copies_variant(), "run-gpu-timer");
  EXPECT_NEAR(*a.run_error(), 0.03, 1e-12);
  EXPECT_NEAR(*a.run_error("run-gpu-timer"), 0.005, 1e-12);
  EXPECT_EQ(v.configs[1].untimed_copies_variant(), "run") << "an empty variant is one not measured";
  EXPECT_EQ(v.configs[1].variants.count("run-gpu-timer"), 0u);
  const std::string row = ex::program_validation_row(v);
  EXPECT_NE(row.find("2/2 runs within 2% of the plain program with copies untimed, 0 more not told apart "
                     "(copies timed by CUPTI: 1, 1)"),
            std::string::npos)
      << row;
  const std::string sec = ex::program_validation_section(v, ".");
  EXPECT_NE(sec.find("run, copies untimed (ms) | vs plain | p |"), std::string::npos) << sec;
  EXPECT_NE(sec.find("| +3.0% | 0.10 | 1.005 | +0.5% | 0.70 | 1.030 |"), std::string::npos) << sec;
  EXPECT_NE(sec.find("| `c` | 8 | 0.400 | 0.0% | n/a | n/a | n/a | n/a | n/a | | | n/a |"), std::string::npos) << sec;
  EXPECT_NE(sec.find("| = run | | | 1.300 |"), std::string::npos) << sec;
  EXPECT_NE(sec.find("With the copies left untimed (`--timing gpu-timer`, which changes nothing the copy engines do): 2 of 2"),
            std::string::npos)
      << sec;
}
