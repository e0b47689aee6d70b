// REPORT.md's program validation section (see program_validation.hpp).
#include "streamlab/experiments/program_validation.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"

namespace streamlab::experiments {
namespace {

using Json = nlohmann::json;

std::string pct(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100 * r);
  return b;
}
std::string ms(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", ns / 1e6);
  return b;
}
std::string opt_pct(const std::optional<double>& r) { return r ? pct(*r) : "n/a"; }
std::string p_cell(const std::optional<double>& p) {
  if (!p) return "n/a";
  char b[16];
  std::snprintf(b, sizeof b, "%.2f", *p);
  return b;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct RunCounts {
  int judged = 0, ok = 0, alike = 0;  ///< within kRunTarget; of the rest, not told apart (p >= level)
  void add(const ProgramConfig& cfg, const std::string& variant) {
    const auto e = cfg.run_error(variant);
    if (!e) return;
    ++judged;
    const auto p = cfg.run_plain_p(variant);
    if (std::abs(*e) <= kRunTarget) ++ok;
    else if (p && *p >= kRunPlainLevel) ++alike;
  }
};

struct Counts {
  RunCounts run;       ///< `streamlab run` as measured by default (CUPTI times the copies)
  RunCounts untimed;   ///< the run that changes nothing on the GPU (copies untimed where the program has some)
  bool has_untimed = false;  ///< some configuration measured run-gpu-timer
  int judged_sim = 0, sim_ok = 0, sim_in_range = 0;
  double median_abs_sim = 0;
};

Counts count(const ProgramValidation& v) {
  Counts c;
  std::vector<double> abs_sim;
  for (const auto& cfg : v.configs) {
    c.run.add(cfg, "run");
    c.untimed.add(cfg, cfg.untimed_copies_variant());
    c.has_untimed = c.has_untimed || cfg.variants.count("run-gpu-timer") > 0;
    if (const auto e = cfg.sim_error()) {
      ++c.judged_sim;
      abs_sim.push_back(std::abs(*e));
      if (std::abs(*e) <= kSimTarget) ++c.sim_ok;
      else if (cfg.predicted_range_ns ? cfg.plain_median_inside_predicted_range() : cfg.predicted_inside_measured())
        ++c.sim_in_range;
    }
  }
  if (!abs_sim.empty()) c.median_abs_sim = median_of(abs_sim);
  return c;
}

bool has_ranges(const ProgramValidation& v) {
  return std::any_of(v.configs.begin(), v.configs.end(), [](const ProgramConfig& c) { return c.predicted_range_ns.has_value(); });
}

std::string range_cell(const ProgramConfig& cfg, bool ranges) {
  if (!cfg.predicted_ns) return "n/a";
  if (!ranges) return cfg.predicted_inside_measured() ? "yes" : "no";
  if (!cfg.predicted_range_ns) return "n/a";
  const auto p = cfg.variants.find("plain");
  const std::size_t runs = p == cfg.variants.end() ? 0 : p->second.runs_ns.size();
  return ms(cfg.predicted_range_ns->first) + "-" + ms(cfg.predicted_range_ns->second) + ": " +
         std::to_string(cfg.plain_runs_inside_predicted_range()) + "/" + std::to_string(runs) +
         (cfg.plain_median_inside_predicted_range() ? ", median inside" : "");
}

}  // namespace

std::optional<double> VariantRuns::median() const {
  if (runs_ns.empty()) return std::nullopt;
  return median_of(runs_ns);
}

std::optional<double> VariantRuns::spread() const {
  const auto m = median();
  if (!m || *m <= 0) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(runs_ns.begin(), runs_ns.end());
  return (*hi - *lo) / *m;
}

std::string ProgramConfig::untimed_copies_variant() const {
  return variants.count("run-gpu-timer") > 0 ? "run-gpu-timer" : "run";
}

std::optional<double> ProgramConfig::run_error(const std::string& variant) const {
  const auto p = variants.find("plain"), r = variants.find(variant);
  if (p == variants.end() || r == variants.end()) return std::nullopt;
  const auto pm = p->second.median(), rm = r->second.median();
  if (!pm || !rm || *pm <= 0) return std::nullopt;
  return *rm / *pm - 1;
}

std::optional<double> ProgramConfig::sim_error() const {
  const auto p = variants.find("plain");
  if (p == variants.end() || !predicted_ns) return std::nullopt;
  const auto pm = p->second.median();
  if (!pm || *pm <= 0) return std::nullopt;
  return *predicted_ns / *pm - 1;
}

bool ProgramConfig::predicted_inside_measured() const {
  const auto p = variants.find("plain");
  if (p == variants.end() || !predicted_ns || p->second.runs_ns.empty()) return false;
  const auto [lo, hi] = std::minmax_element(p->second.runs_ns.begin(), p->second.runs_ns.end());
  return *predicted_ns >= *lo && *predicted_ns <= *hi;
}

std::size_t ProgramConfig::plain_runs_inside_predicted_range() const {
  const auto p = variants.find("plain");
  if (p == variants.end() || !predicted_range_ns) return 0;
  return static_cast<std::size_t>(std::count_if(p->second.runs_ns.begin(), p->second.runs_ns.end(), [&](double x) {
    return x >= predicted_range_ns->first && x <= predicted_range_ns->second;
  }));
}

bool ProgramConfig::plain_median_inside_predicted_range() const {
  const auto p = variants.find("plain");
  if (p == variants.end() || !predicted_range_ns) return false;
  const auto m = p->second.median();
  return m && *m >= predicted_range_ns->first && *m <= predicted_range_ns->second;
}

std::optional<double> rank_sum_p(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t na = a.size(), n = a.size() + b.size();
  if (a.empty() || b.empty() || na > 12 || b.size() > 12) return std::nullopt;
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  for (double x : a) pooled.emplace_back(x, true);
  for (double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end());
  std::vector<double> rank(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && pooled[j + 1].first == pooled[i].first) ++j;
    for (std::size_t k = i; k <= j; ++k) rank[k] = (static_cast<double>(i + j) + 2.0) / 2.0;  // 1-based average
    i = j + 1;
  }
  double observed = 0;
  for (std::size_t i = 0; i < n; ++i) observed += pooled[i].second ? rank[i] : 0.0;
  const double mean = static_cast<double>(na) * static_cast<double>(n + 1) / 2.0;
  const double distance = std::abs(observed - mean) - 1e-9;
  // Every subset of na positions out of n (at most C(24, 12) = 2.7M, bit masks).
  std::uint64_t total = 0, extreme = 0;
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<std::size_t>(std::popcount(mask)) != na) continue;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += (mask >> i & 1u) ? rank[i] : 0.0;
    ++total;
    extreme += std::abs(sum - mean) >= distance ? 1 : 0;
  }
  return static_cast<double>(extreme) / static_cast<double>(total);
}

