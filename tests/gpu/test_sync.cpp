// Cross-stream barrier, async event waiter, timeline signals (CPU and CUDA).
#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "streamlab/executor/async_waiter.hpp"
#include "streamlab/executor/barrier.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/executor/kernels.hpp"
#include "streamlab/executor/timeline_signal.hpp"

namespace ex = streamlab::executor;
using namespace std::chrono_literals;
using streamlab::policies::WaitStatus;

TEST(Barrier, WorkAfterTheBarrierWaitsForEveryStream) {
  ex::EventPool pool;
  ex::stream a, b, c;
  const ex::stream_ref refs[] = {a, b, c};
  ex::CrossStreamBarrier barrier(refs, pool);
  streamlab::test::Mapped out(64);
  auto* t = out.as<std::uint64_t>();
  ASSERT_EQ(ex::kernels::launch_spin_then_signal(a.get(), 2'000'000, &t[0], nullptr), cudaSuccess);
  barrier.arrive();
  ASSERT_EQ(ex::kernels::launch_read_globaltimer(b.get(), &t[1]), cudaSuccess);
  ASSERT_EQ(ex::kernels::launch_read_globaltimer(c.get(), &t[2]), cudaSuccess);
  (void)barrier.synchronize(10s);
  EXPECT_TRUE(barrier.reached());
  b.sync();
  c.sync();
  EXPECT_GE(t[1], t[0]);  // B and C started only after A's 2 ms kernel ended
  EXPECT_GE(t[2], t[0]);
  EXPECT_EQ(barrier.generation(), 1u);
}

