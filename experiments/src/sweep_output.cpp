// The sweep's CSV, JSON and summary, built from the plan and the unit payloads alone.
#include "streamlab/experiments/sweep_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "streamlab/model/file_io.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::experiments {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// Metric columns in their CSV order (the payload keys of sweep_unit.cpp).
constexpr std::string_view kPredicted[] = {
    "predicted_makespan_ns", "predicted_copy_compute_overlap", "predicted_mean_concurrency",
    "predicted_max_concurrency", "predicted_sm_busy", "predicted_h2d_busy", "predicted_d2h_busy",
    "predicted_connections", "predicted_streams_created", "predicted_waits_inserted", "predicted_queries",
    "predicted_blocking_waits", "predicted_events_created", "predicted_host_ns_per_op", "predicted_error"};
constexpr std::string_view kMeasured[] = {
    "measured_makespan_ns", "measured_copy_compute_overlap", "measured_mean_concurrency",
    "measured_max_concurrency", "measured_sm_busy", "measured_h2d_busy", "measured_d2h_busy",
    "measured_device", "measured_timing", "measured_gpu", "measured_error"};

template <class J>
std::string csv_cell(const J& v) {
  if (v.is_null()) return "";
  if (!v.is_string()) return v.dump();  // numbers: shortest text that reads back to the same value
  const std::string& s = v.template get_ref<const std::string&>();
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string ms(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  return buf;
}

std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * x);
  return buf;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// "round-robin streams=4 window=0 ..." (the summary's name for a configuration).
std::string config_text(const SweepPlan& plan, const SweepConfig& c) {
  std::string s = c.policy + " streams=" + std::to_string(c.policy_config.streams) +
                  " window=" + std::to_string(c.policy_config.window);
  if (plan.spec.connections.values.size() > 1 || c.connections != 0)
    s += " connections=" + (c.connections == 0 ? std::string("default") : std::to_string(c.connections));
  if (plan.spec.stream_kinds.values.size() > 1) s += " kind=" + std::string(policies::to_string(c.policy_config.stream_kind));
  if (plan.spec.hints.values.size() > 1) s += " hints=" + std::string(policies::to_string(c.policy_config.hints));
  return s;
}

}  // namespace

