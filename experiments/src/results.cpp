// Result files: JSON (the source of truth), CSV, device slugs, git commit and dates.
#include "streamlab/experiments/results.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"

namespace streamlab::experiments {

using nlohmann::ordered_json;

std::string_view to_string(Outcome o) noexcept {
  switch (o) {
    case Outcome::confirmed: return "confirmed";
    case Outcome::refuted: return "refuted";
    case Outcome::depends: return "depends";
    case Outcome::not_measured: return "not measured";
  }
  return "?";
}

std::optional<Outcome> parse_outcome(std::string_view s) noexcept {
  for (Outcome o : {Outcome::confirmed, Outcome::refuted, Outcome::depends, Outcome::not_measured})
    if (to_string(o) == s) return o;
  return std::nullopt;
}

std::string ConfigResult::param(std::string_view key) const {
  for (const auto& [k, v] : params)
    if (k == key) return v;
  return "";
}

namespace {
double rel_error(double a, double b) {
  if (!has_value(a) || !has_value(b) || b == 0) return kNone;
  return (a - b) / b;
}
}  // namespace

double ConfigResult::makespan_error() const noexcept {
  return measured ? rel_error(predicted.makespan_ns, measured->makespan_ns) : kNone;
}
double ConfigResult::metric_error() const noexcept {
  return measured ? rel_error(predicted.metric, measured->metric) : kNone;
}

namespace {
bool within(double v, double low, double high) { return has_value(v) && has_value(low) && has_value(high) && v >= low && v <= high; }
void widen(double v, double& low, double& high) {
  if (!has_value(v)) return;
  low = has_value(low) ? std::min(low, v) : v;
  high = has_value(high) ? std::max(high, v) : v;
}
}  // namespace

bool PredictedRange::makespan_contains(double v) const noexcept { return within(v, makespan_low_ns, makespan_high_ns); }
bool PredictedRange::metric_contains(double v) const noexcept { return within(v, metric_low, metric_high); }
void PredictedRange::add(const Measurement& m) noexcept {
  widen(m.makespan_ns, makespan_low_ns, makespan_high_ns);
  widen(m.metric, metric_low, metric_high);
  ++variants;
}

bool ConfigResult::measured_inside_predicted_range(bool makespan) const noexcept {
  if (!measured || !predicted_range) return false;
  return makespan ? predicted_range->makespan_contains(measured->makespan_ns)
                  : predicted_range->metric_contains(measured->metric);
}

bool ExperimentResult::measured() const noexcept {
  return std::any_of(configs.begin(), configs.end(), [](const ConfigResult& c) { return c.measured.has_value(); });
}

// JSON ---------------------------------------------------------------------------------------------------

namespace {

ordered_json num(double v) { return has_value(v) ? ordered_json(v) : ordered_json(nullptr); }

ordered_json measurement_json(const Measurement& m) {
  ordered_json j;
  j["makespan_ns"] = num(m.makespan_ns);
  j["metric"] = num(m.metric);
  ordered_json extra = ordered_json::object();
  for (const auto& [k, v] : m.extra) extra[k] = num(v);
  j["extra"] = extra;
  return j;
}

ordered_json range_json(const std::optional<PredictedRange>& r) {
  if (!r) return nullptr;
  ordered_json j = {{"variants", r->variants}};
  if (!r->axes.empty()) j["axes"] = r->axes;
  j.update(ordered_json{{"makespan_low_ns", num(r->makespan_low_ns)}, {"makespan_high_ns", num(r->makespan_high_ns)},
                        {"metric_low", num(r->metric_low)}, {"metric_high", num(r->metric_high)}});
  return j;
}

ordered_json diagnosis_json(const Diagnosis& d) {
  if (!d.available) return nullptr;
  ordered_json j;
  ordered_json dur = ordered_json::object();
  for (const auto& [k, t] : d.duration)
    dur[k] = {{"predicted_mean_ns", t.predicted_mean_ns}, {"measured_mean_ns", t.measured_mean_ns},
              {"mean_bytes", t.mean_bytes}, {"ops", t.ops}};
  j["duration"] = dur;
  j["first_start_predicted_ns"] = d.first_start_predicted_ns;
  j["first_start_measured_ns"] = d.first_start_measured_ns;
  j["overlap_predicted"] = d.overlap_predicted;
  j["overlap_measured"] = d.overlap_measured;
  j["concurrency_predicted"] = d.concurrency_predicted;
  j["concurrency_measured"] = d.concurrency_measured;
  j["mean_abs_start_error_ns"] = d.mean_abs_start_error_ns;
  return j;
}

// Reading: every access names its JSON pointer on failure.
struct Reader {
  const std::string& source;
  [[noreturn]] void fail(const std::string& ptr, const std::string& why) const {
    throw model::InputError(source, ptr, "", why);
  }
  const ordered_json& at(const ordered_json& j, const std::string& key, const std::string& ptr) const {
    if (!j.is_object()) fail(ptr, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) fail(ptr + "/" + key, "missing");
    return *it;
  }
  std::string str(const ordered_json& j, const std::string& key, const std::string& ptr) const {
    const auto& v = at(j, key, ptr);
    if (!v.is_string()) fail(ptr + "/" + key, "expected a string");
    return v.get<std::string>();
  }
  double number(const ordered_json& v, const std::string& ptr) const {
    if (v.is_null()) return kNone;
    if (!v.is_number()) fail(ptr, "expected a number or null");
    return v.get<double>();
  }
  double num(const ordered_json& j, const std::string& key, const std::string& ptr) const {
    return number(at(j, key, ptr), ptr + "/" + key);
  }
  bool boolean(const ordered_json& j, const std::string& key, const std::string& ptr) const {
    const auto& v = at(j, key, ptr);
    if (!v.is_boolean()) fail(ptr + "/" + key, "expected true or false");
    return v.get<bool>();
  }
  Measurement measurement(const ordered_json& j, const std::string& ptr) const {
    Measurement m;
    m.makespan_ns = num(j, "makespan_ns", ptr);
    m.metric = num(j, "metric", ptr);
    const auto& extra = at(j, "extra", ptr);
    if (!extra.is_object()) fail(ptr + "/extra", "expected an object");
    for (auto it = extra.begin(); it != extra.end(); ++it) m.extra[it.key()] = number(it.value(), ptr + "/extra/" + it.key());
    return m;
  }
  // `j` null = no range; low above high is a wrong file.
  std::optional<PredictedRange> range(const ordered_json& j, const std::string& ptr) const {
    if (j.is_null()) return std::nullopt;
    PredictedRange r;
    const auto& n = at(j, "variants", ptr);
    if (!n.is_number_unsigned() || n.get<std::uint64_t>() == 0 || n.get<std::uint64_t>() > 1024)
      fail(ptr + "/variants", "expected the number of simulated variants (1 to 1024)");
    r.variants = n.get<std::uint32_t>();
    if (const auto it = j.find("axes"); it != j.end()) {
      if (!it->is_array()) fail(ptr + "/axes", "expected an array of what the variants vary");
      for (std::size_t i = 0; i < it->size(); ++i) {
        const auto& a = (*it)[i];
        if (!a.is_string() || std::find(kRangeAxes.begin(), kRangeAxes.end(), a.get<std::string>()) == kRangeAxes.end())
          fail(ptr + "/axes/" + std::to_string(i), "expected one of host-speed, copy-queues, copy-queue-order, kernel-race");
        r.axes.push_back(a.get<std::string>());
      }
    }
    r.makespan_low_ns = num(j, "makespan_low_ns", ptr);
    r.makespan_high_ns = num(j, "makespan_high_ns", ptr);
    r.metric_low = num(j, "metric_low", ptr);
    r.metric_high = num(j, "metric_high", ptr);
    if (has_value(r.makespan_low_ns) != has_value(r.makespan_high_ns) || r.makespan_low_ns > r.makespan_high_ns)
      fail(ptr + "/makespan_low_ns", "a predicted range has both ends, low <= high, or neither");
    if (has_value(r.metric_low) != has_value(r.metric_high) || r.metric_low > r.metric_high)
      fail(ptr + "/metric_low", "a predicted range has both ends, low <= high, or neither");
    return r;
  }
  Verdict verdict(const ordered_json& j, const std::string& ptr) const {
    Verdict v;
    const std::string o = str(j, "outcome", ptr);
    const auto parsed = parse_outcome(o);
    if (!parsed) fail(ptr + "/outcome", "unknown outcome '" + o + "'");
    v.outcome = *parsed;
    v.why = str(j, "why", ptr);
    return v;
  }
};

}  // namespace

std::string result_to_json(const ExperimentResult& r) {
  ordered_json j;
  j["format"] = "streamlab-experiment-result";
  j["format_version"] = 1;
  j["experiment"] = r.name;
  j["title"] = r.title;
  j["claim"] = r.claim;
  j["source"] = r.source;
  j["setup"] = r.setup;
  j["metric"] = {{"name", r.metric.name}, {"description", r.metric.description}, {"unit", r.metric.unit},
                 {"scale", r.metric.scale}};
  j["makespan_target"] = r.makespan_target;
  j["has_makespan"] = r.has_makespan;
  const RunMeta& m = r.meta;
  j["meta"] = {{"device_slug", m.device_slug}, {"device_name", m.device_name}, {"driver", m.driver},
               {"cuda_version", m.cuda_version}, {"date", m.date}, {"profile", m.profile},
               {"version", m.version}, {"git_commit", m.git_commit}, {"command_line", m.command_line},
               {"measured", m.measured}, {"quick", m.quick}, {"repeats", m.repeats}, {"note", m.note}};
  j["meta"]["profile_data"] = m.profile_data.empty() ? ordered_json(nullptr) : ordered_json::parse(m.profile_data);
  ordered_json configs = ordered_json::array();
  for (const auto& c : r.configs) {
    ordered_json cj;
    cj["label"] = c.label;
    ordered_json params = ordered_json::object();
    for (const auto& [k, v] : c.params) params[k] = v;
    cj["params"] = params;
    cj["predicted"] = measurement_json(c.predicted);
    cj["predicted_range"] = range_json(c.predicted_range);
    cj["measured"] = c.measured ? measurement_json(*c.measured) : ordered_json(nullptr);
    cj["measured_runs"] = c.measured_runs;
    cj["measured_spread"] = num(c.measured_spread);
    cj["makespan_error"] = num(c.makespan_error());
    cj["metric_error"] = num(c.metric_error());
    cj["diagnosis"] = diagnosis_json(c.diagnosis);
    configs.push_back(std::move(cj));
  }
  j["configurations"] = configs;
  j["verdict"] = {{"predicted", {{"outcome", to_string(r.predicted_verdict.outcome)}, {"why", r.predicted_verdict.why}}},
                  {"measured", {{"outcome", to_string(r.measured_verdict.outcome)}, {"why", r.measured_verdict.why}}}};
  return j.dump(2) + "\n";
}

ExperimentResult parse_result_json(std::string_view text, const std::string& source) {
  ordered_json j;
  try {
    // Results nest a few levels; a hostile file nested thousands deep would overflow the stack when the
    // value is copied or printed, so deeper nesting is refused as it is read.
    constexpr int kMaxDepth = 256;
    j = ordered_json::parse(text, [&](int depth, nlohmann::json::parse_event_t, ordered_json&) {
      if (depth > kMaxDepth)
        throw model::InputError(source, "", "", "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
      return true;
    });
  } catch (const nlohmann::json::parse_error& e) {
    // Our own words, not the library's "[json.exception.parse_error.101] ..." text.
    if (e.byte >= text.size())
      throw model::InputError(source, "end of file", "",
                              "the result file ends early (truncated: re-run the experiment or restore the file)");
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw model::InputError(source, "line " + std::to_string(line) + ", column " + std::to_string(column), "",
                            "malformed JSON");
  }
  const Reader rd{source};
  if (rd.str(j, "format", "") != "streamlab-experiment-result") rd.fail("/format", "not a streamlab experiment result");
  const auto& fv = rd.at(j, "format_version", "");
  if (!fv.is_number_integer() || fv.get<int>() != 1) rd.fail("/format_version", "unsupported version (this build reads 1)");
  ExperimentResult r;
  r.name = rd.str(j, "experiment", "");
  r.title = rd.str(j, "title", "");
  r.claim = rd.str(j, "claim", "");
  r.source = rd.str(j, "source", "");
  r.setup = rd.str(j, "setup", "");
  const auto& mj = rd.at(j, "metric", "");
  r.metric.name = rd.str(mj, "name", "/metric");
  r.metric.description = rd.str(mj, "description", "/metric");
  r.metric.unit = rd.str(mj, "unit", "/metric");
  r.metric.scale = rd.num(mj, "scale", "/metric");
  r.makespan_target = rd.boolean(j, "makespan_target", "");
  r.has_makespan = rd.boolean(j, "has_makespan", "");
  const auto& meta = rd.at(j, "meta", "");
  RunMeta& m = r.meta;
  m.device_slug = rd.str(meta, "device_slug", "/meta");
  m.device_name = rd.str(meta, "device_name", "/meta");
  m.driver = rd.str(meta, "driver", "/meta");
  m.cuda_version = rd.str(meta, "cuda_version", "/meta");
  m.date = rd.str(meta, "date", "/meta");
  m.profile = rd.str(meta, "profile", "/meta");
  m.version = rd.str(meta, "version", "/meta");
  m.git_commit = rd.str(meta, "git_commit", "/meta");
  m.command_line = rd.str(meta, "command_line", "/meta");
  m.measured = rd.boolean(meta, "measured", "/meta");
  m.quick = rd.boolean(meta, "quick", "/meta");
  m.repeats = static_cast<std::uint32_t>(rd.num(meta, "repeats", "/meta"));
  m.note = rd.str(meta, "note", "/meta");
  if (auto it = meta.find("profile_data"); it != meta.end() && !it->is_null()) {
    if (!it->is_object()) rd.fail("/meta/profile_data", "expected the device profile object or null");
    m.profile_data = it->dump(2);
  }
  const auto& configs = rd.at(j, "configurations", "");
  if (!configs.is_array()) rd.fail("/configurations", "expected an array");
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const std::string ptr = "/configurations/" + std::to_string(i);
    const auto& cj = configs[i];
    ConfigResult c;
    c.label = rd.str(cj, "label", ptr);
    const auto& params = rd.at(cj, "params", ptr);
    if (!params.is_object()) rd.fail(ptr + "/params", "expected an object");
    for (auto it = params.begin(); it != params.end(); ++it) {
      if (!it.value().is_string()) rd.fail(ptr + "/params/" + it.key(), "expected a string");
      c.params.emplace_back(it.key(), it.value().get<std::string>());
    }
    c.predicted = rd.measurement(rd.at(cj, "predicted", ptr), ptr + "/predicted");
    // Results written before ranges were predicted have no key.
    if (const auto it = cj.find("predicted_range"); it != cj.end()) c.predicted_range = rd.range(*it, ptr + "/predicted_range");
    const auto& meas = rd.at(cj, "measured", ptr);
    if (!meas.is_null()) c.measured = rd.measurement(meas, ptr + "/measured");
    c.measured_runs = static_cast<std::uint32_t>(rd.num(cj, "measured_runs", ptr));
    c.measured_spread = rd.num(cj, "measured_spread", ptr);
    const auto& dj = rd.at(cj, "diagnosis", ptr);
    if (!dj.is_null()) {
      const std::string dp = ptr + "/diagnosis";
      Diagnosis& d = c.diagnosis;
      d.available = true;
      const auto& dur = rd.at(dj, "duration", dp);
      if (!dur.is_object()) rd.fail(dp + "/duration", "expected an object");
      for (auto it = dur.begin(); it != dur.end(); ++it) {
        const std::string kp = dp + "/duration/" + it.key();
        Diagnosis::KindTimes t;
        t.predicted_mean_ns = rd.num(it.value(), "predicted_mean_ns", kp);
        t.measured_mean_ns = rd.num(it.value(), "measured_mean_ns", kp);
        t.mean_bytes = rd.num(it.value(), "mean_bytes", kp);
        t.ops = static_cast<std::uint32_t>(rd.num(it.value(), "ops", kp));
        d.duration[it.key()] = t;
      }
      d.first_start_predicted_ns = rd.num(dj, "first_start_predicted_ns", dp);
      d.first_start_measured_ns = rd.num(dj, "first_start_measured_ns", dp);
      d.overlap_predicted = rd.num(dj, "overlap_predicted", dp);
      d.overlap_measured = rd.num(dj, "overlap_measured", dp);
      d.concurrency_predicted = rd.num(dj, "concurrency_predicted", dp);
      d.concurrency_measured = rd.num(dj, "concurrency_measured", dp);
      d.mean_abs_start_error_ns = rd.num(dj, "mean_abs_start_error_ns", dp);
    }
    r.configs.push_back(std::move(c));
  }
  const auto& vj = rd.at(j, "verdict", "");
  r.predicted_verdict = rd.verdict(rd.at(vj, "predicted", "/verdict"), "/verdict/predicted");
  r.measured_verdict = rd.verdict(rd.at(vj, "measured", "/verdict"), "/verdict/measured");

  return r;
}

// CSV ----------------------------------------------------------------------------------------------------

namespace {

std::string csv_cell(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

// Integers where the value is whole (times in ns), otherwise 6 significant digits; empty for none.
std::string csv_num(double v) {
  if (!has_value(v)) return "";
  char buf[64];
  if (std::abs(v) < 9e15 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  }
  return buf;
}

}  // namespace

std::string result_to_csv(const ExperimentResult& r) {
  std::vector<std::string> param_keys;
  std::set<std::string> extras;
  for (const auto& c : r.configs) {
    for (const auto& [k, v] : c.params)
      if (std::find(param_keys.begin(), param_keys.end(), k) == param_keys.end()) param_keys.push_back(k);
    for (const auto& [k, v] : c.predicted.extra) extras.insert(k);
    if (c.measured)
      for (const auto& [k, v] : c.measured->extra) extras.insert(k);
  }
  std::ostringstream os;
  os << "experiment,config";
  for (const auto& k : param_keys) os << ',' << csv_cell(k);
  const std::string& m = r.metric.name;
  os << ",predicted_makespan_ns,measured_makespan_ns,makespan_error,predicted_" << m << ",measured_" << m
     << ",metric_error,measured_runs,measured_spread,predicted_makespan_low_ns,predicted_makespan_high_ns,predicted_" << m
     << "_low,predicted_" << m << "_high";
  for (const auto& e : extras) os << ",predicted_" << e << ",measured_" << e;
  os << '\n';
  for (const auto& c : r.configs) {
    os << csv_cell(r.name) << ',' << csv_cell(c.label);
    for (const auto& k : param_keys) os << ',' << csv_cell(c.param(k));
    const Measurement* meas = c.measured ? &*c.measured : nullptr;
    os << ',' << csv_num(c.predicted.makespan_ns) << ',' << csv_num(meas ? meas->makespan_ns : kNone) << ','
       << csv_num(c.makespan_error()) << ',' << csv_num(c.predicted.metric) << ','
       << csv_num(meas ? meas->metric : kNone) << ',' << csv_num(c.metric_error()) << ',' << c.measured_runs << ','
       << csv_num(c.measured_spread);
    const PredictedRange range = c.predicted_range.value_or(PredictedRange{});
    os << ',' << csv_num(range.makespan_low_ns) << ',' << csv_num(range.makespan_high_ns) << ','
       << csv_num(range.metric_low) << ',' << csv_num(range.metric_high);
    for (const auto& e : extras) {
      auto get = [&e](const Measurement* x) {
        if (!x) return kNone;
        auto it = x->extra.find(e);
        return it == x->extra.end() ? kNone : it->second;
      };
      os << ',' << csv_num(get(&c.predicted)) << ',' << csv_num(get(meas));
    }
    os << '\n';
  }
  return os.str();
}

void write_result_files(const ExperimentResult& r, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw model::InputError(dir.string(), "", "", "cannot create the results folder: " + ec.message());
  model::write_file_atomically(dir / (r.name + ".json"), result_to_json(r));
  model::write_file_atomically(dir / (r.name + ".csv"), result_to_csv(r));
}

std::vector<ExperimentResult> load_results(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  if (ec) throw model::InputError(dir.string(), "", "", "cannot read the results folder: " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<ExperimentResult> out;
  for (const auto& f : files) {
    const std::string text = model::read_text_file(f);
    // Other JSON files may sit beside results (traces): only ours are read.
    if (text.find("\"streamlab-experiment-result\"") == std::string::npos) continue;
    out.push_back(parse_result_json(text, f.string()));
  }
  std::sort(out.begin(), out.end(), [](const ExperimentResult& a, const ExperimentResult& b) {
    // E2 before E10: by length, then text.
    return a.name.size() != b.name.size() ? a.name.size() < b.name.size() : a.name < b.name;
  });
  return out;
}

// Names ----------------------------------------------------------------------------------------------------

std::string device_slug(std::string_view name) {
  // A model token: a letter (or two) followed by digits, e.g. H100, A100, L40S, GH200, RTX4090.
  std::string token;
  std::istringstream is{std::string(name)};
  for (std::string w; is >> w;) {
    std::size_t letters = 0;
    while (letters < w.size() && std::isalpha(static_cast<unsigned char>(w[letters]))) ++letters;
    if (letters >= 1 && letters <= 3 && letters < w.size() && std::isdigit(static_cast<unsigned char>(w[letters]))) {
      token = w;
      break;
    }
  }
  std::string src = token.empty() ? std::string(name) : token;
  std::string out;
  for (char ch : src) {
    const auto u = static_cast<unsigned char>(ch);
    if (std::isalnum(u)) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "device" : out;
}

std::string git_commit(const std::filesystem::path& start) {
  std::error_code ec;
  auto dir = std::filesystem::absolute(start, ec);
  if (ec) return "";
  for (; !dir.empty(); dir = dir.parent_path()) {
    const auto git = dir / ".git";
    if (std::filesystem::is_directory(git, ec)) {
      std::ifstream head(git / "HEAD");
      std::string line;
      if (!std::getline(head, line)) return "";
      if (line.rfind("ref: ", 0) != 0) return line;  // detached HEAD
      const std::string ref = line.substr(5);
      std::ifstream rf(git / ref);
      std::string sha;
      if (std::getline(rf, sha)) return sha;
      std::ifstream packed(git / "packed-refs");
      for (std::string l; std::getline(packed, l);) {
        if (l.size() > 41 && l.compare(41, std::string::npos, ref) == 0) return l.substr(0, 40);
      }
      return "";
    }
    if (dir == dir.parent_path()) break;
  }
  return "";
}

std::string utc_now_iso() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace streamlab::experiments
