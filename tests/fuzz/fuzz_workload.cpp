// libFuzzer target: the workload reader, then everything an accepted workload feeds. Properties: the
// canonical text round-trips exactly (same workload, same text, same hash); every duration estimate is
// >= 0; the DAG analysis of a DAG workload runs; a short simulation (small event budget) gives a trace
// that survives the trace writer with sane metrics. Any other exception than InputError is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "streamlab/model/dag.hpp"

using namespace streamlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const model::DeviceProfile profile = model::bundled_h100_profile();
  static const model::ShapeLimits limits = model::shape_limits(profile);
  model::Workload w;
  try {
    w = model::parse_workload(text, "fuzz.json", limits);
  } catch (const model::InputError&) {
    return 0;
  }
  const std::string canonical = model::workload_to_json(w);
  model::Workload back;
  try {
    back = model::parse_workload(canonical, "canonical.json", limits);
  } catch (const model::InputError& e) {
    fuzz::property_failed("the canonical text of an accepted workload reads back", e.what());
  }
  fuzz::require(back == w, "canonical round trip gives the same workload", canonical.substr(0, 2000));
  fuzz::require(model::workload_to_json(back) == canonical, "canonical text is a fixed point");
  fuzz::require(back.hash() == w.hash(), "hash is stable");
  fuzz::require(model::workload_to_json(w, -1).find('\n') == std::string::npos, "compact text is one line");

  for (const model::Op& op : w.ops)
    fuzz::require(model::estimate_duration(op, profile) >= 0, "estimate >= 0", op.id);
  if (!w.program) {
    const model::Dag g(w);
    const auto analysis =
        model::analyze_dag(g, [&](model::OpIndex i) { return model::estimate_duration(w.ops[i], profile); });
    fuzz::require(analysis.cycles.empty() && analysis.critical, "an accepted DAG has no cycle");
    for (const model::Nanos s : analysis.critical->slack) fuzz::require(s >= 0, "slack >= 0");
  }
  fuzz::simulate(w, profile);
  return 0;
}
