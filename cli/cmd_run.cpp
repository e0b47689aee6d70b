// `streamlab run WORKLOAD --policy NAME [policy flags] -o measured.json`: runs the shared Dispatcher on the
// CUDA executor and writes the measured trace. Without CUDA (or without a device) it says so in one line
// and exits non-zero.
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "command.hpp"
#include "policy_options.hpp"
#include "streamlab/model/errors.hpp"

#ifdef STREAMLAB_HAVE_CUDA
#include "streamlab/executor/cuda_backend.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/units.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#endif

namespace streamlab::cli {
namespace {

struct RunCommandOptions {
  std::string workload;
  std::string output;
  std::string profile;
  std::string timing = "auto";
  std::string decisions;
  int device = 0;
  bool graph = false;
  bool nvtx = false;
  bool blocks = false;
  std::size_t replays = 50;
  double timeout_ms = 60'000;
  PolicyOptions policy;
};

#ifdef STREAMLAB_HAVE_CUDA

std::string us(model::Nanos ns) { return model::format_duration(static_cast<double>(ns)); }

executor::TimingMode parse_timing(const std::string& s) {
  if (s == "auto") return executor::TimingMode::automatic;
  if (s == "cupti") return executor::TimingMode::cupti;
  if (s == "events") return executor::TimingMode::events;
  if (s == "none") return executor::TimingMode::none;
  if (s == "gpu-timer") return executor::TimingMode::gpu_timer;
  throw model::InputError("", "--timing", "", "unknown timing source '" + s + "' (auto, gpu-timer, cupti, events, none)");
}

void run(const RunCommandOptions& o) {
  if (executor::device_count() == 0) {
    throw streamlab::cli::NoGpu("no CUDA device: the driver reports none (streamlab run measures on a GPU; use "
                             "`streamlab sim` to predict instead)");
  }
  const model::DeviceProfile profile =
      o.profile.empty() ? model::bundled_h100_profile() : model::load_device_profile(o.profile);
  const model::Workload w = model::load_workload(o.workload, model::shape_limits(profile));
  const std::unique_ptr<policies::Policy> policy = o.policy.make(w);
  if (o.graph && policy->replays_program()) {
    throw model::InputError(o.workload, "--graph", "",
                            "graph mode captures what the Dispatcher issues once and replays it; a program's host "
                            "gaps and synchronizations cannot be captured (name one of the five policies for a "
                            "what-if on its DAG view)");
  }
  if (o.graph && (!policy->is_static() || policy->config().window != 0)) {
    throw model::InputError(o.workload, "--graph", "",
                            "graph mode captures what the Dispatcher issues, which needs a static policy "
                            "(round-robin, priority, workload-aware) and --window 0; '" +
                                std::string(policy->name()) + "' with window " + std::to_string(policy->config().window) +
                                " reacts to completions");
  }

  executor::CudaBackendOptions bo;
  bo.device = o.device;
  bo.timing = parse_timing(o.timing);
  bo.capture_graph = o.graph;
  bo.nvtx = o.nvtx;
  bo.record_blocks = o.blocks;
  executor::CudaBackend backend(bo);

  policies::DispatchOptions d;
  d.profile = &profile;
  d.source = o.workload;
  d.timeout_ns = static_cast<model::Nanos>(o.timeout_ms * 1e6);
  d.keep_log = !o.decisions.empty();
  d.profile_name = o.profile.empty() ? "bundled:h100-sxm" : o.profile;
  policies::DispatchResult result = policies::dispatch(backend, w, *policy, d);
  for (const std::string& line : result.warnings) std::cerr << "streamlab: warning: " << line << "\n";

  model::Trace trace = std::move(result.trace);
  if (o.graph) {
    const executor::GraphReplayStats st = backend.replay(o.replays);
    model::Trace replayed = backend.replay_trace();
    replayed.meta.policy = trace.meta.policy;
    replayed.meta.workload = trace.meta.workload;
    replayed.meta.workload_hash = trace.meta.workload_hash;
    replayed.meta.profile = trace.meta.profile;
    replayed.meta.extra["policy_config"] = trace.meta.extra["policy_config"];
    replayed.meta.extra["graph_replay_host_ns_per_node"] = std::to_string(st.host_ns_per_node());
    replayed.meta.extra["graph_replay_device_ns"] = std::to_string(st.device_ns);
    std::cout << "graph: " << st.nodes << " nodes; replay (median of " << st.replays << "): host launch "
              << us(static_cast<model::Nanos>(st.host_launch_ns)) << " (" << st.host_ns_per_node()
              << " ns/node), device " << us(static_cast<model::Nanos>(st.device_ns)) << "\n";
    trace = std::move(replayed);
  }
  trace.meta.extra["cuda_timing"] = std::string(executor::to_string(backend.timing()));
  if (!backend.cupti_problem().empty()) trace.meta.extra["cupti_problem"] = backend.cupti_problem();
  model::save_trace(trace, o.output);
  if (!o.decisions.empty()) {
    const std::string text = policies::format_decision_log(w, result);
    std::FILE* f = std::fopen(o.decisions.c_str(), "w");
    if (f == nullptr) throw model::InputError(o.decisions, "--decisions", "", "cannot write the decision log");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }

  const model::TraceMetrics m = model::compute_metrics(trace);
  std::cout << "measured " << w.name << " (" << w.size() << " ops) with " << policy->name() << " on "
            << trace.meta.device_name << " [" << executor::to_string(backend.timing()) << "]: makespan "
            << us(m.makespan_ns) << ", copy/compute overlap " << m.copy_compute_overlap << ", mean concurrency "
            << m.mean_concurrency << "\n  host: " << result.stats.waits_inserted << " waits, "
            << result.stats.queries << " queries, " << result.stats.blocking_waits << " blocking waits, "
            << trace.spans.size() << " spans\n  wrote " << o.output << "\n";
}

#endif  // STREAMLAB_HAVE_CUDA

const bool registered = register_command(
    {"run", "Measure a workload's timeline under a policy on the GPU (CUDA executor); writes a trace",
     [](CLI::App& app) {
       auto o = std::make_shared<RunCommandOptions>();
       app.add_option("workload", o->workload, "Workload JSON")->required();
       app.add_option("-o,--output", o->output, "Measured trace (Chrome Trace Event JSON)")->required();
       add_policy_options(app, o->policy);
       app.add_option("--profile", o->profile,
                      "Device profile for the policies' duration estimates (default: the bundled H100 profile)");
       app.add_option("--timing", o->timing, "Per-op device times from: auto (gpu-timer for programs without copies or memsets, else CUPTI, else events), gpu-timer (kernels time themselves; copies and memsets untimed, so the run does not lengthen them), cupti, events, none")
           ->capture_default_str();
       app.add_option("--device", o->device, "CUDA device ordinal")->capture_default_str();
       app.add_flag("--graph", o->graph,
                    "Capture what the Dispatcher issues into a CUDA graph and replay it (static policies, --window 0); "
                    "the trace is one traced replay");
       app.add_flag("--nvtx", o->nvtx,
                    "Push an NVTX range named after each op around its call (for Nsight Systems); off by default: "
                    "the ranges are host calls the program does not make");
       app.add_flag("--blocks", o->blocks,
                    "Record every self-timed kernel block's SM and time in the trace (their own %globaltimer reads), "
                    "as sim --blocks does");
       app.add_option("--replays", o->replays, "Graph replays to time with --graph")->capture_default_str();
       app.add_option("--decisions", o->decisions, "Also write the Dispatcher's decision log to this file");
       app.add_option("--timeout-ms", o->timeout_ms, "Limit of every blocking wait on the GPU")->capture_default_str();
       app.callback([o] {
#ifdef STREAMLAB_HAVE_CUDA
         run(*o);
#else
         throw streamlab::cli::NoGpu("built without CUDA: `streamlab run` needs the CUDA executor (configure with "
                                  "-DSTREAMLAB_CUDA=ON on a machine with nvcc); `streamlab sim` predicts instead");
#endif
       });
     }});

}  // namespace
}  // namespace streamlab::cli
