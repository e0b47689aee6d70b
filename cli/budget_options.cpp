#include "budget_options.hpp"

#include <string>

namespace streamlab::cli {

void add_budget_options(CLI::App& app, sim::SimBudget& budget, bool wall_clock) {
  app.add_option("--max-events", budget.max_events,
                 "Largest simulation to run: blocks, tasks and ops placed, and events processed")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->capture_default_str();
  if (wall_clock)
    app.add_option("--time-limit", budget.wall_seconds,
                   "Wall-clock seconds a simulation may take; 0 = no limit")
        ->check(CLI::Range(0.0, 1e7))
        ->capture_default_str();
}

}  // namespace streamlab::cli
