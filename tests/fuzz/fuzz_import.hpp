#pragma once
// Shared by the importers' fuzz targets: what an imported program must satisfy.

#include <string>

#include "fuzz_support.hpp"
#include "streamlab/import/program_builder.hpp"

namespace streamlab::fuzz {

/// The program is a checked workload whose canonical text reads back to it, the measured timeline
/// survives the trace writer with sane metrics, and the program simulates under a small budget.
inline void check_imported(const import::Imported& imported, const model::DeviceProfile& profile) {
  const model::Workload& w = imported.workload;
  const std::string canonical = model::workload_to_json(w);
  model::Workload back;
  try {
    back = model::parse_workload(canonical, "canonical.json", model::shape_limits(profile));
  } catch (const model::InputError& e) {
    property_failed("an imported program's canonical text reads back", e.what());
  }
  require(back == w, "imported program round trip", canonical.substr(0, 2000));
  check_trace(imported.measured);
  simulate(w, profile);
}

}  // namespace streamlab::fuzz
