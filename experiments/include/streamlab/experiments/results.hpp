#pragma once
/// \file results.hpp
/// One experiment's results as files: `<dir>/<name>.json` (everything, with the run's metadata),
/// `<dir>/<name>.csv` (one row per configuration; the charts are drawn from it, charts.hpp). JSON is the
/// source of truth: the report and `streamlab experiment repredict` read it back.
///
/// JSON (format "streamlab-experiment-result", version 1):
///   {"format":..., "format_version":1, "experiment":"E1", "title", "claim", "source", "setup",
///    "metric":{"name","description","unit","scale"}, "makespan_target":bool, "has_makespan":bool,
///    "meta":{device_slug, device_name, driver, cuda_version, date, profile, version, git_commit,
///            command_line, measured, quick, repeats, note, profile_data (the profile, optional)},
///    "configurations":[{"label", "params":{..} (ordered as defined), "predicted":{makespan_ns, metric,
///            extra:{..}}, "predicted_range":{variants, makespan_low_ns, makespan_high_ns, metric_low,
///            metric_high}|null (absent in older files: no range), "measured":{..}|null, "measured_runs", "measured_spread", "makespan_error",
///            "metric_error", "diagnosis":{..}|null}],
///    "verdict":{"predicted":{"outcome","why"}, "measured":{"outcome","why"}}}
/// Numbers are raw (ns, ratios); missing ones are null.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "streamlab/experiments/experiment.hpp"

namespace streamlab::experiments {

/// Where and how the numbers were obtained.
struct RunMeta {
  std::string device_slug;   ///< results folder name: "h100", "sim-h100-profile"
  std::string device_name;   ///< measured: the GPU; sim-only: the profile's device
  std::string driver;        ///< measured: the driver; sim-only: "" (the profile's is in `profile`)
  std::string cuda_version;  ///< measured: runtime version
  std::string date;          ///< ISO 8601, UTC
  std::string profile;       ///< the device profile the prediction used
  /// The JSON (device_profile_to_json) of the profile the run sized its workloads with: the prediction
  /// profile of the original run, kept by repredict so a re-prediction simulates the workloads that were
  /// measured; "" in results written before it was recorded.
  std::string profile_data;
  std::string version;       ///< streamlab version
  std::string git_commit;    ///< "" when unknown
  std::string command_line;
  bool measured = false;
  bool quick = false;
  std::uint32_t repeats = 0;  ///< measured runs per configuration (median)
  std::string note;           ///< e.g. "sim-only: no CUDA device (cudaGetDeviceCount returned 0)"
  friend bool operator==(const RunMeta&, const RunMeta&) = default;
};

struct ExperimentResult {
  std::string name, title, claim, source, setup;
  MetricInfo metric;
  bool makespan_target = false;
  bool has_makespan = true;
  RunMeta meta;
  std::vector<ConfigResult> configs;
  Verdict predicted_verdict;
  Verdict measured_verdict;  ///< outcome not_measured without measurements
  [[nodiscard]] bool measured() const noexcept;
  friend bool operator==(const ExperimentResult&, const ExperimentResult&) = default;
};

[[nodiscard]] std::string result_to_json(const ExperimentResult& r);
/// Strict enough to catch a wrong file: throws model::InputError naming `source` and the JSON pointer.
[[nodiscard]] ExperimentResult parse_result_json(std::string_view text, const std::string& source);
/// Header: config, the parameters, predicted_makespan_ns, measured_makespan_ns, makespan_error,
/// predicted_<metric>, measured_<metric>, metric_error, measured_runs, measured_spread,
/// predicted_makespan_low_ns, predicted_makespan_high_ns, predicted_<metric>_low, predicted_<metric>_high
/// (PredictedRange; empty without one), then
/// predicted_/measured_ columns for each extra (sorted by name). Empty cell = no value.
[[nodiscard]] std::string result_to_csv(const ExperimentResult& r);

/// Writes `<name>.json` and `<name>.csv` into `dir` (created if missing), atomically.
void write_result_files(const ExperimentResult& r, const std::filesystem::path& dir);
/// Every `*.json` result in `dir`, in experiment-name order. Throws InputError on a malformed file.
[[nodiscard]] std::vector<ExperimentResult> load_results(const std::filesystem::path& dir);

/// "NVIDIA H100 80GB HBM3" -> "h100"; falls back to a lowercase, dash-separated name.
[[nodiscard]] std::string device_slug(std::string_view device_name);

/// The git commit of the checkout at `start` (walks up to .git; reads HEAD and refs), "" when unknown.
[[nodiscard]] std::string git_commit(const std::filesystem::path& start);
/// UTC now, "2026-11-21T17:03:12Z".
[[nodiscard]] std::string utc_now_iso();

}  // namespace streamlab::experiments
