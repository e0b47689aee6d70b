// The experiment runner: predicted on the simulator, measured on a MeasuredDevice, connection settings in
// child processes, verdicts, and the predicted-vs-measured diagnosis.
#include "streamlab/experiments/runner.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "streamlab/experiments/workload_order_policy.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/sim/sim_backend.hpp"

extern char** environ;

namespace streamlab::experiments {

namespace {

constexpr Nanos kWaitTimeout = 60'000'000'000;  // 60 s of backend time for any single host wait

// HostApi over the Backend contract: for the simulator this reads exactly what it charges per call.
class BackendHostApi final : public HostApi {
 public:
  explicit BackendHostApi(policies::Backend& be) : be_(be) {}
  Nanos now() override { return be_.now(); }
  std::uint32_t create_event(policies::EventTiming timing) override {
    events_.push_back(be_.create_event(timing));
    return static_cast<std::uint32_t>(events_.size() - 1);
  }
  void destroy_event(std::uint32_t e) override { be_.destroy_event(events_.at(e)); }
  void record_event(std::uint32_t e, policies::StreamId s) override { be_.record_event(events_.at(e), s); }
  void stream_wait_event(policies::StreamId s, std::uint32_t e) override { be_.stream_wait_event(s, events_.at(e)); }
  bool query_event(std::uint32_t e) override { return be_.query_event(events_.at(e)); }
  bool query_stream(policies::StreamId s) override { return be_.query_stream(s); }
  void synchronize_event(std::uint32_t e) override { check(be_.synchronize_event(events_.at(e), kWaitTimeout), "event"); }
  void synchronize_stream(policies::StreamId s) override { check(be_.synchronize_stream(s, kWaitTimeout), "stream"); }
  void synchronize_device() override { check(be_.synchronize_device(kWaitTimeout), "device"); }

 private:
  static void check(policies::WaitStatus st, const char* what) {
    if (st != policies::WaitStatus::ready) throw std::runtime_error(std::string("probe: ") + what + " synchronize timed out");
  }
  policies::Backend& be_;
  std::vector<policies::EventId> events_;
};

std::string format_value(double raw, const MetricInfo& m) {
  if (!has_value(raw)) return "-";
  char buf[64];
  const double v = raw * m.scale;
  std::snprintf(buf, sizeof buf, std::abs(v) >= 100 ? "%.1f %s" : (std::abs(v) >= 1 ? "%.3f %s" : "%.4g %s"), v,
                m.unit.c_str());
  return buf;
}

std::string format_percent(double rel) {
  if (!has_value(rel)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", rel * 100);
  return buf;
}

// The run whose metric (or makespan) is the median; for an even count the lower middle.
std::size_t median_index(const std::vector<RunOutput>& runs) {
  std::vector<std::size_t> idx(runs.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  auto key = [&](std::size_t i) {
    const auto& m = runs[i].measurement;
    return has_value(m.metric) ? m.metric : m.makespan_ns;
  };
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return idx[(idx.size() - 1) / 2];
}

double spread_of(const std::vector<RunOutput>& runs, std::size_t med) {
  auto key = [](const RunOutput& r) {
    return has_value(r.measurement.metric) ? r.measurement.metric : r.measurement.makespan_ns;
  };
  double lo = key(runs[0]), hi = lo;
  for (const auto& r : runs) {
    lo = std::min(lo, key(r));
    hi = std::max(hi, key(r));
  }
  const double m = key(runs[med]);
  return (has_value(m) && m != 0) ? (hi - lo) / std::abs(m) : kNone;
}

// Spawns `exe args...` with CUDA_DEVICE_MAX_CONNECTIONS=n and waits; returns the exit status (or -1).
int run_child(const std::filesystem::path& exe, const std::vector<std::string>& args, std::uint32_t n,
              std::string& error) {
  std::vector<std::string> env_strings;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "CUDA_DEVICE_MAX_CONNECTIONS=", 28) != 0) env_strings.emplace_back(*e);
  }
  env_strings.push_back("CUDA_DEVICE_MAX_CONNECTIONS=" + std::to_string(n));
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings;
  argv_strings.push_back(exe.string());
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), envp.data());
  if (rc != 0) {
    error = std::string("cannot start ") + exe.string() + ": " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      error = std::string("waitpid: ") + std::strerror(errno);
      return -1;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  error = "child ended by signal " + std::to_string(WTERMSIG(status));
  return -1;
}

// Writes one configuration's files under the traces folder (see SuiteOptions::traces_dir).
void save_config_traces(const std::filesystem::path& root, const std::string& experiment, const std::string& label,
                        const model::Workload& w, const model::Trace& predicted, const model::Trace* measured) {
  if (predicted.spans.empty()) return;  // probes have no trace
  const auto dir = root / experiment;
  std::filesystem::create_directories(dir);
  const std::string stem = label_slug(label);
  model::save_workload(w, dir / (stem + ".workload.json"));
  model::save_trace(predicted, dir / (stem + ".predicted.json"));
  if (measured != nullptr && !measured->spans.empty()) model::save_trace(*measured, dir / (stem + ".measured.json"));
}

