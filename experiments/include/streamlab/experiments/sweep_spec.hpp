#pragma once
/// \file sweep_spec.hpp
/// A sweep spec (TOML, docs/sweep.md): which workloads, device profiles, policies and policy settings to
/// combine, how many measured repeats, and whether each configuration is simulated, measured or both.
/// Parsing checks every entry and names the spec file and line of the first bad one; the spec is then
/// expanded into its configurations (the cross product, in a fixed order) by sweep_plan.hpp.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/policies/policy.hpp"

namespace streamlab::experiments {

/// What happens to a configuration: predicted on the simulator, measured on a GPU, or both.
enum class SweepMode : std::uint8_t { simulated, measured, both };
[[nodiscard]] std::string_view to_string(SweepMode m) noexcept;
[[nodiscard]] inline bool simulates(SweepMode m) noexcept { return m != SweepMode::measured; }
[[nodiscard]] inline bool measures(SweepMode m) noexcept { return m != SweepMode::simulated; }

/// One generator parameter value as written (integers and reals stay apart so labels print as typed).
struct GenValue {
  std::string name;
  std::string text;  ///< the value as it prints in labels ("1000", "0.2", "heavy-tailed")
  double number = 0;
  bool is_string = false;
};

/// One `[[workloads]]` entry.
struct WorkloadEntry {
  std::uint32_t line = 0;
  /// Files and globs (relative to the spec's folder) or, when `generator` is set, nothing.
  std::vector<std::pair<std::string, std::uint32_t>> files;  ///< (pattern, its line)
  /// `streamlab gen` generator name and its parameters; a parameter given as an array is swept.
  std::string generator;
  std::vector<std::pair<std::vector<GenValue>, std::uint32_t>> gen_params;  ///< (values, line)
  SweepMode mode = SweepMode::simulated;
};

/// One sweep axis: the values as parsed plus the line they came from (for errors found later).
template <class T>
struct Axis {
  std::vector<T> values;
  std::uint32_t line = 0;
};

struct SweepSpec {
  std::filesystem::path file;  ///< the spec as given on the command line (errors name it)
  std::string name;
  std::vector<WorkloadEntry> workloads;
  /// "bundled" (the bundled H100 profile) or a profile JSON path relative to the spec's folder.
  Axis<std::string> profiles{{"bundled"}, 0};
  Axis<std::string> policies{{"round-robin"}, 0};
  Axis<std::uint32_t> streams{{4}, 0};
  Axis<std::uint32_t> windows{{0}, 0};
  /// CUDA_DEVICE_MAX_CONNECTIONS; 0 = the profile's (simulated) / the driver's default (measured).
  Axis<std::uint32_t> connections{{0}, 0};
  Axis<policies::StreamKind> stream_kinds{{policies::StreamKind::non_blocking}, 0};
  Axis<policies::HintMode> hints{{policies::HintMode::honor}, 0};
  /// Measured runs per measured configuration (the simulator is deterministic: one prediction each).
  std::uint32_t repeats = 1;
  /// Predict with CUPTI-traced costs: unset = only for configurations that are also measured (the
  /// measured runs are traced), so their prediction is of the run that is measured.
  std::optional<bool> traced;
  /// GPUs that measure (one measuring worker each); empty = every device the driver reports.
  std::vector<std::uint32_t> gpus;
  double timeout_ms = 60'000;  ///< every blocking wait of a run (simulated time or wall time)
  /// Wall-clock limit of one measured run's child process.
  double measure_wall_limit_s = 600;
};

/// Reads and checks a spec. Throws model::InputError("SPEC", "line N", "", reason) for the first bad
/// entry: TOML syntax, an unknown key, a wrong type, an unknown policy/kind/generator/parameter, an
/// out-of-range value, an empty axis.
[[nodiscard]] SweepSpec load_sweep_spec(const std::filesystem::path& file);

/// The spec error for a line ("line 12"), for checks done after parsing (globs, files, profiles).
[[noreturn]] void throw_spec_error(const SweepSpec& spec, std::uint32_t line, const std::string& reason);

}  // namespace streamlab::experiments
