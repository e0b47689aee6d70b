// libFuzzer target: the Kineto (PyTorch profiler) trace importer. Properties: an accepted capture either
// builds a program or is refused with an InputError; a built program is a checked workload whose
// canonical text round-trips; the measured timeline survives the trace writer with sane metrics; the
// program simulates under a small event budget.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_import.hpp"
#include "streamlab/import/kineto.hpp"

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
  fuzz::check_imported(imported, profile);
  return 0;
}
