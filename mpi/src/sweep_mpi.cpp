// The sweep across MPI ranks: rank 0 deals units and collects payloads; every other rank asks for work.
#include "streamlab/mpi/sweep_mpi.hpp"

#include <mpi.h>

#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "streamlab/experiments/sweep_journal.hpp"
#include "streamlab/experiments/sweep_spec.hpp"
#include "streamlab/experiments/sweep_unit.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"

namespace streamlab::mpi {

namespace ex = experiments;

namespace {

constexpr int kRequest = 1;  // worker -> rank 0: "R <owns gpu> <compute ns> <units> <compute CPU ns>\n" + "<unit>\t<payload>\n"...
constexpr int kWork = 2;     // rank 0 -> worker: unit indices (uint64); none = stop

using Clock = std::chrono::steady_clock;

/// CPU time of this thread (CLOCK_THREAD_CPUTIME_ID) or process: rank 0's cost and the workers' compute
/// time are also counted in CPU time, which other load on the machine does not inflate.
std::int64_t cpu_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t ns_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

/// The GPUs a node's ranks measure on (CLI, spec, else every device); node-local rank i owns the i-th.
std::vector<std::uint32_t> node_gpus(const ex::SweepPlan& plan, const ex::SweepRunOptions& o) {
  if (o.gpus) return *o.gpus;
  if (!plan.spec.gpus.empty()) return plan.spec.gpus;
  std::vector<std::uint32_t> out;
  if (plan.measured_units() == 0) return out;  // no need to ask the driver
  for (std::uint32_t g = 0; g < ex::sweep_gpu_count(); ++g) out.push_back(g);
  return out;
}

/// Runs `units` of `plan` with `jobs` threads; payloads in the order of `units`.
std::vector<std::string> run_units(const ex::SweepPlan& plan, const std::vector<std::uint64_t>& units, unsigned jobs,
                                   const std::optional<ex::MeasureTarget>& gpu) {
  std::vector<std::string> out(units.size());
  const auto one = [&](std::size_t i) {
    const std::size_t u = units[i];
    if (plan.units[u].measured) {
      out[i] = ex::run_measured_unit(plan, u, *gpu);
    } else {
      out[i] = ex::run_simulated_unit(plan, plan.units[u].config);
    }
  };
  if (jobs <= 1 || units.size() == 1 || plan.units[units[0]].measured) {
    for (std::size_t i = 0; i < units.size(); ++i) one(i);
    return out;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::min<std::size_t>(jobs, units.size()); ++t) {
      pool.emplace_back([&] {
        try {
          for (std::size_t i = next++; i < units.size(); i = next++) one(i);
        } catch (...) {
          std::lock_guard lock(error_mutex);
          if (!error) error = std::current_exception();
        }
      });
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
}

/// Stops the whole job when something fails after the ranks started talking (a rank waiting for an
/// answer would otherwise wait forever).
[[noreturn]] void abort_job(const std::string& what) {
  std::cerr << "streamlab: error: " << what << "\n";
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

void worker(const ex::SweepPlan& plan, unsigned jobs, const std::optional<ex::MeasureTarget>& gpu) {
  std::string outgoing;
  std::int64_t compute_ns = 0, compute_cpu_ns = 0;
  std::uint64_t units_done = 0;
  while (true) {
    const std::string msg = "R " + std::string(gpu ? "1" : "0") + " " + std::to_string(compute_ns) + " " +
                            std::to_string(units_done) + " " + std::to_string(compute_cpu_ns) + "\n" + outgoing;
    MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_CHAR, 0, kRequest, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Probe(0, kWork, MPI_COMM_WORLD, &st);
    int count = 0;
    MPI_Get_count(&st, MPI_UINT64_T, &count);
    std::vector<std::uint64_t> units(static_cast<std::size_t>(count));
    MPI_Recv(units.data(), count, MPI_UINT64_T, 0, kWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (units.empty()) return;
    const auto t0 = Clock::now();
    const std::int64_t c0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
    const std::vector<std::string> payloads = run_units(plan, units, jobs, gpu);
    compute_ns += ns_since(t0);
    compute_cpu_ns += cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
    units_done += units.size();
    outgoing.clear();
    for (std::size_t i = 0; i < units.size(); ++i) outgoing += std::to_string(units[i]) + "\t" + payloads[i] + "\n";
  }
}

struct DealerStats {
  std::int64_t service_ns = 0;     ///< rank 0's main thread busy with requests (not idle polling)
  std::int64_t service_cpu_ns = 0; ///< the same in CPU time of that thread
  std::uint64_t served_units = 0;  ///< results that arrived from other ranks
  std::uint64_t requests = 0;
  std::int64_t local_compute_ns = 0, local_compute_cpu_ns = 0;
  std::uint64_t local_units = 0;
  struct Worker {
    std::int64_t compute_ns = 0, compute_cpu_ns = 0;
    std::uint64_t units = 0;
  };
  std::vector<Worker> worker_compute;  ///< per rank
};

DealerStats dealer(const ex::SweepPlan& plan, ex::SweepResults& results, int size, unsigned jobs,
                   const std::optional<ex::MeasureTarget>& gpu) {
  DealerStats stats;
  stats.worker_compute.resize(static_cast<std::size_t>(size));
  ex::UnitDealer deal(plan, results);
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  std::atomic<std::int64_t> local_ns{0}, local_cpu_ns{0};
  std::atomic<std::uint64_t> local_units{0};
  const auto guarded = [&](auto&& f) {
    return [&, f] {
      try {
        f();
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        stop = true;
      }
    };
  };

  std::vector<std::jthread> local;
  for (unsigned t = 0; t < jobs; ++t) {
    local.emplace_back(guarded([&] {
      for (auto u = deal.take_simulated(1); !u.empty() && !stop; u = deal.take_simulated(1)) {
        const auto t0 = Clock::now();
        const std::int64_t c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
        std::string p = ex::run_simulated_unit(plan, plan.units[u[0]].config);
        local_ns += ns_since(t0);
        local_cpu_ns += cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
        ++local_units;
        results.complete(u[0], std::move(p));
      }
    }));
  }
  if (gpu) {
    local.emplace_back(guarded([&] {
      std::size_t unit = 0;
      while (!stop) {
        const auto take = deal.take_measured(unit);
        if (take == ex::UnitDealer::Take::none) break;
        if (take == ex::UnitDealer::Take::wait) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        results.complete(unit, ex::run_measured_unit(plan, unit, *gpu));
      }
    }));
  }

  // Workers that share the simulated units: rank 0's threads plus one share per other rank (their own
  // thread counts are theirs; a chunk is a rank's share of what is left, halved, at most 64 units).
  const std::size_t sharers = jobs + static_cast<std::size_t>(size - 1);
  std::vector<std::pair<int, bool>> waiting;  // (rank, owns gpu) with no answer yet
  int active = size - 1;
  std::string buffer;
  std::chrono::microseconds idle_sleep{20};

  const auto answer = [&](int rank, bool owns_gpu) {
    std::vector<std::uint64_t> units;
    const std::size_t left = deal.simulated_left();
    if (left > 0) {
      const std::size_t chunk = std::clamp<std::size_t>(left / (2 * sharers), 1, 64);
      for (std::size_t u : deal.take_simulated(chunk)) units.push_back(u);
    }
    if (units.empty() && owns_gpu) {
      std::size_t unit = 0;
      switch (deal.take_measured(unit)) {
        case ex::UnitDealer::Take::unit: units.push_back(unit); break;
        case ex::UnitDealer::Take::wait: return false;  // answer once the simulations are done
        case ex::UnitDealer::Take::none: break;
      }
    }
    MPI_Send(units.data(), static_cast<int>(units.size()), MPI_UINT64_T, rank, kWork, MPI_COMM_WORLD);
    if (units.empty()) --active;
    return true;
  };

  while (active > 0) {
    if (stop) break;
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kRequest, MPI_COMM_WORLD, &flag, &st);
    if (!flag) {
      if (!waiting.empty()) {
        std::erase_if(waiting, [&](const auto& w) { return answer(w.first, w.second); });
      }
      // Idle: back off from 20 us to 1 ms, so a rank 0 that shares a core with a worker takes little of it;
      // a worker's chunk lasts far longer than the longest wait for an answer.
      std::this_thread::sleep_for(idle_sleep);
      idle_sleep = std::min(idle_sleep * 2, std::chrono::microseconds(1000));
      continue;
    }
    idle_sleep = std::chrono::microseconds(20);
    const auto t0 = Clock::now();
    const std::int64_t c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    buffer.resize(static_cast<std::size_t>(count));
    // A long message travels by rendezvous: a blocking receive would spin on rank 0's core while the
    // sender gets scheduled. Test and sleep instead; the sleeping is not rank 0's cost.
    MPI_Request request;
    MPI_Irecv(buffer.data(), count, MPI_CHAR, st.MPI_SOURCE, kRequest, MPI_COMM_WORLD, &request);
    std::chrono::nanoseconds waited{0};
    std::int64_t waited_cpu = 0;
    for (auto pause = std::chrono::microseconds(10);; pause = std::min(pause * 2, std::chrono::microseconds(1000))) {
      const auto w0 = Clock::now();
      const std::int64_t wc0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done) break;  // the test that completes (and copies) counts as rank 0's work
      std::this_thread::sleep_for(pause);
      waited += Clock::now() - w0;
      waited_cpu += cpu_ns(CLOCK_THREAD_CPUTIME_ID) - wc0;
    }
    // Header, then one result per line.
    std::size_t pos = buffer.find('\n');
    int owns_gpu = 0;
    long long compute_ns = 0, compute_cpu_ns = 0;
    unsigned long long units_done = 0;
    if (pos == std::string::npos ||
        std::sscanf(buffer.c_str(), "R %d %lld %llu %lld", &owns_gpu, &compute_ns, &units_done, &compute_cpu_ns) != 4)
      abort_job("rank 0 received a malformed request from rank " + std::to_string(st.MPI_SOURCE));
    stats.worker_compute[static_cast<std::size_t>(st.MPI_SOURCE)] = {compute_ns, compute_cpu_ns, units_done};
    ++pos;
    while (pos < buffer.size()) {
      const std::size_t nl = buffer.find('\n', pos);
      const std::size_t tab = buffer.find('\t', pos);
      if (nl == std::string::npos || tab == std::string::npos || tab > nl)
        abort_job("rank 0 received a malformed result from rank " + std::to_string(st.MPI_SOURCE));
      const std::size_t unit = std::stoull(buffer.substr(pos, tab - pos));
      if (unit >= plan.units.size()) abort_job("rank " + std::to_string(st.MPI_SOURCE) + " sent an unknown unit");
      results.complete(unit, buffer.substr(tab + 1, nl - tab - 1));
      ++stats.served_units;
      pos = nl + 1;
    }
    if (!answer(st.MPI_SOURCE, owns_gpu != 0)) waiting.emplace_back(st.MPI_SOURCE, owns_gpu != 0);
    ++stats.requests;
    stats.service_ns += ns_since(t0) - std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count();
    stats.service_cpu_ns += cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c0 - waited_cpu;
  }
  for (auto& t : local) t.join();
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      abort_job(e.what());
    }
  }
  stats.local_compute_ns = local_ns;
  stats.local_compute_cpu_ns = local_cpu_ns;
  stats.local_units = local_units;
  return stats;
}

void write_stats(const std::string& file, const DealerStats& s, int size, unsigned jobs, double wall_s,
                 std::size_t units_run) {
  std::int64_t worker_ns = s.local_compute_ns, worker_cpu_ns = s.local_compute_cpu_ns;
  std::uint64_t worker_units = s.local_units;
  for (const DealerStats::Worker& w : s.worker_compute) {
    worker_ns += w.compute_ns;
    worker_cpu_ns += w.compute_cpu_ns;
    worker_units += w.units;
  }
  const auto per = [](double total, double n) { return n > 0 ? total / n : 0.0; };
  const double served = static_cast<double>(s.served_units), units = static_cast<double>(worker_units);
  std::ostringstream os;
  os << "{\"ranks\": " << size << ", \"jobs\": " << jobs << ", \"units_run\": " << units_run
     << ", \"wall_s\": " << wall_s << ", \"rank0_requests\": " << s.requests
     << ", \"rank0_units_served\": " << s.served_units
     << ", \"rank0_service_ns_per_unit\": " << per(static_cast<double>(s.service_ns), served)
     << ", \"rank0_service_cpu_ns_per_unit\": " << per(static_cast<double>(s.service_cpu_ns), served)
     << ", \"compute_ns_per_unit\": " << per(static_cast<double>(worker_ns), units)
     << ", \"compute_cpu_ns_per_unit\": " << per(static_cast<double>(worker_cpu_ns), units)
     << ", \"rank0_local_units\": " << s.local_units << "}\n";
  model::write_file_atomically(file, os.str());
}

}  // namespace

