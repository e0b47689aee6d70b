#pragma once
/// \file sweep_mpi.hpp
/// `streamlab sweep` across MPI ranks. Rank 0 is the dealer: it keeps the result table and the journal,
/// answers each worker's request (which carries the worker's finished results) with the next chunk of
/// unit indices, simulates with its own `jobs` threads in between, and alone writes the outputs. Every
/// rank plans the spec itself, so only unit indices and payload texts travel.
///
/// Threads: rank 0's main thread alone calls MPI (MPI_THREAD_FUNNELED) and polls with MPI_Iprobe and a
/// short sleep, so on a machine with as many ranks as cores it does not take a core from the workers.

#include <filesystem>
#include <functional>
#include <string>

#include "streamlab/experiments/sweep.hpp"
#include "streamlab/experiments/sweep_plan.hpp"

namespace streamlab::mpi {

/// True when this process was started by mpirun/mpiexec (Open MPI or PMIx/PMI environment).
[[nodiscard]] bool launched_by_mpirun() noexcept;

struct SweepMpiOptions {
  experiments::SweepRunOptions run;  ///< jobs 0 = 1 simulating thread per rank
  std::filesystem::path out_dir;
  bool quiet = false;
  bool retry_failed = false;
  /// Rank 0 writes wall time, its own service cost per unit and the workers' compute time per unit here.
  std::string stats_file;
};

/// Rank 0 calls this with the plan and the complete results (after MPI is finalized).
using SweepFinish = std::function<void(const experiments::SweepPlan&, const experiments::SweepResults&)>;

/// Runs the sweep on every rank. A spec error is thrown on rank 0 (model::InputError); the other ranks
/// exit with status 2 without printing it again.
void run_sweep_mpi(const std::filesystem::path& spec, const SweepMpiOptions& options, const SweepFinish& finish);

}  // namespace streamlab::mpi
