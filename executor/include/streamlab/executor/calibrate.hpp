#pragma once
/// \file calibrate.hpp
/// `streamlab calibrate`: measures every DeviceProfile parameter on the GPU at hand. Host API costs are
/// medians over many batches after warm-up; device latencies are read on the GPU's %globaltimer; copy
/// parameters come from Eigen least-squares fits of t = latency + bytes / bandwidth over size sweeps,
/// whose residuals go into each field's source line. Scheduling details from %globaltimer/%smid block records:
/// warp launch rate (block start ramp of a one-wave grid), block replacement gap at 128 and 1024 threads
/// (intercept + per-warp slope), same-stream kernel gap, task fetch (task pool static vs dynamic); and the
/// extra host cost per launch + record while the CuptiTracer is on (measured last).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamlab/model/device_profile.hpp"

namespace streamlab::executor {

/// One fresh process's look at the host's speed (probe_host). `streamlab calibrate` runs several such
/// processes one after another before its own rounds: the host-call costs move from process to process by
/// more than within one process (H100, 2026-11-24: a plain program's median launch read 3.4-7.4 us from
/// process to process), and a program the profile predicts runs in a process of its own.
struct HostProbe {
  /// Each host-call parameter (model::ParamField::host_call) by name: one value per short pass.
  std::map<std::string, std::vector<double>> samples;
  /// The launch-contention costs (kernel_launch_per_busy_queue_ns, kernel_launch_queue_switch_ns) by name:
  /// one value per repetition, a slope or a difference of two batches run side by side (may be negative).
  std::map<std::string, std::vector<double>> contention;
  /// The device-side gaps (same_stream_gap_ns, event_wait_latency_ns, same_stream_gap_per_busy_queue_ns,
  /// host_func_roundtrip_ns) and sync_wakeup_ns, measured once in the probe's process (as one calibrate
  /// round measures them), and, where CUPTI is available, traced_launch_overhead_ns (the traced launch cost
  /// minus this probe's untraced kernel_launch_ns samples): they move from process to process.
  std::map<std::string, double> per_process;
  /// The extra host cost of a launch into a stream that has never had work, in a process that never had
  /// streams before (median over the streams of one breadth-first pass, minus the second pass).
  double stream_first_use_ns = 0;
  /// The same on streams created after that first set was destroyed (the driver reuses what a destroyed
  /// stream held, so a process's later streams can be cheaper to start).
  double stream_first_use_recycled_ns = 0;
  /// More for such a launch when the stream's hardware queue had no work yet either: the median over
  /// streams 1 .. connections - 2 (the k-th stream made takes queue (k + 1) % connections, the legacy
  /// stream holds queue 0). None at fewer than 3 connections.
  std::optional<double> queue_first_use_ns;
  /// More for the process's first launch after its set-up's synchronize (stream 0's, beyond its stream's
  /// and queue's first use): one sample per process.
  double program_first_call_ns = 0;
  /// CUDA_DEVICE_MAX_CONNECTIONS of the probe's process (8 when unset).
  int connections = 8;
  int passes = 0;
  double seconds = 0;
};
[[nodiscard]] std::string host_probe_to_json(const HostProbe& probe);
/// Strict parse of host_probe_to_json's output; throws model::InputError naming `source` and the key.
[[nodiscard]] HostProbe parse_host_probe(std::string_view json_text, const std::string& source);

struct CalibrationOptions {
  int device = 0;
  /// Repetitions per host-cost measurement (each a batch of 64 calls); device sweeps scale from it.
  int repetitions = 41;
  int warmup = 5;
  /// Fewer sizes and repetitions (tests).
  bool quick = false;
  /// Whole measurement rounds; each parameter is the median over them (host API call costs: see
  /// host_seconds), with its spread stored beside it (Param::spread) and outlying rounds named
  /// in its source. --quick uses at most 2.
  int rounds = 9;
  /// After the rounds, the host-call costs (model::ParamField::host_call) are sampled for this long more
  /// (a short pass every 100 ms); each becomes the median of all its samples, with their 5th..95th
  /// percentile as its range (model::param_from_samples). --quick: at most 2 s.
  double host_seconds = 60;
  /// Progress lines ("kernel launch: 2.1 us"), may be empty.
  std::function<void(const std::string&)> log;
  /// Host-speed probes taken in fresh processes before this one (`streamlab calibrate --host-processes`).
  /// When not empty they replace the in-process sampling pass (host_seconds): each host-call cost becomes
  /// the median of the rounds' samples and every probe's, its range their 5th..95th percentile, and
  /// stream_first_use_ns, queue_first_use_ns and program_first_call_ns the medians of the probes' and
  /// this process's first launches into never-used streams; the launch-contention costs pool the probes'
  /// repetitions with the rounds' (param_from_repetitions), and the per-process parameters
  /// (HostProbe::per_process) become the median over the probes and this process.
  std::vector<HostProbe> process_probes;
};

/// t = latency_ns + bytes / gbps (GB/s = bytes per ns), fitted by weighted least squares so every size
/// counts by its relative error.
struct LatencyBandwidthFit {
  double latency_ns = 0;
  double gbps = 0;
  double rms_relative_residual = 0;  ///< sqrt(mean(((fit - t) / t)^2))
  std::size_t points = 0;
};
[[nodiscard]] LatencyBandwidthFit fit_latency_bandwidth(std::span<const double> bytes, std::span<const double> ns);

/// Median (of a copy); 0 for an empty input.
[[nodiscard]] double median(std::vector<double> v);

/// A small cost read as the difference of two noisy host timings, from every repetition's value (a slope
/// or a difference; `samples` not empty): the median, unless it is within two standard errors of zero
/// (standard error of the median from the median absolute deviation: 1.2533 x 1.4826 x MAD / sqrt(n)),
/// where the cost is not told apart from zero and is 0. Never negative. Param::spread is the 95% interval
/// of the median (+-1.96 standard errors) over the value, or 0 when the value is 0; `method` says how each
/// repetition was read and goes first in Param::source, followed by the figures.
[[nodiscard]] model::Param param_from_repetitions(std::vector<double> samples, const std::string& method);

/// Each parameter's median over rounds of calibration (sync_wakeup_ns: the rounds' lower quartile, the
/// undisturbed host of a machine with slow spells; calibrate then replaces the host API call costs and
/// pageable copy rates by their samples of the host's speed), Param::spread = (max - min) / |median| over them,
/// the rounds' values and outliers (more than 10% and 3 median absolute deviations off) in its source;
/// `log` gets one line per parameter whose spread is over 5%.
[[nodiscard]] model::DeviceProfile combine_rounds(const std::vector<model::DeviceProfile>& rounds,
                                                  const std::function<void(const std::string&)>& log = {});

/// Measures the device and returns a complete profile (name, driver, CUDA version, date filled in).
[[nodiscard]] model::DeviceProfile calibrate(const CalibrationOptions& options = {});

/// The host-speed probe of one fresh process: the first use of never-used (then of recycled) streams,
/// then short passes of every host-call cost for `seconds` (options.device, options.log; at least one pass).
/// Call it before anything else in the process has made streams.
[[nodiscard]] HostProbe probe_host(const CalibrationOptions& options, double seconds);

}  // namespace streamlab::executor