TEST(Barrier, HostWaitTimesOutNamingTheBarrier) {
  ex::EventPool pool;
  ex::stream a, b;
  const ex::stream_ref refs[] = {a, b};
  ex::CrossStreamBarrier barrier(refs, pool);
  streamlab::test::Mapped flag(64);
  ASSERT_EQ(ex::kernels::launch_wait_flag(a.get(), flag.flag(), 10'000'000'000ull), cudaSuccess);
  barrier.arrive();
  EXPECT_FALSE(barrier.reached());
  try {
    (void)barrier.synchronize(5ms);
    FAIL() << "no timeout";
  } catch (const ex::TimeoutError& e) {
    EXPECT_EQ(e.op(), "cross-stream barrier");
    EXPECT_NE(std::string(e.what()).find("not reached"), std::string::npos);
  }
  flag.release_flag();
  (void)barrier.synchronize(10s);
  EXPECT_TRUE(barrier.reached());
}

TEST(AsyncEventWaiter, CompletionTimeoutAndCancel) {
  ex::AsyncEventWaiter waiter;
  ex::stream s;
  streamlab::test::Mapped flag(64);
  ex::event done_now;
  done_now.record(s);
  std::atomic<int> completed{0}, timed_out{0}, cancelled{0};
  std::atomic<std::uint64_t> completed_id{0};
  const auto id1 = waiter.wait_async(
      done_now,
      [&](const ex::WaitResult& r) {
        if (r.outcome == ex::WaitOutcome::completed) {
          ++completed;
          completed_id = r.id;
        }
      },
      10s, "quick");
  ASSERT_TRUE(waiter.drain(10s));
  EXPECT_EQ(completed.load(), 1);
  EXPECT_EQ(completed_id.load(), id1);

  ASSERT_EQ(ex::kernels::launch_wait_flag(s.get(), flag.flag(), 10'000'000'000ull), cudaSuccess);
  ex::event blocked;
  blocked.record(s);
  std::string timeout_label;
  (void)waiter.wait_async(
      blocked,
      [&](const ex::WaitResult& r) {
        if (r.outcome == ex::WaitOutcome::timed_out) {
          timeout_label = r.label;
          ++timed_out;
        }
      },
      5ms, "blocked op");
  const auto id3 = waiter.wait_async(
      blocked, [&](const ex::WaitResult& r) { cancelled += r.outcome == ex::WaitOutcome::cancelled ? 1 : 0; }, 10s,
      "to cancel");
  EXPECT_TRUE(waiter.cancel(id3));
  EXPECT_FALSE(waiter.cancel(id3));
  ASSERT_TRUE(waiter.drain(10s));
  EXPECT_EQ(timed_out.load(), 1);
  EXPECT_EQ(timeout_label, "blocked op");
  EXPECT_EQ(cancelled.load(), 1);
  EXPECT_EQ(waiter.pending(), 0u);
  flag.release_flag();
  s.sync();
}

TEST(CpuTimelineSignal, WaitersWakeAtTheirValueAndTimeOut) {
  ex::CpuTimelineSignal sig;
  std::atomic<bool> woke{false};
  std::thread waiter([&] { woke = sig.wait(5, 10s) == WaitStatus::ready; });
  std::thread setter([&] {
    for (std::uint64_t v = 1; v <= 5; ++v) sig.set(v);
  });
  setter.join();
  waiter.join();
  EXPECT_TRUE(woke.load());
  EXPECT_EQ(sig.value(), 5u);
  sig.set(3);  // never goes back
  EXPECT_EQ(sig.value(), 5u);
  EXPECT_TRUE(sig.reached(4));
  EXPECT_EQ(sig.wait(6, 2ms), WaitStatus::timed_out);
  EXPECT_THROW(sig.wait_or_throw(6, 1ms, "op 'x'"), ex::TimeoutError);
}

TEST(CudaTimelineSignal, ValueFollowsTheDeviceNotTheHost) {
  ex::stream s, other;
  ex::CudaTimelineSignal sig(s, 8);
  streamlab::test::Mapped flag(64);
  ASSERT_EQ(ex::kernels::launch_wait_flag(s.get(), flag.flag(), 10'000'000'000ull), cudaSuccess);
  sig.signal(1);
  EXPECT_EQ(sig.last_signalled(), 1u);
  EXPECT_EQ(sig.value(), 0u);  // recorded, not reached
  EXPECT_EQ(sig.wait(1, 5ms), WaitStatus::timed_out);
  streamlab::test::Mapped out(64);
  sig.enqueue_wait(other, 1);
  ASSERT_EQ(ex::kernels::launch_read_globaltimer(other.get(), out.as<std::uint64_t>()), cudaSuccess);
  EXPECT_FALSE(other.ready());  // held by the device-side wait
  flag.release_flag();
  EXPECT_EQ(sig.wait(1, 10s), WaitStatus::ready);
  EXPECT_GE(sig.value(), 1u);
  other.sync();
  EXPECT_NE(out.as<std::uint64_t>()[0], 0u);
  EXPECT_THROW(sig.signal(1), std::logic_error);
  EXPECT_THROW(sig.enqueue_wait(other, 50), std::logic_error);
}

TEST(CudaTimelineSignal, RingWrapsAndHostSetWakesWaiters) {
  ex::stream s;
  ex::CudaTimelineSignal sig(s, 8);
  for (std::uint64_t v = 1; v <= 200; ++v) {
    ASSERT_EQ(ex::kernels::launch_spin(dim3(1), dim3(32), 0, s.get(), 1'000), cudaSuccess);
    sig.signal(v);
  }
  EXPECT_EQ(sig.wait(200, 10s), WaitStatus::ready);
  EXPECT_EQ(sig.value(), 200u);
  EXPECT_EQ(sig.wait(150, 1ms), WaitStatus::ready);  // overwritten slot, value already past it
  std::atomic<bool> woke{false};
  std::thread t([&] { woke = sig.wait(500, 10s) == WaitStatus::ready; });
  std::this_thread::sleep_for(2ms);
  sig.set(500);
  t.join();
  EXPECT_TRUE(woke.load());
  EXPECT_THROW(sig.wait_or_throw(501, 1ms, "timeline test"), ex::TimeoutError);
}
