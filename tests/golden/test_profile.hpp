#pragma once
// The synthetic device of the golden scenarios (round numbers so timelines can be computed by hand).
// Shared with the simulator's unit and property tests.
#include "streamlab/model/device_profile.hpp"

namespace streamlab::golden {

inline model::Param p(double v) { return model::Param{v, "test: round number for hand arithmetic"}; }

/// The synthetic device every golden scenario uses (round numbers; see tests/golden/README.md):
///   4 SMs x (2048 threads, 16 blocks, 64K registers, 64 KiB shared memory, no per-block reserve)
///   -> a 1024-thread block (32 regs/thread) fits twice per SM: 8 device-wide; a 256-thread block 8 per SM
///   host: launch 1000, memcpy issue 1000, record 100 (timed 200), wait 100, query 50, host func issue
///         1000, sync wake-up 5000, host func round trip 10000
///   device: kernel start latency 2000, block dispatch 0, event wait latency 500
///   copies: latency 1000 + bytes / 10 B/ns pinned (2 B/ns pageable) each direction, 3 engines,
///           bidirectional factor 0.5 in both directions (h2d_ and d2h_bidirectional_factor); D2D 1000 +
///           bytes / 100; memset 100 B/ns; DRAM 1000 B/ns
inline model::DeviceProfile test_profile() {
  model::DeviceProfile d;
  d.name = "golden test device";
  d.date = "2026-01-01";
  d.sm_count = p(4);
  d.max_threads_per_sm = p(2048);
  d.max_blocks_per_sm = p(16);
  d.registers_per_sm = p(65536);
  d.shared_mem_per_sm_bytes = p(65536);
  d.max_shared_mem_per_block_bytes = p(65536);
  d.max_threads_per_block = p(1024);
  d.max_resident_grids = p(128);
  d.connections = p(8);
  d.priority_least = p(0);
  d.priority_greatest = p(-5);
  d.kernel_launch_ns = p(1000);
  d.memcpy_async_issue_ns = p(1000);
  d.event_create_ns = p(0);
  d.event_record_timed_ns = p(200);
  d.event_record_untimed_ns = p(100);
  d.event_query_ns = p(50);
  d.stream_query_ns = p(50);
  d.stream_wait_event_ns = p(100);
  d.host_func_issue_ns = p(1000);
  d.sync_wakeup_ns = p(5000);
  d.host_func_roundtrip_ns = p(10000);
  d.kernel_start_latency_ns = p(2000);
  d.block_dispatch_ns = p(0);
  d.event_wait_latency_ns = p(500);
  d.copy_engines = p(3);
  d.h2d_latency_ns = p(1000);
  d.h2d_pinned_gbps = p(10);
  d.h2d_pageable_gbps = p(2);
  d.d2h_latency_ns = p(1000);
  d.d2h_pinned_gbps = p(10);
  d.d2h_pageable_gbps = p(2);
  d.d2d_latency_ns = p(1000);
  d.d2d_gbps = p(100);
  d.h2d_bidirectional_factor = p(0.5);
  d.d2h_bidirectional_factor = p(0.5);
  d.memset_gbps = p(100);
  d.dram_gbps = p(1000);
  d.fp32_gflops = p(1000);
  return d;
}

}  // namespace streamlab::golden
