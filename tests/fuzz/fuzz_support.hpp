#pragma once
// Shared by the fuzz targets: what "going beyond parsing" means for every reader. A failed property is a
// crash (abort with a message), so libFuzzer keeps the input.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/estimate.hpp"
#include "streamlab/model/input_limits.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace streamlab::fuzz {

/// Largest simulation a fuzz input may start: the targets must stay fast (libFuzzer's -timeout).
inline constexpr std::uint64_t kFuzzMaxEvents = 20'000;

[[noreturn]] inline void property_failed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz property failed: %s\n%s\n", what, detail.c_str());
  std::abort();
}

inline void require(bool ok, const char* what, const std::string& detail = {}) {
  if (!ok) property_failed(what, detail);
}

/// An accepted trace survives the writer unchanged, and its metrics are sane.
inline void check_trace(const model::Trace& t) {
  const std::string text = model::trace_to_chrome_json(t);
  const model::Trace back = model::parse_chrome_trace(text, "round-trip");
  require(back.spans == t.spans, "trace spans survive the writer", text.substr(0, 2000));
  require(back.blocks == t.blocks, "block placements survive the writer");
  require(model::trace_to_chrome_json(back) == text, "trace writer is canonical");
  const model::TraceMetrics m = model::compute_metrics(t);
  require(m.makespan_ns >= 0, "makespan >= 0");
  require(m.copy_compute_overlap >= 0 && m.copy_compute_overlap <= 1.0 + 1e-9, "overlap in [0, 1]",
          std::to_string(m.copy_compute_overlap));
  const model::TraceComparison c = model::compare_traces(t, back);
  require(c.only_in_a.empty() && c.only_in_b.empty(), "a trace matches itself");
}

/// Simulates `w` under a small event budget; every outcome but a crash or a wrong trace is fine.
inline void simulate(const model::Workload& w, const model::DeviceProfile& profile) {
  if (model::simulation_work_items(w) > kFuzzMaxEvents) return;
  sim::SimOptions so;
  so.source = "fuzz";
  so.date = "2026-01-01";
  so.budget.max_events = 4 * kFuzzMaxEvents;
  so.budget.wall_seconds = 2;
  const auto policy = policies::make_policy("round-robin", policies::PolicyConfig{});
  try {
    sim::SimBackend backend(profile, so);
    policies::DispatchOptions d;
    d.profile = &profile;
    d.source = "fuzz";
    d.keep_log = false;
    const policies::DispatchResult r = policies::dispatch(backend, w, *policy, d);
    for (const model::Span& s : r.trace.spans) require(s.end_ns >= s.start_ns && s.start_ns >= 0, "span times");
    check_trace(r.trace);
  } catch (const sim::SimBudgetExceeded&) {
  } catch (const model::InputError&) {  // e.g. a stream program that deadlocks, a block that never fits
  } catch (const policies::DispatchTimeout&) {
    // A wait ran past DispatchOptions::timeout_ns (60 s of simulated time here): an op that long (e.g. a
    // 16 TB copy) is a documented error, not a crash (`streamlab sim` sizes its timeout to the workload).
  }
}

}  // namespace streamlab::fuzz