std::optional<double> ProgramConfig::run_plain_p(const std::string& variant) const {
  const auto p = variants.find("plain"), r = variants.find(variant);
  if (p == variants.end() || r == variants.end()) return std::nullopt;
  return rank_sum_p(r->second.runs_ns, p->second.runs_ns);
}

ProgramValidation parse_program_validation(const std::string& text, const std::string& source) {
  ProgramValidation v;
  try {
    const Json j = Json::parse(text);
    if (j.value("format", "") != "streamlab-program-validation")
      throw model::InputError(source, "/format", "", "not a program validation results file");
    const Json& m = j.at("meta");
    v.device = m.value("device", "");
    v.driver = m.value("driver", "");
    v.cuda_version = m.value("cuda_version", "");
    v.date = m.value("date", "");
    v.profile = m.value("profile", "");
    v.predicted_with = m.value("predicted_with", "");
    v.repeats = m.value("repeats", 0u);
    for (const auto& f : m.value("failures", Json::array())) v.failures.push_back(f.get<std::string>());
    for (const auto& c : j.at("configs")) {
      ProgramConfig cfg;
      cfg.label = c.at("label").get<std::string>();
      cfg.scenario = c.at("scenario").get<std::string>();
      cfg.metric = c.at("metric").get<std::string>();
      cfg.connections = c.at("connections").get<std::uint32_t>();
      if (!c.at("predicted_ns").is_null()) cfg.predicted_ns = c.at("predicted_ns").get<double>();
      if (c.contains("predicted_range_ns")) {
        const Json& r = c.at("predicted_range_ns");
        if (!r.is_array() || r.size() != 2 || !(r[0].get<double>() <= r[1].get<double>()))
          throw model::InputError(source, "/configs/" + cfg.label + "/predicted_range_ns", cfg.label,
                                  "a predicted range is [low, high] with low <= high");
        cfg.predicted_range_ns = std::make_pair(r[0].get<double>(), r[1].get<double>());
      }
      for (const char* name : {"plain", "run", "records", "run-gpu-timer"}) {
        if (!c.contains(name)) continue;
        VariantRuns r;
        for (const auto& x : c.at(name).at("runs_ns")) r.runs_ns.push_back(x.get<double>());
        // A variant the suite skips for this program (run-gpu-timer of one without copies) has no runs.
        if (r.runs_ns.empty() && std::string_view(name) == "run-gpu-timer") continue;
        cfg.variants[name] = std::move(r);
      }
      v.configs.push_back(std::move(cfg));
    }
  } catch (const Json::exception& e) {
    throw model::InputError(source, "", "", std::string("malformed program validation results: ") + e.what());
  }
  return v;
}

