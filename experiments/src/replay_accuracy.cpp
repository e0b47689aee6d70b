#include "streamlab/experiments/replay_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "streamlab/model/metrics.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace streamlab::experiments {
namespace {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string us(double ns) { return fmt("%.1f us", ns / 1e3); }
std::string pct(double x) { return fmt("%+.2f%%", x * 100); }

}  // namespace

ReplayAccuracy replay_against(const model::Workload& program, const model::Trace& measured,
                              const ReplaySettings& settings, std::string label) {
  const model::DeviceProfile fallback = settings.profile == nullptr ? model::bundled_h100_profile() : model::DeviceProfile{};
  const model::DeviceProfile& profile = settings.profile != nullptr ? *settings.profile : fallback;
  sim::SimOptions so;
  if (settings.connections != 0) so.connections = settings.connections;
  so.traced = settings.traced;
  so.profile_label = settings.profile_label;
  so.source = label;
  so.date = "replay";
  sim::SimBackend backend(profile, so);
  const auto policy = policies::make_policy("replay", policies::PolicyConfig{});
  policies::DispatchOptions d;
  d.profile = &profile;
  d.source = label;
  d.keep_log = false;
  d.profile_name = settings.profile_label;
  policies::DispatchResult result = policies::dispatch(backend, program, *policy, d);

  ReplayAccuracy r;
  r.label = std::move(label);
  for (const auto& op : program.ops) {
    r.kernels += op.kind == model::OpKind::kernel ? 1 : 0;
    r.copies += model::is_copy(op.kind) ? 1 : 0;
    r.memsets += op.kind == model::OpKind::memset ? 1 : 0;
  }
  const model::TraceComparison c = model::compare_traces(result.trace, measured);
  r.measured_ns = c.b.makespan_ns;
  r.predicted_ns = c.a.makespan_ns;
  r.makespan_error = c.makespan_rel_error;
  std::vector<double> starts;
  for (const auto& delta : c.ops)
    if (delta.engine == model::Engine::sm) starts.push_back(std::abs(static_cast<double>(delta.start_error())));
  r.matched_kernels = starts.size();
  r.kernel_start_error_median_ns = percentile(starts, 0.5);
  r.kernel_start_error_p90_ns = percentile(starts, 0.9);
  r.predicted = std::move(result.trace);
  return r;
}

std::string replay_accuracy_markdown(const std::vector<ReplayAccuracy>& replays,
                                     const std::vector<ReplayAccuracy>& what_ifs, const std::string& capture_note) {
  std::string md = "## Replaying real traces: imported PyTorch profiler traces on the simulator\n\n";
  md += capture_note + "\n\n";
  md += "Each trace is imported (`streamlab import`) into a program and replayed as written (policy `replay`) "
        "with the bundled H100 profile; the prediction is compared with "
        "the trace's own GPU timeline (`--measured`). Kernel start errors are relative to each timeline's first "
        "device op.\n\n";
  md += "| trace | kernels | copies | memsets | measured GPU makespan | predicted | error | kernel start error median | p90 |\n";
  md += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  std::vector<double> errs;
  for (const auto& r : replays) {
    errs.push_back(std::abs(r.makespan_error));
    md += "| " + r.label + " | " + std::to_string(r.kernels) + " | " + std::to_string(r.copies) + " | " +
          std::to_string(r.memsets) + " | " + us(static_cast<double>(r.measured_ns)) + " | " +
          us(static_cast<double>(r.predicted_ns)) + " | " + pct(r.makespan_error) + " | " +
          us(r.kernel_start_error_median_ns) + " | " + us(r.kernel_start_error_p90_ns) + " |\n";
  }
  if (!errs.empty()) {
    const double median = percentile(errs, 0.5), worst = *std::max_element(errs.begin(), errs.end());
    const bool ok = median <= 0.03 && worst <= 0.05;
    md += "\nMakespan |error|: median " + fmt("%.2f%%", median * 100) + ", max " + fmt("%.2f%%", worst * 100) +
          " (target: median within 3%, max within 5%): **" + (ok ? "met" : "not met") + "**.\n";
  }
  if (!what_ifs.empty()) {
    md += "\n### What-ifs: predicted from the imported program, measured by running the change\n\n";
    md += "| what-if | measured GPU makespan | predicted | error | within 5% |\n| --- | ---: | ---: | ---: | :---: |\n";
    for (const auto& r : what_ifs)
      md += "| " + r.label + " | " + us(static_cast<double>(r.measured_ns)) + " | " +
            us(static_cast<double>(r.predicted_ns)) + " | " + pct(r.makespan_error) + " | " +
            (std::abs(r.makespan_error) <= 0.05 ? "yes" : "no") + " |\n";
  }
  return md;
}

}  // namespace streamlab::experiments
