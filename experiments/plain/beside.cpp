// One grid, then a second on another stream (or, with same_stream=1, on the same one), issued while the
// first runs; the host waits for the second ("fg_done") and then for everything ("end"). Whether the
// second starts beside the first when every SM has room for it, or only when the first ends: the
// simulator and the GPU disagreed on it (executor/validation/h100-2026-11-24, run 19).
#include "program.hpp"

namespace streamlab::plain {

void beside(Program& p, const Params& params) {
  const auto bg_grid = static_cast<unsigned>(params.get("bg_grid", 132));
  const auto bg_block = static_cast<unsigned>(params.get("bg_block", 1024));
  const std::int64_t bg_ns = params.get("bg_ns", 300'000);
  const auto fg_grid = static_cast<unsigned>(params.get("fg_grid", 132));
  const auto fg_block = static_cast<unsigned>(params.get("fg_block", 256));
  const std::int64_t fg_ns = params.get("fg_ns", 50'000);
  const bool same = params.get("same_stream", 0) != 0;
  const int bg = p.stream(0, "non-blocking", "first");
  const int fg = same ? bg : p.stream(0, "non-blocking", "second");
  const auto bg_shared = static_cast<unsigned>(params.get("bg_shared", 0));
  const auto fg_shared = static_cast<unsigned>(params.get("fg_shared", 0));
  p.kernel(bg, bg_grid, bg_block, bg_ns, "first", bg_shared);
  p.kernel(fg, fg_grid, fg_block, fg_ns, "second", fg_shared);
  p.stream_sync(fg, "fg_done");
  p.device_sync("end");
}

}  // namespace streamlab::plain
