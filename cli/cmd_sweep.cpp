// `streamlab sweep SPEC -o DIR [--jobs N] [--quiet] [--no-charts] [--retry-failed] [--gpus LIST]`: runs
// a sweep spec (docs/sweep.md) on every local core, or under `mpirun -np N` across ranks when built with
// MPI; resumes from DIR/sweep.journal; writes sweep.csv, sweep.json, summary.md and charts/.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"
#include "streamlab/experiments/charts.hpp"
#include "streamlab/experiments/sweep.hpp"
#include "streamlab/experiments/sweep_output.hpp"
#include "streamlab/experiments/sweep_spec.hpp"
#include "streamlab/model/errors.hpp"

#ifdef STREAMLAB_HAVE_MPI
#include "streamlab/mpi/sweep_mpi.hpp"
#endif

namespace streamlab::cli {
namespace {

namespace ex = experiments;

struct SweepCommandOptions {
  std::string spec;
  std::string out;
  unsigned jobs = 0;
  bool quiet = false;
  bool no_charts = false;
  bool retry_failed = false;
  std::string gpus;
  std::string stats;
};

std::filesystem::path self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("streamlab") : p;
}

void draw_charts(const SweepCommandOptions& o, const std::filesystem::path& dir) {
  // Charts are an optional output: a missing Python or matplotlib is a note, the tables are complete.
  const ex::ChartsRun r = ex::run_chart_script("sweep_charts.py", {dir.string()}, o.quiet);
  if (r.outcome != ex::ChartsOutcome::drawn)
    std::cerr << "streamlab: note: no charts: " << r.detail << "; the tables are complete\n";
}

std::vector<std::uint32_t> parse_gpus(const std::string& text) {
  std::vector<std::uint32_t> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    try {
      std::size_t used = 0;
      const unsigned long v = std::stoul(item, &used);
      if (used != item.size() || v > 1023) throw std::invalid_argument(item);
      out.push_back(static_cast<std::uint32_t>(v));
    } catch (const std::exception&) {
      throw model::InputError("", "--gpus", "", "'" + item + "' is no GPU ordinal (e.g. --gpus 0,1)");
    }
    pos = end + 1;
  }
  return out;
}

/// Writes the finished sweep's files (rank 0 / the only process).
void finish(const SweepCommandOptions& o, const ex::SweepPlan& plan, const ex::SweepResults& results,
            const std::filesystem::path& dir) {
  const ex::SweepTables tables = ex::render_sweep(plan, results.payloads());
  ex::write_sweep_outputs(tables, dir);
  if (!o.no_charts) draw_charts(o, dir);
  if (!o.quiet) {
    std::cerr << "sweep: " << plan.configs.size() << " configurations, " << tables.rows << " rows";
    if (results.resumed() > 0) std::cerr << " (" << results.resumed() << " units from the journal)";
    std::cerr << "; wrote " << (dir / "sweep.csv").string() << ", sweep.json, summary.md\n";
    if (tables.failed_rows > 0)
      std::cerr << "sweep: " << tables.failed_rows << " units failed (see the error columns)\n";
  }
}

void run(const SweepCommandOptions& o) {
  ex::SweepRunOptions ro;
  ro.jobs = o.jobs;
  if (!o.gpus.empty()) ro.gpus = parse_gpus(o.gpus);
  ro.streamlab = self_exe();
  const std::filesystem::path dir = o.out;
  ro.work_dir = std::filesystem::temp_directory_path() / ("streamlab-sweep-" + std::to_string(::getpid()));

#ifdef STREAMLAB_HAVE_MPI
  if (mpi::launched_by_mpirun()) {
    mpi::SweepMpiOptions mo;
    mo.run = ro;
    mo.quiet = o.quiet;
    mo.retry_failed = o.retry_failed;
    mo.stats_file = o.stats;
    mo.out_dir = dir;
    // Every rank plans (same spec, same plan); rank 0 alone reads the journal and writes.
    mpi::run_sweep_mpi(o.spec, mo, [&](const ex::SweepPlan& plan, const ex::SweepResults& results) {
      finish(o, plan, results, dir);
    });
    return;
  }
#endif
  ex::SweepPlan plan = ex::plan_sweep(ex::load_sweep_spec(o.spec));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw model::InputError(dir.string(), "-o", "", "cannot create the output folder: " + ec.message());
  ex::SweepJournal journal(dir / "sweep.journal");
  ex::SweepResults results(plan, &journal, o.retry_failed);
  ex::SweepProgress progress(plan.units.size(), results.completed(), o.quiet);
  results.set_progress(&progress);
  const auto t0 = std::chrono::steady_clock::now();
  ex::run_sweep_local(plan, results, ro);
  progress.finish();
  results.sync_journal();
  std::filesystem::remove_all(ro.work_dir, ec);
  if (!o.stats.empty()) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string text = "{\"ranks\": 1, \"jobs\": " + std::to_string(o.jobs == 0 ? ex::default_jobs() : o.jobs) +
                             ", \"units_run\": " + std::to_string(results.completed() - results.resumed()) +
                             ", \"wall_s\": " + std::to_string(s) + "}\n";
    std::FILE* f = std::fopen(o.stats.c_str(), "w");
    if (f != nullptr) {
      std::fputs(text.c_str(), f);
      std::fclose(f);
    }
  }
  finish(o, plan, results, dir);
}

const bool registered = register_command(
    {"sweep",
     "Run a sweep spec (TOML: workloads x profiles x policies x settings; simulated, measured or both) on every "
     "core, or across ranks under mpirun; resumable; writes a tidy CSV, JSON, charts and a summary",
     [](CLI::App& app) {
       auto o = std::make_shared<SweepCommandOptions>();
       app.add_option("spec", o->spec, "Sweep spec (TOML, docs/sweep.md)")->required();
       app.add_option("-o,--output", o->out, "Output folder (created; a sweep.journal there is resumed)")->required();
       app.add_option("-j,--jobs", o->jobs,
                      "Simulating threads per process (default: every core; under mpirun: 1 per rank)");
       app.add_flag("-q,--quiet", o->quiet, "No progress on stderr");
       app.add_flag("--no-charts", o->no_charts, "Do not draw charts (tables and summary only)");
       app.add_flag("--retry-failed", o->retry_failed, "Run units again whose journaled result is an error");
       app.add_option("--gpus", o->gpus, "GPU ordinals that measure, e.g. 0,1 (default: the spec's, else all)");
       app.add_option("--stats", o->stats, "Write run statistics (wall time; under mpirun rank 0's own cost) as JSON");
       app.callback([o] { run(*o); });
     }});

}  // namespace
}  // namespace streamlab::cli
