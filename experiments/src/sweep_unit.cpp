// One sweep unit: a simulation in this thread, or `streamlab run` in a child process on one GPU.
#include "streamlab/experiments/sweep_unit.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

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

extern char** environ;

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

/// One line of a failure (a child's log can be long; the row keeps its last non-empty line).
std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return "(no output)";
  std::size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}

std::string read_all(const std::filesystem::path& f) {
  try {
    return model::read_text_file(f);
  } catch (const std::exception&) {
    return {};
  }
}

/// Runs `argv` with `env` (full environment), stdout+stderr to `log`; exit status, or -1 when it ran past
/// `limit` (then it is killed).
int run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
              const std::filesystem::path& log, std::chrono::duration<double> limit) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (true) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
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
  for (char** e = environ; *e != nullptr; ++e)
    if (std::string_view(*e).rfind("CUDA_DEVICE_MAX_CONNECTIONS=", 0) != 0) env.emplace_back(*e);
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
