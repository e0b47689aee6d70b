#pragma once
/// \file sweep_output.hpp
/// A finished sweep's files (docs/sweep.md describes every column): `sweep.csv` (tidy: one row per
/// configuration and measured repeat, one column per parameter and metric; a simulated-only
/// configuration has one row, repeat 0), `sweep.json` (the same rows as objects, plus the columns'
/// order), and `summary.md`. Their bytes depend on the plan and the payloads only, never on how or
/// where the units ran.

#include <filesystem>
#include <string>
#include <vector>

#include "streamlab/experiments/sweep_plan.hpp"

namespace streamlab::experiments {

struct SweepTables {
  std::vector<std::string> columns;
  std::string csv, json, summary;
  std::size_t rows = 0, failed_rows = 0;
};

/// Builds the three files' contents. `payloads` has one entry per plan unit (all done).
[[nodiscard]] SweepTables render_sweep(const SweepPlan& plan, const std::vector<std::string>& payloads);

/// Writes sweep.csv, sweep.json and summary.md into `dir`, each atomically.
void write_sweep_outputs(const SweepTables& tables, const std::filesystem::path& dir);

}  // namespace streamlab::experiments
