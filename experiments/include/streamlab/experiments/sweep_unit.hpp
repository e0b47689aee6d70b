#pragma once
/// \file sweep_unit.hpp
/// Runs one unit of a sweep and returns its metrics as a compact JSON object (the *payload*: the same
/// text goes into the journal, over MPI and into the outputs, so every path yields the same bytes).
///
/// A simulated unit runs the Dispatcher on the simulator in this thread. A measured unit runs
/// `streamlab run` as a child process on one GPU (the same command a person would type, so a measured
/// row is what `streamlab run` measures), with CUDA_DEVICE_MAX_CONNECTIONS set for the child alone: the
/// driver reads it once per process. A unit that fails (a deadlocking stream program refused, a run
/// that times out) yields a payload with an error text instead of metrics.

#include <cstdint>
#include <filesystem>
#include <string>

#include "streamlab/experiments/sweep_plan.hpp"

namespace streamlab::experiments {

/// The simulated unit of configuration `config`.
[[nodiscard]] std::string run_simulated_unit(const SweepPlan& plan, std::uint32_t config);

/// Where a measured unit runs.
struct MeasureTarget {
  std::filesystem::path streamlab;  ///< the streamlab executable (its `run` subcommand measures)
  std::uint32_t gpu = 0;            ///< CUDA device ordinal
  std::filesystem::path work_dir;   ///< scratch folder for the run's workload, trace and log
};

/// The measured unit `unit` (a measured one) on `target`. Never two at once on one GPU: the caller
/// owns the GPU (one measuring worker per GPU).
[[nodiscard]] std::string run_measured_unit(const SweepPlan& plan, std::size_t unit, const MeasureTarget& target);

/// CUDA devices the driver reports to this process (0 when the executor is not built).
[[nodiscard]] std::uint32_t sweep_gpu_count();

}  // namespace streamlab::experiments
