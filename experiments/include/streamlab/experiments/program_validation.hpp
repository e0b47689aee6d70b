#pragma once
/// \file program_validation.hpp
/// The program validation suite (V1) in REPORT.md: every scenario as a hand-written plain CUDA program
/// (experiments/plain), the same calls through `streamlab run` (replay, tracing on) and `streamlab sim`
/// (replay, device profile alone), each measured on fresh processes. The results file is written by
/// experiments/scripts/program_suite.py (`predict`) from a GPU run; this reads it and writes the table and
/// verdicts: run within 2% of the plain program (medians), sim within 5% of the plain program with the
/// median error at most 2%, or, where the measured runs spread wider than that, the prediction inside
/// the measured range.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace streamlab::experiments {

inline constexpr double kRunTarget = 0.02;  ///< `streamlab run` vs the plain program
inline constexpr double kSimTarget = 0.05;  ///< `streamlab sim` vs the plain program, per configuration
inline constexpr double kSimMedianTarget = 0.02;

/// One variant's runs of one configuration (ns of its metric: when the metric synchronize returned).
struct VariantRuns {
  std::vector<double> runs_ns;
  [[nodiscard]] std::optional<double> median() const;
  [[nodiscard]] std::optional<double> spread() const;  ///< (max - min) / median
};

struct ProgramConfig {
  std::string label, scenario, metric;
  std::uint32_t connections = 8;
  std::optional<double> predicted_ns;
  /// "plain", "run", "records", and "run-gpu-timer" (`streamlab run --timing gpu-timer`: copies and memsets
  /// left untimed, so the run does not lengthen them; measured for the programs that have copies)
  std::map<std::string, VariantRuns> variants;
  /// variant / plain - 1 (medians) of a `streamlab run` variant
  [[nodiscard]] std::optional<double> run_error(const std::string& variant = "run") const;
  /// The run that changes nothing the GPU does: "run-gpu-timer" where measured, else "run" (a program
  /// without copies: `auto` already leaves CUPTI off).
  [[nodiscard]] std::string untimed_copies_variant() const;
  [[nodiscard]] std::optional<double> sim_error() const;  ///< predicted / plain - 1
  /// The prediction for a host in a fast and in a slow spell (`sim --host-speed fast|slow`: the profile's
  /// host API costs at the ends of their measured ranges), where the profile has ranges.
  std::optional<std::pair<double, double>> predicted_range_ns;
  /// The prediction lies within [min, max] of the plain program's runs.
  [[nodiscard]] bool predicted_inside_measured() const;
  /// How many of the plain program's runs lie inside predicted_range_ns (0 without a range).
  [[nodiscard]] std::size_t plain_runs_inside_predicted_range() const;
  /// The plain program's median lies inside predicted_range_ns.
  [[nodiscard]] bool plain_median_inside_predicted_range() const;
  /// Two-sided p-value of an exact rank-sum (Mann-Whitney) permutation test that `streamlab run`'s runs
  /// and the plain program's runs come from one distribution; nullopt without runs of both.
  [[nodiscard]] std::optional<double> run_plain_p(const std::string& variant = "run") const;
};

/// Significance level of run_plain_p: at or above it, run and plain are not told apart by their runs.
inline constexpr double kRunPlainLevel = 0.05;

/// Exact two-sided rank-sum permutation test (ties get average ranks): the share of all ways to split the
/// pooled values into groups of |a| and |b| whose rank sum for the first group is at least as far from its
/// mean as `a`'s. Samples of up to 12 values each (every split is enumerated); nullopt beyond or if empty.
[[nodiscard]] std::optional<double> rank_sum_p(const std::vector<double>& a, const std::vector<double>& b);

struct ProgramValidation {
  std::string device, driver, cuda_version, date, profile, predicted_with;
  std::uint32_t repeats = 0;
  std::vector<std::string> failures;
  std::vector<ProgramConfig> configs;
  std::filesystem::path file;
};

/// Parses a results file; InputError naming the file on anything malformed.
[[nodiscard]] ProgramValidation parse_program_validation(const std::string& text, const std::string& source);
/// Every program-validation file (marker "streamlab-program-validation") in `dir`, in the order measured.
[[nodiscard]] std::vector<ProgramValidation> load_program_validations(const std::filesystem::path& dir);

/// The summary-table row (same columns as the experiments') and the section with the full table.
[[nodiscard]] std::string program_validation_row(const ProgramValidation& v);
[[nodiscard]] std::string program_validation_section(const ProgramValidation& v, const std::filesystem::path& report_dir);

}  // namespace streamlab::experiments
