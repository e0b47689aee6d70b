// Sweep spec parsing (TOML through toml++): every entry is checked here, with the spec's line in the error.
#include "streamlab/experiments/sweep_spec.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <charconv>
#include <string>

#include <toml++/toml.h>

#include "streamlab/experiments/sweep_generators.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::experiments {

std::string_view to_string(SweepMode m) noexcept {
  switch (m) {
    case SweepMode::simulated: return "simulated";
    case SweepMode::measured: return "measured";
    case SweepMode::both: return "both";
  }
  return "?";
}

void throw_spec_error(const SweepSpec& spec, std::uint32_t line, const std::string& reason) {
  throw model::InputError(spec.file.string(), line == 0 ? std::string() : "line " + std::to_string(line), "",
                          reason);
}

namespace {

/// "'key'" (built by appending: GCC 12 warns falsely about `"'" + std::string`).
std::string q(std::string_view key) {
  std::string s(1, '\'');
  s.append(key);
  s += '\'';
  return s;
}

std::uint32_t line_of(const toml::node& n) { return static_cast<std::uint32_t>(n.source().begin.line); }

std::string joined(const auto& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += std::string(n);
  }
  return out;
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date/time";
  }
}

/// Reads one spec; holds the spec so every error can name its file.
class SpecReader {
 public:
  explicit SpecReader(SweepSpec& spec) : spec_(spec) {}

  [[noreturn]] void fail(const toml::node& n, const std::string& reason) const {
    throw_spec_error(spec_, line_of(n), reason);
  }

  /// A scalar or an array of scalars: the elements, each checked to be of the axis's element kind.
  std::vector<const toml::node*> elements(const toml::node& n, std::string_view key) const {
    std::vector<const toml::node*> out;
    if (const toml::array* a = n.as_array()) {
      for (const toml::node& e : *a) out.push_back(&e);
      if (out.empty()) fail(n, q(key) + " is empty: give at least one value");
    } else {
      out.push_back(&n);
    }
    return out;
  }

  std::string text(const toml::node& n, std::string_view key) const {
    if (const auto* s = n.as_string()) return s->get();
    fail(n, q(key) + " takes strings, not " + type_name(n));
  }

  std::int64_t integer(const toml::node& n, std::string_view key, std::int64_t lo, std::int64_t hi) const {
    const auto* i = n.as_integer();
    if (i == nullptr) fail(n, q(key) + " takes integers, not " + type_name(n));
    const std::int64_t v = i->get();
    if (v < lo || v > hi) {
      fail(n, q(key) + " = " + std::to_string(v) + " is out of range (" + std::to_string(lo) +
                  ".." + std::to_string(hi) + ")");
    }
    return v;
  }

  double real(const toml::node& n, std::string_view key) const {
    if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
    if (const auto* f = n.as_floating_point()) return f->get();
    fail(n, q(key) + " takes a number, not " + type_name(n));
  }

  std::vector<std::string> texts(const toml::node& n, std::string_view key) const {
    std::vector<std::string> out;
    for (const toml::node* e : elements(n, key)) out.push_back(text(*e, key));
    return out;
  }

  Axis<std::uint32_t> integers(const toml::node& n, std::string_view key, std::int64_t lo, std::int64_t hi) const {
    Axis<std::uint32_t> a;
    a.line = line_of(n);
    for (const toml::node* e : elements(n, key))
      a.values.push_back(static_cast<std::uint32_t>(integer(*e, key, lo, hi)));
    no_duplicates(n, key, a.values);
    return a;
  }

  template <class T>
  void no_duplicates(const toml::node& n, std::string_view key, const std::vector<T>& v) const {
    std::set<T> seen(v.begin(), v.end());
    if (seen.size() != v.size()) fail(n, q(key) + " lists a value twice");
  }

  SweepMode mode(const toml::node& n) const {
    const std::string s = text(n, "mode");
    if (s == "simulated") return SweepMode::simulated;
    if (s == "measured") return SweepMode::measured;
    if (s == "both") return SweepMode::both;
    fail(n, "unknown mode '" + s + "' (known: simulated, measured, both)");
  }

