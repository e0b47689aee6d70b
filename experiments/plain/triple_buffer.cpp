// Triple buffering: an upload, a compute and a download stream; chunk i uses buffer i % 3. The kernel
// waits for its upload, the download for its kernel (event record / stream wait pairs), and an upload
// into a buffer waits for the download that last used it.
#include "program.hpp"

namespace streamlab::plain {

void triple_buffer(Program& p, const Params& params) {
  const int chunks = static_cast<int>(params.get("chunks", 12));
  const auto bytes = static_cast<std::size_t>(params.get("bytes", 8 << 20));
  const std::int64_t ns = params.get("kernel_ns", 300'000);
  const int up = p.stream(0, "non-blocking", "upload");
  const int comp = p.stream(0, "non-blocking", "compute");
  const int down = p.stream(0, "non-blocking", "download");
  for (int c = 0; c < chunks; ++c) {
    const std::string i = std::to_string(c);
    if (c >= 3) p.wait(up, "downloaded_" + std::to_string(c - 3));
    p.h2d(up, bytes);
    p.record(up, "uploaded_" + i);
    p.wait(comp, "uploaded_" + i);
    p.kernel(comp, 132, 256, ns);
    p.record(comp, "computed_" + i);
    p.wait(down, "computed_" + i);
    p.d2h(down, bytes);
    p.record(down, "downloaded_" + i);
  }
  p.device_sync("end");
}

}  // namespace streamlab::plain
