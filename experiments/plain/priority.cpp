// Background grids on several low-priority streams, then one foreground kernel on a stream of high
// (fg_priority=-5) or low (0) priority issued after them; the host waits for the foreground stream
// ("fg_done", the metric) and then for everything ("end").
#include "program.hpp"

namespace streamlab::plain {

void priority(Program& p, const Params& params) {
  const int bg = static_cast<int>(params.get("bg_streams", 4));
  const std::int64_t bg_ns = params.get("bg_ns", 300'000);
  const std::int64_t fg_ns = params.get("fg_ns", 50'000);
  const int fg_priority = static_cast<int>(params.get("fg_priority", -5));
  std::vector<int> s;
  for (int i = 0; i < bg; ++i) s.push_back(p.stream(0, "non-blocking", "background " + std::to_string(i)));
  const int fg = p.stream(fg_priority, "non-blocking", "foreground");
  for (int i = 0; i < bg; ++i) p.kernel(s[static_cast<std::size_t>(i)], 264, 1024, bg_ns);
  p.kernel(fg, 132, 256, fg_ns, "foreground");
  p.stream_sync(fg, "fg_done");
  p.device_sync("end");
}

}  // namespace streamlab::plain
