// Synthetic kernels: exact per-block durations, task pools, memory- and compute-bound kernels.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "streamlab/executor/buffer.hpp"
#include "streamlab/executor/kernels.hpp"
#include "streamlab/executor/stream.hpp"

namespace ex = streamlab::executor;
namespace k = streamlab::executor::kernels;

namespace {
std::vector<k::BlockRecord> fetch(const ex::buffer& d, std::size_t n) {
  std::vector<k::BlockRecord> h(n);
  STREAMLAB_CUDA_CHECK(cudaMemcpy(h.data(), d.data(), n * sizeof(k::BlockRecord), cudaMemcpyDeviceToHost));
  return h;
}
}  // namespace

TEST(Kernels, SpinBlocksLastTheirDuration) {
  constexpr unsigned kBlocks = 264;
  ex::stream s;
  ex::buffer rec = ex::device_buffer(kBlocks * sizeof(k::BlockRecord));
  ASSERT_EQ(k::launch_spin(dim3(kBlocks), dim3(128), 0, s.get(), 100'000, rec.as<k::BlockRecord>()), cudaSuccess);
  s.sync();
  const auto h = fetch(rec, kBlocks);
  for (const auto& r : h) {
    const auto d = static_cast<std::int64_t>(r.end_ns - r.start_ns);
    EXPECT_GE(d, 100'000);
    if (!streamlab::test::under_sanitizer()) {
      EXPECT_LE(d, 103'000) << "block " << r.block;
    }
  }
  EXPECT_EQ(h[17].block, 17u);
}

TEST(Kernels, PerBlockDurationsFollowTheList) {
  constexpr unsigned kBlocks = 8;
  std::vector<std::int64_t> ns(kBlocks);
  for (unsigned i = 0; i < kBlocks; ++i) ns[i] = 20'000 * (i + 1);
  ex::stream s;
  ex::buffer list = ex::device_buffer(kBlocks * sizeof(std::int64_t));
  STREAMLAB_CUDA_CHECK(cudaMemcpy(list.data(), ns.data(), list.size(), cudaMemcpyHostToDevice));
  ex::buffer rec = ex::device_buffer(kBlocks * sizeof(k::BlockRecord));
  ASSERT_EQ(k::launch_spin_per_block(dim3(kBlocks), dim3(64), 0, s.get(), list.as<std::int64_t>(), rec.as<k::BlockRecord>()),
            cudaSuccess);
  s.sync();
  const auto h = fetch(rec, kBlocks);
  for (unsigned i = 0; i < kBlocks; ++i) {
    const auto d = static_cast<std::int64_t>(h[i].end_ns - h[i].start_ns);
    EXPECT_GE(d, ns[i]);
    if (!streamlab::test::under_sanitizer()) {
      EXPECT_LE(d, ns[i] + 3'000);
    }
  }
}

TEST(Kernels, SharedMemoryAboveTheDefaultLimitLaunches) {
  int optin = 0;
  STREAMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  ex::stream s;
  ASSERT_EQ(k::launch_spin(dim3(4), dim3(128), static_cast<unsigned>(optin), s.get(), 1'000), cudaSuccess);
  s.sync();
}

class TaskPool : public ::testing::TestWithParam<bool> {};

TEST_P(TaskPool, EveryTaskRunsOnceWithItsDurationAndTheQueueResets) {
  const bool dynamic = GetParam();
  constexpr std::uint32_t kTasks = 64, kWorkers = 6;
  std::vector<std::int64_t> ns(kTasks);
  for (std::uint32_t i = 0; i < kTasks; ++i) ns[i] = 5'000 + 1'000 * (i % 7);
  ex::stream s;
  ex::buffer list = ex::device_buffer(kTasks * sizeof(std::int64_t));
  STREAMLAB_CUDA_CHECK(cudaMemcpy(list.data(), ns.data(), list.size(), cudaMemcpyHostToDevice));
  ex::buffer state = ex::device_buffer(sizeof(k::TaskPoolState));
  STREAMLAB_CUDA_CHECK(cudaMemset(state.data(), 0, state.size()));
  ex::buffer rec = ex::device_buffer(kTasks * sizeof(k::BlockRecord));
  for (int launch = 0; launch < 2; ++launch) {  // the second launch proves the kernel reset its queue
    STREAMLAB_CUDA_CHECK(cudaMemset(rec.data(), 0, rec.size()));
    ASSERT_EQ(k::launch_task_pool(dim3(kWorkers), dim3(64), 0, s.get(), list.as<std::int64_t>(), kTasks, dynamic,
                                  state.as<k::TaskPoolState>(), rec.as<k::BlockRecord>()),
              cudaSuccess);
    s.sync();
    const auto h = fetch(rec, kTasks);
    for (std::uint32_t i = 0; i < kTasks; ++i) {
      EXPECT_EQ(h[i].block, i) << "task " << i << " did not run (launch " << launch << ")";
      EXPECT_GE(static_cast<std::int64_t>(h[i].end_ns - h[i].start_ns), ns[i]);
    }
  }
  k::TaskPoolState after{};
  STREAMLAB_CUDA_CHECK(cudaMemcpy(&after, state.data(), sizeof after, cudaMemcpyDeviceToHost));
  EXPECT_EQ(after.next_task, 0u);
  EXPECT_EQ(after.blocks_done, 0u);
}

INSTANTIATE_TEST_SUITE_P(StaticAndDynamic, TaskPool, ::testing::Values(false, true));

TEST(Kernels, MemoryBoundKernelTransformsEveryElement) {
  constexpr std::size_t kFloats = 1 << 20;
  ex::stream s;
  ex::buffer host = ex::pinned_buffer(kFloats * sizeof(float));
  auto v = host.host_span<float>();
  for (std::size_t i = 0; i < kFloats; ++i) v[i] = static_cast<float>(i % 1000);
  ex::buffer src = ex::device_buffer(host.size()), dst = ex::device_buffer(host.size());
  STREAMLAB_CUDA_CHECK(cudaMemcpy(src.data(), host.data(), host.size(), cudaMemcpyHostToDevice));
  ASSERT_EQ(k::launch_memory_bound(dim3(264), dim3(256), s.get(), src.data(), dst.data(), host.size()), cudaSuccess);
  s.sync();
  std::vector<float> out(kFloats);
  STREAMLAB_CUDA_CHECK(cudaMemcpy(out.data(), dst.data(), host.size(), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < kFloats; i += 4) {
    ASSERT_EQ(out[i], v[i] + 1.0f) << i;  // x of each float4 gets +1
    ASSERT_EQ(out[i + 1], v[i + 1]) << i;
  }
}

TEST(Kernels, ComputeBoundAndCostModelKernelsRun) {
  ex::stream s;
  ex::buffer out = ex::device_buffer(264 * 256 * sizeof(float));
  ASSERT_EQ(k::launch_compute_bound(dim3(264), dim3(256), s.get(), out.as<float>(), 1000), cudaSuccess);
  ex::buffer buf = ex::device_buffer(1 << 20);
  STREAMLAB_CUDA_CHECK(cudaMemset(buf.data(), 0, buf.size()));
  ASSERT_EQ(k::launch_cost_model(dim3(132), dim3(256), s.get(), buf.data(), buf.size(), 1e8), cudaSuccess);
  s.sync();
  std::vector<float> h(264 * 256);
  STREAMLAB_CUDA_CHECK(cudaMemcpy(h.data(), out.data(), out.size(), cudaMemcpyDeviceToHost));
  for (float x : h) ASSERT_TRUE(std::isfinite(x));
}
