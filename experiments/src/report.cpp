// REPORT.md from result files: summary, then one section per experiment.
#include "streamlab/experiments/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "streamlab/experiments/catalog.hpp"
#include "streamlab/experiments/runner.hpp"

namespace streamlab::experiments {

namespace {

std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string pct(double r) {
  if (!has_value(r)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", r * 100);
  return b;
}

std::string value(double raw, const MetricInfo& m) {
  if (!has_value(raw)) return "n/a";
  const double v = raw * m.scale;
  char b[48];
  std::snprintf(b, sizeof b, std::abs(v) >= 100 ? "%.1f" : (std::abs(v) >= 1 ? "%.3f" : "%.4g"), v);
  return b;
}

// Largest |error| over the configurations (makespan for Dispatcher runs, the metric for probes), how
// many miss the 5% target, and how many measured medians (all, and of those over 5%) lie inside the
// predicted range of the same quantity.
struct ErrorSummary {
  double max_abs = kNone;
  int over = 0, measured = 0;
  int ranged = 0, inside = 0, over_ranged = 0, over_inside = 0;
};
ErrorSummary errors(const ExperimentResult& r) {
  ErrorSummary s;
  for (const auto& c : r.configs) {
    const double e = r.has_makespan ? c.makespan_error() : c.metric_error();
    if (!has_value(e)) continue;
    ++s.measured;
    s.max_abs = has_value(s.max_abs) ? std::max(s.max_abs, std::abs(e)) : std::abs(e);
    const bool over = std::abs(e) > kMakespanTarget;
    const bool inside = c.measured_inside_predicted_range(r.has_makespan);
    s.over += over ? 1 : 0;
    if (!c.predicted_range) continue;
    ++s.ranged;
    s.inside += inside ? 1 : 0;
    s.over_ranged += over ? 1 : 0;
    s.over_inside += over && inside ? 1 : 0;
  }
  return s;
}

bool has_ranges(const ExperimentResult& r) {
  return std::any_of(r.configs.begin(), r.configs.end(), [](const ConfigResult& c) { return c.predicted_range.has_value(); });
}

// "2.345-2.512" in the metric's display unit; "n/a" without a range.
std::string range_text(double low, double high, const MetricInfo& m) {
  if (!has_value(low) || !has_value(high)) return "n/a";
  return value(low, m) + "-" + value(high, m);
}

// "; 2 of them have the measured median inside the predicted range" for the 5% line.
std::string over_inside_text(const ErrorSummary& s) {
  if (s.over_ranged == 0) return "";
  return "; " + std::to_string(s.over_inside) + " of " +
         (s.over_ranged == s.over ? std::string("them") : std::to_string(s.over_ranged) + " with a range") +
         (s.over_inside == 1 ? " has" : " have") + " the measured median inside the predicted range";
}

// What the table's "predicted range" is, and where the measured medians fall; empty without ranges.
std::string range_summary(const ExperimentResult& r) {
  if (!has_ranges(r)) return "";
  std::uint32_t lo = 0, hi = 0;
  std::vector<std::string> axes;  // what the variants vary, where the files record it
  for (const auto& c : r.configs) {
    if (!c.predicted_range) continue;
    lo = lo == 0 ? c.predicted_range->variants : std::min(lo, c.predicted_range->variants);
    hi = std::max(hi, c.predicted_range->variants);
    for (const std::string& a : c.predicted_range->axes)
      if (std::find(axes.begin(), axes.end(), a) == axes.end()) axes.push_back(a);
  }
  // Files from before the axes were recorded: 36 variants had every axis; 12 host speeds x queues x
  // orders (before the kernel races); 4 queues x orders.
  if (axes.empty()) {
    if (hi == 12 || hi >= 36) axes.emplace_back("host-speed");
    axes.emplace_back("copy-queues");
    axes.emplace_back("copy-queue-order");
    if (hi >= 36) axes.emplace_back("kernel-race");
  }
  const auto varies = [&](std::string_view a) { return std::find(axes.begin(), axes.end(), a) != axes.end(); };
  // Host speeds: what the other axes leave of the variant count (3 in files from before the positions
  // between the ends: typical, fast, slow).
  const std::uint32_t others =
      (varies("copy-queues") ? 2 : 1) * (varies("copy-queue-order") ? 2 : 1) * (varies("kernel-race") ? 3 : 1);
  const std::uint32_t speeds = hi / others;
  std::ostringstream os;
  os << "*Predicted range:* the same prediction over "
     << (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi))
     << " simulated variants of what varies between machines and runs: the host at the profile's speed"
     << (!varies("host-speed") ? ""
         : speeds <= 3
             ? " and in a fast and a slow spell (every host API cost at an end of the range calibrate measured, a "
               "launch's extra costs moved by the launch's own factor)"
             : " and at " + std::to_string(speeds - 1) +
                   " positions from a fast to a slow spell (every host API cost from the low to the high end of the "
                   "range calibrate measured, the ends and points between them; a launch's extra costs moved "
                   "by the launch's own factor; a dynamic policy's prediction moves up and down with the host's speed)")
     << (varies("copy-queues") ? ", each with the copy engines' queues shared by streams s and s + 4 and with a queue per stream" : "")
     << (varies("copy-queue-order") ? ", each with the engines taking the oldest copy's queue next and taking the queues in "
                                      "bit-reversed order"
                                    : "")
     << (varies("kernel-race") ? ", each with two kernels of any priority that become ready within a microsecond of each "
                                 "other taken in the order they became ready, the lower stream's first and the higher stream's "
                                 "first (the GPU decides such a race either way from run to run)"
                               : "")
     << ". Where none of "
        "these moves the prediction the range is the point itself, so a measurement a fraction of a per cent off "
        "falls outside it. Errors and verdicts stay on the point prediction.";
  const ErrorSummary s = errors(r);
  if (s.ranged > 0)
    os << " The measured median " << (r.has_makespan ? "makespan" : r.metric.name) << " is inside it for " << s.inside
       << " of " << s.ranged << " configurations.";
  return os.str();
}

// The issue probes' host speed, a diagnostic beside the headline (which uses the profile alone): the
// scale each configuration's probes read and how many makespans the prediction with host costs scaled by
// it would put within 5%; empty when no configuration had a probe.
std::string host_scaling_summary(const ExperimentResult& r) {
  double lo = kNone, hi = kNone, worst = 0;
  int scaled = 0, judged = 0, over = 0;
  for (const auto& c : r.configs) {
    const auto s = c.predicted.extra.find("host_cost_scale");
    if (s == c.predicted.extra.end()) continue;
    ++scaled;
    lo = has_value(lo) ? std::min(lo, s->second) : s->second;
    hi = has_value(hi) ? std::max(hi, s->second) : s->second;
    const auto p = c.predicted.extra.find("makespan_host_scaled_ns");
    if (!c.measured || p == c.predicted.extra.end() || !(c.measured->makespan_ns > 0)) continue;
    const double e = std::abs(p->second - c.measured->makespan_ns) / c.measured->makespan_ns;
    ++judged;
    over += e > kMakespanTarget ? 1 : 0;
    worst = std::max(worst, e);
  }
  if (scaled == 0) return "";
  char range[64];
  std::snprintf(range, sizeof range, "%.2f to %.2f", lo, hi);
  std::ostringstream os;
  os << "*Host speed (diagnostic, not in the errors or verdicts):* predictions use the profile alone. Before each "
        "measured run an issue probe issued the configuration's own API calls with the device work shrunk to "
        "nothing; its host time per op over the simulator's read "
     << range << " over " << scaled << " configurations (1 = the profile's host costs).";
  if (judged > 0) {
    os << " With host costs scaled by it, " << (judged - over) << " of " << judged
       << " makespans would be within 5% (largest error " << pct(worst).substr(1) << ").";
  }
  return os.str();
}

std::string outcome_text(const Verdict& v) { return std::string(to_string(v.outcome)); }

std::string where(const RunMeta& m) {
  std::ostringstream os;
  if (m.measured) {
    os << "measured on " << m.device_name;
    if (!m.driver.empty()) os << ", driver " << m.driver;
    if (!m.cuda_version.empty()) os << ", CUDA " << m.cuda_version;
  } else {
    os << "simulator only";
  }
  os << "; predicted with profile " << m.profile << "; " << m.date;
  if (!m.git_commit.empty()) os << "; commit " << m.git_commit.substr(0, 12);
  if (m.quick) os << "; --quick sizes";
  return os.str();
}

// What the misses of one experiment have in common, from their diagnoses: per op kind, how much longer or
// shorter the simulator makes the spans; for the rest, whether the GPU overlapped more or less.
std::string summarize_misses(const std::vector<const ConfigResult*>& misses) {
  std::map<std::string, std::pair<double, int>> kind_err;  // kind -> (sum of relative errors, count)
  int scheduling = 0, more_concurrent = 0, less_concurrent = 0, slower = 0, faster = 0;
  double max_meas_conc = 0, pred_at_max = 0;
  for (const ConfigResult* c : misses) {
    (c->makespan_error() > 0 ? slower : faster) += 1;
    if (!c->diagnosis.available) continue;
    bool duration_off = false;
    for (const auto& [kind, t] : c->diagnosis.duration) {
      if (t.ops == 0 || t.measured_mean_ns <= 0) continue;
      const double rel = (t.predicted_mean_ns - t.measured_mean_ns) / t.measured_mean_ns;
      if (std::abs(rel) <= kMakespanTarget) continue;
      duration_off = true;
      kind_err[kind].first += rel;
      kind_err[kind].second += 1;
    }
    if (duration_off) continue;
    ++scheduling;
    const Diagnosis& d = c->diagnosis;
    if (d.concurrency_measured > d.concurrency_predicted * 1.05) ++more_concurrent;
    if (d.concurrency_measured < d.concurrency_predicted * 0.95) ++less_concurrent;
    if (d.concurrency_measured > max_meas_conc) {
      max_meas_conc = d.concurrency_measured;
      pred_at_max = d.concurrency_predicted;
    }
  }
  std::ostringstream os;
  os << "In " << faster << " of " << misses.size() << " misses the simulator predicts a shorter makespan than measured, in "
     << slower << " a longer one. ";
  for (const auto& [kind, e] : kind_err) {
    os << "In " << e.second << " the " << kind << " spans are off by " << pct(e.first / e.second)
       << " on average (simulated vs measured duration). ";
  }
  if (scheduling > 0) {
    char b[64];
    std::snprintf(b, sizeof b, "%.1f (simulated: %.1f)", max_meas_conc, pred_at_max);
    os << scheduling << " misses have op durations within 5% and differ in scheduling: in " << more_concurrent
       << " of them the GPU ran more ops at once than the simulator allows, in " << less_concurrent
       << " fewer (highest measured mean concurrency " << b << ").";
  }
  std::string out = os.str();
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::string generate_report(const std::vector<LoadedResult>& results, const std::filesystem::path& report_dir,
                            const std::vector<ProgramValidation>& programs, const std::string& trace_replay) {
  // Per experiment: measured runs win, then the newest.
  std::map<std::string, const LoadedResult*> chosen;
  for (const auto& lr : results) {
    auto& slot = chosen[lr.result.name];
    if (!slot) {
      slot = &lr;
      continue;
    }
    const bool a = lr.result.measured(), b = slot->result.measured();
    if ((a && !b) || (a == b && lr.result.meta.date > slot->result.meta.date)) slot = &lr;
  }
  std::vector<const LoadedResult*> order;
  for (auto& [name, lr] : chosen) order.push_back(lr);
  std::sort(order.begin(), order.end(), [](const LoadedResult* a, const LoadedResult* b) {
    const auto& x = a->result.name;
    const auto& y = b->result.name;
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });

  std::ostringstream os;
  os << "# streamlab experiments: claim vs predicted vs measured\n\n";
  os << "<!-- Generated by `streamlab experiment report` from the result files; do not edit by hand. -->\n\n";
  os << "Each experiment takes one claim about CUDA stream and event scheduling (from NVIDIA's documentation and "
        "common performance advice; each section states the claim with its figures and where it comes from), runs it "
        "through streamlab's one Dispatcher on the simulator "
        "(*predicted*, from a device profile) and, where a GPU was available, on the CUDA executor (*measured*), "
        "and judges the claim from the numbers with the thresholds written in its definition "
        "(experiments/src/experiments_*.cpp). Prediction error = (predicted - measured) / measured; the target for "
        "E1, E2, E3, E5, E6 and E7 is a simulated makespan within 5% of the measured one for every configuration.\n\n";

  bool any_measured = false;
  for (const auto* lr : order) any_measured = any_measured || lr->result.measured();
  if (!any_measured) {
    os << "**Not measured on a GPU yet.** Every number below is a prediction of the simulator; the measured "
          "columns stay empty until `streamlab experiment all` runs on a GPU.\n\n";
  }

  // Summary.
  os << "## Summary\n\n";
  os << "| Experiment | Claim | Predicted | Measured | Prediction error | Verdict |\n";
  os << "|---|---|---|---|---|---|\n";
  for (const auto* lr : order) {
    const ExperimentResult& r = lr->result;
    const auto def = find_experiment(r.name);
    const std::string claim = def && !def->claim_short.empty() ? def->claim_short : r.title;
    std::string pred = def && def->headline ? def->headline(r.configs, Side::predicted) : "";
    std::string meas = r.measured() && def && def->headline ? def->headline(r.configs, Side::measured)
                                                           : "not measured on a GPU yet";
    const ErrorSummary es = errors(r);
    std::string err = "n/a";
    if (es.measured > 0) {
      err = "max " + pct(es.max_abs).substr(1) + (r.has_makespan ? " (makespan)" : " (per call)");
      if (r.makespan_target) {
        err += "; " + std::to_string(es.over) + "/" + std::to_string(es.measured) + " over 5%";
        if (es.over_ranged > 0) err += " (" + std::to_string(es.over_inside) + " inside the predicted range)";
      }
    }
    std::string verdict = r.measured() ? "**" + outcome_text(r.measured_verdict) + "**"
                                       : "predicted: " + outcome_text(r.predicted_verdict) + " (not measured)";
    os << "| " << r.name << " " << cell(r.title) << " | " << cell(claim) << " | " << cell(pred.empty() ? "n/a" : pred)
       << " | " << cell(meas.empty() ? "n/a" : meas) << " | " << err << " | " << verdict << " |\n";
  }
  for (const auto& v : programs) os << program_validation_row(v);
  if (!trace_replay.empty()) {
    // The replay report's own verdict line ("Makespan |error|: median ..., max ... (target ...): **met**.").
    std::string verdict = "see the section";
    if (const auto at = trace_replay.find("Makespan |error|:"); at != std::string::npos) {
      const auto end = trace_replay.find('\n', at);
      verdict = trace_replay.substr(at, end == std::string::npos ? std::string::npos : end - at);
    }
    os << "| R1 Replay of imported real traces | an imported PyTorch profiler trace, replayed on the simulator, "
          "predicts its measured GPU makespan (within 3% median, 5% max) | see the section | see the section | "
       << cell(verdict) << " | see the section |\n";
  }
  os << "\n";

  // Provenance.
  std::set<std::filesystem::path> dirs;
  for (const auto* lr : order) dirs.insert(lr->dir);
  os << "Results used:\n\n";
  for (const auto& d : dirs) {
    const LoadedResult* any = nullptr;
    for (const auto* lr : order)
      if (lr->dir == d) any = lr;
    std::error_code ec;
    auto rel = std::filesystem::relative(d, report_dir, ec);
    os << "- `" << (ec || rel.empty() ? d.string() : rel.generic_string()) << "`: " << where(any->result.meta);
    if (!any->result.meta.command_line.empty()) os << "; command `" << any->result.meta.command_line << "`";
    if (!any->result.meta.note.empty()) os << "; " << any->result.meta.note;
    os << "\n";
  }
  os << "\n";

  // Sections.
  for (const auto* lr : order) {
    const ExperimentResult& r = lr->result;
    const RunMeta& m = r.meta;
    os << "## " << r.name << ": " << r.title << "\n\n";
    os << "**Claim.** " << r.claim << "\n\n*Source:* " << r.source << "\n\n";
    os << "**Setup.** " << r.setup << "\n\n";
    os << "*Predicted:* the simulator (SimBackend) with profile " << m.profile
       << ", through the same Dispatcher and policy as the measurement. ";
    if (m.measured) {
      os << "*Measured:* " << m.device_name;
      if (!m.driver.empty()) os << " (driver " << m.driver << (m.cuda_version.empty() ? "" : ", CUDA " + m.cuda_version) << ")";
      os << ", CudaBackend through the same Dispatcher, median of " << m.repeats
         << " runs after a warm-up (run in rounds: every configuration once per round), " << m.date << ".";
      if (!m.note.empty()) os << " Note: " << m.note << ".";
      const std::string host = host_scaling_summary(r);
      if (!host.empty()) os << "\n\n" << host;
      const std::string range = range_summary(r);
      if (!range.empty()) os << "\n\n" << range;
      os << "\n\n";
    } else {
      os << "*Measured:* not measured on a GPU yet";
      if (!m.note.empty()) os << " (" << m.note << ")";
      os << ".";
      const std::string range = range_summary(r);
      if (!range.empty()) os << "\n\n" << range;
      os << "\n\n";
    }

    // Table.
    std::vector<std::string> keys;
    for (const auto& c : r.configs)
      for (const auto& [k, v] : c.params)
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    const bool metric_is_makespan = r.metric.name == "makespan";
    const bool ranges = has_ranges(r);
    os << "|";
    for (const auto& k : keys) os << " " << k << " |";
    const std::string unit = " (" + r.metric.unit + ")";
    os << " predicted " << r.metric.name << unit << " | measured " << r.metric.name << unit << " | error |";
    if (ranges) os << " predicted range" << unit << " |";
    if (r.has_makespan && !metric_is_makespan) {
      os << " predicted makespan (ms) | measured makespan (ms) | makespan error |";
      if (ranges) os << " predicted makespan range (ms) |";
    }
    if (m.measured) os << " runs | spread |";
    os << "\n|";
    const std::size_t cols = keys.size() + 3 + (ranges ? 1 : 0) +
                             (r.has_makespan && !metric_is_makespan ? 3 + (ranges ? 1 : 0) : 0) + (m.measured ? 2 : 0);
    for (std::size_t i = 0; i < cols; ++i) os << "---|";
    os << "\n";
    const MetricInfo ms_info{"makespan", "", "ms", 1e-6};
    for (const auto& c : r.configs) {
      os << "|";
      for (const auto& k : keys) os << " " << cell(c.param(k)) << " |";
      os << " " << value(c.predicted.metric, r.metric) << " | "
         << (c.measured ? value(c.measured->metric, r.metric) : "not measured") << " | " << pct(c.metric_error()) << " |";
      const PredictedRange range = c.predicted_range.value_or(PredictedRange{});
      if (ranges) os << " " << range_text(range.metric_low, range.metric_high, r.metric) << " |";
      if (r.has_makespan && !metric_is_makespan) {
        os << " " << value(c.predicted.makespan_ns, ms_info) << " | "
           << (c.measured ? value(c.measured->makespan_ns, ms_info) : "not measured") << " | " << pct(c.makespan_error())
           << " |";
        if (ranges) os << " " << range_text(range.makespan_low_ns, range.makespan_high_ns, ms_info) << " |";
      }
      if (m.measured) os << " " << c.measured_runs << " | " << (has_value(c.measured_spread) ? pct(c.measured_spread).substr(1) : "n/a") << " |";
      os << "\n";
    }
    os << "\n";

    // Chart: the PNG inline, the vector files linked (drawn from the CSV by experiment_charts.py).
    const auto chart = [&](const char* ext) {
      const auto file = lr->dir / (r.name + ext);
      std::error_code ec;
      const auto rel = std::filesystem::relative(file, report_dir, ec);
      return ec || rel.empty() ? file.generic_string() : rel.generic_string();
    };
    if (std::filesystem::exists(lr->dir / (r.name + ".png"))) {
      os << "![" << r.name << " chart](" << chart(".png") << ")\n\n";
      os << "Chart as [SVG](" << chart(".svg") << ") and [PDF](" << chart(".pdf") << "), drawn from [" << r.name
         << ".csv](" << chart(".csv") << ").\n\n";
    } else {
      os << "*(No chart yet: `streamlab experiment render " << lr->dir.generic_string()
         << "` draws it; it needs python3-matplotlib.)*\n\n";
    }

    // Verdicts.
    if (r.measured()) {
      os << "**Verdict (measured): " << outcome_text(r.measured_verdict) << ".** " << r.measured_verdict.why << "\n\n";
      os << "*The simulator predicted:* " << outcome_text(r.predicted_verdict) << ". " << r.predicted_verdict.why << "\n\n";
    } else {
      os << "**Verdict: not measured on a GPU yet.** The simulator predicts: **" << outcome_text(r.predicted_verdict)
         << "**. " << r.predicted_verdict.why << "\n\n";
    }

    // Misses.
    if (r.makespan_target) {
      if (!r.measured()) {
        os << "*5% target:* cannot be checked until this experiment is measured on a GPU.\n\n";
      } else {
        std::vector<const ConfigResult*> misses;
        for (const auto& c : r.configs)
          if (has_value(c.makespan_error()) && std::abs(c.makespan_error()) > kMakespanTarget) misses.push_back(&c);
        // The target is on the makespan; where the experiment's own metric is another quantity, its misses
        // are listed too, so a makespan within 5% does not hide a metric that is not.
        std::string metric_misses;
        if (r.metric.name != "makespan") {
          int over = 0, judged = 0, ranged = 0, inside = 0;
          std::string list;
          for (const auto& c : r.configs) {
            const double e = c.metric_error();
            if (!has_value(e)) continue;
            ++judged;
            if (std::abs(e) <= kMakespanTarget) continue;
            ++over;
            ranged += c.predicted_range ? 1 : 0;
            inside += c.measured_inside_predicted_range(false) ? 1 : 0;
            list += std::string(list.empty() ? "" : ", ") + "`" + c.label + "` " + pct(e);
          }
          if (over > 0)
            metric_misses = " Its metric, " + r.metric.description + ", is over 5% in " + std::to_string(over) + " of " +
                            std::to_string(judged) + ": " + list +
                            (ranged > 0 ? " (" + std::to_string(inside) + " of " + std::to_string(ranged) +
                                              " with the measured median inside the predicted range)"
                                        : std::string()) +
                            ".";
        }
        if (misses.empty()) {
          os << "*5% target:* every measured configuration's makespan is within 5%." << metric_misses << "\n\n";
        } else {
          const ErrorSummary es = errors(r);
          os << "*5% target:* " << misses.size() << " of " << es.measured << " configurations miss it"
             << over_inside_text(es) << " (the fix belongs in the simulator or its calibration, not here). "
             << summarize_misses(misses) << metric_misses;
          const auto def = find_experiment(r.name);
          if (def && def->miss_analysis) {
            const std::string extra = def->miss_analysis(r.configs, r.meta.quick);
            if (!extra.empty()) os << "\n\n" << extra;
          }
          os << "\n\nPer configuration, read off the predicted and measured traces:\n\n";
          for (const ConfigResult* c : misses) os << "- `" << c->label << "`: " << explain_miss(*c) << "\n";
          os << "\n";
        }
      }
    }
  }
  for (const auto& v : programs) os << program_validation_section(v, report_dir);
  if (!trace_replay.empty()) {
    os << "<!-- R1: experiments/results/import-replay.md, written by `streamlab replay-report` (import/README.md). -->\n";
    os << trace_replay << (trace_replay.back() == '\n' ? "" : "\n");
  }
  return os.str();
}

}  // namespace streamlab::experiments
