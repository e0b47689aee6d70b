#include "streamlab/model/estimate.hpp"

#include "streamlab/model/occupancy.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <type_traits>
#include <vector>

namespace streamlab::model {
namespace {

// Estimates saturate at the largest Nanos instead of overflowing: accepted input keeps them far below it
// (input_limits.hpp), so saturation only shows for ops built in code with absurd values.
constexpr Nanos kNanosMax = std::numeric_limits<Nanos>::max();

Nanos ceil_ns(double ns) {
  if (!(ns > 0)) return 0;
  return ns >= 9.2e18 ? kNanosMax : static_cast<Nanos>(std::ceil(ns));
}

Nanos add_sat(Nanos a, Nanos b) { return a > kNanosMax - b ? kNanosMax : a + b; }  // a, b >= 0

/// GB/s is bytes per ns.
Nanos transfer_ns(std::uint64_t bytes, const Param& gbps) {
  return gbps.value > 0 ? ceil_ns(static_cast<double>(bytes) / gbps.value) : 0;
}

std::uint64_t count(const Param& p) {
  if (!(p.value > 0)) return 0;
  return p.value >= 1.8e19 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(p.value);
}

/// Concurrent block slots of the whole device for this shape.
std::uint64_t device_slots(const KernelShape& shape, const DeviceProfile& p) {
  return blocks_per_sm(shape, p) * std::max<std::uint64_t>(1, count(p.sm_count));
}

/// Items (in list order) each go to the earliest free of `slots` workers; returns the last finish time.
template <class Durations>
Nanos list_schedule(const Durations& items, std::uint64_t slots) {
  if (items.empty()) return 0;
  const std::size_t workers = static_cast<std::size_t>(std::min<std::uint64_t>(std::max<std::uint64_t>(slots, 1), items.size()));
  std::priority_queue<Nanos, std::vector<Nanos>, std::greater<>> free_at;
  for (std::size_t i = 0; i < workers; ++i) free_at.push(0);
  Nanos finish = 0;
  for (const Nanos d : items) {
    const Nanos start = free_at.top();
    free_at.pop();
    const Nanos end = add_sat(start, std::max<Nanos>(d, 0));
    free_at.push(end);
    finish = std::max(finish, end);
  }
  return finish;
}

Nanos kernel_ns(const Op& op, const DeviceProfile& p) {
  const KernelShape shape = op.shape.value_or(KernelShape{});
  const std::uint64_t blocks = shape.blocks();
  const std::uint64_t slots = device_slots(shape, p);
  return std::visit(
      [&](const auto& spec) -> Nanos {
        using T = std::decay_t<decltype(spec)>;
        if constexpr (std::is_same_v<T, FixedPerBlock>) {
          const std::uint64_t waves = (blocks + slots - 1) / slots;
          return ceil_ns(static_cast<double>(waves) * static_cast<double>(std::max<Nanos>(spec.ns, 0)));
        } else if constexpr (std::is_same_v<T, PerBlockList>) {
          return list_schedule(spec.ns, slots);
        } else {
          const double memory_ns = p.dram_gbps.value > 0 ? spec.bytes / p.dram_gbps.value : 0;
          const double compute_ns = p.fp32_gflops.value > 0 ? spec.flops / p.fp32_gflops.value : 0;
          return ceil_ns(std::max(memory_ns, compute_ns));
        }
      },
      op.duration);
}

Nanos task_pool_ns(const Op& op, const DeviceProfile& p) {
  if (!op.tasks) return kernel_ns(op, p);
  const KernelShape shape = op.shape.value_or(KernelShape{});
  const std::uint64_t grid = std::max<std::uint64_t>(1, shape.blocks());
  const std::uint64_t slots = device_slots(shape, p);
  const auto& tasks = op.tasks->task_ns;
  if (op.tasks->assignment == TaskAssignment::dynamic_queue)
    return list_schedule(tasks, std::min(grid, slots));  // resident blocks race for the next task
  // Static: block b owns tasks b, b + grid, ...; the blocks themselves run in waves over the slots.
  std::vector<Nanos> per_block(static_cast<std::size_t>(std::min<std::uint64_t>(grid, tasks.size())), 0);
  for (std::size_t i = 0; i < tasks.size(); ++i)
    per_block[i % grid] = add_sat(per_block[i % grid], std::max<Nanos>(tasks[i], 0));
  return list_schedule(per_block, slots);
}

}  // namespace

std::uint64_t blocks_per_sm(const KernelShape& shape, const DeviceProfile& p) {
  const std::int64_t fit = blocks_that_fit(block_footprint(shape, p), sm_capacity(p));
  return static_cast<std::uint64_t>(std::max<std::int64_t>(fit, 1));
}

Nanos estimate_duration(const Op& op, const DeviceProfile& p) {
  const bool pinned = op.host_memory == HostMemory::pinned;
  switch (op.kind) {
    case OpKind::kernel:
      return kernel_ns(op, p);
    case OpKind::task_pool:
      return task_pool_ns(op, p);
    case OpKind::h2d:
      return add_sat(ceil_ns(p.h2d_latency_ns.value),
                     transfer_ns(op.bytes, pinned ? p.h2d_pinned_gbps : p.h2d_pageable_gbps));
    case OpKind::d2h:
      return add_sat(ceil_ns(p.d2h_latency_ns.value),
                     transfer_ns(op.bytes, pinned ? p.d2h_pinned_gbps : p.d2h_pageable_gbps));
    case OpKind::d2d:
      return add_sat(ceil_ns(p.d2d_latency_ns.value), transfer_ns(op.bytes, p.d2d_gbps));
    case OpKind::memset:
      return transfer_ns(op.bytes, p.memset_gbps);
    case OpKind::prefetch:
      return add_sat(ceil_ns(p.h2d_latency_ns.value), transfer_ns(op.bytes, p.h2d_pinned_gbps));
    case OpKind::host_func:
      return add_sat(std::max<Nanos>(op.host_ns, 0), ceil_ns(p.host_func_roundtrip_ns.value));
    case OpKind::barrier:
    // Program calls occupy no device engine; what they cost the host is the profile's per-call cost,
    // which the backends charge when the call is made.
    case OpKind::event_record:
    case OpKind::event_wait:
    case OpKind::stream_sync:
    case OpKind::event_sync:
    case OpKind::device_sync:
      return 0;
  }
  return 0;
}

}  // namespace streamlab::model
