// `streamlab sim WORKLOAD --policy NAME [--device PROFILE] [--connections N] [--traced] [--host-cost-scale X]
// [--host-speed typical|fast|slow] [--blocks] [--explain OP]
// -o predicted.json`: runs the shared Dispatcher on the simulator and writes the predicted trace.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "budget_options.hpp"
#include "command.hpp"
#include "phase_times.hpp"
#include "progress_bar.hpp"
#include "policy_options.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/estimate.hpp"
#include "streamlab/model/heap_reuse.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/prefetch.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/units.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/sim/explain.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace streamlab::cli {
namespace {

struct SimCommandOptions {
  std::string workload;
  std::string device;
  std::string output;
  std::uint32_t connections = 0;  // 0 = the profile's
  bool blocks = false;
  std::string explain;
  std::string date;
  double timeout_ms = 0;  // 0: 60 s of simulated time or the workload's serial work, whichever is longer
  bool traced = false;
  double host_cost_scale = 1.0;
  std::string host_speed = "typical";
  std::uint32_t copy_queues = 0;  // 0 = the simulator's default (4 per engine)
  std::string copy_queue_order;  // empty: oldest
  std::string kernel_race;  // empty: ready-order
  std::uint64_t kernel_race_window_ns = 0;  // 0: the simulator's default
  bool quiet = false;
  bool timing = false;
  sim::SimBudget budget;
  PolicyOptions policy;
};

std::string us(model::Nanos ns) { return model::format_duration(static_cast<double>(ns)); }

// Every op's estimated duration, summed (saturating): no wait can take longer than all the work run one
// after another. Accepted workloads keep this below 2^59 ns (docs/formats.md, "Limits").
model::Nanos serial_estimate_ns(std::span<const model::Nanos> estimates) {
  constexpr model::Nanos kCap = model::Nanos{1} << 61;
  model::Nanos total = 0;
  for (const model::Nanos ns : estimates) total = std::min(kCap, total + std::min(kCap, ns));
  return total;
}

// Returns to the system the pages of memory the process has freed but the allocator keeps (glibc keeps
// freed chunks inside its heap; the reader's temporaries would otherwise stay resident under the
// simulation's own peak).
void give_back_freed_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void run(const SimCommandOptions& o) {
  // Large arrays from the heap, reused when freed (heap_reuse.hpp): at 10M ops every array mapped afresh
  // was faulted in page by page again. The trims below (before the spans, after dropping the ops) still
  // hand back what would otherwise sit under the run's peak or stay unused.
  model::keep_freed_memory_for_reuse();
  ProgressBar bar(!o.quiet);
  PhaseTimes times(o.timing);
  const model::DeviceProfile profile =
      o.device.empty() ? model::bundled_h100_profile() : model::load_device_profile(o.device);
  std::string workload_hash;  // computed as the ops are read: the Dispatcher then makes no pass of its own
  model::Workload w = model::load_workload(o.workload, model::shape_limits(profile),
                                           &bar.phase("reading " + o.workload), &workload_hash);
  // What reading freed stays with the process: the simulation's arrays take it instead of fresh pages (10M
  // random DAG: 30k fewer page faults, the peak the same; the simulation needs far more than it).
  times.end("read");
  std::optional<model::OpIndex> explain_op;
  if (!o.explain.empty()) {
    for (std::size_t i = 0; i < w.ops.size(); ++i)
      if (w.ops[i].id == o.explain) explain_op = static_cast<model::OpIndex>(i);
    if (!explain_op)
      throw model::InputError(o.workload, "--explain", o.explain, "no op with id '" + o.explain + "' in the workload");
  }
  const std::unique_ptr<policies::Policy> policy = o.policy.make(w);
  times.end("policy");

  sim::SimOptions so;
  if (o.connections != 0) so.connections = o.connections;
  so.record_blocks = o.blocks;
  so.explain = explain_op.has_value();
  so.explain_only = explain_op;  // the one op asked about: no explanation kept per op
  so.trim_heap = true;           // one large run per process: its peak is what counts
  so.profile_label = o.device.empty() ? "bundled:h100-sxm" : o.device;
  so.date = o.date;
  so.source = o.workload;
  so.traced = o.traced;
  so.host_cost_scale = o.host_cost_scale;
  so.host_speed = model::parse_host_speed(o.host_speed).value_or(model::HostSpeed::typical);  // checked by CLI11
  if (o.copy_queues != 0) so.copy_queues_per_engine = o.copy_queues;
  if (!o.copy_queue_order.empty()) so.bit_reversed_copy_queues = o.copy_queue_order == "bit-reversed";
  if (o.kernel_race == "lower-stream-first") so.kernel_race = sim::KernelRace::lower_stream_first;
  if (o.kernel_race == "higher-stream-first") so.kernel_race = sim::KernelRace::higher_stream_first;
  if (o.kernel_race_window_ns != 0) so.kernel_race_window_ns = static_cast<model::Nanos>(o.kernel_race_window_ns);
  so.progress = &bar.phase("simulating", w.size());
  so.budget = o.budget;
  sim::SimBackend backend(profile, so);

  // Every op's duration estimate, made once (a pass over the whole workload): the default timeout sums
  // them, and the Dispatcher reads them instead of estimating again. A program's replay reads none, and
  // its DAG view (a policy applied to it) estimates its own, fewer ops.
  std::vector<model::Nanos> estimates;
  if (o.timeout_ms <= 0 || !w.program) {
    estimates.reserve(w.ops.size());
    for (std::size_t i = 0; i < w.ops.size(); ++i) {
      model::prefetch_ahead(w.ops, i);
      estimates.push_back(model::estimate_duration(w.ops[i], profile));
    }
  }
  policies::DispatchOptions d;
  d.profile = &profile;
  if (!w.program) d.estimates = estimates;
  d.source = o.workload;
  d.workload_hash = workload_hash;
  // A wait can last at most as long as all the work run one after another, so by default no workload that
  // validate accepts (durations up to 2^40 ns each) ends in a simulated-time timeout.
  d.timeout_ns = o.timeout_ms > 0 ? static_cast<model::Nanos>(std::min(o.timeout_ms, 9.2e12) * 1e6)
                                  : 60'000'000'000 + 2 * serial_estimate_ns(estimates);
  d.keep_log = false;
  d.measure_cpu = false;  // nothing here reports the Dispatcher's own CPU time: spare two clock reads per op
  d.profile_name = so.profile_label;
  // A stream program that can deadlock is refused here (model::InputError listing every cycle) before
  // anything is issued.
  policies::DispatchResult result =
      model::with_step(o.workload, "simulating", [&] { return policies::dispatch(backend, w, *policy, d); });
  {
    const sim::SimStats& st = backend.stats();
    char line[300];
    std::snprintf(line, sizeof line,
                  "of which the simulator's prepare %.3f s, running the device dry at the end %.3f s, spans %.3f s; "
                  "at most %llu commands in flight, %llu future events",
                  st.prepare_cpu_s, st.drain_cpu_s, st.spans_cpu_s, static_cast<unsigned long long>(st.max_live_commands),
                  static_cast<unsigned long long>(st.max_pending_events));
    times.note(line);
  }
  std::vector<model::Nanos>().swap(estimates);
  times.end("simulate");
  for (const std::string& line : result.warnings) std::cerr << "streamlab: warning: " << line << "\n";
  result.trace.meta.extra["connections"] = std::to_string(backend.connections());
  if (so.host_speed != model::HostSpeed::typical) result.trace.meta.extra["host_speed"] = o.host_speed;
  if (o.copy_queues != 0) result.trace.meta.extra["copy_queues_per_engine"] = std::to_string(o.copy_queues);
  if (!o.copy_queue_order.empty()) result.trace.meta.extra["copy_queue_order"] = o.copy_queue_order;
  if (so.kernel_race != sim::KernelRace::ready_order) {
    result.trace.meta.extra["kernel_race"] = std::string(sim::to_string(so.kernel_race));
    result.trace.meta.extra["kernel_race_window_ns"] = std::to_string(so.kernel_race_window_ns);
  }

  // The summary's metrics, before the ops go: their temporaries then take pages the simulation has just
  // handed back (finish() trims the heap) rather than fresh ones, and are handed back with the ops before
  // the trace is written. The concurrency step function is not kept: the summary prints its mean only
  // (at ten million spans the steps were 320 MB, faulted in page by page).
  const model::TraceMetrics m = model::compute_metrics(result.trace, model::ConcurrencySteps::drop);
  times.end("metrics");

  // Everything that needs the workload's ops is done: they go before the trace is written, so that it does
  // not come on top of them. Its strings stay (what the trace names may point into them).
  const std::string workload_name = w.name;
  const std::size_t ops = w.size();
  const std::string policy_name(policy->name());
  std::string explanation;
  if (explain_op) {
    const sim::OpExplanation* e = backend.explain(*explain_op);
    explanation = e == nullptr ? "op '" + o.explain + "' was never issued\n" : sim::format_explanation(w, *e);
  }
  const std::shared_ptr<model::StringTable> strings = w.strings();
  w = model::Workload{};
  give_back_freed_memory();
  times.end("drop ops");

  bar.phase("writing " + o.output);
  model::with_step(o.output, "writing the trace", [&] { model::save_trace(result.trace, o.output); });
  bar.hide();
  times.end("write");

  const sim::SimStats& st = backend.stats();
  std::cout << "predicted " << workload_name << " (" << ops << " ops) with " << policy_name << " on "
            << profile.name << ", " << backend.connections() << " connections: makespan " << us(m.makespan_ns)
            << ", copy/compute overlap " << m.copy_compute_overlap << ", mean concurrency " << m.mean_concurrency
            << "\n  host: " << result.stats.waits_inserted << " waits, " << result.stats.queries << " queries, "
            << result.stats.blocking_waits << " blocking waits; sim: " << st.events_processed << " events, "
            << st.blocks << " blocks\n  wrote " << o.output << "\n"
            << explanation;
}

const bool registered = register_command(
    {"sim", "Predict a workload's timeline under a policy with the simulator; writes a trace", [](CLI::App& app) {
       auto o = std::make_shared<SimCommandOptions>();
       app.add_option("workload", o->workload, "Workload JSON")->required();
       app.add_option("-o,--output", o->output, "Predicted trace (Chrome Trace Event JSON)")->required();
       add_policy_options(app, o->policy);
       app.add_option("--device", o->device, "Device profile JSON (default: the bundled H100 SXM profile)");
       app.add_option("--connections", o->connections,
                      "CUDA_DEVICE_MAX_CONNECTIONS to model, 1..32 (default: the profile's)")
           ->check(CLI::Range(1, 32));
       app.add_flag("--blocks", o->blocks, "Record every thread block's SM and time in the trace");
       app.add_option("--explain", o->explain, "Print why op OP (its id) started when it did");
       app.add_option("--date", o->date, "Trace date (default: today, UTC); set it for byte-identical reruns");
       app.add_flag("--traced", o->traced,
                    "Predict a run measured with CUPTI tracing on (streamlab run): the profile's traced_* costs");
       app.add_option("--host-cost-scale", o->host_cost_scale,
                      "Multiply every host API cost by this (a host slower or faster than when the profile was "
                      "calibrated; the experiments' issue probe measures it)")
           ->check(CLI::Range(0.01, 100.0))
           ->capture_default_str();
       app.add_option("--host-speed", o->host_speed,
                      "typical: the profile's values; fast / slow: each host API cost at the low / high end of "
                      "the range calibrate measured for it, host-set rates and the copy directions' sharing at "
                      "the other end (the machine's own spread: predict both for a range); a number in [-1, 1]: "
                      "that position between the fast (-1) and slow (+1) ends, each parameter that fraction of the "
                      "way from its value to the end (predictions are not monotonic in the host's speed)")
           ->check(CLI::Validator(
               [](const std::string& text) {
                 return model::parse_host_speed(text) ? std::string()
                                                      : std::string("expected typical, fast, slow or a number in [-1, 1]");
               },
               "typical|fast|slow|[-1,1]"))
           ->capture_default_str();
       app.add_option("--copy-queues", o->copy_queues,
                      "hardware copy queues per copy engine, 1..32 (default 4: streams s and s + 4 share one at 8 "
                      "connections, as on some H100 machines; 8 or more: every stream's copies queue on their own, "
                      "as on others; the engine serves one queue's copies back to back)")
           ->check(CLI::Range(1, 32));
       app.add_option("--copy-queue-order", o->copy_queue_order,
                      "which copy queue an engine serves next when the last one it served has no copy waiting: "
                      "oldest (the queue of the longest-waiting copy, as on some H100 machines) or bit-reversed "
                      "(round robin in bit-reversed order from the first stream's queue: 0, 2, 1, 3 of four, as "
                      "on others; which one a run sees depends on its process's streams); default: oldest")
           ->check(CLI::IsMember({"oldest", "bit-reversed"}));
       app.add_option("--kernel-race", o->kernel_race,
                      "which of two kernels of any priority that become ready within --kernel-race-window "
                      "of each other places its blocks first: ready-order (the one ready first), "
                      "lower-stream-first or higher-stream-first (the GPU decides such a race either way from "
                      "run to run; the experiments' predicted ranges take all three); default: ready-order")
           ->check(CLI::IsMember({"ready-order", "lower-stream-first", "higher-stream-first"}));
       app.add_option("--kernel-race-window", o->kernel_race_window_ns,
                      "ns within which two kernels' readiness is a race for --kernel-race (default 1000)")
           ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000'000}));
       add_budget_options(app, o->budget);
       app.add_option("--timeout-ms", o->timeout_ms,
                      "Simulated-time limit of every blocking wait (default: 60 s or twice the workload's serial "
                      "work, whichever is longer)")
           ->capture_default_str();
       add_quiet_flag(app, o->quiet);
       app.add_flag("--timing", o->timing,
                    "Print the CPU time (user and system), peak memory and page faults of each phase (read, policy, "
                    "simulate, metrics, drop ops, write) on stderr");
       app.callback([o] { run(*o); });
     }});

}  // namespace
}  // namespace streamlab::cli
