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
#include <span>
#include <string>
#include <vector>

#include "streamlab/model/device_profile.hpp"

namespace streamlab::executor {

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

/// Each parameter's median over rounds of calibration (sync_wakeup_ns: the fastest round, the undisturbed
/// host of a machine with slow spells; calibrate then replaces the host API call costs and pageable copy
/// rates by their samples of the host's speed), Param::spread = (max - min) / |median| over them,
/// the rounds' values and outliers (more than 10% and 3 median absolute deviations off) in its source;
/// `log` gets one line per parameter whose spread is over 5%.
[[nodiscard]] model::DeviceProfile combine_rounds(const std::vector<model::DeviceProfile>& rounds,
                                                  const std::function<void(const std::string&)>& log = {});

/// Measures the device and returns a complete profile (name, driver, CUDA version, date filled in).
[[nodiscard]] model::DeviceProfile calibrate(const CalibrationOptions& options = {});

}  // namespace streamlab::executor