policies::DispatchResult dispatch_configuration(const Configuration& c, const model::Workload& w,
                                                policies::Backend& backend, const model::DeviceProfile& profile) {
  auto policy = make_experiment_policy(c.policy.empty() ? policies::default_policy_for(w, "round-robin") : c.policy,
                                       c.config);
  policies::DispatchOptions o;
  o.profile = &profile;
  o.source = c.label;
  o.keep_log = false;
  o.measure_cpu = false;
  o.event_timing = c.event_timing;
  return policies::dispatch(backend, w, *policy, o);
}

// The issue probe ------------------------------------------------------------------------------------------
//
// The lent GPU hosts are virtual machines whose CPU speed drifts for seconds at a time (host cost per
// traced launch was seen anywhere from 5 to 19 us within one suite), so a profile calibrated minutes earlier
// cannot say what the host costs during a given run, and host-bound configurations (E2's 64 streams issued
// breadth-first) follow the host exactly. Just before every measured run the configuration's own API call
// sequence is issued once more with its device work shrunk to nothing: same ops, streams, dependencies,
// policy and events, kernels of 0 ns, copies of at most kIssueProbeBytes, host functions of 0 ns. Its host
// time per op, over what the simulator charges for the same probe, is the run's host speed; a configuration
// takes the median over its runs' probes, which goes with its median run. It is a diagnostic: the headline
// prediction uses the profile alone, and the prediction with host costs scaled by the probe
// (SimOptions::host_cost_scale) is kept beside it (makespan_host_scaled_ns).

constexpr std::uint64_t kIssueProbeBytes = 4096;
constexpr double kMaxHostCostScale = 4.0;  // a probe further off than this is not trusted as a host speed

model::Workload issue_probe_workload(const model::Workload& w) {
  model::Workload t = w;
  for (auto& op : t.ops) {
    op.duration = model::FixedPerBlock{0};
    if (op.tasks)
      for (auto& ns : op.tasks->task_ns) ns = 0;
    op.bytes = std::min(op.bytes, kIssueProbeBytes);
    op.host_ns = 0;
    op.host_gap_ns = 0;  // a program's own host work is not the cost of its API calls
  }
  return t;
}

double host_cost_scale(double measured_probe_ns, double simulated_probe_ns) {
  if (!(measured_probe_ns > 0) || !(simulated_probe_ns > 0)) return 1.0;
  return std::clamp(measured_probe_ns / simulated_probe_ns, 1.0 / kMaxHostCostScale, kMaxHostCostScale);
}

// Whether the profile's host API costs carry the ranges calibrate measured (fast and slow hosts).
bool has_host_ranges(const model::DeviceProfile& p) {
  try {
    (void)model::at_host_speed(p, model::HostSpeed::fast);
    return true;
  } catch (const model::InputError&) {
    return false;
  }
}

}  // namespace

std::vector<sim::SimOptions> range_variants(const model::DeviceProfile& profile, const sim::SimOptions& point) {
  // The point's own host speed too: the simulator is not monotonic in the host's speed (a polling wait
  // polls more often on a fast host, a dynamic policy places work differently), so the ends of the host's
  // range alone need not enclose what it predicts between them.
  // Between the ends too: a dynamic policy's makespan jumps as the host's speed moves (E9's fork-join
  // under load-balanced predicted 530-725 us over host costs 0.6x-2x, up and down, where the ends and the
  // typical host gave 532-636 us against 653 measured).
  std::vector<model::HostSpeed> speeds = {point.host_speed};
  if (has_host_ranges(profile))
    for (const double at : kHostSpeedPositions)
      if (model::HostSpeed{at} != point.host_speed) speeds.push_back(model::HostSpeed{at});
  std::vector<sim::SimOptions> out;
  for (const model::HostSpeed speed : speeds)
    for (const std::optional<std::uint32_t> queues : {std::optional<std::uint32_t>(kCopyQueuesShared), std::optional<std::uint32_t>(kCopyQueuePerStream)})
      for (const bool bit_reversed : {false, true})
        for (const sim::KernelRace race : {point.kernel_race, sim::KernelRace::lower_stream_first, sim::KernelRace::higher_stream_first}) {
          sim::SimOptions so = point;
          so.host_speed = speed;
          so.copy_queues_per_engine = queues;
          so.bit_reversed_copy_queues = bit_reversed;
          so.kernel_race = race;
          out.push_back(std::move(so));
        }
  return out;
}

std::vector<std::string> range_axes(const model::DeviceProfile& profile) {
  std::vector<std::string> out;
  for (const std::string_view axis : kRangeAxes)
    if (axis != "host-speed" || has_host_ranges(profile)) out.emplace_back(axis);
  return out;
}

namespace {

// The simulator's side of one configuration: its prediction, with host costs scaled by `scale`.
struct Predictor {
  const SuiteOptions& opt;
  std::string experiment;
  std::string date;
  bool traced = false;

