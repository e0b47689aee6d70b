#pragma once
/// \file experiment.hpp
/// One experiment = one claim from the research notes, a table of configurations, and the code that turns
/// the numbers into a verdict. Every configuration runs twice through the same Dispatcher: on the
/// simulator (the prediction) and, where a GPU is present, on the CUDA executor (the measurement).
///
/// Experiments that time single host API calls (E4 events, E8 synchronization) are *probes*: instead of a
/// Dispatcher run they call a HostApi, which the simulator implements with its charged costs and the
/// CUDA side with the raw runtime calls.

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/backend.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/policy.hpp"

namespace streamlab::experiments {

using model::Nanos;

/// A number a configuration does not report (NaN; written as empty CSV cells and JSON null).
inline constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
[[nodiscard]] inline bool has_value(double v) noexcept { return !std::isnan(v); }

/// What one run of one configuration produced. Times in ns.
struct Measurement {
  double makespan_ns = kNone;  ///< latest span end - earliest span start (Dispatcher runs)
  double metric = kNone;       ///< the experiment's own metric (Experiment::metric)
  std::map<std::string, double> extra;  ///< secondary numbers (overlap, concurrency, ...)
  friend bool operator==(const Measurement&, const Measurement&) = default;
};

/// A configuration's parameters in definition order; each becomes a CSV column.
using Params = std::vector<std::pair<std::string, std::string>>;

/// The host API calls the probe experiments time. The simulator's implementation goes through the
/// Backend (so a probe reads exactly what the simulator charges); the CUDA one calls the runtime
/// directly on the CudaBackend's stream handles (cudaEventCreate, cudaStreamSynchronize, ...), so the
/// measurement is the runtime's cost and not our bookkeeping's.
class HostApi {
 public:
  virtual ~HostApi() = default;
  HostApi() = default;
  HostApi(const HostApi&) = delete;
  HostApi& operator=(const HostApi&) = delete;

