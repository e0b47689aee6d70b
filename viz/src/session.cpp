#include "streamlab/viz/session.hpp"

#include <algorithm>
#include <exception>
#include <system_error>
#include <ctime>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::viz {
namespace {

std::string in_quotes(const std::filesystem::path& p) {
  std::string out(1, '\'');  // appending, not "'" + string&& (GCC 12 -Wrestrict false positive)
  out += p.string();
  out += '\'';
  return out;
}

// Runs a loader; a failure becomes one line that begins with the file (and the place, where the reader
// knows it), as every streamlab command's does, and says what was being opened.
template <class F>
auto attempt(const std::filesystem::path& file, const char* what, std::vector<std::string>& errors, F&& load)
    -> std::optional<decltype(load())> {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    errors.push_back(file.string() + ": no such file (the " + std::string(what) + ")");
    return std::nullopt;
  }
  try {
    return load();
  } catch (const model::InputError& e) {
    // InputError's message already begins with the file and the place.
    errors.push_back(std::string(e.what()) + " (the " + std::string(what) + ")");
  } catch (const std::exception& e) {
    errors.push_back(file.string() + ": cannot read the " + std::string(what) + ": " + e.what());
  }
  return std::nullopt;
}

}  // namespace

namespace {

// Why trace t of the set cannot be compared with trace 0, or nullopt.
std::optional<std::string> mismatch_in_set(const TraceSet& set, TraceIndex t, const std::string& ref_name,
                                           const std::string& name) {
  const auto& ref = set.trace(0).meta;
  const auto& other = set.trace(t).meta;
  if (!ref.workload_hash.empty() && !other.workload_hash.empty() && ref.workload_hash != other.workload_hash) {
    return "traces are of different workloads: " + ref_name + " ran '" + ref.workload + "' (hash " +
           ref.workload_hash + "), " + name + " ran '" + other.workload + "' (hash " + other.workload_hash + ")";
  }
  // An empty trace is shown, not compared.
  if (!set.trace(0).spans.empty() && !set.trace(t).spans.empty() && set.common_op_count(t) == 0) {
    return "traces have no op in common (matched by op id and engine): " + ref_name + " and " + name +
           " are not of the same workload";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> mismatch_reason(const model::Trace& p, const std::string& p_file,
                                           const model::Trace& m, const std::string& m_file) {
  const TraceSet pair({p, m});
  return mismatch_in_set(pair, 1, p_file, m_file);
}

double process_cpu_seconds() noexcept {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

Session open_session(const SessionFiles& files) {
  Session s;
  const model::ResourceUsage t0 = model::resource_usage();
  std::vector<model::Trace> traces;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < files.traces.size(); ++i) {
    const auto& file = files.traces[i];
    const std::string what = i == 0 ? "reference trace" : "trace";
    auto trace = attempt(file, what.c_str(), s.errors, [&] { return model::load_trace(file); });
    if (!trace) continue;
    traces.push_back(std::move(*trace));
    names.push_back(file.string());
  }
  std::optional<model::Workload> workload;
  if (files.workload)
    workload = attempt(*files.workload, "workload", s.errors, [&] { return model::load_workload(*files.workload); });
  const model::ResourceUsage t1 = model::resource_usage();
  s.times.read = t1 - t0;
  if (traces.empty()) return s;

  // Keep the traces that match the first one readable (same workload hash, ops in common), checked on
  // the set's own op matching.
  auto set = std::make_shared<TraceSet>(std::move(traces), names);
  std::vector<std::size_t> dropped;
  for (TraceIndex t = 1; t < set->size(); ++t) {
    if (auto why = mismatch_in_set(*set, t, in_quotes(set->file(0)), in_quotes(set->file(t)))) {
      s.errors.push_back(*why + "; " + in_quotes(set->file(t)) + " is not shown");
      dropped.push_back(t);
    }
  }
  if (!dropped.empty()) {
    // Rebuild without them (rare: only on bad input).
    std::vector<model::Trace> kept;
    std::vector<std::string> kept_names;
    auto* mutable_set = set.get();
    for (TraceIndex t = 0; t < mutable_set->size(); ++t) {
      if (std::find(dropped.begin(), dropped.end(), t) != dropped.end()) continue;
      kept.push_back(mutable_set->trace(t));
      kept_names.push_back(mutable_set->file(t));
    }
    set = std::make_shared<TraceSet>(std::move(kept), std::move(kept_names));
  }
  s.set = set;
  if (workload) {
    const auto& trace_hash = s.set->trace(0).meta.workload_hash;
    const auto hash = workload->hash();
    if (!trace_hash.empty() && trace_hash != hash) {
      s.errors.push_back("workload " + in_quotes(*files.workload) + " (hash " + hash +
                         ") is not the one the traces ran (hash " + trace_hash + "); dependencies not shown");
    } else {
      try {
        s.overlay = std::make_shared<const DependencyOverlay>(*workload, *s.set);
      } catch (const std::exception& e) {
        s.errors.push_back("cannot analyse workload " + in_quotes(*files.workload) + ": " + e.what());
      }
    }
  }
  s.times.prepare = model::resource_usage() - t1;
  return s;
}

}  // namespace streamlab::viz
