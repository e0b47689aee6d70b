// `streamlab compare A B [--json]`: two traces of one workload side by side (A = predicted, B = measured
// by convention): makespan, busy fractions, copy/compute overlap, concurrency and per-op errors.
// Definitions in docs/metrics.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "phase_times.hpp"
#include "progress_bar.hpp"
#include "streamlab/model/heap_reuse.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/units.hpp"

namespace streamlab::cli {
namespace {

constexpr std::size_t kWorst = 10;
constexpr std::size_t kShownUnmatched = 20;

std::string fixed(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string percent(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.2f%%", v * 100);
  return buf;
}
std::string format_ns(double ns) { return model::format_duration(ns); }
std::string signed_ns(model::Nanos ns) { return model::format_signed_duration(static_cast<double>(ns)); }

std::string describe(const model::Trace& t, const std::string& file) {
  std::string s = file + " (" + (t.meta.backend.empty() ? "?" : t.meta.backend);
  if (!t.meta.policy.empty()) s += ", policy " + t.meta.policy;
  if (!t.meta.device_name.empty()) s += ", " + t.meta.device_name;
  return s + ", " + std::to_string(t.spans.size()) + " spans)";
}

template <class Map>
void busy_rows(const Map& a, const Map& b, auto&& key_name) {
  std::set<typename Map::key_type> keys;
  for (const auto& kv : a) keys.insert(kv.first);
  for (const auto& kv : b) keys.insert(kv.first);
  for (const auto& k : keys) {
    auto get = [&](const Map& m) { auto it = m.find(k); return it == m.end() ? std::string("-") : fixed(it->second); };
    std::printf("    %-12s %8s %8s\n", key_name(k).c_str(), get(a).c_str(), get(b).c_str());
  }
}

/// The text report: a comparison made without OpDeltas (compare_traces with `matched`, left in trace a's
/// order): at ten million spans, copying every matched op's id and name cost more memory than both
/// traces' spans, and sorting them all, for the ten shown, more time than matching them.
void print_text(const model::TraceComparison& c, const std::vector<model::SpanDelta>& matched, const model::Trace& ta,
                const model::Trace& tb, const std::string& fa, const std::string& fb) {
  std::cout << "a: " << describe(ta, fa) << "\n";
  std::cout << "b: " << describe(tb, fb) << "\n";
  std::cout << "makespan: a " << format_ns(static_cast<double>(c.a.makespan_ns)) << ", b "
            << format_ns(static_cast<double>(c.b.makespan_ns)) << ", (a - b) / b = " << percent(c.makespan_rel_error)
            << "\n";
  std::cout << "copy/compute overlap: a " << fixed(c.a.copy_compute_overlap) << ", b " << fixed(c.b.copy_compute_overlap)
            << ", a - b = " << (c.overlap_error >= 0 ? "+" : "") << fixed(c.overlap_error) << "\n";
  std::cout << "device concurrency: mean a " << fixed(c.a.mean_concurrency, 2) << ", b " << fixed(c.b.mean_concurrency, 2)
            << "; max a " << c.a.max_concurrency << ", b " << c.b.max_concurrency << "\n";
  std::cout << "busy fraction by engine:        a        b\n";
  busy_rows(c.a.engine_busy, c.b.engine_busy, [](model::Engine e) { return std::string(model::to_string(e)); });
  std::cout << "busy fraction by stream:        a        b\n";
  busy_rows(c.a.stream_busy, c.b.stream_busy, [](std::uint32_t s) { return "stream " + std::to_string(s); });
  std::cout << "matched spans: " << matched.size() << "  mean |start error| " << format_ns(c.mean_abs_start_error_ns)
            << "  mean |duration error| " << format_ns(c.mean_abs_duration_error_ns) << "\n";
  std::vector<model::OpDelta> bad;
  for (const std::uint32_t k : model::worst_matched(ta, matched, kWorst)) bad.push_back(model::op_delta(ta, matched[k]));
  if (!bad.empty()) {
    std::cout << "worst " << bad.size() << " by max(|start error|, |end error|):\n";
    std::printf("    %-24s %-9s %12s %12s %12s %12s\n", "op", "engine", "a start", "b start", "start err", "dur err");
    for (const auto& d : bad)
      std::printf("    %-24s %-9s %12s %12s %12s %12s\n", d.op_id.c_str(), std::string(model::to_string(d.engine)).c_str(),
                  format_ns(static_cast<double>(d.a_start)).c_str(), format_ns(static_cast<double>(d.b_start)).c_str(),
                  signed_ns(d.start_error()).c_str(), signed_ns(d.duration_error()).c_str());
  }
  auto unmatched = [](const char* which, const std::vector<std::string>& ids) {
    if (ids.empty()) return;
    std::cout << "only in " << which << " (" << ids.size() << "):";
    for (std::size_t i = 0; i < ids.size() && i < kShownUnmatched; ++i) std::cout << " " << ids[i];
    if (ids.size() > kShownUnmatched) std::cout << " ... " << ids.size() - kShownUnmatched << " more";
    std::cout << "\n";
  };
  unmatched("a", c.only_in_a);
  unmatched("b", c.only_in_b);
}

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json metrics_json(const model::TraceMetrics& m) {
  nlohmann::json streams = nlohmann::json::object(), engines = nlohmann::json::object();
  for (const auto& [s, f] : m.stream_busy) streams[std::to_string(s)] = f;
  for (const auto& [e, f] : m.engine_busy) engines[std::string(model::to_string(e))] = f;
  return {{"start_ns", m.start_ns},        {"makespan_ns", m.makespan_ns},
          {"stream_busy", streams},        {"engine_busy", engines},
          {"copy_compute_overlap", m.copy_compute_overlap}, {"mean_concurrency", m.mean_concurrency},
          {"max_concurrency", m.max_concurrency}};
}

void print_json(const model::TraceComparison& c, const std::string& fa, const std::string& fb) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& d : c.ops)
    ops.push_back({{"op_id", d.op_id},
                   {"name", d.name},
                   {"engine", model::to_string(d.engine)},
                   {"a_start_ns", d.a_start},
                   {"a_end_ns", d.a_end},
                   {"b_start_ns", d.b_start},
                   {"b_end_ns", d.b_end},
                   {"start_error_ns", d.start_error()},
                   {"end_error_ns", d.end_error()},
                   {"duration_error_ns", d.duration_error()}});
  nlohmann::json worst_ids = nlohmann::json::array();
  for (const std::size_t i :
       model::worst_positions(c.ops.size(), [&c](std::size_t k) { return model::max_abs_error(c.ops[k]); }, kWorst))
    worst_ids.push_back({{"op_id", c.ops[i].op_id}, {"engine", model::to_string(c.ops[i].engine)}});
  const nlohmann::json j{{"a", {{"file", fa}, {"metrics", metrics_json(c.a)}}},
                         {"b", {{"file", fb}, {"metrics", metrics_json(c.b)}}},
                         {"makespan_rel_error", number(c.makespan_rel_error)},
                         {"overlap_error", c.overlap_error},
                         {"mean_abs_start_error_ns", c.mean_abs_start_error_ns},
                         {"mean_abs_duration_error_ns", c.mean_abs_duration_error_ns},
                         {"workload_hash_mismatch", c.workload_hash_mismatch},
                         {"worst", worst_ids},
                         {"only_in_a", c.only_in_a},
                         {"only_in_b", c.only_in_b},
                         {"ops", ops}};
  std::cout << j.dump(2) << "\n";
}

struct Options {
  std::string a, b;
  bool json = false;
  bool quiet = false;
  bool timing = false;
};

const bool registered = register_command(
    {"compare", "Compare two traces of one workload (A = predicted, B = measured): makespan, busy, overlap, per-op errors",
     [](CLI::App& app) {
       auto o = std::make_shared<Options>();
       app.add_option("a", o->a, "Trace A (Chrome Trace Event JSON), e.g. the simulator's prediction")->required();
       app.add_option("b", o->b, "Trace B, e.g. the measurement on a GPU")->required();
       app.add_flag("--json", o->json, "Print the comparison as JSON");
       add_quiet_flag(app, o->quiet);
       app.add_flag("--timing", o->timing,
                    "Print CPU time (user, system), memory and page faults of each phase on stderr");
       app.callback([o] {
         model::keep_freed_memory_for_reuse();  // two traces' worth of temporary arrays (heap_reuse.hpp)
         ProgressBar bar(!o->quiet);
         PhaseTimes phases(o->timing);
         // The text report names ops by id only: the spans' names are read (and checked) but not kept.
         const model::TraceReadOptions read{.names = o->json};
         const model::Trace ta = model::load_trace(o->a, &bar.phase("reading " + o->a), read);
         phases.end("read a");
         const model::Trace tb = model::load_trace(o->b, &bar.phase("reading " + o->b), read);
         phases.end("read b");
         bar.phase("comparing");
         // --json prints every matched op with its texts; the text report only a few of them.
         std::vector<model::SpanDelta> matched;
         const model::TraceComparison c =
             o->json ? model::compare_traces(ta, tb) : model::compare_traces(ta, tb, matched, {.sort_matched = false});
         phases.end("compare");
         bar.hide();
         if (c.workload_hash_mismatch)  // stderr, so --json output stays parseable
           std::cerr << "streamlab: warning: the traces are of different workloads (hash " << ta.meta.workload_hash
                     << " vs " << tb.meta.workload_hash << "); per-op errors match ops by id only\n";
         if (o->json)
           print_json(c, o->a, o->b);
         else
           print_text(c, matched, ta, tb, o->a, o->b);
         std::cout.flush();
         phases.end("print");
       });
     }});

}  // namespace
}  // namespace streamlab::cli