  sim::SimOptions options(const Configuration& c, double scale) const {
    sim::SimOptions so;
    so.connections = c.connections;
    so.profile_label = opt.profile_label;
    so.date = date;
    so.source = experiment + " " + c.label;
    so.traced = traced;  // CUPTI costs host time per launch in measured runs
    so.host_cost_scale = scale;
    so.budget = opt.sim_budget;
    return so;
  }
  RunOutput predict(const Configuration& c, const model::Workload& w, double scale = 1.0) const {
    return predict_with(c, w, options(c, scale));
  }
  RunOutput predict_with(const Configuration& c, const model::Workload& w, const sim::SimOptions& so) const {
    sim::SimBackend be(opt.profile, so);
    auto api = make_backend_host_api(be);
    return run_configuration(c, w, be, api.get(), opt.profile);
  }
  // The range over the machine and run spread the simulator models (PredictedRange); only the makespan and
  // the metric of each variant are kept.
  PredictedRange range(const Configuration& c, const model::Workload& w) const {
    PredictedRange r;
    for (const sim::SimOptions& so : range_variants(opt.profile, options(c, 1.0))) r.add(predict_with(c, w, so).measurement);
    r.axes = range_axes(opt.profile);
    return r;
  }
  double issue_probe_ns(const Configuration& c, const model::Workload& probe) const {
    sim::SimBackend be(opt.profile, options(c, 1.0));
    return dispatch_configuration(c, probe, be, opt.profile).stats.average_coordination_ns();
  }
  // The prediction for a measured run whose issue probe took `measured_probe_ns` per op. The headline
  // (the makespan and metric that errors and verdicts use) is the profile's alone; the host speed the
  // probe saw is a diagnostic only: its scale and the makespan predicted with host costs scaled by it go
  // into the extras. `at_profile`: the unscaled prediction when the caller already has it.
  RunOutput predict_for_host(const Configuration& c, const model::Workload& w, double measured_probe_ns,
                             const RunOutput* at_profile = nullptr) const {
    const double simulated_probe = issue_probe_ns(c, issue_probe_workload(w));
    const double scale = host_cost_scale(measured_probe_ns, simulated_probe);
    RunOutput out = at_profile != nullptr ? *at_profile : predict(c, w);
    out.measurement.extra["issue_probe_ns_per_op"] = simulated_probe;
    out.measurement.extra["host_cost_scale"] = scale;
    out.measurement.extra["makespan_host_scaled_ns"] =
        scale == 1.0 ? out.measurement.makespan_ns : predict(c, w, scale).measurement.makespan_ns;
    return out;
  }
};

}  // namespace

std::string label_slug(const std::string& label) {
  std::string out;
  for (char ch : label) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.';
    if (keep) {
      out += ch;
    } else if (ch == ' ') {
      out += '_';
    } else if (!out.empty() && out.back() != '-' && out.back() != '_') {
      out += '-';
    }
  }
  while (!out.empty() && (out.back() == '-' || out.back() == '_')) out.pop_back();
  return out.empty() ? "config" : out;
}

std::unique_ptr<HostApi> make_backend_host_api(policies::Backend& backend) {
  return std::make_unique<BackendHostApi>(backend);
}

#if !STREAMLAB_EXPERIMENTS_HAVE_CUDA
std::unique_ptr<MeasuredDevice> open_cuda_device(std::string& why) {
  why = "this build has no CUDA executor (configured without a CUDA toolkit)";
  return nullptr;
}
#endif

// One run ----------------------------------------------------------------------------------------------------

RunOutput run_configuration(const Configuration& c, const model::Workload& w, policies::Backend& backend,
                            HostApi* api, const model::DeviceProfile& profile) {
  RunOutput out;
  if (c.probe) {
    if (!api) throw std::logic_error("probe configuration '" + c.label + "' needs a HostApi");
    backend.prepare(w);
    ProbeContext ctx{backend, *api, w};
    out.measurement = c.probe(ctx);
    return out;
  }
  policies::DispatchResult r = dispatch_configuration(c, w, backend, profile);
  if (c.evaluate) {
    out.measurement = c.evaluate(w, r);
  } else {
    const auto m = model::compute_metrics(r.trace);
    out.measurement.makespan_ns = static_cast<double>(m.makespan_ns);
    out.measurement.metric = out.measurement.makespan_ns;
  }
  if (!has_value(out.measurement.makespan_ns))
    out.measurement.makespan_ns = static_cast<double>(model::compute_metrics(r.trace).makespan_ns);
  if (!out.measurement.extra.count("overlap") || !out.measurement.extra.count("mean_concurrency")) {
    const auto m = model::compute_metrics(r.trace);
    out.measurement.extra.emplace("overlap", m.copy_compute_overlap);
    out.measurement.extra.emplace("mean_concurrency", m.mean_concurrency);
  }
  out.measurement.extra["host_ns_per_op"] = r.stats.average_coordination_ns();
  out.trace = std::move(r.trace);
  return out;
}

