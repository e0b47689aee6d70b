#pragma once
/// \file input_limits.hpp
/// Bounds on every number a workload, device profile or trace may carry. The readers (and
/// resolve_and_check, for workloads built in code) refuse values outside them, naming the file, the place
/// and the op, so that every time the estimate, the simulator, the metrics and the trace writer derive
/// from accepted input fits in a signed 64-bit nanosecond count, with room for sums over the whole
/// workload. The bounds are far above any real GPU workload; what they exclude are unit mistakes and
/// hostile files.

#include <cstdint>
#include <string>

#include "streamlab/model/op.hpp"

namespace streamlab::model {

class Workload;

/// Any one duration an op gives: per_block_ns, a blocks_ns or tasks.ns entry, host_ns (2^40 ns, about
/// 18 minutes).
inline constexpr Nanos kMaxOpNs = Nanos{1} << 40;
/// Bytes of a copy, memset or prefetch (2^44 bytes = 16 TiB).
inline constexpr std::uint64_t kMaxOpBytes = std::uint64_t{1} << 44;
/// A cost-model duration's bytes or flops (2^50, about 1.1e15).
inline constexpr double kMaxCostAmount = 1125899906842624.0;
/// Thread blocks of one kernel or task pool (block indices are 32-bit).
inline constexpr std::uint64_t kMaxOpBlocks = 0xffffffffULL;
/// Ops in one workload.
inline constexpr std::uint64_t kMaxOps = std::uint64_t{1} << 24;
/// A workload's serial work: the sum over its ops of every block, task, host function and copy run one
/// after another at the slowest rates a device profile may have (kMinProfileRate). 2^58 ns is about
/// 9 years; with the profile's per-op costs (kMaxProfileNs each, a few per op, kMaxOps ops) every
/// simulated time stays below 2^62 ns.
inline constexpr double kMaxWorkloadSerialNs = 288230376151711744.0;

/// Device profile: the smallest GB/s or GFLOP/s (bytes or flops per ns).
inline constexpr double kMinProfileRate = 0.01;
/// Device profile: the largest GB/s or GFLOP/s.
inline constexpr double kMaxProfileRate = 1e9;
/// Device profile: the largest host or device cost in ns (10 s; anything larger is a unit mistake).
inline constexpr double kMaxProfileNs = 1e10;
/// Device profile: the largest per-warp cost in ns.
inline constexpr double kMaxProfileNsPerWarp = 1e6;
/// Device profile: the largest count (SMs, threads, registers, bytes of shared memory, ...).
inline constexpr double kMaxProfileCount = 2147483647.0;
/// Device profile: the most SMs.
inline constexpr double kMaxProfileSms = 100000.0;

/// Trace: time stamps lie in [-kMaxTraceNs, kMaxTraceNs] (2^61 ns, about 73 years either side), so every
/// difference and every merged total fits in 64 bits.
inline constexpr Nanos kMaxTraceNs = Nanos{1} << 61;

/// Default bound on a simulation's size: the work items (thread blocks, tasks, ops) it would place, and
/// the events it may process. `sim --max-events` and `validate --max-events` change it; the experiments
/// use the default.
inline constexpr std::uint64_t kDefaultMaxSimEvents = std::uint64_t{1} << 28;

/// A workload's simulation work items: blocks of every kernel and task pool, tasks, and ops (each at
/// least one event). Saturates instead of wrapping.
[[nodiscard]] std::uint64_t simulation_work_items(const Workload& w) noexcept;
/// One op's simulation work items: the op, and its blocks and tasks.
[[nodiscard]] std::uint64_t op_work_items(const Op& op) noexcept;
/// `total` + `items`, saturating (simulation_work_items' sum).
[[nodiscard]] constexpr std::uint64_t add_work_items(std::uint64_t total, std::uint64_t items) noexcept {
  return items > UINT64_MAX - total ? UINT64_MAX : total + items;
}

/// Throws InputError naming `source`, the op that crosses the bound and the option, when the workload
/// would place more than `max_events` work items in a simulation. `sim` checks it before simulating and
/// `validate` applies the same default, so validate refuses what sim refuses.
void check_simulation_size(const Workload& w, const std::string& source, std::uint64_t max_events);

}  // namespace streamlab::model
