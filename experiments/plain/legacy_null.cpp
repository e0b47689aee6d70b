// The legacy NULL stream among two other streams: each round puts a 16-block kernel on each stream and a
// 1-block kernel on the NULL stream. Blocking streams (kind=blocking) synchronize with the NULL stream,
// so every round is a barrier; non-blocking ones (kind=non-blocking) overlap it.
#include "program.hpp"

namespace streamlab::plain {

void legacy_null(Program& p, const Params& params) {
  const int rounds = static_cast<int>(params.get("rounds", 6));
  const std::int64_t ns = params.get("kernel_ns", 200'000);
  const std::int64_t null_ns = params.get("null_ns", 50'000);
  const std::string kind = params.text("kind", "blocking");
  const int a = p.stream(0, kind, "a");
  const int b = p.stream(0, kind, "b");
  for (int r = 0; r < rounds; ++r) {
    p.kernel(a, 16, 256, ns);
    p.kernel(b, 16, 256, ns);
    p.kernel(0, 1, 32, null_ns);
  }
  p.device_sync("end");
}

}  // namespace streamlab::plain