// Diagnosis ------------------------------------------------------------------------------------------------

Diagnosis diagnose(const model::Workload& w, const model::Trace& predicted, const model::Trace& measured) {
  Diagnosis d;
  if (predicted.spans.empty() || measured.spans.empty()) return d;
  const auto cmp = model::compare_traces(predicted, measured);
  d.available = true;
  std::map<std::string, const model::Op*> by_id;
  for (const auto& op : w.ops) by_id[op.id] = &op;
  std::map<std::string, std::array<double, 3>> sums;  // pred, meas, bytes
  for (const auto& od : cmp.ops) {
    auto it = by_id.find(od.op_id);
    const std::string kind = it == by_id.end() ? std::string(model::to_string(od.engine))
                                               : std::string(model::to_string(it->second->kind));
    auto& s = sums[kind];
    s[0] += static_cast<double>(od.a_end - od.a_start);
    s[1] += static_cast<double>(od.b_end - od.b_start);
    s[2] += it == by_id.end() ? 0.0 : static_cast<double>(it->second->bytes);
    ++d.duration[kind].ops;
  }
  for (auto& [kind, t] : d.duration) {
    const auto& s = sums[kind];
    t.predicted_mean_ns = s[0] / t.ops;
    t.measured_mean_ns = s[1] / t.ops;
    t.mean_bytes = s[2] / t.ops;
  }
  d.first_start_predicted_ns = static_cast<double>(cmp.a.start_ns);
  d.first_start_measured_ns = static_cast<double>(cmp.b.start_ns);
  d.overlap_predicted = cmp.a.copy_compute_overlap;
  d.overlap_measured = cmp.b.copy_compute_overlap;
  d.concurrency_predicted = cmp.a.mean_concurrency;
  d.concurrency_measured = cmp.b.mean_concurrency;
  d.mean_abs_start_error_ns = cmp.mean_abs_start_error_ns;
  return d;
}

std::string explain_miss(const ConfigResult& c, const model::DeviceProfile* profile) {
  std::ostringstream os;
  const double err = c.makespan_error();
  auto us = [](double ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f us", ns / 1000.0);
    return std::string(b);
  };
  auto fmt2 = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return std::string(b);
  };
  if (c.measured) {
    os << "predicted makespan " << us(c.predicted.makespan_ns) << " vs measured " << us(c.measured->makespan_ns) << " ("
       << format_percent(err) << ")";
    if (c.predicted_range && has_value(c.predicted_range->makespan_low_ns)) {
      const PredictedRange& pr = *c.predicted_range;
      const double v = c.measured->makespan_ns;
      os << "; predicted range " << us(pr.makespan_low_ns) << " to " << us(pr.makespan_high_ns) << ", the measured median "
         << (pr.makespan_contains(v) ? "inside it" : v < pr.makespan_low_ns ? "below it" : "above it");
    }
    os << ". ";
  }
  const Diagnosis& d = c.diagnosis;
  if (!d.available) {
    os << "No per-op comparison is available for this configuration.";
    return os.str();
  }
  bool duration_miss = false;
  for (const auto& [kind, t] : d.duration) {
    if (t.ops == 0 || t.measured_mean_ns <= 0) continue;
    const double rel = (t.predicted_mean_ns - t.measured_mean_ns) / t.measured_mean_ns;
    if (std::abs(rel) <= 0.05) continue;
    duration_miss = true;
    os << kind << " spans: predicted mean " << us(t.predicted_mean_ns) << " vs measured " << us(t.measured_mean_ns) << " ("
       << format_percent(rel) << ", " << t.ops << " ops)";
    if ((kind == "h2d" || kind == "d2h" || kind == "d2d") && t.mean_bytes > 0) {
      char b[96];
      std::snprintf(b, sizeof b, "; the GPU moved %.1f GB/s", t.mean_bytes / t.measured_mean_ns);
      os << b;
      if (profile) {
        const double prof = kind == "h2d"   ? profile->h2d_pinned_gbps.value
                            : kind == "d2h" ? profile->d2h_pinned_gbps.value
                                            : profile->d2d_gbps.value;
        std::snprintf(b, sizeof b, " where the profile says %.1f GB/s", prof);
        os << b;
      }
      os << " -> calibrate " << kind << " bandwidth/latency (and h2d/d2h_bidirectional_factor when both directions run)";
    } else if (kind == "kernel" || kind == "task_pool") {
      os << ": each " << kind << " takes " << us(t.measured_mean_ns - t.predicted_mean_ns)
         << " more on the GPU than the simulator gives it -> its per-kernel overhead (launch ramp of the blocks, "
            "block_dispatch_ns, the synthetic kernel's spin accuracy, slow-down while copies run) is missing from "
            "the model or its calibration";
    }
    os << ". ";
  }
  if (!duration_miss) os << "Per-op durations agree within 5%, so the miss is in scheduling. ";
  // The host's issue cost per op, which decides host-bound configurations; on a shared or virtual host it
  // varies from run to run, which no single profile value can follow.
  if (c.measured) {
    const auto p = c.predicted.extra.find("host_ns_per_op");
    const auto m = c.measured->extra.find("host_ns_per_op");
    if (p != c.predicted.extra.end() && m != c.measured->extra.end() && m->second > 0 && p->second > 0) {
      const double rel = (p->second - m->second) / m->second;
      if (std::abs(rel) > 0.15) {
        os << "Host issue cost: " << us(p->second) << " per op predicted (profile costs) vs " << us(m->second)
           << " measured in this run (" << format_percent(rel)
           << "); where ops wait for the host to issue them, this difference moves the makespan. ";
      }
    }
  }
  os << "First op starts " << us(d.first_start_predicted_ns) << " predicted vs " << us(d.first_start_measured_ns)
     << " measured after prepare() (host time before the first op: stream creation, which the simulator does not "
        "charge, planning, issue cost and kernel_start_latency; outside the makespan). Mean concurrency "
     << fmt2(d.concurrency_predicted) << " predicted vs " << fmt2(d.concurrency_measured)
     << " measured, copy/compute overlap " << fmt2(d.overlap_predicted) << " vs " << fmt2(d.overlap_measured)
     << (has_value(d.mean_abs_start_error_ns) ? "; mean |start error| per op " + us(d.mean_abs_start_error_ns) : std::string())
     << ".";
  return os.str();
}

