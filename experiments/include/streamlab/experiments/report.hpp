#pragma once
/// \file report.hpp
/// experiments/REPORT.md, generated from result files only (never hand-written numbers): a summary table
/// (experiment, claim, predicted, measured, prediction error, verdict), then per experiment the claim and
/// its source, the setup, the table of configurations, the chart, the verdict with why, and for the
/// experiments judged by the 5% makespan target every configuration that misses it, with the reason
/// read off the two traces.

#include <filesystem>
#include <string>
#include <vector>

#include "streamlab/experiments/program_validation.hpp"
#include "streamlab/experiments/results.hpp"

namespace streamlab::experiments {

/// A result and the folder it was read from (its chart sits beside it).
struct LoadedResult {
  std::filesystem::path dir;
  ExperimentResult result;
};

/// The Markdown text. `results` may hold several runs of one experiment (a measured one and a
/// simulator-only one): per experiment the measured run wins, then the newest date. Chart links are
/// relative to `report_dir` and only written when `<dir>/<name>.png` exists (the SVG and PDF beside it are
/// linked).
/// `programs`: program validation results (program_validation.hpp), a summary row and a section each.
/// `trace_replay`: the text `streamlab replay-report` wrote for the imported real traces (empty: none); it
/// becomes a section as written, with a summary row that carries its makespan verdict line.
[[nodiscard]] std::string generate_report(const std::vector<LoadedResult>& results,
                                          const std::filesystem::path& report_dir,
                                          const std::vector<ProgramValidation>& programs = {},
                                          const std::string& trace_replay = {});

}  // namespace streamlab::experiments
