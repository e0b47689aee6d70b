// Expansion of a sweep spec into configurations and units.
#include "streamlab/experiments/sweep_plan.hpp"

#include <glob.h>

#include <cstdio>

#include "streamlab/experiments/sweep_generators.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::experiments {

std::string fnv1a_hex(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

namespace {

/// The files a pattern names, sorted; a pattern without wildcards must name an existing file.
std::vector<std::filesystem::path> expand_pattern(const SweepSpec& spec, const std::filesystem::path& base,
                                                  const std::string& pattern, std::uint32_t line) {
  const std::filesystem::path full = std::filesystem::path(pattern).is_absolute() ? std::filesystem::path(pattern) : base / pattern;
  glob_t g{};
  const int rc = ::glob(full.c_str(), GLOB_ERR, nullptr, &g);
  std::vector<std::filesystem::path> out;
  if (rc == 0) {
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);  // glob sorts
  }
  ::globfree(&g);
  if (out.empty()) throw_spec_error(spec, line, "'" + pattern + "' matches no file (looked for " + full.string() + ")");
  return out;
}

/// Relative to the spec's folder, so labels do not depend on where the sweep is started from.
std::string label_for(const std::filesystem::path& base, const std::filesystem::path& file) {
  const std::filesystem::path rel = file.lexically_relative(base);
  return rel.empty() ? file.lexically_normal().string() : rel.string();
}

void add_file_workloads(SweepPlan& plan, const WorkloadEntry& e, const std::filesystem::path& base) {
  for (const auto& [pattern, line] : e.files) {
    for (const std::filesystem::path& f : expand_pattern(plan.spec, base, pattern, line)) {
      PlannedWorkload w;
      w.label = label_for(base, f);
      w.file = f;
      w.mode = e.mode;
      try {
        w.workload = std::make_shared<const model::Workload>(model::load_workload(f));
      } catch (const model::InputError& err) {
        throw_spec_error(plan.spec, line, std::string("workload: ") + err.what());
      }
      w.hash = w.workload->hash();
      plan.workloads.push_back(std::move(w));
    }
  }
}

void add_generated_workloads(SweepPlan& plan, const WorkloadEntry& e) {
  // Odometer over the parameters' value lists, first parameter outermost.
  std::vector<std::size_t> at(e.gen_params.size(), 0);
  while (true) {
    PlannedWorkload w;
    w.generator = e.generator;
    w.mode = e.mode;
    w.label = e.generator;
    for (std::size_t i = 0; i < at.size(); ++i) {
      const GenValue& v = e.gen_params[i].first[at[i]];
      w.params.push_back(v);
      w.label += " " + v.name + "=" + v.text;
    }
    try {
      w.workload = std::make_shared<const model::Workload>(generate_workload(e.generator, w.params));
    } catch (const model::InputError& err) {
      throw_spec_error(plan.spec, e.line, "generator '" + w.label + "': " + err.reason());
    }
    w.hash = w.workload->hash();
    plan.workloads.push_back(std::move(w));
    // Advance the odometer; past the last combination, done.
    std::size_t i = at.size();
    while (true) {
      if (i == 0) return;
      --i;
      if (++at[i] < e.gen_params[i].first.size()) break;
      at[i] = 0;
    }
  }
}

void add_profiles(SweepPlan& plan, const std::filesystem::path& base) {
  for (const std::string& p : plan.spec.profiles.values) {
    PlannedProfile pp;
    pp.label = p;
    if (p == "bundled") {
      pp.profile = model::bundled_h100_profile();
      pp.key = "bundled";
    } else {
      pp.file = std::filesystem::path(p).is_absolute() ? std::filesystem::path(p) : base / p;
      try {
        pp.profile = model::load_device_profile(pp.file);
        pp.key = p + "#" + fnv1a_hex(model::read_text_file(pp.file));
      } catch (const model::InputError& err) {
        throw_spec_error(plan.spec, plan.spec.profiles.line, std::string("profile: ") + err.what());
      }
    }
    plan.profiles.push_back(std::move(pp));
  }
}

}  // namespace

SweepPlan plan_sweep(SweepSpec spec) {
  SweepPlan plan;
  plan.spec = std::move(spec);
  const SweepSpec& s = plan.spec;
  const std::filesystem::path base = s.file.parent_path().empty() ? "." : s.file.parent_path();
  for (const WorkloadEntry& e : s.workloads) {
    if (e.generator.empty()) {
      add_file_workloads(plan, e, base);
    } else {
      add_generated_workloads(plan, e);
    }
  }
  add_profiles(plan, base);

  for (std::uint32_t w = 0; w < plan.workloads.size(); ++w) {
    const PlannedWorkload& pw = plan.workloads[w];
    for (std::uint32_t p = 0; p < plan.profiles.size(); ++p)
      for (const std::string& policy : s.policies.values)
        for (policies::StreamKind kind : s.stream_kinds.values)
          for (std::uint32_t streams : s.streams.values)
            for (std::uint32_t window : s.windows.values)
              for (std::uint32_t conn : s.connections.values)
                for (policies::HintMode hints : s.hints.values) {
                  SweepConfig c;
                  c.workload = w;
                  c.profile = p;
                  c.policy = policy;
                  c.policy_config.streams = streams;
                  c.policy_config.window = window;
                  c.policy_config.stream_kind = kind;
                  c.policy_config.hints = hints;
                  c.connections = conn;
                  c.mode = pw.mode;
                  c.traced = s.traced.value_or(measures(pw.mode));
                  c.key = "w=" + pw.label + "#" + pw.hash + "|p=" + plan.profiles[p].key + "|policy=" + policy +
                          "|" + policies::to_string(c.policy_config) + "|connections=" + std::to_string(conn) +
                          "|traced=" + (c.traced ? "1" : "0");
                  plan.configs.push_back(std::move(c));
                }
  }
  for (std::uint32_t i = 0; i < plan.configs.size(); ++i)
    if (simulates(plan.configs[i].mode)) plan.units.push_back({i, 0, false, "sim|" + plan.configs[i].key});
  plan.simulated_units = plan.units.size();
  for (std::uint32_t i = 0; i < plan.configs.size(); ++i)
    if (measures(plan.configs[i].mode))
      for (std::uint32_t r = 0; r < s.repeats; ++r)
        plan.units.push_back({i, r, true, "run" + std::to_string(r) + "|" + plan.configs[i].key});
  return plan;
}

}  // namespace streamlab::experiments