// Re-prediction ---------------------------------------------------------------------------------------------

namespace {

// The predicted half of a diagnosis from a new predicted trace (the measured half stays).
void refresh_predicted(Diagnosis& d, const model::Workload& w, const model::Trace& predicted) {
  if (!d.available) return;
  std::map<std::string, const model::Op*> by_id;
  for (const auto& op : w.ops) by_id[op.id] = &op;
  std::map<std::string, std::pair<double, std::uint32_t>> sums;
  for (const auto& s : predicted.spans) {
    auto it = by_id.find(s.op_id);
    const std::string kind = it == by_id.end() ? std::string(model::to_string(s.engine))
                                               : std::string(model::to_string(it->second->kind));
    sums[kind].first += static_cast<double>(s.end_ns - s.start_ns);
    sums[kind].second += 1;
  }
  for (auto& [kind, t] : d.duration) {
    auto it = sums.find(kind);
    if (it != sums.end() && it->second.second > 0) t.predicted_mean_ns = it->second.first / it->second.second;
  }
  const auto m = model::compute_metrics(predicted);
  d.first_start_predicted_ns = static_cast<double>(m.start_ns);
  d.overlap_predicted = m.copy_compute_overlap;
  d.concurrency_predicted = m.mean_concurrency;
  d.mean_abs_start_error_ns = kNone;
}

/// Whether a diagnosis made from a trace file has the measured side the result recorded: the same run's
/// median trace gives the same makespan, first start, overlap, concurrency and per-kind mean durations.
bool same_measured_run(const Diagnosis& from_file, const Diagnosis& recorded, double file_makespan_ns,
                       double recorded_makespan_ns) {
  const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}); };
  if (!recorded.available || !same(file_makespan_ns, recorded_makespan_ns)) return false;
  if (!same(from_file.first_start_measured_ns, recorded.first_start_measured_ns) ||
      !same(from_file.overlap_measured, recorded.overlap_measured) ||
      !same(from_file.concurrency_measured, recorded.concurrency_measured) ||
      from_file.duration.size() != recorded.duration.size())
    return false;
  for (const auto& [kind, t] : from_file.duration) {
    const auto it = recorded.duration.find(kind);
    if (it == recorded.duration.end() || it->second.ops != t.ops || !same(it->second.measured_mean_ns, t.measured_mean_ns))
      return false;
  }
  return true;
}

/// Measured runs note how device spans were timed; CUPTI activity tracing adds host cost per launch
/// (profile field traced_launch_overhead_ns), which the prediction must charge to match.
bool timed_by_cupti(const std::string& note) { return note.find("CUPTI") != std::string::npos; }

}  // namespace

