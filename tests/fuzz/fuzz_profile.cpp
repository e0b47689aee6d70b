// libFuzzer target: the device profile reader. Properties: an accepted profile round-trips exactly; the
// simulator accepts every profile the reader accepts (validate refuses what sim refuses) and simulates a
// small fixed workload on it to a sane trace; estimates under it are >= 0.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"

using namespace streamlab;

namespace {

model::Workload small_workload() {
  return model::parse_workload(R"({"format_version": 1, "name": "small", "ops": [
    {"id": "up", "kind": "h2d", "bytes": 1048576},
    {"id": "k", "kind": "kernel", "grid": 264, "block": [256, 2], "registers": 64, "shared_mem": 8192,
     "duration": {"per_block_ns": 2000}, "deps": ["up"]},
    {"id": "c", "kind": "kernel", "grid": 8, "block": 128, "duration": {"bytes": 1e8, "flops": 1e9}},
    {"id": "t", "kind": "task_pool", "grid": 4, "block": 64, "tasks": {"ns": [100, 200, 300, 400, 500]}},
    {"id": "h", "kind": "host_func", "host_ns": 5000, "deps": ["k"]},
    {"id": "down", "kind": "d2h", "bytes": 4096, "host_memory": "pageable", "deps": ["k", "c"]},
    {"id": "m", "kind": "memset", "bytes": 65536}, {"id": "b", "kind": "barrier", "deps": ["down", "t"]}]})",
                               "small.json");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  model::DeviceProfile p;
  try {
    p = model::parse_device_profile(text, "fuzz.json");
  } catch (const model::InputError&) {
    return 0;
  }
  const std::string json = model::device_profile_to_json(p);
  const model::DeviceProfile back = model::parse_device_profile(json, "round-trip.json");
  fuzz::require(back == p, "profile round trip", json.substr(0, 2000));
  try {
    sim::SimBackend probe(p, {});
  } catch (const model::InputError& e) {
    fuzz::property_failed("the simulator refuses a profile the reader accepted", e.what());
  }
  static const model::Workload w = small_workload();
  model::Workload fitted = w;
  try {
    model::resolve_and_check(fitted, "small.json", model::shape_limits(p));
  } catch (const model::InputError&) {
    return 0;  // the small workload's shapes exceed this profile's limits
  }
  for (const model::Op& op : fitted.ops) fuzz::require(model::estimate_duration(op, p) >= 0, "estimate >= 0");
  fuzz::simulate(fitted, p);
  return 0;
}
