#pragma once
/// \file catalog.hpp
/// The experiment definitions E1..E9, one per research-note claim (experiments/README.md lists them).

#include <string_view>
#include <vector>

#include <optional>
#include "streamlab/experiments/experiment.hpp"

namespace streamlab::experiments {

/// Every experiment, in order E1..E9 (a fresh table each call: no global state).
[[nodiscard]] std::vector<Experiment> all_experiments();

/// The experiment named `name` (case-insensitive, "e2" = "E2"), or nullopt.
[[nodiscard]] std::optional<Experiment> find_experiment(std::string_view name);

}  // namespace streamlab::experiments