  /// Host clock, ns since the backend's prepare() (the trace's clock).
  [[nodiscard]] virtual Nanos now() = 0;
  /// Events are small integers owned by the HostApi.
  virtual std::uint32_t create_event(policies::EventTiming timing) = 0;
  virtual void destroy_event(std::uint32_t event) = 0;
  virtual void record_event(std::uint32_t event, policies::StreamId stream) = 0;
  virtual void stream_wait_event(policies::StreamId stream, std::uint32_t event) = 0;
  [[nodiscard]] virtual bool query_event(std::uint32_t event) = 0;
  [[nodiscard]] virtual bool query_stream(policies::StreamId stream) = 0;
  virtual void synchronize_event(std::uint32_t event) = 0;
  virtual void synchronize_stream(policies::StreamId stream) = 0;
  virtual void synchronize_device() = 0;
};

/// What a probe gets: the prepared backend (for streams and work) and the HostApi to time.
struct ProbeContext {
  policies::Backend& backend;
  HostApi& api;
  const model::Workload& workload;
};

/// A probe runs after backend.prepare(workload) and ends by calling backend.finish() itself (it usually
/// needs the trace's spans to place the host's timestamps against the device's work).
using Probe = std::function<Measurement(ProbeContext& ctx)>;

/// Turns a Dispatcher run into a Measurement (null = makespan as the metric, plus overlap extras).
using Evaluate = std::function<Measurement(const model::Workload&, const policies::DispatchResult&)>;

/// The name of the experiments' own issue-order policy (workload_order_policy.hpp).
inline constexpr std::string_view kWorkloadOrderPolicy = "workload-order";

/// One configuration of an experiment.
struct Configuration {
  std::string label;  ///< unique within the experiment, e.g. "connections=8 order=depth-first streams=16"
  Params params;
  std::function<model::Workload()> workload;
  /// One of policies::policy_names(), policies::kReplayPolicy or kWorkloadOrderPolicy; empty: replay for a
  /// program workload, round-robin for a DAG.
  std::string policy;
  policies::PolicyConfig config;
  policies::EventTiming event_timing = policies::EventTiming::untimed;
  /// CUDA_DEVICE_MAX_CONNECTIONS for this configuration (unset = the device default). On a GPU it must
  /// be set before the CUDA context exists, so the runner measures these in a child process.
  std::optional<std::uint32_t> connections;
  Evaluate evaluate;  ///< Dispatcher runs
  Probe probe;        ///< set: a probe instead of a Dispatcher run
};

enum class Outcome : std::uint8_t { confirmed, refuted, depends, not_measured };
[[nodiscard]] std::string_view to_string(Outcome o) noexcept;
[[nodiscard]] std::optional<Outcome> parse_outcome(std::string_view s) noexcept;

struct Verdict {
  Outcome outcome = Outcome::not_measured;
  std::string why;
  friend bool operator==(const Verdict&, const Verdict&) = default;
};

enum class Side : std::uint8_t { predicted, measured };

/// Why predicted and measured differ, from the two traces of one configuration (measured: the median
/// run). Means are over ops of that kind matched by id; times in ns.
struct Diagnosis {
  struct KindTimes {
    double predicted_mean_ns = 0;
    double measured_mean_ns = 0;
    double mean_bytes = 0;  ///< copies: mean bytes per op (implied bandwidth = bytes / measured time)
    std::uint32_t ops = 0;
    friend bool operator==(const KindTimes&, const KindTimes&) = default;
  };
  bool available = false;
  std::map<std::string, KindTimes> duration;  ///< op kind ("kernel", "h2d", ...) -> mean span length
  double first_start_predicted_ns = 0, first_start_measured_ns = 0;  ///< earliest span start after prepare()
  double overlap_predicted = 0, overlap_measured = 0;                ///< copy/compute overlap
  double concurrency_predicted = 0, concurrency_measured = 0;        ///< mean concurrency
  double mean_abs_start_error_ns = 0;  ///< per op, start relative to each trace's first span
  friend bool operator==(const Diagnosis&, const Diagnosis&) = default;
};

/// The host speeds a predicted range takes (model::HostSpeed positions: -1 the fast end of the host's
/// measured range, +1 the slow end), besides the point's own.
inline constexpr std::array<double, 8> kHostSpeedPositions{-1.0, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1.0};
/// The names of what a PredictedRange can vary, in the order range_variants nests them.
inline constexpr std::array<std::string_view, 4> kRangeAxes{"host-speed", "copy-queues", "copy-queue-order",
                                                            "kernel-race"};

/// What the simulator predicts over the spread it models between machines and between runs: the same
/// workload, Dispatcher and policy simulated with the host at the profile's speed and at eight positions
/// from a fast to a slow spell (kHostSpeedPositions: every host API cost from the low to the high end of
/// the range calibrate measured, model::at_host_speed),
/// each with the copy engines' queues shared by streams s and s + 4 (the default) and with a queue per
/// stream, each with the engines taking the oldest copy's queue next and taking the queues in bit-reversed
/// order, each with kernels of any priority that become ready within a microsecond of each other
/// taken in the order they became ready, lower stream first and higher stream first (sim::KernelRace):
/// 108 variants (runner.hpp's range_variants); with a profile whose host costs have no ranges, the 12
/// queue and race variants at the profile's host. The typical-host, default-queue variant is the point prediction
/// (ConfigResult::predicted), so the range holds it. Low and high are the least and the greatest value over
/// the variants (kNone where no variant has one, e.g. the makespan of a probe).
struct PredictedRange {
  std::uint32_t variants = 0;  ///< simulated variants the range is over
  double makespan_low_ns = kNone, makespan_high_ns = kNone;
  double metric_low = kNone, metric_high = kNone;
  /// What the variants vary (kRangeAxes' names: "host-speed", "copy-queues", "copy-queue-order",
  /// "kernel-race"); empty in result files written before it was recorded.
  std::vector<std::string> axes;
  /// Whether `v` lies in [low, high] of the makespan / the metric (false where either is missing).
  [[nodiscard]] bool makespan_contains(double v) const noexcept;
  [[nodiscard]] bool metric_contains(double v) const noexcept;
  /// Widens the range to take in one variant's makespan and metric (NaNs are skipped) and counts it.
  void add(const Measurement& variant) noexcept;
  friend bool operator==(const PredictedRange&, const PredictedRange&) = default;
};

/// One configuration's numbers.
struct ConfigResult {
  std::string label;
  Params params;
  Measurement predicted;
  /// The prediction's range over the modelled machine and run spread; unset in results from before it
  /// was predicted (and for configurations a re-prediction no longer defines).
  std::optional<PredictedRange> predicted_range;
  std::optional<Measurement> measured;
  std::uint32_t measured_runs = 0;
  double measured_spread = kNone;  ///< (max - min) / median of the measured metric over the runs
  Diagnosis diagnosis;

