// `streamlab experiment`: run the research-note experiments (predicted on the simulator, measured on the GPU
// when there is one), re-render their charts, and generate experiments/REPORT.md.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "budget_options.hpp"
#include "command.hpp"
#include "progress_bar.hpp"
#include "streamlab/experiments/catalog.hpp"
#include "streamlab/experiments/charts.hpp"
#include "streamlab/experiments/report.hpp"
#include "streamlab/experiments/results.hpp"
#include "streamlab/experiments/runner.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"

namespace {

namespace fs = std::filesystem;
namespace ex = streamlab::experiments;
using streamlab::model::InputError;

struct ExperimentOptions {
  std::string name;
  bool list = false;
  bool sim_only = false;
  bool quick = false;
  std::string device;  // profile path
  std::string out;
  std::string traces;  // --traces DIR
  std::uint32_t repeats = 3;
  std::uint32_t child_connections = 0;
  bool child_probes = false;
  std::string child_output;
  streamlab::sim::SimBudget budget;
  // render / report
  std::vector<std::string> render_dirs;
  std::vector<std::string> report_results;
  std::vector<std::string> repredict_dirs;
  std::string repredict_traces;  // repredict --traces DIR ("" = each folder's own traces/experiments)
  std::string workload_profile;
  std::string report_out;  // default: report_home() / "REPORT.md"
  bool quiet = false;
};

void print_line(const std::string& s) {
  std::cout << s << std::endl;  // flushed: progress must show while a long run goes on
}

// Where results and the report live, the same for `experiment`, `render`, `report` from any working
// directory: the `experiments/` folder of the streamlab checkout that contains the working directory (found
// by walking up), else the working directory itself (results/ and REPORT.md there).
fs::path report_home() {
  std::error_code ec;
  const fs::path here = fs::current_path(ec);
  if (ec) return fs::path(".");
  for (fs::path d = here; !d.empty(); d = d.parent_path()) {
    std::error_code e1, e2;  // a missing path reports an error code: it only means "not here"
    if (fs::is_directory(d / "experiments" / "results", e1) && fs::is_regular_file(d / "experiments" / "REPORT.md", e2))
      return d / "experiments";
    if (d == d.parent_path()) break;
  }
  return fs::path(".");
}

fs::path results_root() { return report_home() / "results"; }

// Draws the charts of `dir`; a missing Python/matplotlib is a warning here (the results are written) and
// an error for `render`, which is asked for charts only.
void draw_charts(const fs::path& dir, const std::vector<std::string>& only, bool required) {
  const ex::ChartsRun run = ex::draw_charts(dir, only);
  if (run.outcome == ex::ChartsOutcome::drawn) return;
  if (required) {
    if (run.outcome == ex::ChartsOutcome::bad_input) throw CLI::RuntimeError(2);  // the script said why
    if (run.outcome == ex::ChartsOutcome::failed) throw std::runtime_error(run.detail);
    throw streamlab::cli::MissingDependency(run.detail);
  }
  print_line("streamlab experiment: charts not drawn: " + run.detail + "; `streamlab experiment render " +
             dir.string() + "` draws them later");
}


// A copy of the tree without .git (the device machine) gets the commit from the environment.
std::string current_commit() {
  const char* env_commit = std::getenv("STREAMLAB_GIT_COMMIT");
  return env_commit && *env_commit ? std::string(env_commit) : ex::git_commit(fs::current_path());
}

void list_experiments() {
  std::printf("%-4s %-62s %-7s %-6s %s\n", "name", "title", "configs", "quick", "claim");
  const auto profile = streamlab::model::bundled_h100_profile();
  for (const auto& e : ex::all_experiments()) {
    const auto full = e.configurations({false, &profile}).size();
    const auto quick = e.configurations({true, &profile}).size();
    std::printf("%-4s %-62s %-7zu %-6zu %s\n", e.name.c_str(), e.title.c_str(), full, quick, e.claim_short.c_str());
  }
}

std::string command_line(const ExperimentOptions& o) {
  std::string s = "streamlab experiment " + o.name;
  if (o.sim_only) s += " --sim-only";
  if (o.quick) s += " --quick";
  if (!o.device.empty()) s += " --device " + o.device;
  if (!o.out.empty()) s += " --out " + o.out;
  if (o.repeats != 3) s += " --repeats " + std::to_string(o.repeats);
  if (!o.traces.empty()) s += " --traces " + o.traces;
  return s;
}

void run_experiments(const ExperimentOptions& o) {
  if (o.list) {
    list_experiments();
    return;
  }
  if (o.name.empty()) throw InputError("", "NAME", "", "name an experiment (E1..E9) or 'all'; --list shows them");
  std::vector<ex::Experiment> todo;
  if (o.name == "all") {
    todo = ex::all_experiments();
  } else {
    auto e = ex::find_experiment(o.name);
    if (!e) throw InputError("", "NAME", "", "unknown experiment '" + o.name + "' (E1..E9 or 'all'; --list shows them)");
    todo.push_back(std::move(*e));
  }
  if (o.repeats == 0) throw InputError("", "--repeats", "", "must be at least 1");

  // The bar counts experiments done; progress lines go past it so they never interleave on a terminal.
  const bool child = o.child_connections > 0 || o.child_probes;
  streamlab::cli::ProgressBar bar(!o.quiet && !child);
  const auto say = [&bar](const std::string& s) { bar.println(s); };
  ex::SuiteOptions suite;
  suite.quick = o.quick;
  suite.repeats = o.repeats;
  suite.progress = say;
  suite.command_line = command_line(o);
  if (!o.device.empty()) {
    suite.profile = streamlab::model::load_device_profile(o.device);
    suite.profile_label = o.device;
  }
  std::error_code ec;
  suite.self_exe = fs::read_symlink("/proc/self/exe", ec);
  if (o.quick) suite.child_args.push_back("--quick");
  if (!o.device.empty()) suite.child_args.insert(suite.child_args.end(), {"--device", o.device});
  suite.child_args.insert(suite.child_args.end(), {"--repeats", std::to_string(o.repeats)});
  suite.sim_budget = o.budget;
  suite.child_args.insert(suite.child_args.end(), {"--max-events", std::to_string(o.budget.max_events),
                                                   "--time-limit", std::to_string(o.budget.wall_seconds)});
  if (!o.traces.empty()) {
    suite.traces_dir = fs::absolute(o.traces);
    suite.child_args.insert(suite.child_args.end(), {"--traces", suite.traces_dir.string()});
  }

  std::unique_ptr<ex::MeasuredDevice> device;
  std::string why;
  if (child) {
    // Child mode: this process runs with CUDA_DEVICE_MAX_CONNECTIONS set by the parent, for one connection
    // setting or for the probes (a fresh process: no tracer started yet).
    device = ex::open_cuda_device(why);
    if (!device) throw std::runtime_error("child process: " + why);
    if (o.child_connections > 0) suite.only_connections = o.child_connections;
    suite.only_probes = o.child_probes;
    suite.progress = [](const std::string& s) { print_line("  [child] " + s); };
    const ex::ExperimentResult r = ex::run_experiment(todo.front(), suite, device.get());
    streamlab::model::write_file_atomically(o.child_output, ex::result_to_json(r));
    return;
  }
  if (o.sim_only) {
    why = "--sim-only given";
  } else {
    device = ex::open_cuda_device(why);
    if (!device) say("streamlab experiment: " + why + "; running on the simulator only (as with --sim-only)");
  }
  suite.git_commit = current_commit();
  fs::path out_dir;
  std::vector<std::string> names;
  streamlab::model::ProgressCounter& done = bar.phase("experiments", todo.size());
  for (const auto& e : todo) {
    ex::ExperimentResult r = ex::run_experiment(e, suite, device.get(), device ? "" : "sim-only: " + why);
    if (out_dir.empty()) out_dir = o.out.empty() ? results_root() / r.meta.device_slug : fs::path(o.out);
    ex::write_result_files(r, out_dir);
    names.push_back(r.name);
    const auto& v = r.measured() ? r.measured_verdict : r.predicted_verdict;
    say(e.name + " " + (r.measured() ? "verdict" : "predicted verdict") + ": " + std::string(ex::to_string(v.outcome)) +
        " - " + v.why);
    done.add(1);
  }
  bar.hide();
  draw_charts(out_dir, names, false);
  say("results in " + out_dir.string());
}

void render_dirs(const ExperimentOptions& o) {
  for (const auto& d : o.render_dirs) {
    // A folder without valid results is an input error before anything is drawn.
    if (ex::load_results(d).empty()) throw InputError(d, "", "", "no experiment results (<E>.json) in this folder");
    draw_charts(d, {}, true);
  }
}

void repredict_dirs(const ExperimentOptions& o) {
  streamlab::cli::ProgressBar bar(!o.quiet);
  const auto say = [&bar](const std::string& s) { bar.println(s); };
  ex::SuiteOptions suite;
  suite.progress = say;
  suite.git_commit = current_commit();
  if (!o.device.empty()) {
    suite.profile = streamlab::model::load_device_profile(o.device);
    suite.profile_label = o.device;
  } else {
    suite.profile = streamlab::model::bundled_h100_profile();
  }
  std::optional<streamlab::model::DeviceProfile> forced;
  if (!o.workload_profile.empty()) forced = streamlab::model::load_device_profile(o.workload_profile);
  for (const auto& d : o.repredict_dirs) {
    // The measured traces the folder's run left (experiment --traces), for the per-op comparison.
    suite.traces_dir.clear();
    if (o.repredict_traces != "none") {
      const fs::path traces = o.repredict_traces.empty() ? fs::path(d) / "traces" / "experiments" : fs::path(o.repredict_traces);
      if (fs::is_directory(traces)) {
        suite.traces_dir = traces;
      } else if (!o.repredict_traces.empty()) {
        throw InputError(o.repredict_traces, "", "", "--traces: no such folder");
      }
    }
    std::vector<std::string> names;
    const std::vector<ex::ExperimentResult> results = ex::load_results(d);
    streamlab::model::ProgressCounter& done = bar.phase("re-predicting " + d, results.size());
    for (const auto& r : results) {
      done.add(1);
      if (!r.measured()) {
        say(r.name + ": not measured, skipped (re-run it with --sim-only instead)");
        continue;
      }
      auto def = ex::find_experiment(r.name);
      if (!def) throw InputError(d, r.name + ".json", "", "no experiment named '" + r.name + "' in this build");
      streamlab::model::DeviceProfile sizing;
      if (forced) {
        sizing = *forced;
      } else if (!r.meta.profile_data.empty()) {
        sizing = streamlab::model::parse_device_profile(r.meta.profile_data, (fs::path(d) / (r.name + ".json")).string() + " /meta/profile_data");
      } else {
        throw InputError((fs::path(d) / (r.name + ".json")).string(), "/meta/profile_data", "",
                         "the result does not record the profile its workloads were sized with; pass --workload-profile FILE "
                         "(the profile the measured run used)");
      }
      const ex::ExperimentResult nr = ex::repredict(*def, r, suite, sizing);
      ex::write_result_files(nr, d);
      names.push_back(nr.name);
      const auto& v = nr.measured_verdict;
      say(r.name + " re-predicted; verdict: " + std::string(ex::to_string(v.outcome)));
    }
    if (!names.empty()) draw_charts(d, names, false);
  }
}

void write_report(const ExperimentOptions& o) {
  std::vector<fs::path> dirs;
  for (const auto& d : o.report_results) dirs.emplace_back(d);
  if (dirs.empty()) {
    const fs::path root = results_root();
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec))
      if (e.is_directory()) dirs.push_back(e.path());
    if (ec) throw InputError(root.string(), "", "", "cannot list result folders: " + ec.message());
    std::sort(dirs.begin(), dirs.end());
  }
  std::vector<ex::LoadedResult> loaded;
  std::vector<ex::ProgramValidation> programs;
  for (const auto& d : dirs)
    for (auto& v : ex::load_program_validations(d)) programs.push_back(std::move(v));
  for (const auto& d : dirs)
    for (auto& r : ex::load_results(d)) {
      // Verdicts and the claim's wording follow the definitions in this build (the numbers and the setup
      // are what was run).
      if (auto def = ex::find_experiment(r.name)) {
        ex::judge(*def, r);
        r.title = def->title;
        r.claim = def->claim;
        r.source = def->source;
      }
      loaded.push_back({d, std::move(r)});
    }
  if (loaded.empty()) throw InputError("", "--results", "", "no experiment results found (run `streamlab experiment all` first)");
  // Charts first, so the report links what the CSVs say now.
  for (const auto& d : dirs) draw_charts(d, {}, false);
  const fs::path out = o.report_out.empty() ? report_home() / "REPORT.md" : fs::path(o.report_out);
  const fs::path report_dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  // The imported real traces' replay report, where `streamlab replay-report` wrote it.
  std::string trace_replay;
  if (const fs::path replay = results_root() / "import-replay.md"; fs::exists(replay))
    trace_replay = streamlab::model::read_text_file(replay);
  streamlab::model::write_file_atomically(out, ex::generate_report(loaded, report_dir, programs, trace_replay));
  print_line("wrote " + out.string() + " from " + std::to_string(loaded.size()) + " results");
}

