#pragma once
/// \file runner.hpp
/// Runs an experiment's configurations: each one on the simulator (predicted) and, when a measured
/// device is given, on it (measured: one warm-up run, then the median of `repeats` runs), through the same
/// Dispatcher and the same policy; then the definition's verdicts.
///
/// CUDA_DEVICE_MAX_CONNECTIONS is read by the CUDA driver once, when the context is created, so a process
/// can measure only one setting. Configurations that ask for another one are measured in a child
/// process: the runner re-executes the streamlab binary (`SuiteOptions::self_exe`) as
/// `streamlab experiment NAME --child-connections N --child-output FILE ...` with the variable set, and
/// merges the configurations the child measured.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "streamlab/experiments/experiment.hpp"
#include "streamlab/experiments/results.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/sim/budget.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace streamlab::experiments {

struct DeviceMeta {
  std::string name, driver, cuda_version;
  std::string timing;  ///< how device spans are timed ("cupti", "events", ...)
};

/// Where measurements come from (the CUDA executor; tests use a second simulator as a stand-in).
class MeasuredDevice {
 public:
  virtual ~MeasuredDevice() = default;
  MeasuredDevice() = default;
  MeasuredDevice(const MeasuredDevice&) = delete;
  MeasuredDevice& operator=(const MeasuredDevice&) = delete;

  [[nodiscard]] virtual DeviceMeta meta() const = 0;
  /// A fresh backend for one run with `connections` hardware queues (unset = the device default). A
  /// device whose connection count is fixed per process only gets the count it runs with.
  [[nodiscard]] virtual std::unique_ptr<policies::Backend> make_backend(std::optional<std::uint32_t> connections) = 0;
  /// The host API the probes time, over a backend made by make_probe_backend and already prepared.
  [[nodiscard]] virtual std::unique_ptr<HostApi> make_host_api(policies::Backend& backend) = 0;
  /// A backend for a probe configuration (it times API calls itself): one that starts no tracer, since an
  /// attached tracer makes the calls a probe times dearer. Default: make_backend.
  [[nodiscard]] virtual std::unique_ptr<policies::Backend> make_probe_backend(std::optional<std::uint32_t> connections) {
    return make_backend(connections);
  }
  /// True when a tracer started in this process already changes what a probe would measure (CUPTI stays
  /// once started): the suite then measures the probes in a fresh child process. Default: false.
  [[nodiscard]] virtual bool probes_perturbed() const { return false; }
  /// True when the connection count is fixed for the life of the process (a real GPU).
  [[nodiscard]] virtual bool connections_fixed_per_process() const noexcept = 0;
  /// The connection count this process runs with (unset = the driver default).
  [[nodiscard]] virtual std::optional<std::uint32_t> process_connections() const = 0;
};

/// The CUDA device, when the executor is built and a device answers; otherwise nullptr and `why` says
/// why in one line ("no CUDA device: ...", "built without the CUDA executor").
[[nodiscard]] std::unique_ptr<MeasuredDevice> open_cuda_device(std::string& why);

/// The HostApi over any Backend (what the simulator charges for each call).
[[nodiscard]] std::unique_ptr<HostApi> make_backend_host_api(policies::Backend& backend);

struct SuiteOptions {
  bool quick = false;
  model::DeviceProfile profile = model::bundled_h100_profile();
  std::string profile_label = "bundled:h100-sxm";
  /// Measured runs per configuration after one warm-up run; the median run is reported.
  std::uint32_t repeats = 3;
  /// Progress lines ("E2 [12/42] connections=8 ... predicted 3.21 ms, measured 3.40 ms (-5.6%)").
  std::function<void(const std::string&)> progress;
  /// The streamlab executable, for child processes (empty: configurations that need another
  /// connection count stay unmeasured, with a note).
  std::filesystem::path self_exe;
  /// Arguments every child gets after its own (--quick, --device PROFILE, --repeats N).
  std::vector<std::string> child_args;
  std::string command_line;
  /// Child mode: measure only configurations with this connection count (the process runs with it).
  std::optional<std::uint32_t> only_connections;
  /// Child mode: measure only the probe configurations (a fresh process, no tracer started yet).
  bool only_probes = false;
  /// TraceMeta/RunMeta date; empty = now. Tests fix it.
  std::string date;
  /// The streamlab commit doing the run ("" = unknown); RunMeta::git_commit, and named by repredict's note.
  std::string git_commit;
  /// When set, every Dispatcher configuration leaves its workload, its predicted trace and (when measured)
  /// the median run's measured trace under `<traces_dir>/<experiment>/<label slug>.{workload,predicted,
  /// measured}.json`, for the viewer (`streamlab-viz A B`) or `streamlab compare`.
  std::filesystem::path traces_dir;
  /// Every prediction's run budget (events, wall-clock seconds); over it the suite stops with an error
  /// naming the experiment and configuration.
  sim::SimBudget sim_budget;
};

