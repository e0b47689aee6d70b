// Triple buffer, async coordinator, pipeline stage manager.
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/executor/kernels.hpp"
#include "streamlab/executor/pipeline.hpp"

namespace ex = streamlab::executor;
using namespace std::chrono_literals;

TEST(TripleBuffer, StateMachineOnlyAllowsTheCycle) {
  ex::TripleBuffer tb(4096);
  EXPECT_EQ(tb.count(), 3u);
  const auto a = tb.begin_upload(), b = tb.begin_upload(), c = tb.begin_upload();
  ASSERT_TRUE(a && b && c);
  EXPECT_FALSE(tb.begin_upload().has_value());  // all three busy
  EXPECT_FALSE(tb.begin_download(*a));          // Uploading -> Downloading is not a step
  EXPECT_TRUE(tb.begin_processing(*a));
  EXPECT_FALSE(tb.begin_processing(*a));
  EXPECT_TRUE(tb.begin_download(*a));
  EXPECT_EQ(tb.state(*a), ex::BufferState::downloading);
  EXPECT_TRUE(tb.finish(*a));
  EXPECT_EQ(tb.state(*a), ex::BufferState::free);
  EXPECT_EQ(tb.begin_upload(), a);
  EXPECT_EQ(ex::to_string(tb.states()[*b]), "uploading");
}

TEST(AsyncCoordinator, DependenciesOrderUploadComputeDownload) {
  constexpr std::size_t kBytes = 4 << 20;
  ex::EventPool pool;
  ex::AsyncCoordinator coord(pool);
  ex::buffer in = ex::pinned_buffer(kBytes), out = ex::pinned_buffer(kBytes);
  ex::buffer d_in = ex::device_buffer(kBytes), d_out = ex::device_buffer(kBytes);
  auto v = in.host_span<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 977);
  STREAMLAB_CUDA_CHECK(cudaMemset(d_out.data(), 0, kBytes));
  std::memset(out.data(), 0, kBytes);
  const ex::OpTicket up = coord.queue_upload(d_in.data(), in.data(), kBytes);
  const ex::OpTicket deps1[] = {up};
  const ex::OpTicket comp = coord.queue_compute(
      "add-one",
      [&](cudaStream_t s) {
        ASSERT_EQ(ex::kernels::launch_spin(dim3(1), dim3(32), 0, s, 500'000), cudaSuccess);  // makes order matter
        ASSERT_EQ(ex::kernels::launch_memory_bound(dim3(132), dim3(256), s, d_in.data(), d_out.data(), kBytes), cudaSuccess);
      },
      deps1);
  const ex::OpTicket deps2[] = {comp};
  const ex::OpTicket down = coord.queue_download(out.data(), d_out.data(), kBytes, deps2);
  coord.wait(down, 10s);
  EXPECT_TRUE(coord.done(down));
  const auto o = out.host_span<float>();
  for (std::size_t i = 0; i < o.size(); i += 4) ASSERT_EQ(o[i], v[i] + 1.0f) << i;
  coord.synchronize_all(10s);
  const auto completed = coord.poll();  // up and comp were retired by synchronize_all
  EXPECT_TRUE(completed.empty());
  EXPECT_GT(coord.span_between(up, down).count(), 500'000);
  const ex::OpTicket bogus[] = {999};
  EXPECT_THROW((void)coord.queue_download(out.data(), d_out.data(), 16, bogus), std::invalid_argument);
}

TEST(AsyncCoordinator, WaitTimesOutNamingTheOp) {
  ex::EventPool pool;
  ex::AsyncCoordinator coord(pool);
  streamlab::test::Mapped flag(64);
  const ex::OpTicket c = coord.queue_compute("stuck-kernel", [&](cudaStream_t s) {
    ASSERT_EQ(ex::kernels::launch_wait_flag(s, flag.flag(), 10'000'000'000ull), cudaSuccess);
  });
  try {
    coord.wait(c, 5ms);
    FAIL() << "no timeout";
  } catch (const ex::TimeoutError& e) {
    EXPECT_EQ(e.op(), "stuck-kernel");
  }
  EXPECT_TRUE(coord.poll().empty());
  flag.release_flag();
  coord.synchronize_all(10s);
  EXPECT_TRUE(coord.done(c));
}

TEST(PipelineStageManager, TripleBufferingOverlapsTheStages) {
  constexpr std::size_t kBytes = 16 << 20;
  constexpr int kIterations = 12;
  ex::EventPool pool;
  ex::AsyncCoordinator coord(pool);
  ex::TripleBuffer tb(kBytes);
  ex::buffer in = ex::pinned_buffer(kBytes), out = ex::pinned_buffer(kBytes);
  std::memset(in.data(), 1, kBytes);
  ex::PipelineStageManager pm(coord, tb, in.data(), out.data());
  const auto spin = [](std::uint64_t ns) {
    return [ns](cudaStream_t s, std::size_t, void*) {
      STREAMLAB_CUDA_CHECK(ex::kernels::launch_spin(dim3(132), dim3(128), 0, s, ns));
    };
  };
  const auto post = pm.add_stage({"postprocess", spin(300'000)});
  const auto main = pm.add_stage({"main", spin(1'200'000)});
  pm.set_order({main, post});
  EXPECT_THROW(pm.set_order({7}), std::invalid_argument);
  for (int i = 0; i < kIterations; ++i) pm.execute_iteration();
  pm.finish();
  const ex::PipelineStats st = pm.stats();
  EXPECT_EQ(st.iterations, static_cast<std::size_t>(kIterations));
  EXPECT_GT(st.avg_iteration_ms, 1.4);  // at least the compute per iteration
  EXPECT_NEAR(st.throughput, 1000.0 / st.avg_iteration_ms, 1.0);
  EXPECT_GT(st.gpu_utilization, 0.0);
  EXPECT_LE(st.gpu_utilization, 1.0);
  for (std::size_t b = 0; b < tb.count(); ++b) EXPECT_EQ(tb.state(b), ex::BufferState::free);
  if (!streamlab::test::under_sanitizer()) {
    // Serial time per iteration is upload + 1.5 ms + download; overlapped, the copies hide under compute.
    EXPECT_GT(st.gpu_utilization, 0.75) << "avg iteration " << st.avg_iteration_ms << " ms";
  }
  pm.reset_stats();
  EXPECT_EQ(pm.stats().iterations, 0u);
}
