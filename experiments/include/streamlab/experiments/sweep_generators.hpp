#pragma once
/// \file sweep_generators.hpp
/// The `streamlab gen` generators as a sweep spec names them: each generator's parameters (the same
/// names as `streamlab gen KIND --help` without the dashes) and a call that builds a workload from
/// parameter values, defaults for the rest.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamlab/experiments/sweep_spec.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::experiments {

enum class GenParamType : std::uint8_t { integer, real, text };

struct GenParamInfo {
  std::string_view name;
  GenParamType type = GenParamType::integer;
  std::vector<std::string_view> choices;  ///< allowed texts (type text)
};

/// "chunked", "pipeline", "fork-join", "random-dag", "task-batch", "stream-chains".
[[nodiscard]] std::vector<std::string_view> generator_names();
/// The generator's parameters; empty when the generator is unknown.
[[nodiscard]] std::vector<GenParamInfo> generator_params(std::string_view generator);
/// The generated workload. Throws model::InputError (from the generator) on impossible parameters.
[[nodiscard]] model::Workload generate_workload(std::string_view generator, std::span<const GenValue> params);

}  // namespace streamlab::experiments
