#pragma once
/// \file sweep_plan.hpp
/// A sweep spec expanded into its configurations and its units of work. Every process (every MPI rank)
/// plans the same spec to the same plan, so a unit is named by its index alone on the wire and by its
/// key (every parameter plus the workload's and profile's content hashes) in the journal.
///
/// Order (fixed, it is the CSV's row order): workload entries as written, each entry's files in sorted
/// glob order or its generator parameters' cross product (parameters in name order, the first outermost); then profiles,
/// policies, stream kinds, streams, windows, connections, hints as written. Units: one simulated unit
/// per configuration that simulates, then one measured unit per measured configuration and repeat.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "streamlab/experiments/sweep_spec.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/policy.hpp"

namespace streamlab::experiments {

struct PlannedWorkload {
  /// A file's path relative to the spec's folder, or "GENERATOR p1=v1 p2=v2" for a generated one.
  std::string label;
  std::filesystem::path file;  ///< empty for generated workloads
  std::string generator;
  std::vector<GenValue> params;
  std::shared_ptr<const model::Workload> workload;
  std::string hash;  ///< model::Workload::hash()
  SweepMode mode = SweepMode::simulated;
};

struct PlannedProfile {
  std::string label;           ///< "bundled" or the path as written in the spec
  std::filesystem::path file;  ///< empty for the bundled profile
  model::DeviceProfile profile;
  std::string key;             ///< label + content hash
};

struct SweepConfig {
  std::uint32_t workload = 0, profile = 0;
  std::string policy;
  policies::PolicyConfig policy_config;
  std::uint32_t connections = 0;  ///< 0 = the profile's (simulated) / the driver's default (measured)
  SweepMode mode = SweepMode::simulated;
  bool traced = false;  ///< the prediction uses the profile's CUPTI-traced costs
  std::string key;
};

struct SweepUnit {
  std::uint32_t config = 0;
  std::uint32_t repeat = 0;
  bool measured = false;
  std::string key;  ///< "sim|<config key>" or "run<repeat>|<config key>"
};

struct SweepPlan {
  SweepSpec spec;
  std::vector<PlannedWorkload> workloads;
  std::vector<PlannedProfile> profiles;
  std::vector<SweepConfig> configs;
  std::vector<SweepUnit> units;  ///< simulated units first, then measured ones
  std::size_t simulated_units = 0;
  [[nodiscard]] std::size_t measured_units() const noexcept { return units.size() - simulated_units; }
};

/// Loads every workload and profile the spec names and expands it. Throws model::InputError naming the
/// spec's line for a glob that matches nothing, a missing or invalid workload or profile (the inner
/// error follows), or a generator that refuses its parameters.
[[nodiscard]] SweepPlan plan_sweep(SweepSpec spec);

/// 64-bit FNV-1a of `bytes` as 16 hex digits (journal line checksums and content keys).
[[nodiscard]] std::string fnv1a_hex(std::string_view bytes);

}  // namespace streamlab::experiments