std::vector<ProgramValidation> load_program_validations(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<ProgramValidation> out;
  for (const auto& f : files) {
    const std::string text = model::read_text_file(f);
    if (text.find("\"streamlab-program-validation\"") == std::string::npos) continue;
    out.push_back(parse_program_validation(text, f.string()));
    out.back().file = f;
  }
  // In the order they were measured (ISO dates sort as text), not by file name: V1-run103 before V1-run93.
  std::stable_sort(out.begin(), out.end(), [](const ProgramValidation& a, const ProgramValidation& b) { return a.date < b.date; });
  return out;
}

// When the suite was measured (the date to the minute), which tells one measured suite from another in the
// report's headings and summary rows.
std::string measured_when(const ProgramValidation& v) {
  std::string d = v.date.substr(0, 16);
  std::replace(d.begin(), d.end(), 'T', ' ');
  return d.empty() ? "date unknown" : d + " UTC";
}

std::string program_validation_row(const ProgramValidation& v) {
  const Counts c = count(v);
  std::ostringstream os;
  os << "| V1 Program replay validation (measured " << measured_when(v) << ") | `streamlab run` (replay, traced) issues what the plain CUDA program does "
        "(within 2%); `streamlab sim` predicts it from the profile alone (within 5%) | "
     << c.judged_sim << " configurations predicted | ";
  if (c.has_untimed) {
    os << c.untimed.ok << "/" << c.untimed.judged << " runs within 2% of the plain program with copies untimed, "
       << c.untimed.alike << " more not told apart (copies timed by CUPTI: " << c.run.ok << ", " << c.run.alike << ")";
  } else {
    os << c.run.ok << "/" << c.run.judged << " runs within 2% of the plain program, " << c.run.alike
       << " more not told apart from its runs";
  }
  const RunCounts& judged = c.has_untimed ? c.untimed : c.run;
  os << " | sim: " << c.sim_ok << "/" << c.judged_sim << " within 5%, median |error| " << pct(c.median_abs_sim).substr(1)
     << "; " << c.sim_in_range
     << (has_ranges(v) ? " more with the plain median inside the predicted range" : " more inside the measured range") << " | **"
     << (judged.ok + judged.alike == judged.judged && c.sim_ok + c.sim_in_range == c.judged_sim &&
                 c.median_abs_sim <= kSimMedianTarget
             ? "confirmed"
             : "partly")
     << "** |\n";
  return os.str();
}