ExperimentResult repredict(const Experiment& exp, const ExperimentResult& old, const SuiteOptions& opt,
                           const model::DeviceProfile& workload_profile) {
  ConfigContext ctx{old.meta.quick, &opt.profile, &workload_profile};
  const std::vector<Configuration> configs = exp.configurations(ctx);
  const std::string date = opt.date.empty() ? utc_now_iso() : opt.date;
  ExperimentResult r = old;
  // The definition's texts may have been improved since; the numbers below are what matters.
  r.title = exp.title;
  r.claim = exp.claim;
  r.source = exp.source;
  r.setup = exp.setup;
  std::size_t done = 0, kept = 0, with_traces = 0, other_run_traces = 0;
  for (auto& row : r.configs) {
    const Configuration* c = nullptr;
    for (const auto& x : configs)
      if (x.label == row.label) c = &x;
    if (!c) {
      ++kept;
      continue;
    }
    const model::Workload w = c->workload();
    // Predict the host program that was measured, at the host speed its issue probe saw when it has one.
    const Predictor predictor{opt, exp.name, date, timed_by_cupti(old.meta.note)};
    const double probe = row.measured ? row.measured->extra.count("issue_probe_ns_per_op")
                                            ? row.measured->extra.at("issue_probe_ns_per_op")
                                            : kNone
                                      : kNone;
    RunOutput predicted = has_value(probe) ? predictor.predict_for_host(*c, w, probe) : predictor.predict(*c, w);
    row.predicted = predicted.measurement;
    row.predicted_range = predictor.range(*c, w);
    // With the measured run's trace at hand the whole diagnosis, per-op start error included, is made again;
    // the predicted trace beside it is replaced so the folder's traces match the result.
    const std::filesystem::path measured_file =
        opt.traces_dir.empty() ? std::filesystem::path()
                               : opt.traces_dir / exp.name / (label_slug(c->label) + ".measured.json");
    std::optional<Diagnosis> fresh;
    if (!measured_file.empty() && !predicted.trace.spans.empty() && row.measured && std::filesystem::exists(measured_file)) {
      const model::Trace measured = model::load_trace(measured_file);
      Diagnosis d = diagnose(w, predicted.trace, measured);
      // Only the trace of the run the result holds: a later run without --traces leaves older traces behind.
      if (same_measured_run(d, row.diagnosis, model::compute_metrics(measured).makespan_ns, row.measured->makespan_ns)) {
        fresh = std::move(d);
        model::save_trace(predicted.trace, opt.traces_dir / exp.name / (label_slug(c->label) + ".predicted.json"));
        ++with_traces;
      } else {
        ++other_run_traces;
      }
    }
    if (fresh) {
      row.diagnosis = std::move(*fresh);
    } else {
      refresh_predicted(row.diagnosis, w, predicted.trace);
    }
    ++done;
    if (opt.progress) {
      std::ostringstream line;
      line << exp.name << " [" << done << "/" << r.configs.size() << "] " << c->label << ": predicted "
           << format_value(row.predicted.metric, exp.metric);
      if (row.measured)
        line << ", measured " << format_value(row.measured->metric, exp.metric) << " ("
             << format_percent(row.metric_error()) << ")";
      opt.progress(line.str());
    }
  }
  r.meta.profile = opt.profile_label + " (" + opt.profile.name + ")";
  // Kept: the profile the workloads are sized with stays the measured run's.
  r.meta.profile_data = model::device_profile_to_json(workload_profile);
  std::string note = "predictions recomputed " + date + " by streamlab " + STREAMLAB_VERSION +
                     (opt.git_commit.empty() ? std::string() : " (commit " + opt.git_commit.substr(0, 12) + ")") +
                     " with profile " + opt.profile_label;
  if (kept > 0) note += " (" + std::to_string(kept) + " configurations no longer defined kept their old prediction)";
  if (with_traces > 0)
    note += "; per-op comparison against " + std::to_string(with_traces) + " measured trace" + (with_traces == 1 ? "" : "s") +
            " kept with the result";
  if (other_run_traces > 0 && opt.progress)
    opt.progress(exp.name + ": " + std::to_string(other_run_traces) + " measured trace" + (other_run_traces == 1 ? "" : "s") +
                 " under " + (opt.traces_dir / exp.name).string() +
                 " came from another run than the result's (their timelines differ from its measurements); not used");
  // One "predictions recomputed" clause: the latest.
  std::string old_note = r.meta.note;
  if (const auto p = old_note.find("predictions recomputed"); p != std::string::npos)
    old_note.erase(p >= 2 && old_note.compare(p - 2, 2, "; ") == 0 ? p - 2 : p);
  r.meta.note = old_note.empty() ? note : old_note + "; " + note;
  judge(exp, r);
  return r;
}

// Verdicts -------------------------------------------------------------------------------------------------

void judge(const Experiment& exp, ExperimentResult& r) {
  r.predicted_verdict = exp.verdict(r.configs, Side::predicted);
  if (r.measured()) {
    r.measured_verdict = exp.verdict(r.configs, Side::measured);
  } else {
    r.measured_verdict = {Outcome::not_measured, "not measured on a GPU yet"};
  }
}

// The experiment -------------------------------------------------------------------------------------------