bool launched_by_mpirun() noexcept {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_RANK") != nullptr;
}

void run_sweep_mpi(const std::filesystem::path& spec_file, const SweepMpiOptions& o, const SweepFinish& finish) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);

  // Plan on every rank (the same spec gives the same plan); rank 0 also opens the output and the
  // journal. Any failure so far is agreed on before anyone waits for a message.
  std::optional<ex::SweepPlan> plan;
  std::unique_ptr<ex::SweepJournal> journal;
  std::exception_ptr error;
  int owns = 0;
  std::optional<ex::MeasureTarget> gpu;
  try {
    plan = ex::plan_sweep(ex::load_sweep_spec(spec_file));
    const std::vector<std::uint32_t> gpus = node_gpus(*plan, o.run);
    if (node_rank < static_cast<int>(gpus.size())) {
      owns = 1;
      std::filesystem::path work = o.run.work_dir;
      work += "-r" + std::to_string(rank);
      gpu = ex::MeasureTarget{o.run.streamlab, gpus[static_cast<std::size_t>(node_rank)], work};
    }
    if (rank == 0) {
      std::error_code ec;
      std::filesystem::create_directories(o.out_dir, ec);
      if (ec) throw model::InputError(o.out_dir.string(), "-o", "", "cannot create the output folder: " + ec.message());
      journal = std::make_unique<ex::SweepJournal>(o.out_dir / "sweep.journal");
    }
  } catch (...) {
    error = std::current_exception();
  }
  int failed = error ? 1 : 0, any_failed = 0, owners = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&owns, &owners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!any_failed && plan->measured_units() > 0 && owners == 0 && rank == 0) {
    error = std::make_exception_ptr(std::runtime_error(
        std::to_string(plan->measured_units()) + " measured units but no rank owns a GPU (no device on any node, "
        "or this streamlab was built without the CUDA executor)"));
  }
  if (plan && plan->measured_units() > 0 && owners == 0) any_failed = 1;
  if (any_failed) {
    journal.reset();
    MPI_Finalize();
    if (rank == 0 && error) std::rethrow_exception(error);
    std::exit(2);  // rank 0 says why
  }
  if (gpu) std::filesystem::create_directories(gpu->work_dir);

  const unsigned jobs = o.run.jobs == 0 ? 1 : o.run.jobs;
  if (rank != 0) {
    worker(*plan, jobs, gpu);
    if (gpu) std::filesystem::remove_all(gpu->work_dir);
    MPI_Finalize();
    std::exit(0);  // rank 0 alone writes the outputs
  }

  ex::SweepResults results(*plan, journal.get(), o.retry_failed);
  ex::SweepProgress progress(plan->units.size(), results.completed(), o.quiet);
  results.set_progress(&progress);
  const auto t0 = Clock::now();
  const DealerStats stats = dealer(*plan, results, size, jobs, gpu);
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  progress.finish();
  results.sync_journal();
  if (gpu) std::filesystem::remove_all(gpu->work_dir);
  MPI_Finalize();
  if (!o.stats_file.empty())
    write_stats(o.stats_file, stats, size, jobs, wall_s, results.completed() - results.resumed());
  if (!o.quiet && stats.served_units > 0) {
    std::fprintf(stderr,
                 "sweep: %d ranks; rank 0 served %llu units from other ranks at %.1f us of its own time each "
                 "(%.1f us CPU)\n",
                 size, static_cast<unsigned long long>(stats.served_units),
                 static_cast<double>(stats.service_ns) / 1e3 / static_cast<double>(stats.served_units),
                 static_cast<double>(stats.service_cpu_ns) / 1e3 / static_cast<double>(stats.served_units));
  }
  finish(*plan, results);
}

}  // namespace streamlab::mpi