/// The file-name form of a configuration label ("connections=8 order=depth-first" ->
/// "connections-8_order-depth-first").
[[nodiscard]] std::string label_slug(const std::string& label);

/// Runs one experiment. `device` null = simulator only (`sim_only_note` says why, for the metadata).
[[nodiscard]] ExperimentResult run_experiment(const Experiment& exp, const SuiteOptions& options,
                                              MeasuredDevice* device, const std::string& sim_only_note = "");

/// Re-runs the simulator half of a measured result with `options.profile` (a newer simulator or a
/// recalibrated profile), keeping every measured number. Workloads are sized with `workload_profile` (the
/// profile the measured run used, so the simulated workload is the measured one). The diagnosis keeps its
/// measured side and takes the predicted side from the new run. Where `options.traces_dir` holds a
/// configuration's measured trace (`<traces_dir>/<experiment>/<label slug>.measured.json`, as the measured run
/// left it) the whole diagnosis, per-op start error included, is made again against it and the predicted trace
/// beside it is rewritten; elsewhere the per-op start error, which needs both traces, becomes unknown.
/// Configurations the definition no longer has keep their old prediction.
[[nodiscard]] ExperimentResult repredict(const Experiment& exp, const ExperimentResult& measured,
                                         const SuiteOptions& options, const model::DeviceProfile& workload_profile);

/// Re-computes both verdicts from the numbers (after loading, or after merging a child's results).
void judge(const Experiment& exp, ExperimentResult& result);

/// The numbers of one configuration on one backend (exposed for tests and the CLI's single runs).
struct RunOutput {
  Measurement measurement;
  model::Trace trace;  ///< empty for probes
};
/// `api` is needed by probes only (may be null for Dispatcher runs).
[[nodiscard]] RunOutput run_configuration(const Configuration& config, const model::Workload& workload,
                                          policies::Backend& backend, HostApi* api,
                                          const model::DeviceProfile& profile);

/// `SimOptions::copy_queues_per_engine` for "every stream's copies have a queue of their own" (the
/// simulator caps it at the connections).
inline constexpr std::uint32_t kCopyQueuePerStream = 32;
/// `SimOptions::copy_queues_per_engine` for "streams k and k + 4 share a queue" (the simulator's default).
inline constexpr std::uint32_t kCopyQueuesShared = 4;
/// The simulator options a configuration's PredictedRange is over: `point` (the point prediction's) with
/// the host at every kHostSpeedPositions position, fast end to slow end (only `point`'s host speed when
/// `profile`'s host costs have no ranges), each with
/// kCopyQueuesShared and kCopyQueuePerStream copy queues, each oldest-first and in bit-reversed queue order,
/// each with kernels of a level in the order they became ready and with a race between two (ready within
/// SimOptions::kernel_race_window_ns) won by the lower- and by the higher-numbered stream: 108 variants (12
/// without host ranges), the point's own first.
[[nodiscard]] std::vector<sim::SimOptions> range_variants(const model::DeviceProfile& profile,
                                                          const sim::SimOptions& point);
/// What range_variants(profile, ...) varies (names from kRangeAxes): every axis, less "host-speed" when the
/// profile's host costs have no ranges.
[[nodiscard]] std::vector<std::string> range_axes(const model::DeviceProfile& profile);

/// Predicted vs measured, per op kind and overall, from the two traces of one configuration.
[[nodiscard]] Diagnosis diagnose(const model::Workload& workload, const model::Trace& predicted,
                                 const model::Trace& measured);
/// One paragraph on why a configuration's prediction misses its measurement (for the report).
[[nodiscard]] std::string explain_miss(const ConfigResult& c, const model::DeviceProfile* profile = nullptr);

}  // namespace streamlab::experiments
