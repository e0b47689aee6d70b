// A persistent task pool: 132 blocks draw 2,112 tasks, every 33rd of them 20x longer, by static index
// (block b runs tasks b, b+132, ...: four blocks get all the long ones) or from a shared queue.
#include "program.hpp"

namespace streamlab::plain {

void task_pool(Program& p, const Params& params) {
  const int tasks = static_cast<int>(params.get("tasks", 2112));
  const std::int64_t short_ns = params.get("short_ns", 20'000);
  const std::int64_t long_ns = params.get("long_ns", 400'000);
  const bool dynamic = params.text("assignment", "static") == "dynamic";
  std::vector<std::int64_t> ns(static_cast<std::size_t>(tasks));
  for (int i = 0; i < tasks; ++i) ns[static_cast<std::size_t>(i)] = i % 33 == 0 ? long_ns : short_ns;
  const int s = p.stream(0, "non-blocking", "pool");
  p.task_pool(s, 132, 256, ns, dynamic);
  p.device_sync("end");
}

}  // namespace streamlab::plain