  void read(const toml::table& root) {
    // Two passes: `mode` is the default of every workload entry, wherever it appears in the file.
    if (const toml::node* m = root.get("mode")) default_mode_ = mode(*m);
    for (auto&& [key, node] : root) {
      const std::string k(key.str());
      if (k == "version") {
        if (integer(node, k, 1, std::numeric_limits<std::int64_t>::max()) != 1)
          fail(node, "spec version " + std::to_string(node.as_integer()->get()) + " is not supported (this streamlab reads version 1)");
      } else if (k == "name") {
        spec_.name = text(node, k);
      } else if (k == "mode") {
        // read above
      } else if (k == "workloads") {
        read_workloads(node);
      } else if (k == "profiles") {
        spec_.profiles = {texts(node, k), line_of(node)};
        no_duplicates(node, k, spec_.profiles.values);
      } else if (k == "policies") {
        spec_.policies = {texts(node, k), line_of(node)};
        const auto known = policies::policy_names();
        for (const std::string& p : spec_.policies.values)
          if (std::find(known.begin(), known.end(), p) == known.end())
            fail(node, "unknown policy '" + p + "' (known: " + joined(known) + ")");
        no_duplicates(node, k, spec_.policies.values);
      } else if (k == "streams") {
        spec_.streams = integers(node, k, 1, 1024);
      } else if (k == "windows") {
        spec_.windows = integers(node, k, 0, 1 << 20);
      } else if (k == "connections") {
        spec_.connections = integers(node, k, 1, 32);
      } else if (k == "stream_kinds") {
        spec_.stream_kinds = {{}, line_of(node)};
        for (const std::string& s : texts(node, k)) {
          auto kind = policies::parse_stream_kind(s);
          if (!kind) fail(node, "unknown stream kind '" + s + "' (known: blocking, non-blocking, legacy, per-thread)");
          spec_.stream_kinds.values.push_back(*kind);
        }
        no_duplicates(node, k, spec_.stream_kinds.values);
      } else if (k == "hints") {
        spec_.hints = {{}, line_of(node)};
        for (const std::string& s : texts(node, k)) {
          auto h = policies::parse_hint_mode(s);
          if (!h) fail(node, "unknown hint mode '" + s + "' (known: honor, ignore)");
          spec_.hints.values.push_back(*h);
        }
        no_duplicates(node, k, spec_.hints.values);
      } else if (k == "repeats") {
        spec_.repeats = static_cast<std::uint32_t>(integer(node, k, 1, 10'000));
      } else if (k == "traced") {
        const auto* b = node.as_boolean();
        if (b == nullptr) fail(node, "'traced' takes true or false, not " + type_name(node));
        spec_.traced = b->get();
      } else if (k == "timeout_ms") {
        spec_.timeout_ms = real(node, k);
        if (!(spec_.timeout_ms > 0)) fail(node, "'timeout_ms' must be positive");
      } else if (k == "measure") {
        read_measure(node);
      } else {
        fail(node, "unknown key '" + k +
                       "' (known: version, name, mode, workloads, profiles, policies, streams, windows, "
                       "connections, stream_kinds, hints, repeats, traced, timeout_ms, measure)");
      }
    }
    if (spec_.workloads.empty()) throw_spec_error(spec_, 0, "no [[workloads]] entry: a sweep needs at least one");
  }

  void read_measure(const toml::node& n) {
    const toml::table* t = n.as_table();
    if (t == nullptr) fail(n, "'measure' is a table ([measure]), not " + type_name(n));
    for (auto&& [key, node] : *t) {
      const std::string k(key.str());
      if (k == "gpus") {
        spec_.gpus = integers(node, "gpus", 0, 1023).values;
      } else if (k == "wall_limit_s") {
        spec_.measure_wall_limit_s = real(node, k);
        if (!(spec_.measure_wall_limit_s > 0)) fail(node, "'wall_limit_s' must be positive");
      } else {
        fail(node, "unknown key '" + k + "' in [measure] (known: gpus, wall_limit_s)");
      }
    }
  }

  void read_workloads(const toml::node& n) {
    const toml::array* a = n.as_array();
    if (a == nullptr || !a->is_array_of_tables())
      fail(n, "'workloads' is a list of tables ([[workloads]] entries)");
    for (const toml::node& e : *a) read_workload(*e.as_table());
  }

  void read_workload(const toml::table& t) {
    WorkloadEntry w;
    w.line = line_of(t);
    w.mode = default_mode_;
    if (const toml::node* m = t.get("mode")) w.mode = mode(*m);
    if (const toml::node* g = t.get("generator")) {
      w.generator = text(*g, "generator");
      if (generator_params(w.generator).empty())
        fail(*g, "unknown generator '" + w.generator + "' (known: " + joined(generator_names()) + ")");
    }
    for (auto&& [key, node] : t) {
      const std::string k(key.str());
      if (k == "mode" || k == "generator") continue;
      if (k == "files") {
        if (!w.generator.empty()) fail(node, "a workload entry has either 'files' or 'generator', not both");
        for (const toml::node* e : elements(node, k)) {
          std::string pattern = text(*e, k);
          if (pattern.empty()) fail(*e, "an empty file name");
          w.files.emplace_back(std::move(pattern), line_of(*e));
        }
        continue;
      }
      if (w.generator.empty()) {
        fail(node, "unknown key '" + k + "' in a workload entry (known: files, generator, mode; generator "
                   "parameters need 'generator')");
      }
      w.gen_params.emplace_back(gen_values(w.generator, k, node), line_of(node));
    }
    if (w.generator.empty() && w.files.empty())
      throw_spec_error(spec_, w.line, "a workload entry needs 'files' or 'generator'");
    spec_.workloads.push_back(std::move(w));
  }

  std::vector<GenValue> gen_values(const std::string& generator, const std::string& key, const toml::node& n) const {
    const std::vector<GenParamInfo> params = generator_params(generator);
    auto it = std::find_if(params.begin(), params.end(), [&](const GenParamInfo& p) { return p.name == key; });
    if (it == params.end()) {
      std::vector<std::string_view> names;
      for (const auto& p : params) names.push_back(p.name);
      fail(n, "generator '" + generator + "' has no parameter '" + key + "' (known: " + joined(names) + ")");
    }
    std::vector<GenValue> out;
    for (const toml::node* e : elements(n, key)) {
      GenValue v;
      v.name = key;
      switch (it->type) {
        case GenParamType::integer: {
          const std::int64_t i = integer(*e, key, 0, std::numeric_limits<std::int64_t>::max());
          v.number = static_cast<double>(i);
          v.text = std::to_string(i);
          break;
        }
        case GenParamType::real: {
          v.number = real(*e, key);
          if (!std::isfinite(v.number) || v.number < 0) fail(*e, q(key) + " must be a finite number >= 0");
          // Labels print the value as typed in the spec.
          if (e->is_floating_point()) {
            char buf[32];
            const auto r = std::to_chars(buf, buf + sizeof buf, v.number);
            v.text.assign(buf, r.ptr);
          } else {
            v.text = std::to_string(e->as_integer()->get());
          }
          break;
        }
        case GenParamType::text: {
          v.text = text(*e, key);
          v.is_string = true;
          if (std::find(it->choices.begin(), it->choices.end(), v.text) == it->choices.end())
            fail(*e, q(key) + " = '" + v.text + "' is not one of: " + joined(it->choices));
          break;
        }
      }
      out.push_back(std::move(v));
    }
    return out;
  }

 private:
  SweepSpec& spec_;
  SweepMode default_mode_ = SweepMode::simulated;
};

}  // namespace

SweepSpec load_sweep_spec(const std::filesystem::path& file) {
  SweepSpec spec;
  spec.file = file;
  const std::string text = model::read_text_file(file);
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    throw_spec_error(spec, static_cast<std::uint32_t>(e.source().begin.line),
                     "TOML syntax: " + std::string(e.description()));
  }
  SpecReader(spec).read(root);
  return spec;
}

}  // namespace streamlab::experiments
