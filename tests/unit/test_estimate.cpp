// estimate_duration on a small hand-made profile, numbers worked out in the comments.
#include <gtest/gtest.h>

#include "streamlab/model/estimate.hpp"

namespace streamlab::model {
namespace {

DeviceProfile profile() {
  DeviceProfile p;
  p.sm_count.value = 4;
  p.max_threads_per_sm.value = 2048;
  p.max_blocks_per_sm.value = 32;
  p.registers_per_sm.value = 65536;
  p.shared_mem_per_sm_bytes.value = 228 * 1024;
  p.h2d_latency_ns.value = 2500;
  p.h2d_pinned_gbps.value = 25;
  p.h2d_pageable_gbps.value = 10;
  p.d2h_latency_ns.value = 2000;
  p.d2h_pinned_gbps.value = 20;
  p.d2d_latency_ns.value = 1000;
  p.d2d_gbps.value = 1000;
  p.memset_gbps.value = 2000;
  p.dram_gbps.value = 3000;
  p.fp32_gflops.value = 60000;
  p.host_func_roundtrip_ns.value = 12000;
  return p;
}

Op kernel(std::uint32_t grid, std::uint32_t block, DurationSpec d) {
  Op op;
  op.kind = OpKind::kernel;
  op.shape = KernelShape{{grid, 1, 1}, {block, 1, 1}, 32, 0};
  op.duration = std::move(d);
  return op;
}

TEST(Estimate, OccupancyLimits) {
  const DeviceProfile p = profile();
  // 256 threads: 2048/256 = 8 by threads; 65536 / (32 x 256) = 8 by registers.
  EXPECT_EQ(blocks_per_sm(KernelShape{{1, 1, 1}, {256, 1, 1}, 32, 0}, p), 8u);
  // 64 threads: 32 by threads, 32 by blocks; 128 registers x 64 = 8192 -> 8 by registers.
  EXPECT_EQ(blocks_per_sm(KernelShape{{1, 1, 1}, {64, 1, 1}, 128, 0}, p), 8u);
  // 100 KiB of shared memory per block: 228 / 100 -> 2.
  EXPECT_EQ(blocks_per_sm(KernelShape{{1, 1, 1}, {128, 1, 1}, 32, 100 * 1024}, p), 2u);
  // 33 threads take two warps of registers: 255 x 64 = 16320 -> 4.
  EXPECT_EQ(blocks_per_sm(KernelShape{{1, 1, 1}, {33, 1, 1}, 255, 0}, p), 4u);
}

TEST(Estimate, KernelsByDurationSpec) {
  const DeviceProfile p = profile();
  // 8 blocks per SM x 4 SMs = 32 slots: 32 blocks are one wave, 33 are two.
  EXPECT_EQ(estimate_duration(kernel(32, 256, FixedPerBlock{1000}), p), 1000);
  EXPECT_EQ(estimate_duration(kernel(33, 256, FixedPerBlock{1000}), p), 2000);
  // 1024 threads per block: 2 per SM, 8 slots; blocks go in list order to the earliest free slot. The
  // 50 ns block first: the 9th and 10th blocks start at 10 on freed slots and end at 20; finish 50.
  Op list = kernel(10, 1024, PerBlockList{{50, 10, 10, 10, 10, 10, 10, 10, 10, 10}});
  EXPECT_EQ(estimate_duration(list, p), 50);
  // Same blocks with the long one last: 8 slots busy until 10, then the two last start at 10 -> 60.
  list.duration = PerBlockList{{10, 10, 10, 10, 10, 10, 10, 10, 10, 50}};
  EXPECT_EQ(estimate_duration(list, p), 60);
  // Roofline: 3e6 bytes / 3000 B/ns = 1000 ns; 1.2e8 flops / 60000 flop/ns = 2000 ns -> 2000.
  EXPECT_EQ(estimate_duration(kernel(1, 32, CostModel{3e6, 1.2e8}), p), 2000);
  EXPECT_EQ(estimate_duration(kernel(1, 32, CostModel{3e6, 0}), p), 1000);
}

TEST(Estimate, TaskPools) {
  const DeviceProfile p = profile();
  Op pool = kernel(2, 1024, FixedPerBlock{0});
  pool.kind = OpKind::task_pool;
  // Dynamic: two blocks take tasks 40, 10, 10, 10, 10 in order: A 40; B 10,10,10 (30) then 10 -> 40.
  pool.tasks = TaskList{{40, 10, 10, 10, 10}, TaskAssignment::dynamic_queue};
  EXPECT_EQ(estimate_duration(pool, p), 40);
  // Static: block 0 takes tasks 0, 2, 4 = 60; block 1 takes 1, 3 = 20 -> 60.
  pool.tasks->assignment = TaskAssignment::static_index;
  EXPECT_EQ(estimate_duration(pool, p), 60);
}

TEST(Estimate, CopiesHostAndBarrier) {
  const DeviceProfile p = profile();
  Op op;
  op.bytes = 1'000'000;
  op.kind = OpKind::h2d;
  EXPECT_EQ(estimate_duration(op, p), 2500 + 40000);  // 1e6 B / 25 B/ns
  op.host_memory = HostMemory::pageable;
  EXPECT_EQ(estimate_duration(op, p), 2500 + 100000);
  op.host_memory = HostMemory::pinned;
  op.kind = OpKind::d2h;
  EXPECT_EQ(estimate_duration(op, p), 2000 + 50000);
  op.kind = OpKind::d2d;
  EXPECT_EQ(estimate_duration(op, p), 1000 + 1000);
  op.kind = OpKind::memset;
  EXPECT_EQ(estimate_duration(op, p), 500);
  op.kind = OpKind::prefetch;
  EXPECT_EQ(estimate_duration(op, p), 2500 + 40000);
  op.kind = OpKind::host_func;
  op.host_ns = 1000;
  EXPECT_EQ(estimate_duration(op, p), 13000);
  op.kind = OpKind::barrier;
  EXPECT_EQ(estimate_duration(op, p), 0);
}

}  // namespace
}  // namespace streamlab::model