ExperimentResult run_experiment(const Experiment& exp, const SuiteOptions& opt, MeasuredDevice* device,
                                const std::string& sim_only_note) {
  ConfigContext ctx{opt.quick, &opt.profile};
  std::vector<Configuration> configs = exp.configurations(ctx);
  if (opt.only_connections) {
    std::erase_if(configs, [&](const Configuration& c) { return c.connections != opt.only_connections; });
  }
  if (opt.only_probes) std::erase_if(configs, [](const Configuration& c) { return !c.probe; });
  const std::string date = opt.date.empty() ? utc_now_iso() : opt.date;

  ExperimentResult r;
  r.name = exp.name;
  r.title = exp.title;
  r.claim = exp.claim;
  r.source = exp.source;
  r.setup = exp.setup;
  r.metric = exp.metric;
  r.makespan_target = exp.makespan_target;
  r.has_makespan = exp.has_makespan;
  RunMeta& meta = r.meta;
  meta.date = date;
  meta.profile = opt.profile_label + " (" + opt.profile.name + ")";
  meta.profile_data = model::device_profile_to_json(opt.profile);
  meta.version = STREAMLAB_VERSION;
  meta.git_commit = opt.git_commit;
  meta.command_line = opt.command_line;
  meta.quick = opt.quick;
  if (device) {
    const DeviceMeta dm = device->meta();
    meta.measured = true;
    meta.device_name = dm.name;
    meta.driver = dm.driver;
    meta.cuda_version = dm.cuda_version;
    meta.device_slug = device_slug(dm.name);
    meta.repeats = opt.repeats;
    if (!dm.timing.empty()) meta.note = "device spans timed by " + dm.timing;
  } else {
    meta.device_name = opt.profile.name;
    meta.device_slug = "sim-" + device_slug(opt.profile.name) + "-profile";
    meta.note = sim_only_note;
  }
  std::vector<std::string> failures;
  const Predictor predictor{opt, exp.name, date, device != nullptr && timed_by_cupti(meta.note)};

  // Everything is predicted first at the profile's host costs (a configuration measured here gets its
  // prediction again below, at the host speed its issue probe saw).
  struct Pending {
    model::Workload workload;
    model::Workload issue_probe;
    RunOutput predicted;
    std::vector<RunOutput> runs;
    std::vector<double> probe_ns;  // host ns per op of the issue probe just before each run
    bool here = false;
    std::string status;
  };
  std::map<std::uint32_t, std::vector<std::size_t>> deferred;  // connections -> config positions
  std::vector<std::size_t> deferred_probes;  // measured in a fresh child: a tracer started here perturbs them
  const bool child = opt.only_connections || opt.only_probes;
  const std::size_t n = configs.size();
  std::vector<Pending> pending(n);
  std::size_t measured_here = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Configuration& c = configs[i];
    Pending& p = pending[i];
    p.workload = c.workload();
    p.predicted = predictor.predict(c, p.workload);
    if (!device) continue;
    p.here = !c.connections || !device->connections_fixed_per_process() ||
             device->process_connections() == c.connections;
    if (p.here && c.probe && device->probes_perturbed() && !opt.self_exe.empty() && !child) {
      p.here = false;
      deferred_probes.push_back(i);
      p.status = "measured next in a fresh child process (a tracer started in this process makes the probed calls dearer)";
    } else if (p.here) {
      ++measured_here;
      if (!c.probe) p.issue_probe = issue_probe_workload(p.workload);
    } else if (!opt.self_exe.empty() && !child) {
      deferred[*c.connections].push_back(i);
      p.status = "measured next in a child process with CUDA_DEVICE_MAX_CONNECTIONS=" + std::to_string(*c.connections);
    } else {
      p.status = "not measured: needs CUDA_DEVICE_MAX_CONNECTIONS=" + std::to_string(*c.connections);
    }
  }

  // Measured runs in rounds: round 0 warms every configuration up (module load, allocations), then each
  // round runs every configuration once, so a slow or fast spell of a shared host falls on one run of many
  // configurations rather than on every run of one.
  if (measured_here > 0) {
    const std::uint32_t repeats = std::max<std::uint32_t>(opt.repeats, 1);
    for (std::uint32_t k = 0; k <= repeats; ++k) {
      for (std::size_t i = 0; i < n; ++i) {
        const Configuration& c = configs[i];
        Pending& p = pending[i];
        if (!p.here || !p.status.empty()) continue;  // not here, or failed in an earlier round
        try {
          double probe = kNone;
          if (!c.probe) {
            auto be = device->make_backend(c.connections);
            probe = dispatch_configuration(c, p.issue_probe, *be, opt.profile).stats.average_coordination_ns();
          }
          auto be = c.probe ? device->make_probe_backend(c.connections) : device->make_backend(c.connections);
          auto api = c.probe ? device->make_host_api(*be) : nullptr;
          RunOutput out = run_configuration(c, p.workload, *be, api.get(), opt.profile);
          if (k > 0) {
            p.runs.push_back(std::move(out));
            p.probe_ns.push_back(probe);
          }
        } catch (const std::exception& e) {
          failures.push_back(c.label + ": " + e.what());
          p.status = "measurement failed: " + std::string(e.what());
        }
      }
      if (opt.progress && n > 1)
        opt.progress(exp.name + (k == 0 ? ": warm-up round" : ": round " + std::to_string(k) + "/" + std::to_string(repeats)) +
                     " over " + std::to_string(measured_here) + " configurations done");
    }
  }

  for (std::size_t i = 0; i < n; ++i) {
    const Configuration& c = configs[i];
    Pending& p = pending[i];
    ConfigResult cr;
    cr.label = c.label;
    cr.params = c.params;
    const model::Trace* measured_trace = nullptr;  // the median run's, for --traces
    if (p.here && p.status.empty() && !p.runs.empty()) {
      const std::size_t med = median_index(p.runs);
      // The median probe goes with the median run: where the host decides the makespan, the median run is
      // the one at the median host speed, and one probe alone can be an outlier (seen up to 3x on the VM).
      std::vector<double> probes;
      for (double v : p.probe_ns)
        if (has_value(v)) probes.push_back(v);
      if (!probes.empty()) {
        std::sort(probes.begin(), probes.end());
        const double probe = probes[(probes.size() - 1) / 2];
        p.predicted = predictor.predict_for_host(c, p.workload, probe, &p.predicted);
        p.runs[med].measurement.extra["issue_probe_ns_per_op"] = probe;
      }
      cr.measured = p.runs[med].measurement;
      cr.measured_runs = static_cast<std::uint32_t>(p.runs.size());
      cr.measured_spread = spread_of(p.runs, med);
      cr.diagnosis = diagnose(p.workload, p.predicted.trace, p.runs[med].trace);
      measured_trace = &p.runs[med].trace;
    }
    cr.predicted = p.predicted.measurement;
    cr.predicted_range = predictor.range(c, p.workload);
    // Configurations deferred to a child get their files written (again) by the child.
    if (!opt.traces_dir.empty())
      save_config_traces(opt.traces_dir, exp.name, c.label, p.workload, p.predicted.trace, measured_trace);
    if (opt.progress) {
      std::ostringstream line;
      line << exp.name << " [" << (i + 1) << "/" << n << "] " << c.label << ": predicted "
           << format_value(cr.predicted.metric, exp.metric);
      if (cr.measured) {
        line << ", measured " << format_value(cr.measured->metric, exp.metric) << " ("
             << format_percent(cr.metric_error()) << ")";
      } else if (!p.status.empty()) {
        line << " (" << p.status << ")";
      }
      opt.progress(line.str());
    }
    r.configs.push_back(std::move(cr));
  }
  pending.clear();

  // Measured in a child process: its results replace the configurations at `positions` (matched by label).
  const auto measure_in_child = [&](const std::vector<std::size_t>& positions, const std::string& what,
                                    const std::string& mode_flag, const std::string& mode_value, std::uint32_t conn) {
    const auto file = std::filesystem::temp_directory_path() /
                      ("streamlab-" + exp.name + "-" + what + "-" + std::to_string(::getpid()) + ".json");
    std::vector<std::string> args = {"experiment", exp.name, mode_flag};
    if (!mode_value.empty()) args.push_back(mode_value);
    args.insert(args.end(), {"--child-output", file.string()});
    args.insert(args.end(), opt.child_args.begin(), opt.child_args.end());
    if (opt.progress)
      opt.progress(exp.name + ": measuring " + std::to_string(positions.size()) + " configurations in a child process (" +
                   what + ", CUDA_DEVICE_MAX_CONNECTIONS=" + std::to_string(conn) + ")");
    std::string error;
    const int rc = run_child(opt.self_exe, args, conn, error);
    if (rc != 0) {
      failures.push_back(what + " child process " + (error.empty() ? "exited with " + std::to_string(rc) : error));
      std::filesystem::remove(file);
      return;
    }
    try {
      const ExperimentResult from_child = parse_result_json(model::read_text_file(file), file.string());
      for (const auto& cc : from_child.configs) {
        for (std::size_t pos : positions) {
          if (r.configs[pos].label != cc.label) continue;
          r.configs[pos].predicted = cc.predicted;  // the child's: at the host speed its runs saw
          r.configs[pos].measured = cc.measured;
          r.configs[pos].measured_runs = cc.measured_runs;
          r.configs[pos].measured_spread = cc.measured_spread;
          r.configs[pos].diagnosis = cc.diagnosis;
        }
      }
      if (!from_child.meta.note.empty() && from_child.meta.note.find("failed") != std::string::npos)
        failures.push_back(what + ": " + from_child.meta.note);
    } catch (const std::exception& e) {
      failures.push_back(what + ": " + e.what());
    }
    std::filesystem::remove(file);
  };
  // Connection settings other than this process's: one child per setting.
  for (const auto& [conn, positions] : deferred)
    measure_in_child(positions, "connections=" + std::to_string(conn), "--child-connections", std::to_string(conn), conn);
  // Probes after a tracer started here: one fresh child at this process's connections.
  if (!deferred_probes.empty())
    measure_in_child(deferred_probes, "probes", "--child-probes", "", device->process_connections().value_or(8));
  if (!failures.empty()) {
    std::string joined;
    for (const auto& f : failures) joined += (joined.empty() ? "" : "; ") + f;
    meta.note += (meta.note.empty() ? "" : "; ") + std::string("measurement failed for ") + joined;
  }
  judge(exp, r);
  return r;
}

}  // namespace streamlab::experiments