  [[nodiscard]] const Measurement* side(Side s) const noexcept {
    return s == Side::predicted ? &predicted : (measured ? &*measured : nullptr);
  }
  /// The value of parameter `key` ("" when absent).
  [[nodiscard]] std::string param(std::string_view key) const;
  /// (predicted - measured) / measured of the makespan / metric; NaN without a measurement.
  [[nodiscard]] double makespan_error() const noexcept;
  [[nodiscard]] double metric_error() const noexcept;
  /// Whether the measured median lies inside the predicted range: its makespan (`makespan` true) or its
  /// metric; false without a measurement or a range.
  [[nodiscard]] bool measured_inside_predicted_range(bool makespan) const noexcept;
  friend bool operator==(const ConfigResult&, const ConfigResult&) = default;
};

/// What the experiment's metric is and how to print it.
struct MetricInfo {
  std::string name;          ///< CSV column stem, e.g. "makespan", "per_iteration", "call_cost"
  std::string description;   ///< "makespan of the 8-chunk batch"
  std::string unit = "ms";   ///< display unit
  double scale = 1e-6;       ///< raw (ns) -> display unit
  friend bool operator==(const MetricInfo&, const MetricInfo&) = default;
};

/// What configuration builders may read: the size mode and the profile the prediction uses (workloads
/// that state stage *times*, like E3's 2/5/2 ms pipeline, turn them into bytes with its bandwidths).
struct ConfigContext {
  bool quick = false;
  const model::DeviceProfile* profile = nullptr;  ///< never null when the runner calls
  /// The profile workloads take their sizes from (null = `profile`). Re-predicting a measured run with a
  /// newer profile keeps the measured run's one, so the simulated workload is the one that was measured.
  const model::DeviceProfile* workload_profile = nullptr;
  [[nodiscard]] const model::DeviceProfile& sizing() const noexcept { return workload_profile ? *workload_profile : *profile; }
};

/// One experiment: a claim, its configurations and how to judge them.
struct Experiment {
  std::string name;    ///< "E1"
  std::string title;   ///< "Multi-stream copy/compute overlap"
  std::string claim;   ///< the claim as the source states it (our words)
  std::string claim_short;  ///< a few words for the summary table ("3+ streams cut latency 40-60%")
  std::string source;  ///< where it comes from
  std::string setup;   ///< workload, parameters, policy, how each number is obtained
  MetricInfo metric;
  /// Judged by "simulated makespan within 5% of measured" (E1, E2, E3, E5, E6, E7).
  bool makespan_target = false;
  /// Dispatcher runs report a makespan; probes do not.
  bool has_makespan = true;
  std::function<std::vector<Configuration>(const ConfigContext&)> configurations;
  /// Decides from the numbers of one side; thresholds are written in the definition.
  std::function<Verdict(std::span<const ConfigResult>, Side)> verdict;
  /// One short line for the summary table, e.g. "3 streams: -55% latency".
  std::function<std::string(std::span<const ConfigResult>, Side)> headline;
  /// Optional: what the measured numbers say about a prediction miss that the per-configuration diagnosis
  /// cannot (a pattern across configurations), for the report. Computed from the rows; empty = nothing.
  std::function<std::string(std::span<const ConfigResult>, bool quick)> miss_analysis;
  // Charts are drawn from the result CSVs by scripts/plot/experiment_charts.py (charts.hpp).
};

/// The relative makespan error above which a configuration of a makespan_target experiment misses.
inline constexpr double kMakespanTarget = 0.05;

}  // namespace streamlab::experiments
