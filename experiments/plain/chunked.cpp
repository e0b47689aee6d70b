// Chunked copy/compute: H2D -> kernel -> D2H per chunk, chunk i on stream i % streams, issued
// depth-first (each chunk's three calls together) or breadth-first (all H2Ds, all kernels, all D2Hs).
#include "program.hpp"

namespace streamlab::plain {

void chunked(Program& p, const Params& params) {
  const int n = static_cast<int>(params.get("streams", 4));
  const int chunks = static_cast<int>(params.get("chunks", 24));
  const auto bytes = static_cast<std::size_t>(params.get("bytes", 8 << 20));
  const std::int64_t ns = params.get("kernel_ns", 200'000);
  const bool breadth = params.text("order", "depth") == "breadth";
  std::vector<int> s;
  for (int i = 0; i < n; ++i) s.push_back(p.stream(0, "non-blocking", "chunk stream " + std::to_string(i)));
  auto on = [&](int chunk) { return s[static_cast<std::size_t>(chunk % n)]; };
  if (breadth) {
    for (int c = 0; c < chunks; ++c) p.h2d(on(c), bytes);
    for (int c = 0; c < chunks; ++c) p.kernel(on(c), 132, 256, ns);
    for (int c = 0; c < chunks; ++c) p.d2h(on(c), bytes);
  } else {
    for (int c = 0; c < chunks; ++c) {
      p.h2d(on(c), bytes);
      p.kernel(on(c), 132, 256, ns);
      p.d2h(on(c), bytes);
    }
  }
  p.device_sync("end");
}

}  // namespace streamlab::plain
