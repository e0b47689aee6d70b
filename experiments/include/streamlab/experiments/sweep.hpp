#pragma once
/// \file sweep.hpp
/// Running a planned sweep: the result table (thread-safe, journaled), the dealer that hands out units
/// (simulated ones first; measured ones only once every simulated unit is done, so no simulation
/// competes with a measurement for the host's CPU), progress with an ETA, and the local runner (a pool
/// of simulating threads, then one measuring worker per GPU). The MPI runner (mpi/) uses the same
/// table and dealer on rank 0, so every way of running yields the same payloads in the same order.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "streamlab/experiments/sweep_journal.hpp"
#include "streamlab/experiments/sweep_plan.hpp"

namespace streamlab::experiments {

/// Progress on stderr: on a terminal one line redrawn in place (at most 10 times a second), otherwise a
/// line every 10% (or 30 s); quiet prints nothing.
class SweepProgress {
 public:
  SweepProgress(std::size_t total, std::size_t already_done, bool quiet);
  /// `done` units finished in all (including resumed ones).
  void update(std::size_t done);
  /// Ends the in-place line.
  void finish();

 private:
  std::size_t total_, start_done_;
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point start_, last_print_;
  std::size_t last_decile_ = 0;
  std::mutex mutex_;
};

/// The payload of every unit, filled from the journal and by completions (any thread).
class SweepResults {
 public:
  /// `journal` (may be null: no resume, nothing written) is read for finished units whose key the plan
  /// has; with `retry_failed`, units whose payload is an error run again.
  SweepResults(const SweepPlan& plan, SweepJournal* journal, bool retry_failed = false);

  [[nodiscard]] bool done(std::size_t unit) const;
  /// Stores and journals the unit's payload.
  void complete(std::size_t unit, std::string payload);
  [[nodiscard]] std::size_t completed() const;
  [[nodiscard]] std::size_t resumed() const noexcept { return resumed_; }
  [[nodiscard]] bool simulated_all_done() const;
  [[nodiscard]] bool all_done() const;
  /// Payload per unit (empty string: not done). Call when the sweep is over.
  [[nodiscard]] const std::vector<std::string>& payloads() const noexcept { return payloads_; }
  void set_progress(SweepProgress* p) noexcept { progress_ = p; }
  void sync_journal();

 private:
  const SweepPlan& plan_;
  SweepJournal* journal_;
  std::vector<std::string> payloads_;
  std::size_t done_ = 0, simulated_done_ = 0, resumed_ = 0;
  SweepProgress* progress_ = nullptr;
  mutable std::mutex mutex_;
};

/// Hands out the units that are not done yet (thread-safe).
class UnitDealer {
 public:
  UnitDealer(const SweepPlan& plan, const SweepResults& results);
  /// Up to `max` simulated units, in plan order; empty when every one has been handed out.
  [[nodiscard]] std::vector<std::size_t> take_simulated(std::size_t max);
  enum class Take : std::uint8_t { unit, wait, none };
  /// A measured unit; `wait` while simulated units are still running, `none` when all are handed out.
  [[nodiscard]] Take take_measured(std::size_t& unit);
  [[nodiscard]] std::size_t simulated_left() const;
  [[nodiscard]] std::size_t measured_left() const;

 private:
  const SweepResults& results_;
  std::vector<std::size_t> simulated_, measured_;
  std::size_t next_simulated_ = 0, next_measured_ = 0;
  mutable std::mutex mutex_;
};

struct SweepRunOptions {
  /// Simulating threads; 0 = every core (std::thread::hardware_concurrency).
  unsigned jobs = 0;
  /// GPUs that measure; unset = the spec's `[measure] gpus`, else every device the driver reports.
  std::optional<std::vector<std::uint32_t>> gpus;
  std::filesystem::path streamlab;  ///< executable for measured runs (`streamlab run`)
  std::filesystem::path work_dir;   ///< scratch folder for measured runs
};

/// The GPUs measured units run on (see SweepRunOptions::gpus). Throws std::runtime_error when the plan
/// has measured units and there is no GPU.
[[nodiscard]] std::vector<std::uint32_t> measuring_gpus(const SweepPlan& plan, const SweepRunOptions& options);

/// Runs every unit not done yet on this machine: `jobs` simulating threads, then one measuring thread
/// per GPU. Results are identical for any `jobs` (each unit's payload depends on the unit alone).
void run_sweep_local(const SweepPlan& plan, SweepResults& results, const SweepRunOptions& options);

/// Simulating threads when the user gave none.
[[nodiscard]] unsigned default_jobs();

}  // namespace streamlab::experiments
