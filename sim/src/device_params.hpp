#pragma once
// The device profile turned into the integers and rates the model uses on its hot paths, validated once:
// an invalid field is an InputError naming it (place "/params/<field>").
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/op.hpp"

namespace streamlab::sim::detail {

using model::Nanos;

struct DeviceParams {
  // SMs and occupancy.
  std::uint32_t sm_count = 0;
  std::int32_t threads_per_sm = 0, blocks_per_sm = 0, registers_per_sm = 0, smem_per_sm = 0;
  std::int32_t smem_per_block_max = 0, threads_per_block_max = 0;
  /// Shared memory the system reserves per resident block: smem_per_sm - max per block (1 KB on sm_80..90,
  /// which is exactly the difference the CUDA occupancy tables give).
  std::int32_t smem_reserved_per_block = 0;
  /// The shared-memory carveout (profiles that measured it; `carveout` false otherwise and every kernel
  /// may share an SM that has room). A block's shared memory is rounded up to smem_alloc_unit; a running
  /// grid of threads_for(i) = 32 << i -thread blocks without shared memory leaves its SMs configured for
  /// carveout_by_threads[i] bytes (see GpuModel's KernelInfo::carveout and ::admit).
  bool carveout = false;
  std::int32_t smem_alloc_unit = 1;
  std::array<std::int32_t, 6> carveout_by_threads{};
  std::uint32_t max_resident_grids = 0;
  std::uint32_t connections = 0;
  int priority_least = 0, priority_greatest = 0;

  // Host API costs.
  Nanos kernel_launch = 0, memcpy_issue = 0, event_create = 0, record_timed = 0, record_untimed = 0;
  Nanos event_query = 0, stream_query = 0, stream_wait = 0, host_func_issue = 0, sync_wakeup = 0;
  Nanos stream_first_use = 0;  ///< extra host time of the first call that puts work into a created stream
  Nanos event_destroy = 0;  ///< host time of a cudaEventDestroy (optional field; absent: 0)
  /// Extra host time of a program's first call and of the first call after a host wait (optional field).
  Nanos first_call_after_sync = 0;
  /// Extra host time of a kernel launch per other hardware queue with unfinished work (optional field).
  Nanos kernel_launch_per_busy_queue = 0;
  /// Extra host time of a kernel launch into another queue than the previous launch's while other queues
  /// have unfinished work (optional field).
  Nanos kernel_launch_queue_switch = 0;
  /// Extra host time of the first work call into a stream whose hardware queue had no work yet (optional).
  Nanos queue_first_use = 0;
  /// Extra host time of the program's first work or synchronize call, in place of first_call_after_sync
  /// for that call (optional field; absent: first_call_after_sync applies).
  std::optional<Nanos> program_first_call;
  /// A host query sees a device completion this long after it happened (0: at once).
  Nanos completion_seen = 0;
  Nanos host_func_roundtrip = 0;

  // Device latencies.
  Nanos kernel_start_latency = 0, block_dispatch = 0, event_wait_latency = 0;
  /// Device-wide warp launch time of the work distributor (ns per warp of a block being launched): the
  /// profile's warp_launch_ns unless SimOptions::warp_launch_ns overrides it.
  double warp_launch_ns = 0;
  /// The rate for a grid whose first wave fills at most half of every SM's thread slots; warp_launch_ns is
  /// the full-wave rate and launch_rate_at interpolates between them. Untraced: the same as warp_launch_ns.
  double warp_launch_half_fill_ns = 0;
  /// A block placed into room freed by a finishing block starts block_dispatch + warps x this later; this
  /// is the value for blocks running up to dispatch_short_block ns, block_dispatch_per_warp_long_ns from
  /// dispatch_long_block ns on, linear in between (dispatch_per_warp_at). Untraced: one value.
  double block_dispatch_per_warp_ns = 0;
  double block_dispatch_per_warp_long_ns = 0;
  Nanos dispatch_short_block = 0, dispatch_long_block = 0;
  /// The same rates with CUPTI activity tracing on; SimOptions::traced uses them instead.
  double traced_warp_launch_ns = 0;
  double traced_block_dispatch_per_warp_ns = 0;
  double traced_block_dispatch_per_warp_long_ns = 0;
  Nanos traced_dispatch_short_block = 0, traced_dispatch_long_block = 0;
  double traced_warp_launch_half_fill_ns = 0;
  Nanos traced_same_stream_gap = 0;
  /// CUPTI kernel span minus the kernel's own span; span_pad is what a run reports (traced: this, else 0).
  Nanos traced_span_pad = 0, span_pad = 0;
  /// A device op's end -> the next (already waiting) device op of the same stream.
  Nanos same_stream_gap = 0;
  /// Added to same_stream_gap per other hardware queue holding commands when the op ends (optional
  /// profile field; 0 without it).
  Nanos same_stream_gap_per_busy_queue = 0;
  /// Extra per task of a dynamic task pool (the shared counter fetch).
  Nanos task_fetch = 0;
  /// Extra host time per kernel launch while CUPTI tracing is on; charged only when SimOptions::traced.
  Nanos traced_launch_overhead = 0;
  /// Copy-engine time after each copy or memset (a traced run's timestamp write; 0 untraced), and the
  /// traced value with_options puts there.
  Nanos copy_record = 0, traced_copy_record = 0;
  Nanos traced_copy_issue_overhead = 0;

  // Copies: bytes per ns (= GB/s).
  std::uint32_t copy_engines = 0;
  Nanos h2d_latency = 0, d2h_latency = 0, d2d_latency = 0;
  double h2d_pinned = 0, h2d_pageable = 0, d2h_pinned = 0, d2h_pageable = 0, d2d = 0;
  /// Rate multiplier of a copy while the opposite direction's engine runs, by direction (0 = H2D from
  /// h2d_bidirectional_factor, 1 = D2H from d2h_bidirectional_factor); D2D is not affected.
  std::array<double, 2> bidirectional_factor{1, 1};
  double memset = 0;

  // Cost model.
  double dram_bytes_per_ns = 0, fp32_flops_per_ns = 0;
};

/// Throws model::InputError(profile.name, "/params/<field>", "", reason) on the first invalid field.
[[nodiscard]] DeviceParams derive_params(const model::DeviceProfile& p);

/// Work-distributor time per warp for a grid whose first wave fills `fill` (0..1) of the SMs' thread slots:
/// warp_launch_half_fill_ns up to one half, warp_launch_ns at one, linear in between.
[[nodiscard]] double launch_rate_at(const DeviceParams& p, double fill) noexcept;

/// Per-warp block replacement time for blocks that run `block_ns` on average (see DeviceParams).
[[nodiscard]] double dispatch_per_warp_at(const DeviceParams& p, double block_ns) noexcept;

/// ceil(x) for a non-negative duration computed in floating point, tolerant of representation noise
/// (100000 / 10.0 must be 10000, not 10001).
[[nodiscard]] Nanos ceil_ns(double x) noexcept;

}  // namespace streamlab::sim::detail
