#pragma once
/// \file budget_options.hpp
/// The run-budget flags shared by `streamlab sim`, `validate` and `experiment`: --max-events and
/// --time-limit, so every command names and bounds them the same way.

#include <CLI/CLI.hpp>

#include "streamlab/sim/budget.hpp"

namespace streamlab::cli {

/// --max-events (and, with `wall_clock`, --time-limit) storing into `budget` (keep it alive).
void add_budget_options(CLI::App& app, sim::SimBudget& budget, bool wall_clock = true);

}  // namespace streamlab::cli
