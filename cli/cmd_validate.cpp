// `streamlab validate FILE...`: strict checks of workloads (and traces and device profiles), one line per
// file; exit 2 when any file is bad. Nothing runs.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "budget_options.hpp"
#include "command.hpp"
#include "progress_bar.hpp"
#include "streamlab/model/any_file.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/heap_reuse.hpp"
#include "streamlab/model/input_limits.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::cli {
namespace {

struct Options {
  std::vector<std::string> files;
  std::string profile;
  std::string as = "auto";
  bool quiet = false;
  sim::SimBudget budget;  // only max_events: the same size limit sim applies before simulating
};

std::string ok_workload(std::size_t ops, std::uint64_t edges) {
  return "ok (" + std::to_string(ops) + " ops, " + std::to_string(edges) + " deps)";
}

// One parse per file (two for a workload whose checks need its ops): with --as auto the file's top level says what it is (model::load_any).
std::string check_file(const Options& o, const model::ShapeLimits& limits, const std::string& file,
                       model::ProgressCounter& progress) {
  std::optional<model::FileKind> kind;
  if (o.as == "workload") kind = model::FileKind::workload;
  if (o.as == "trace") kind = model::FileKind::trace;
  if (o.as == "profile") kind = model::FileKind::profile;
  // A good workload needs only its counts: checked without keeping its ops where that can be told so.
  // Anything else (other files, problems, a workload over the budget) is read whole below.
  if (!kind || *kind == model::FileKind::workload) {
    if (const auto c = model::check_workload_file(file, limits, &progress); c && c->work_items <= o.budget.max_events)
      return ok_workload(c->ops, c->edges);
  }
  const model::AnyFile f = model::load_any(file, limits, kind, &progress);
  switch (f.kind) {
    case model::FileKind::workload: {
      const model::Workload& w = *f.workload;
      // The ops' running total stays within the limit when their total does: only a workload over it is
      // read again, for the op that crosses it (check_simulation_size's message).
      if (f.work_items > o.budget.max_events) model::check_simulation_size(w, file, o.budget.max_events);
      return ok_workload(w.size(), w.edge_count());
    }
    case model::FileKind::trace: {
      const model::Trace& t = *f.trace;
      return "ok (trace: " + std::to_string(t.spans.size()) + " spans, " + std::to_string(t.blocks.size()) +
             " block placements, backend '" + t.meta.backend + "')";
    }
    case model::FileKind::profile: return "ok (device profile '" + f.profile->name + "')";
  }
  return {};
}

const bool registered = register_command(
    {"validate", "Check workload files strictly (also traces and device profiles); nothing runs", [](CLI::App& app) {
       auto o = std::make_shared<Options>();
       app.add_option("files", o->files, "Files to check")->required();
       app.add_option("--profile", o->profile,
                      "Device profile whose kernel-shape limits workloads must meet (default: bundled H100 SXM)");
       add_budget_options(app, o->budget, /*wall_clock=*/false);
       app.add_option("--as", o->as, "File type: auto (by content), workload, trace or profile")
           ->check(CLI::IsMember({"auto", "workload", "trace", "profile"}))
           ->capture_default_str();
       add_quiet_flag(app, o->quiet);
       app.callback([o] {
         model::keep_freed_memory_for_reuse();  // reading's temporary arrays (heap_reuse.hpp)
         const model::DeviceProfile profile =
             o->profile.empty() ? model::bundled_h100_profile() : model::load_device_profile(o->profile);
         const model::ShapeLimits limits = model::shape_limits(profile);
         bool failed = false;
         ProgressBar bar(!o->quiet);
         for (const auto& file : o->files) {
           try {
             model::ProgressCounter& progress = bar.phase("validating " + file);
             const std::string verdict = check_file(*o, limits, file, progress);  // throws before printing anything
             bar.println(file + ": " + verdict);
           } catch (const model::InputError& e) {
             bar.hide();
             std::cout.flush();
             std::cerr << "streamlab: error: " << e.what() << "\n";
             failed = true;
           }
         }
         if (failed) throw CLI::RuntimeError(2);  // main exits 2 without printing more
       });
     }});

}  // namespace
}  // namespace streamlab::cli
