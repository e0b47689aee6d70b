#pragma once
/// \file estimate.hpp
/// A closed-form device-time estimate of one op from a device profile, alone on an idle device: what
/// policies rank ready ops by and what `analyze` puts on the critical path. The simulator predicts the
/// real thing (contention, launch latencies, partial waves); this is the number a host can compute cheaply.

#include <cstdint>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/op.hpp"

namespace streamlab::model {

/// Blocks of this shape that fit on one SM at once: the minimum over the thread, block, register and
/// shared-memory limits of the profile, with resources rounded as allocated (occupancy.hpp); at least 1
/// (validation rejects shapes that fit nowhere).
[[nodiscard]] std::uint64_t blocks_per_sm(const KernelShape& shape, const DeviceProfile& p);

/// Estimated device time in ns (>= 0), by kind:
/// - kernel: FixedPerBlock: ns x waves, waves = ceil(blocks / (blocks_per_sm x SMs)); PerBlockList: blocks
///   dispatched in list order to the earliest free of (blocks_per_sm x SMs) slots; CostModel:
///   max(bytes / dram_gbps, flops / fp32_gflops) (the roofline over the whole device).
/// - task_pool: the grid's resident blocks (capped by the device's capacity) run the tasks: dynamic queue =
///   each task to the earliest free block in list order; static index = block b runs tasks b, b+B, ...
/// - h2d / d2h: latency + bytes / bandwidth (pinned or pageable); d2d: latency + bytes / d2d bandwidth;
///   memset: bytes / memset bandwidth; prefetch: h2d latency + bytes / pinned h2d bandwidth.
/// - host_func: the host function's own time plus the stream -> host -> stream round trip.
/// - barrier: 0.
/// Launch and issue costs are host time, not counted here.
[[nodiscard]] Nanos estimate_duration(const Op& op, const DeviceProfile& p);

}  // namespace streamlab::model
