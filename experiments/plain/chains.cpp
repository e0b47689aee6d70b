// Chains of 1-block kernels, one chain per stream, issued depth-first (stream 1's chain, then stream
// 2's, ...) or breadth-first (one kernel of every stream per round). Run under CUDA_DEVICE_MAX_CONNECTIONS
// 1, 8 or 32 (set in the environment of the process).
#include "program.hpp"

namespace streamlab::plain {

void chains(Program& p, const Params& params) {
  const int n = static_cast<int>(params.get("streams", 8));
  const int length = static_cast<int>(params.get("length", 8));
  const std::int64_t ns = params.get("kernel_ns", 20'000);
  const bool breadth = params.text("order", "depth") == "breadth";
  std::vector<int> s;
  for (int i = 0; i < n; ++i) s.push_back(p.stream(0, "non-blocking", "chain " + std::to_string(i)));
  if (breadth) {
    for (int k = 0; k < length; ++k)
      for (int i = 0; i < n; ++i) p.kernel(s[static_cast<std::size_t>(i)], 1, 32, ns);
  } else {
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < length; ++k) p.kernel(s[static_cast<std::size_t>(i)], 1, 32, ns);
  }
  p.device_sync("end");
}

}  // namespace streamlab::plain