std::string program_validation_section(const ProgramValidation& v, const std::filesystem::path& report_dir) {
  const Counts c = count(v);
  std::ostringstream os;
  os << "## V1: Program replay validation, measured " << measured_when(v)
     << " (plain CUDA vs `streamlab run` vs `streamlab sim`)\n\n";
  os << "**Claim.** A CUDA program written as a program workload is measured by `streamlab run` without being "
        "changed (its median within 2% of the same program written as plain, untraced CUDA) and predicted by "
        "`streamlab sim` from the device profile alone (within 5%, median error at most 2%; where the hardware's "
        "own run-to-run spread is wider, the measured runs inside the predicted range).\n\n";
  os << "**Setup.** Every scenario is a hand-written program in `experiments/plain/` (one file each) whose calls "
        "are also written out as the program workload that `streamlab run` and `streamlab sim` replay; "
        "`experiments/scripts/program_suite.py` runs, in " << v.repeats
     << " rounds on fresh processes, the plain program, `streamlab run` and (where measured) the plain program "
        "with a completion event recorded after every work call (what the Dispatcher adds for its non-replay "
        "policies) and, for the programs with copies, `streamlab run --timing gpu-timer` (copies left untimed: "
        "timing a copy has the copy engine write a timestamp, about 1.3 us of engine time per copy), each "
        "under the configuration's CUDA_DEVICE_MAX_CONNECTIONS. The metric is when the program's metric "
        "synchronize returned, from its first call: `end` (its final cudaDeviceSynchronize) or, for the "
        "priority scenario, `fg_done` (the foreground stream's synchronize). Errors are against the plain "
        "program's median; spread = (max - min) / median of its runs.\n\n";
  os << "*Measured:* " << v.device << " (driver " << v.driver << ", CUDA " << v.cuda_version << "), " << v.date
     << ". *Predicted:* " << v.predicted_with << " with " << v.profile << ".";
  std::error_code ec;
  auto rel = std::filesystem::relative(v.file, report_dir, ec);
  os << " Results: `" << (ec || rel.empty() ? v.file.generic_string() : rel.generic_string()) << "`.\n\n";
  const bool ranges = has_ranges(v);
  os << "| configuration | conn | plain (ms) | plain spread | run (ms) | run spread | run vs plain | run vs plain p | "
     << (c.has_untimed ? "run, copies untimed (ms) | vs plain | p | " : "") << "sim (ms) | sim error | "
     << (ranges ? "sim range (ms): plain runs inside" : "sim in measured range") << " | records vs plain |\n";
  os << "|---|---|---|---|---|---|---|---|" << (c.has_untimed ? "---|---|---|" : "") << "---|---|---|---|\n";
  for (const auto& cfg : v.configs) {
    auto med = [&](const char* k) -> std::string {
      const auto it = cfg.variants.find(k);
      const auto m = it == cfg.variants.end() ? std::nullopt : it->second.median();
      return m ? ms(*m) : "n/a";
    };
    const auto p = cfg.variants.find("plain");
    const auto spread = p == cfg.variants.end() ? std::nullopt : p->second.spread();
    std::optional<double> rec;
    if (const auto r = cfg.variants.find("records"); r != cfg.variants.end() && p != cfg.variants.end()) {
      const auto rm = r->second.median(), pm = p->second.median();
      if (rm && pm && *pm > 0) rec = *rm / *pm - 1;
    }
    const auto r = cfg.variants.find("run");
    const auto run_spread = r == cfg.variants.end() ? std::nullopt : r->second.spread();
    os << "| `" << cfg.label << "` | " << cfg.connections << " | " << med("plain") << " | "
       << (spread ? pct(*spread).substr(1) : "n/a") << " | " << med("run") << " | "
       << (run_spread ? pct(*run_spread).substr(1) : "n/a") << " | " << opt_pct(cfg.run_error()) << " | "
       << p_cell(cfg.run_plain_p()) << " | ";
    if (c.has_untimed) {
      if (cfg.variants.count("run-gpu-timer") > 0) {
        os << med("run-gpu-timer") << " | " << opt_pct(cfg.run_error("run-gpu-timer")) << " | "
           << p_cell(cfg.run_plain_p("run-gpu-timer")) << " | ";
      } else {
        os << (cfg.variants.count("run") > 0 ? "= run | | | " : "n/a | | | ");
      }
    }
    os << (cfg.predicted_ns ? ms(*cfg.predicted_ns) : "n/a") << " | " << opt_pct(cfg.sim_error()) << " | "
       << range_cell(cfg, ranges) << " | " << opt_pct(rec)
       << " |\n";
  }
  os << "\n*run vs plain p:* two-sided exact rank-sum (Mann-Whitney) test of the run's and the plain program's "
        "runs; at 0.05 or above the two sets of runs are not told apart (with 5 runs each the smallest p "
        "possible is 0.008, so a difference the spread hides goes unseen: read it with the spreads).\n";
  if (c.has_untimed)
    os << "\n*run, copies untimed:* `streamlab run --timing gpu-timer`, measured for the programs with copies; \"= run\" "
          "marks a program without copies, which `streamlab run` already runs without CUPTI.\n";
  os << "\n**Verdict.** `streamlab run` within 2% of the plain program: " << c.run.ok << " of " << c.run.judged
     << " configurations; of the rest, " << c.run.alike << " are not told apart from the plain program's runs (p >= 0.05)";
  if (c.has_untimed)
    os << ". With the copies left untimed (`--timing gpu-timer`, which changes nothing the copy engines do): "
       << c.untimed.ok << " of " << c.untimed.judged << "; of the rest, " << c.untimed.alike << " not told apart";
  os << ". `streamlab sim` within 5%: " << c.sim_ok << " of " << c.judged_sim << " (median |error| "
     << pct(c.median_abs_sim).substr(1) << "); of the rest, " << c.sim_in_range
     << (has_ranges(v) ? " have the plain program's median inside the predicted range (a host in a fast to a slow "
                         "spell: the profile's host API costs from end to end of the ranges calibrate measured, as its sources say, "
                         "and a launch's extra costs moved by the launch's own factor)"
                       : " are inside the measured runs' range")
     << ".\n\n";
  if (!v.failures.empty()) {
    os << "Runs that failed (" << v.failures.size() << "):\n\n";
    for (const auto& f : v.failures) os << "- " << f << "\n";
    os << "\n";
  }
  return os.str();
}

}  // namespace streamlab::experiments
