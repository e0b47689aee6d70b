// `streamlab analyze FILE [--json] [--profile P]`: what the workload's DAG allows before any scheduling
// decision: size, depth, critical path under the profile's duration estimate, width, parallelism,
// the dependencies that must become waits, cycles. Nothing runs.
#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "phase_times.hpp"
#include "progress_bar.hpp"
#include "streamlab/model/dag.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/heap_reuse.hpp"
#include "streamlab/model/estimate.hpp"
#include "streamlab/model/program.hpp"
#include "streamlab/model/units.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::cli {
namespace {

/// transitive_reduction costs O(edges x ops / 64): past this many ops `analyze` skips it rather than
/// keep a person waiting (the library call itself has no limit).
constexpr std::uint32_t kMaxReductionOps = 200'000;
constexpr std::size_t kShownOps = 20;

std::string format_ns(model::Nanos ns) { return model::format_duration(static_cast<double>(ns)); }

std::string fixed2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string label(const model::Workload& w, model::OpIndex v) {
  const model::Op& op = w.ops[v];
  return op.name.empty() || op.name == op.id ? "'" + op.id + "'" : "'" + op.id + "' (" + op.name + ")";
}

struct Analysis {
  std::string file, profile_name;
  model::Workload w;  ///< a program's DAG view (the program itself is summarized in `program_note`)
  std::string hash;   ///< of the file's workload
  std::string program_note;
  std::vector<model::Nanos> duration;
  std::vector<model::Cycle> cycles;
  std::optional<model::CriticalPath> cp;
  std::uint32_t depth = 0;
  model::Width width;
  bool width_exact = false;
  std::optional<std::size_t> reduced_edges;
  std::vector<std::pair<model::Nanos, std::uint32_t>> profile;
  model::Nanos total_work = 0;
  std::uint32_t max_parallel = 0;
  double mean_parallel = 0;
};

Analysis analyze(const std::string& file, const std::string& profile_file, ProgressBar& bar, PhaseTimes& times) {
  const model::DeviceProfile profile =
      profile_file.empty() ? model::bundled_h100_profile() : model::load_device_profile(profile_file);
  Analysis a;
  a.file = file;
  a.profile_name = profile_file.empty() ? profile.name + " (bundled)" : profile.name + " (" + profile_file + ")";
  // The hash comes with the reading (computed as the ops are read, or after, for other layouts).
  a.w = model::load_workload(file, model::shape_limits(profile), &bar.phase("reading " + file), &a.hash);
  times.end("read");
  if (a.w.program) {
    // What the program's ordering allows: its DAG view (stream order, event pairs, host syncs).
    const std::size_t calls = a.w.ops.size(), streams = a.w.streams.size();
    a.w = model::program_dag(a.w, file);
    a.program_note = "program: " + std::to_string(calls) + " calls on " + std::to_string(streams) +
                     " declared streams; analyzed as its DAG view (" + std::to_string(a.w.ops.size()) +
                     " device ops, dependencies from stream order, event record/wait pairs and host syncs)";
    times.end("dag view");
  }
  bar.phase("analyzing");
  const auto n = static_cast<model::OpIndex>(a.w.ops.size());
  a.duration.resize(n);
  for (model::OpIndex v = 0; v < n; ++v) a.duration[v] = model::estimate_duration(a.w.ops[v], profile);
  a.total_work = std::accumulate(a.duration.begin(), a.duration.end(), model::Nanos{0});
  times.end("estimate");

  // The estimates are read where they are (no copy, no call per op).
  const std::span<const model::Nanos> duration(a.duration);
  {
    const model::Dag dag(a.w);
    times.end("csr");
    model::DagAnalysis all = model::analyze_dag(dag, duration, model::TopologicalOrder::omit);
    times.end("critical");
    a.cycles = std::move(all.cycles);
    if (!a.cycles.empty()) return a;  // loading rejects cycles already; kept for workloads built otherwise
    a.cp = std::move(all.critical);

    const std::vector<std::uint32_t> level = std::move(all.level);
    a.depth = level.empty() ? 0 : *std::max_element(level.begin(), level.end()) + 1;
    a.width_exact = n <= model::kMaxWidthOps;
    a.width = a.width_exact ? model::max_width(dag) : model::widest_level(level);
    if (n <= kMaxReductionOps) a.reduced_edges = model::transitive_reduction(dag).size();
    times.end("width");
  }
  // The graph and the levels are gone, and so go the latest starts (nothing prints them: the slack says
  // what they do): the profile's two arrays of starts and ends take their memory, kept by the heap
  // (heap_reuse.hpp), instead of pages faulted in afresh (160 MB at ten million ops).
  std::vector<model::Nanos>().swap(a.cp->latest_start);
  a.profile = model::parallelism_profile(*a.cp, duration);
  double area = 0;
  for (std::size_t i = 0; i + 1 < a.profile.size(); ++i) {
    area += static_cast<double>(a.profile[i].second) * static_cast<double>(a.profile[i + 1].first - a.profile[i].first);
    a.max_parallel = std::max(a.max_parallel, a.profile[i].second);
  }
  a.mean_parallel = a.cp->length > 0 ? area / static_cast<double>(a.cp->length) : 0;
  times.end("profile");
  return a;
}

std::map<std::string, std::size_t> ops_per_kind(const model::Workload& w) {
  std::array<std::size_t, 256> by_kind{};  // counted by the kind's value; each kind is named once
  for (const auto& op : w.ops) ++by_kind[static_cast<std::uint8_t>(op.kind)];
  std::map<std::string, std::size_t> count;
  for (std::size_t k = 0; k < by_kind.size(); ++k)
    if (by_kind[k] != 0) count[std::string(model::to_string(static_cast<model::OpKind>(k)))] = by_kind[k];
  return count;
}

std::string describe_all_cycles(const Analysis& a) {
  std::string s;
  for (std::size_t i = 0; i < a.cycles.size(); ++i)
    s += "  cycle " + std::to_string(i + 1) + ": " + model::describe_cycle(a.w, a.cycles[i]) + "\n";
  return s;
}

void print_text(const Analysis& a) {
  const model::Workload& w = a.w;
  std::cout << "workload: " << (w.name.empty() ? "(unnamed)" : w.name) << "  [" << a.file << ", hash " << a.hash
            << "]\n";
  if (!a.program_note.empty()) std::cout << a.program_note << "\n";
  std::cout << "ops: " << w.size() << "  dependencies: " << w.edge_count() << "\n";
  std::cout << "ops per kind:";
  for (const auto& [kind, count] : ops_per_kind(w)) std::cout << "  " << kind << " " << count;
  std::cout << "\n";
  if (!a.cycles.empty()) {
    std::cout << "cycles: " << a.cycles.size() << " (no schedule exists)\n" << describe_all_cycles(a);
    return;
  }
  std::cout << "topological depth: " << a.depth << (a.depth == 1 ? " level" : " levels") << "\n";
  std::cout << "duration estimates: device profile " << a.profile_name << "\n";
  const model::CriticalPath& cp = *a.cp;
  std::cout << "critical path: " << format_ns(cp.length) << " through " << cp.ops.size()
            << (cp.ops.size() == 1 ? " op" : " ops") << "  (total work " << format_ns(a.total_work) << ")\n";
  for (std::size_t i = 0; i < cp.ops.size() && i < kShownOps; ++i) {
    const model::OpIndex v = cp.ops[i];
    std::cout << "    at " << format_ns(cp.earliest_start[v]) << "  " << model::to_string(w.ops[v].kind) << " "
              << label(w, v) << "  " << format_ns(a.duration[v]) << "\n";
  }
  if (cp.ops.size() > kShownOps) std::cout << "    ... " << cp.ops.size() - kShownOps << " more\n";
  std::cout << "width: " << a.width.width
            << (a.width_exact ? " (largest antichain, exact)" : " (widest level: a lower bound; exact width is limited to "
                                                                    + std::to_string(model::kMaxWidthOps) + " ops)")
            << "\n  e.g.";
  for (std::size_t i = 0; i < a.width.antichain.size() && i < 10; ++i)
    std::cout << (i ? ", " : " ") << label(w, a.width.antichain[i]);
  if (a.width.antichain.size() > 10) std::cout << ", ... " << a.width.antichain.size() - 10 << " more";
  std::cout << "\n";
  std::cout << "parallelism (earliest starts, unlimited resources): at most " << a.max_parallel
            << " ops at once, mean " << fixed2(a.mean_parallel) << " (total work / critical path)\n";
  const std::size_t zero_slack =
      static_cast<std::size_t>(std::count(cp.slack.begin(), cp.slack.end(), model::Nanos{0}));
  std::cout << "ops with zero slack: " << zero_slack << " of " << w.size() << "\n";
  if (a.reduced_edges)
    std::cout << "transitive reduction: " << *a.reduced_edges << " dependencies needed (as waits), "
              << w.edge_count() - *a.reduced_edges << " implied by others\n";
  else
    std::cout << "transitive reduction: skipped (over " << kMaxReductionOps << " ops)\n";
  std::cout << "cycles: none\n";
}

nlohmann::json op_json(const Analysis& a, model::OpIndex v) {
  const model::Op& op = a.w.ops[v];
  nlohmann::json j{{"id", op.id}, {"name", op.name}, {"kind", model::to_string(op.kind)}, {"duration_ns", a.duration[v]}};
  if (a.cp) {
    j["earliest_start_ns"] = a.cp->earliest_start[v];
    j["slack_ns"] = a.cp->slack[v];
  }
  return j;
}

void print_json(const Analysis& a) {
  nlohmann::json j;
  j["file"] = a.file;
  j["workload"] = a.w.name;
  j["workload_hash"] = a.hash;
  j["profile"] = a.profile_name;
  j["ops"] = a.w.size();
  j["edges"] = a.w.edge_count();
  j["ops_per_kind"] = ops_per_kind(a.w);
  j["cycles"] = nlohmann::json::array();
  for (const auto& c : a.cycles) {
    nlohmann::json ids = nlohmann::json::array();
    for (model::OpIndex v : c.ops) ids.push_back(a.w.ops[v].id);
    j["cycles"].push_back({{"ops", ids}, {"description", model::describe_cycle(a.w, c)}});
  }
  if (a.cp) {
    const model::CriticalPath& cp = *a.cp;
    j["depth"] = a.depth;
    j["total_work_ns"] = a.total_work;
    nlohmann::json path = nlohmann::json::array();
    for (model::OpIndex v : cp.ops) path.push_back(op_json(a, v));
    j["critical_path"] = {{"length_ns", cp.length}, {"ops", path}};
    nlohmann::json anti = nlohmann::json::array();
    for (model::OpIndex v : a.width.antichain) anti.push_back(a.w.ops[v].id);
    j["width"] = {{"value", a.width.width},
                  {"exact", a.width_exact},
                  {"method", a.width_exact ? "dilworth" : "widest_level"},
                  {"antichain", anti}};
    nlohmann::json points = nlohmann::json::array();
    for (const auto& [t, c] : a.profile) points.push_back({t, c});
    j["parallelism"] = {{"max", a.max_parallel}, {"mean", a.mean_parallel}, {"profile", points}};
    j["zero_slack_ops"] = std::count(cp.slack.begin(), cp.slack.end(), model::Nanos{0});
    j["transitive_reduction_edges"] = a.reduced_edges ? nlohmann::json(*a.reduced_edges) : nlohmann::json(nullptr);
  }
  std::cout << j.dump(2) << "\n";
}

struct Options {
  std::string file, profile;
  bool json = false;
  bool quiet = false;
  bool timing = false;
};

const bool registered = register_command(
    {"analyze", "DAG analysis of a workload: depth, critical path, width, parallelism, needed waits, cycles",
     [](CLI::App& app) {
       auto o = std::make_shared<Options>();
       app.add_option("file", o->file, "Workload JSON file")->required();
       app.add_flag("--json", o->json, "Print the analysis as JSON");
       app.add_option("--profile", o->profile,
                      "Device profile for duration estimates and shape limits (default: bundled H100 SXM)");
       add_quiet_flag(app, o->quiet);
       app.add_flag("--timing", o->timing,
                    "Print the CPU time (user and system), peak memory and page faults of each phase (read, "
                    "estimate, csr, critical, width, profile, print) on stderr");
       app.callback([o] {
         model::keep_freed_memory_for_reuse();  // the DAG passes' temporary arrays (heap_reuse.hpp)
         ProgressBar bar(!o->quiet);
         PhaseTimes times(o->timing);
         const Analysis a = analyze(o->file, o->profile, bar, times);
         bar.hide();
         if (o->json)
           print_json(a);
         else
           print_text(a);
         std::cout.flush();
         times.end("print");
         if (!a.cycles.empty()) throw CLI::RuntimeError(2);
       });
     }});

}  // namespace
}  // namespace streamlab::cli
