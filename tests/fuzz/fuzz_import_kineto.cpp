// libFuzzer target: the Kineto (PyTorch profiler) trace importer. Properties: an accepted capture either
// builds a program or is refused with an InputError; a built program is a checked workload whose
// canonical text round-trips; the measured timeline survives the trace writer with sane metrics; the
// program simulates under a small event budget.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "streamlab/import/kineto.hpp"
#include "streamlab/import/program_builder.hpp"

using namespace streamlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const model::DeviceProfile profile = model::bundled_h100_profile();
  import::Imported imported;
  try {
    const import::Capture capture = import::parse_kineto(text, "fuzz.json");
    import::BuildOptions options;
    options.profile = &profile;
    options.name = "fuzz";
    imported = import::build_program(capture, options);
  } catch (const model::InputError&) {
    return 0;
  }
  const model::Workload& w = imported.workload;
  const std::string canonical = model::workload_to_json(w);
  model::Workload back;
  try {
    back = model::parse_workload(canonical, "canonical.json", model::shape_limits(profile));
  } catch (const model::InputError& e) {
    fuzz::property_failed("an imported program's canonical text reads back", e.what());
  }
  fuzz::require(back == w, "imported program round trip", canonical.substr(0, 2000));
  fuzz::check_trace(imported.measured);
  fuzz::simulate(w, profile);
  return 0;
}