SweepTables render_sweep(const SweepPlan& plan, const std::vector<std::string>& payloads) {
  SweepTables t;
  // Generator parameters are parameters too: one column each, in order of first appearance.
  std::vector<std::string> gen_columns;
  for (const PlannedWorkload& w : plan.workloads)
    for (const GenValue& v : w.params)
      if (std::find(gen_columns.begin(), gen_columns.end(), "gen_" + v.name) == gen_columns.end())
        gen_columns.push_back("gen_" + v.name);
  t.columns = {"config", "repeat", "mode", "workload", "workload_ops", "workload_hash", "generator"};
  t.columns.insert(t.columns.end(), gen_columns.begin(), gen_columns.end());
  for (std::string_view c : {"profile", "device", "policy", "streams", "window", "connections", "stream_kind",
                             "hints", "traced"})
    t.columns.emplace_back(c);
  for (std::string_view c : kPredicted) t.columns.emplace_back(c);
  for (std::string_view c : kMeasured) t.columns.emplace_back(c);
  t.columns.emplace_back("makespan_error");

  // Unit index per (config, repeat) for the measured side; the simulated unit per config.
  std::vector<std::size_t> sim_unit(plan.configs.size(), SIZE_MAX);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> run_unit;
  for (std::size_t i = 0; i < plan.units.size(); ++i) {
    const SweepUnit& u = plan.units[i];
    if (u.measured) {
      run_unit[{u.config, u.repeat}] = i;
    } else {
      sim_unit[u.config] = i;
    }
  }

  for (std::size_t i = 0; i < t.columns.size(); ++i) t.csv += (i ? "," : "") + t.columns[i];
  t.csv += '\n';
  OrderedJson rows = OrderedJson::array();

  // Summary inputs.
  struct Best {
    double best = INFINITY, worst = -INFINITY;
    std::string best_cfg, worst_cfg;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Best> per_workload;  // (workload, profile)
  std::vector<double> abs_errors;
  std::size_t predicted_failed = 0, measured_failed = 0;

  for (std::uint32_t ci = 0; ci < plan.configs.size(); ++ci) {
    const SweepConfig& c = plan.configs[ci];
    const PlannedWorkload& w = plan.workloads[c.workload];
    const PlannedProfile& p = plan.profiles[c.profile];
    const Json predicted = sim_unit[ci] == SIZE_MAX ? Json::object() : Json::parse(payloads[sim_unit[ci]]);
    if (predicted.contains("predicted_error")) ++predicted_failed;
    if (predicted.contains("predicted_makespan_ns")) {
      Best& b = per_workload[{c.workload, c.profile}];
      const double m = predicted["predicted_makespan_ns"].get<double>();
      if (m < b.best) b.best = m, b.best_cfg = config_text(plan, c);
      if (m > b.worst) b.worst = m, b.worst_cfg = config_text(plan, c);
    }
    const std::uint32_t repeats = measures(c.mode) ? plan.spec.repeats : 1;
    for (std::uint32_t r = 0; r < repeats; ++r) {
      const Json measured = measures(c.mode) ? Json::parse(payloads[run_unit.at({ci, r})]) : Json::object();
      if (measured.contains("measured_error")) ++measured_failed;
      OrderedJson row;
      row["config"] = ci;
      row["repeat"] = r;
      row["mode"] = std::string(to_string(c.mode));
      row["workload"] = w.label;
      row["workload_ops"] = w.workload->size();
      row["workload_hash"] = w.hash;
      row["generator"] = w.generator;
      for (const std::string& g : gen_columns) row[g] = nullptr;
      for (const GenValue& v : w.params) {
        if (v.is_string) {
          row["gen_" + v.name] = v.text;
        } else {
          row["gen_" + v.name] = Json::parse(v.text);
        }
      }
      row["profile"] = p.label;
      row["device"] = p.profile.name;
      row["policy"] = c.policy;
      row["streams"] = c.policy_config.streams;
      row["window"] = c.policy_config.window;
      row["connections"] = c.connections == 0 ? Json("default") : Json(c.connections);
      row["stream_kind"] = std::string(policies::to_string(c.policy_config.stream_kind));
      row["hints"] = std::string(policies::to_string(c.policy_config.hints));
      row["traced"] = c.traced;
      for (std::string_view k : kPredicted) {
        auto it = predicted.find(k);
        row[std::string(k)] = it == predicted.end() ? OrderedJson(nullptr) : OrderedJson(*it);
      }
      for (std::string_view k : kMeasured) {
        auto it = measured.find(k);
        row[std::string(k)] = it == measured.end() ? OrderedJson(nullptr) : OrderedJson(*it);
      }
      row["makespan_error"] = nullptr;
      if (predicted.contains("predicted_makespan_ns") && measured.contains("measured_makespan_ns")) {
        const double pm = predicted["predicted_makespan_ns"].get<double>();
        const double mm = measured["measured_makespan_ns"].get<double>();
        if (mm > 0) {
          row["makespan_error"] = (pm - mm) / mm;
          abs_errors.push_back(std::abs((pm - mm) / mm));
        }
      }
      std::string line;
      for (std::size_t i = 0; i < t.columns.size(); ++i) {
        line += (i ? "," : "");
        const OrderedJson& v = row[t.columns[i]];
        line += csv_cell(v);
      }
      t.csv += line + '\n';
      rows.push_back(std::move(row));
      ++t.rows;
    }
  }
  t.failed_rows = predicted_failed + measured_failed;

  OrderedJson doc;
  doc["format"] = "streamlab-sweep";
  doc["version"] = 1;
  doc["name"] = plan.spec.name;
  doc["spec"] = plan.spec.file.string();
  doc["configurations"] = plan.configs.size();
  doc["repeats"] = plan.spec.repeats;
  doc["columns"] = t.columns;
  doc["rows"] = std::move(rows);
  t.json = doc.dump(1) + "\n";

  // Summary.
  std::string& s = t.summary;
  s += "# Sweep " + (plan.spec.name.empty() ? plan.spec.file.filename().string() : plan.spec.name) + "\n\n";
  s += "Spec `" + plan.spec.file.string() + "`: " + std::to_string(plan.configs.size()) + " configurations (" +
       std::to_string(plan.workloads.size()) + " workloads x " + std::to_string(plan.profiles.size()) +
       " profiles x " + std::to_string(plan.spec.policies.values.size()) + " policies x " +
       std::to_string(plan.spec.stream_kinds.values.size()) + " stream kinds x " +
       std::to_string(plan.spec.streams.values.size()) + " stream counts x " +
       std::to_string(plan.spec.windows.values.size()) + " windows x " +
       std::to_string(plan.spec.connections.values.size()) + " connection counts x " +
       std::to_string(plan.spec.hints.values.size()) + " hint modes); " + std::to_string(plan.simulated_units) +
       " simulated, " + std::to_string(plan.measured_units()) + " measured runs (" +
       std::to_string(plan.spec.repeats) + " per measured configuration); " + std::to_string(t.rows) +
       " rows in `sweep.csv`.\n\n";
  if (predicted_failed + measured_failed > 0) {
    s += "Failed: " + std::to_string(predicted_failed) + " predictions, " + std::to_string(measured_failed) +
         " measured runs (their rows carry `predicted_error` / `measured_error`).\n\n";
  }
  if (!per_workload.empty()) {
    s += "## Predicted makespan: best and worst configuration per workload\n\n";
    s += "| workload | profile | best | makespan | worst | makespan | worst / best |\n";
    s += "| --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& [key, b] : per_workload) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.2fx", b.best > 0 ? b.worst / b.best : 0.0);
      s += "| " + plan.workloads[key.first].label + " | " + plan.profiles[key.second].label + " | " + b.best_cfg +
           " | " + ms(b.best) + " | " + b.worst_cfg + " | " + ms(b.worst) + " | " + ratio + " |\n";
    }
    s += "\n";
  }
  if (!abs_errors.empty()) {
    const std::size_t within = static_cast<std::size_t>(
        std::count_if(abs_errors.begin(), abs_errors.end(), [](double e) { return e <= 0.05; }));
    s += "## Predicted vs measured\n\n";
    s += std::to_string(abs_errors.size()) + " measured runs with a prediction: median |makespan error| " +
         pct(median(abs_errors)).substr(1) + ", largest " +
         pct(*std::max_element(abs_errors.begin(), abs_errors.end())).substr(1) + "; " + std::to_string(within) +
         " within 5%.\n\n";
  }
  s += "Columns: docs/sweep.md. Charts (when drawn): `charts/`.\n";
  return t;
}

void write_sweep_outputs(const SweepTables& tables, const std::filesystem::path& dir) {
  model::write_file_atomically(dir / "sweep.csv", tables.csv);
  model::write_file_atomically(dir / "sweep.json", tables.json);
  model::write_file_atomically(dir / "summary.md", tables.summary);
}

}  // namespace streamlab::experiments
