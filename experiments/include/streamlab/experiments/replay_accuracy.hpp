#pragma once
/// \file replay_accuracy.hpp
/// How well the simulator replays an imported real trace: the program `streamlab import` made from a
/// Kineto / Nsight Systems trace, replayed as written (policy `replay`), against the trace's own measured
/// GPU timeline; and what-ifs of it against a measurement of the same change.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::experiments {

struct ReplaySettings {
  const model::DeviceProfile* profile = nullptr;  ///< null: the bundled H100 profile
  std::string profile_label = "bundled:h100-sxm";
  /// Predict with the profile's traced_* costs. Those model streamlab's own CUPTI tracer, whose kernel
  /// records slow block dispatch far more than the PyTorch profiler's did in the imported traces, so off.
  bool traced = false;
  std::uint32_t connections = 0;  ///< 0: the profile's CUDA_DEVICE_MAX_CONNECTIONS
};

/// One replay against one measured timeline.
struct ReplayAccuracy {
  std::string label;  ///< trace file (and what-if) it describes
  std::size_t kernels = 0, copies = 0, memsets = 0;
  model::Nanos measured_ns = 0, predicted_ns = 0;  ///< GPU makespans (host spans excluded)
  double makespan_error = 0;                       ///< (predicted - measured) / measured
  /// |start error| of kernels, each relative to its own trace's first device span (median, 90th percentile).
  double kernel_start_error_median_ns = 0, kernel_start_error_p90_ns = 0;
  std::size_t matched_kernels = 0;
  model::Trace predicted;
};

/// Replays `program` on the simulator with the replay policy and compares with `measured`.
[[nodiscard]] ReplayAccuracy replay_against(const model::Workload& program, const model::Trace& measured,
                                            const ReplaySettings& settings, std::string label);

/// Markdown section: one row per replay, the targets (makespan within 3% median / 5% max), the verdict
/// computed from the rows, the what-if rows, and how the traces were captured (`capture_note`).
[[nodiscard]] std::string replay_accuracy_markdown(const std::vector<ReplayAccuracy>& replays,
                                                   const std::vector<ReplayAccuracy>& what_ifs,
                                                   const std::string& capture_note);

}  // namespace streamlab::experiments
