// One sweep unit: a simulation in this thread, or `streamlab run` in a child process on one GPU.
#include "streamlab/experiments/sweep_unit.hpp"
#include "streamlab/experiments/child_process.hpp"

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "streamlab/model/file_io.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace streamlab::experiments {

#if !STREAMLAB_EXPERIMENTS_HAVE_CUDA
std::uint32_t sweep_gpu_count() { return 0; }
#endif

namespace {

/// The metrics both sides report, under `prefix` ("predicted_" / "measured_"); docs/sweep.md lists them.
void put_trace_metrics(nlohmann::json& j, const std::string& prefix, const model::Trace& trace) {
  const model::TraceMetrics m = model::compute_metrics(trace);
  j[prefix + "makespan_ns"] = m.makespan_ns;
  j[prefix + "copy_compute_overlap"] = m.copy_compute_overlap;
  j[prefix + "mean_concurrency"] = m.mean_concurrency;
  j[prefix + "max_concurrency"] = m.max_concurrency;
  const auto busy = [&](model::Engine e) {
    auto it = m.engine_busy.find(e);
    return it == m.engine_busy.end() ? 0.0 : it->second;
  };
  j[prefix + "sm_busy"] = busy(model::Engine::sm);
  j[prefix + "h2d_busy"] = busy(model::Engine::copy_h2d);
  j[prefix + "d2h_busy"] = busy(model::Engine::copy_d2h);
}

std::string read_all(const std::filesystem::path& f) {
  try {
    return model::read_text_file(f);
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

std::string run_simulated_unit(const SweepPlan& plan, std::uint32_t config) {
  const SweepConfig& c = plan.configs.at(config);
  const PlannedWorkload& w = plan.workloads[c.workload];
  const PlannedProfile& p = plan.profiles[c.profile];
  nlohmann::json j = nlohmann::json::object();
  try {
    const std::unique_ptr<policies::Policy> policy = policies::make_policy(c.policy, c.policy_config);
    sim::SimOptions so;
    if (c.connections != 0) so.connections = c.connections;
    so.profile_label = p.label;
    so.date = "-";  // not written anywhere; spares the clock read
    so.source = w.label;
    so.traced = c.traced;
    sim::SimBackend backend(p.profile, so);
    policies::DispatchOptions d;
    d.profile = &p.profile;
    d.source = w.label;
    d.timeout_ns = static_cast<model::Nanos>(plan.spec.timeout_ms * 1e6);
    d.keep_log = false;
    d.measure_cpu = false;  // wall-clock numbers would make rows differ run to run
    d.profile_name = p.label;
    d.workload_hash = w.hash;
    const policies::DispatchResult r = policies::dispatch(backend, *w.workload, *policy, d);
    put_trace_metrics(j, "predicted_", r.trace);
    j["predicted_connections"] = backend.connections();
    j["predicted_streams_created"] = r.stats.streams_created;
    j["predicted_waits_inserted"] = r.stats.waits_inserted;
    j["predicted_queries"] = r.stats.queries;
    j["predicted_blocking_waits"] = r.stats.blocking_waits;
    j["predicted_events_created"] = r.stats.events_created;
    j["predicted_host_ns_per_op"] = r.stats.average_coordination_ns();
  } catch (const std::exception& e) {
    j = nlohmann::json::object();
    j["predicted_error"] = e.what();
  }
  return j.dump();
}

std::string run_measured_unit(const SweepPlan& plan, std::size_t unit, const MeasureTarget& t) {
  const SweepUnit& u = plan.units.at(unit);
  const SweepConfig& c = plan.configs[u.config];
  const PlannedWorkload& w = plan.workloads[c.workload];
  const PlannedProfile& p = plan.profiles[c.profile];
  const std::string stem = "u" + std::to_string(unit);
  const std::filesystem::path trace_file = t.work_dir / (stem + ".trace.json");
  const std::filesystem::path log_file = t.work_dir / (stem + ".log");
  std::filesystem::path workload_file = w.file;
  if (workload_file.empty()) {
    workload_file = t.work_dir / (stem + ".workload.json");
    model::save_workload(*w.workload, workload_file);
  }
  std::vector<std::string> argv = {t.streamlab.string(), "run", workload_file.string(), "-o", trace_file.string(),
                                   "--policy", c.policy, "--streams", std::to_string(c.policy_config.streams),
                                   "--window", std::to_string(c.policy_config.window), "--stream-kind",
                                   std::string(policies::to_string(c.policy_config.stream_kind)), "--hints",
                                   std::string(policies::to_string(c.policy_config.hints)), "--device",
                                   std::to_string(t.gpu), "--timeout-ms", std::to_string(plan.spec.timeout_ms)};
  if (!p.file.empty()) {
    argv.emplace_back("--profile");
    argv.push_back(p.file.string());
  }
  std::vector<std::string> env;
  for (std::string& e : current_environment())
    if (e.rfind("CUDA_DEVICE_MAX_CONNECTIONS=", 0) != 0) env.push_back(std::move(e));
  if (c.connections != 0) env.push_back("CUDA_DEVICE_MAX_CONNECTIONS=" + std::to_string(c.connections));

  nlohmann::json j = nlohmann::json::object();
  const int rc = run_child(argv, env, log_file, std::chrono::duration<double>(plan.spec.measure_wall_limit_s));
  if (rc != 0) {
    j["measured_error"] = rc < 0 ? "streamlab run ran past " + std::to_string(plan.spec.measure_wall_limit_s) +
                                       " s and was stopped"
                                 : "streamlab run exited with " + std::to_string(rc) + ": " + last_line(read_all(log_file));
  } else {
    try {
      const model::Trace trace = model::load_trace(trace_file);
      put_trace_metrics(j, "measured_", trace);
      j["measured_device"] = trace.meta.device_name;
      auto timing = trace.meta.extra.find("cuda_timing");
      j["measured_timing"] = timing == trace.meta.extra.end() ? std::string() : timing->second;
      j["measured_gpu"] = t.gpu;
    } catch (const std::exception& e) {
      j = nlohmann::json::object();
      j["measured_error"] = std::string("reading the measured trace: ") + e.what();
    }
  }
  std::error_code ec;
  std::filesystem::remove(trace_file, ec);
  std::filesystem::remove(log_file, ec);
  if (w.file.empty()) std::filesystem::remove(workload_file, ec);
  return j.dump();
}

}  // namespace streamlab::experiments
