#include "streamlab/model/input_limits.hpp"

#include "streamlab/model/errors.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::model {
// Work items of one op: each op is at least one event; each block and task one more.
std::uint64_t op_work_items(const Op& op) noexcept {
  std::uint64_t n = 1;
  if (op.shape && runs_on_sms(op.kind)) n += op.shape->blocks();  // <= 2^32 by resolve_and_check
  if (op.tasks) n += op.tasks->task_ns.size();
  return n;
}

std::uint64_t simulation_work_items(const Workload& w) noexcept {
  std::uint64_t total = 0;
  for (const Op& op : w.ops) total = add_work_items(total, op_work_items(op));
  return total;
}

void check_simulation_size(const Workload& w, const std::string& source, std::uint64_t max_events) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    const Op& op = w.ops[i];
    const std::uint64_t n = op_work_items(op);
    total = add_work_items(total, n);
    if (total <= max_events) continue;
    const std::string place = "/ops/" + std::to_string(i) + (op.shape && runs_on_sms(op.kind) ? "/grid" : "");
    throw InputError(source, place, op.id,
                     "simulating the workload up to this op means placing " + std::to_string(total) +
                         " blocks, tasks and ops (this op: " + std::to_string(n) + "), over the limit of " +
                         std::to_string(max_events) + " events (raise it with --max-events)");
  }
}

}  // namespace streamlab::model