const bool registered = streamlab::cli::register_command(
    {"experiment", "run the research-note experiments (claim vs predicted vs measured), render charts, write the report",
     [](CLI::App& app) {
       auto o = std::make_shared<ExperimentOptions>();
       app.add_option("name", o->name, "experiment to run: E1..E9 or 'all'");
       app.add_flag("--list", o->list, "list the experiments and their claims");
       app.add_flag("--sim-only", o->sim_only, "predict only (automatic when there is no CUDA device)");
       app.add_flag("--quick", o->quick, "smaller sizes (CI: the whole suite in well under a minute)");
       app.add_option("--device", o->device, "device profile JSON for the prediction (default: bundled H100)")
           ->check(CLI::ExistingFile);
       app.add_option("--out", o->out, "results folder (default: experiments/results/<device> of the checkout around the working directory, else ./results/<device>)");
       app.add_option("--traces", o->traces,
                      "also write each configuration's workload, predicted and measured traces under DIR/<experiment>/");
       streamlab::cli::add_budget_options(app, o->budget);
       app.add_option("--repeats", o->repeats, "measured runs per configuration, after one warm-up (median)")
           ->capture_default_str();
       app.add_option("--child-connections", o->child_connections, "internal: measure one connection setting")
           ->group("");
       app.add_flag("--child-probes", o->child_probes, "internal: measure the probes in a fresh process")->group("");
       streamlab::cli::add_quiet_flag(app, o->quiet);
       app.add_option("--child-output", o->child_output, "internal: where a child writes its results")->group("");
       CLI::App* render = app.add_subcommand("render", "re-draw the charts (SVG, PDF, PNG) of result folders from their CSVs (needs python3-matplotlib)");
       render->add_option("dirs", o->render_dirs, "result folders")->required();
       CLI::App* report = app.add_subcommand("report", "write experiments/REPORT.md from the result files");
       report->add_option("--results", o->report_results, "result folders (default: every folder under the results folder that `experiment` writes to)");
       report->add_option("--out", o->report_out,
                         "report file (default: experiments/REPORT.md of the checkout around the working directory, "
                         "else ./REPORT.md)");
       CLI::App* repredict = app.add_subcommand(
           "repredict", "re-run the simulator half of measured results (newer simulator or profile), keeping the measurements");
       repredict->add_option("dirs", o->repredict_dirs, "result folders")->required();
       repredict->add_option("--device", o->device, "device profile for the prediction (default: bundled H100)")
           ->check(CLI::ExistingFile);
       repredict->add_option("--workload-profile", o->workload_profile,
                             "profile the measured run sized its workloads with (default: the one the result records)")
           ->check(CLI::ExistingFile);
       repredict->add_option("--traces", o->repredict_traces,
                             "measured traces to compare the new predictions with per op, as `experiment --traces` left "
                             "them (DIR/<experiment>/<configuration>.measured.json; the predicted traces beside them are "
                             "rewritten). Default: each result folder's traces/experiments where it exists; 'none' skips them");
       streamlab::cli::add_quiet_flag(*repredict, o->quiet);
       repredict->callback([o] { repredict_dirs(*o); });
       render->callback([o] { render_dirs(*o); });
       report->callback([o] { write_report(*o); });
       app.require_subcommand(0, 1);
       app.callback([o, &app] {
         if (app.get_subcommands().empty()) run_experiments(*o);
       });
     }});

}  // namespace
