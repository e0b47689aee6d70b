// Event pool and stream pool.
#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/executor/event_pool.hpp"
#include "streamlab/executor/kernels.hpp"
#include "streamlab/executor/stream_pool.hpp"

namespace ex = streamlab::executor;
using namespace std::chrono_literals;
using streamlab::model::Priority;
using streamlab::model::WorkloadType;

TEST(EventPool, ReusesReleasedEventsAndTracksUtilization) {
  ex::EventPool pool({.initial_untimed = 2, .initial_timed = 1, .max_untimed = 4, .max_timed = 2});
  auto u0 = pool.utilization();
  EXPECT_EQ(u0.created_untimed, 2u);
  EXPECT_EQ(u0.created_timed, 1u);
  cudaEvent_t first = nullptr;
  {
    ex::PooledEvent a = pool.acquire(ex::EventTiming::untimed);
    first = a.get();
    ex::PooledEvent t = pool.acquire(ex::EventTiming::timed);
    EXPECT_EQ(t.timing(), ex::EventTiming::timed);
    const auto u = pool.utilization();
    EXPECT_EQ(u.in_use_untimed, 1u);
    EXPECT_EQ(u.in_use_timed, 1u);
    EXPECT_EQ(u.available_untimed, 1u);
    EXPECT_GT(u.fraction_in_use(), 0.0);
  }
  const auto u1 = pool.utilization();
  EXPECT_EQ(u1.in_use_untimed + u1.in_use_timed, 0u);
  ex::PooledEvent again = pool.acquire(ex::EventTiming::untimed);
  EXPECT_EQ(again.get(), first);  // LIFO reuse
  EXPECT_GE(pool.utilization().reuses, 2u);
}

TEST(EventPool, GrowsToItsCapThenRefuses) {
  ex::EventPool pool({.initial_untimed = 0, .initial_timed = 0, .max_untimed = 3, .max_timed = 1});
  std::vector<ex::PooledEvent> held;
  for (int i = 0; i < 3; ++i) held.push_back(pool.acquire(ex::EventTiming::untimed));
  EXPECT_EQ(pool.utilization().created_untimed, 3u);
  EXPECT_THROW((void)pool.acquire(ex::EventTiming::untimed), ex::PoolExhausted);
  EXPECT_FALSE(pool.try_acquire(ex::EventTiming::untimed).has_value());
  held.pop_back();
  EXPECT_TRUE(pool.try_acquire(ex::EventTiming::untimed).has_value());
  ex::PooledEvent t = pool.acquire(ex::EventTiming::timed);
  EXPECT_THROW((void)pool.acquire(ex::EventTiming::timed), ex::PoolExhausted);
}

TEST(EventPool, ThreadSafeUnderContention) {
  ex::EventPool pool({.initial_untimed = 0, .initial_timed = 0, .max_untimed = 64, .max_timed = 64});
  std::atomic<int> exhausted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        auto e = pool.try_acquire(t % 2 == 0 ? ex::EventTiming::untimed : ex::EventTiming::timed);
        if (!e) ++exhausted;
      }
    });
  }
  for (auto& th : threads) th.join();
  const auto u = pool.utilization();
  EXPECT_EQ(u.in_use_untimed + u.in_use_timed, 0u);
  EXPECT_LE(u.created_untimed, 64u);
  EXPECT_LE(u.created_timed, 64u);
  EXPECT_EQ(u.acquisitions + static_cast<std::uint64_t>(exhausted.load()), 4000u);
  EXPECT_LE(u.peak_in_use, 8u);
}

TEST(StreamPool, SpreadsPriorityLevelsOverTheDeviceRange) {
  ex::StreamPool pool({.streams_per_class = 2, .strategy = ex::AllocationStrategy::priority});
  const auto [least, greatest] = pool.priority_range();
  EXPECT_EQ(pool.size(), 8u);
  EXPECT_EQ(pool.for_priority(Priority::critical).priority(), greatest);
  EXPECT_EQ(pool.for_priority(Priority::cleanup).priority(), least);
  const ex::stream_ref n = pool.acquire(WorkloadType::compute, Priority::normal);
  EXPECT_EQ(n.priority(), (least + greatest) / 2);
}

TEST(StreamPool, WorkloadAndRoundRobinStrategies) {
  ex::StreamPool wl({.streams_per_class = 2, .strategy = ex::AllocationStrategy::workload});
  std::set<cudaStream_t> memory_streams;
  for (int i = 0; i < 6; ++i) memory_streams.insert(wl.acquire(WorkloadType::memory, Priority::normal).get());
  EXPECT_EQ(memory_streams.size(), 2u);  // alternates over the memory class only
  EXPECT_EQ(wl.for_workload(WorkloadType::coordination).priority(), wl.priority_range().first);

  ex::StreamPool rr({.streams_per_class = 1, .strategy = ex::AllocationStrategy::round_robin});
  std::vector<cudaStream_t> order;
  for (int i = 0; i < 8; ++i) order.push_back(rr.acquire(WorkloadType::compute, Priority::normal).get());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(i + 4)]);
  EXPECT_EQ(std::set<cudaStream_t>(order.begin(), order.end()).size(), 4u);
}

TEST(StreamPool, LoadBalancedPicksTheLeastOutstanding) {
  ex::StreamPool lb({.streams_per_class = 1, .strategy = ex::AllocationStrategy::load_balanced});
  std::set<cudaStream_t> first_four;
  for (int i = 0; i < 4; ++i) first_four.insert(lb.acquire(WorkloadType::compute, Priority::normal).get());
  EXPECT_EQ(first_four.size(), 4u);  // each pick had one fewer outstanding op than the others
  EXPECT_EQ(lb.info(0).outstanding, 1u);
  EXPECT_TRUE(lb.has_ready_stream());  // nothing ran: all idle, outstanding reset
  EXPECT_EQ(lb.info(0).outstanding, 0u);
}

TEST(StreamPool, ReadyStreamDetectionAndWaitAnyWithTimeout) {
  ex::StreamPool pool({.streams_per_class = 1, .strategy = ex::AllocationStrategy::round_robin});
  streamlab::test::Mapped flag(64);
  for (std::size_t i = 0; i < pool.size(); ++i) {
    ASSERT_EQ(ex::kernels::launch_wait_flag(pool.at(i).get(), flag.flag(), 10'000'000'000ull), cudaSuccess);
  }
  EXPECT_FALSE(pool.has_ready_stream());
  EXPECT_TRUE(pool.ready_streams().empty());
  EXPECT_FALSE(pool.wait_any_ready(5ms).has_value());
  flag.release_flag();
  const auto ready = pool.wait_any_ready(10s);
  ASSERT_TRUE(ready.has_value());
  pool.synchronize_all();
  EXPECT_EQ(pool.ready_streams().size(), pool.size());
  pool.record_completion(WorkloadType::memory, 3ms);
  pool.record_completion(WorkloadType::memory, 5ms);
  EXPECT_EQ(pool.average_time(WorkloadType::memory), 4ms);
}
