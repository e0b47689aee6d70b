// RAII handles, the error type and the check macro, buffers and async memory operations.
#include <cstring>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "streamlab/executor/buffer.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/executor/event.hpp"
#include "streamlab/executor/kernels.hpp"
#include "streamlab/executor/memory_ops.hpp"
#include "streamlab/executor/stream.hpp"

namespace ex = streamlab::executor;
using namespace std::chrono_literals;

TEST(Stream, SpecialStreamsAreCudasHandles) {
  EXPECT_EQ(ex::stream_ref::legacy().get(), cudaStreamLegacy);
  EXPECT_EQ(ex::stream_ref::per_thread().get(), cudaStreamPerThread);
}

TEST(Stream, PriorityIsClampedIntoTheDeviceRange) {
  const auto [least, greatest] = ex::stream_priority_range();
  EXPECT_LE(greatest, least);
  ex::stream hi(ex::StreamFlags::non_blocking, greatest - 100);
  ex::stream lo(ex::StreamFlags::blocking, least + 100);
  EXPECT_EQ(hi.priority(), greatest);
  EXPECT_EQ(lo.priority(), least);
  unsigned flags = 99;
  ASSERT_EQ(cudaStreamGetFlags(lo.get(), &flags), cudaSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaStreamDefault));
  ASSERT_EQ(cudaStreamGetFlags(hi.get(), &flags), cudaSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaStreamNonBlocking));
}

TEST(Stream, MoveLeavesASentinelAndKeepsTheHandle) {
  ex::stream a;
  const cudaStream_t h = a.get();
  ex::stream b(std::move(a));
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): the moved-from state is what we test
  EXPECT_EQ(a.get(), ex::stream::invalid_handle());
  EXPECT_EQ(b.get(), h);
  ex::stream c;
  c = std::move(b);
  EXPECT_EQ(c.get(), h);
  EXPECT_TRUE(c.ready());
}

TEST(Event, TimedEventsSubtractToNanoseconds) {
  ex::stream s;
  ex::timed_event a, b;
  a.record(s);
  ASSERT_EQ(ex::kernels::launch_spin(dim3(1), dim3(32), 0, s.get(), 300'000), cudaSuccess);
  b.record(s);
  b.sync();
  const std::chrono::nanoseconds d = b - a;
  EXPECT_GE(d, 299us);
  EXPECT_LT(d, 5ms);
}

TEST(Event, UntimedEventReadiness) {
  ex::stream s;
  ex::event e;
  EXPECT_TRUE(e.ready());  // never recorded: complete
  streamlab::test::Mapped flag(64);
  ASSERT_EQ(ex::kernels::launch_wait_flag(s.get(), flag.flag(), 5'000'000'000ull), cudaSuccess);
  e.record(s);
  EXPECT_FALSE(e.ready());
  flag.release_flag();
  e.sync();
  EXPECT_TRUE(e.ready());
  ex::event moved(std::move(e));
  EXPECT_TRUE(moved.valid());
  EXPECT_FALSE(e.valid());  // NOLINT(bugprone-use-after-move)
}

TEST(Error, CheckEvaluatesTheCallOnceAndNamesTheOp) {
  int calls = 0;
  auto failing = [&] {
    ++calls;
    return cudaErrorInvalidValue;
  };
  try {
    STREAMLAB_CUDA_CHECK_OP(failing(), "op 'gemm3' (GEMM 3)");
    FAIL() << "no throw";
  } catch (const ex::CudaError& e) {
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(e.status(), cudaErrorInvalidValue);
    EXPECT_EQ(e.op(), "op 'gemm3' (GEMM 3)");
    EXPECT_EQ(e.call(), "failing()");
    EXPECT_NE(e.file().find("test_handles.cpp"), std::string::npos);
    EXPECT_GT(e.line(), 0);
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaErrorInvalidValue"), std::string::npos) << what;
    EXPECT_NE(what.find("op 'gemm3'"), std::string::npos) << what;
    EXPECT_FALSE(e.sticky());
  }
  int ok_calls = 0;
  auto fine = [&] {
    ++ok_calls;
    return cudaSuccess;
  };
  STREAMLAB_CUDA_CHECK(fine());
  EXPECT_EQ(ok_calls, 1);
  // The failure was cleared from the runtime's last-error slot.
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(Buffer, UnsatisfiableDeviceAllocationNamesTheOp) {
  try {
    ex::buffer b = ex::device_buffer(std::size_t{1} << 46, "op 'huge' (64 TiB)");
    FAIL() << "a 64 TiB allocation succeeded";
  } catch (const ex::CudaError& e) {
    EXPECT_EQ(e.status(), cudaErrorMemoryAllocation);
    EXPECT_NE(std::string(e.what()).find("op 'huge'"), std::string::npos) << e.what();
  }
  // Not sticky: the device still works.
  ex::buffer ok = ex::device_buffer(1024);
  EXPECT_NE(ok.data(), nullptr);
}

TEST(Buffer, ManagedMemoryBeyondFreeIsRefusedBeforeAsking) {
  const ex::MemoryInfo info = ex::device_memory_info();
  try {
    ex::buffer b = ex::managed_buffer(info.free + (std::size_t{1} << 30), "op 'too-big-managed'");
    FAIL() << "managed allocation larger than free memory was attempted";
  } catch (const ex::CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("refused"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("too-big-managed"), std::string::npos) << e.what();
  }
}

TEST(MemoryOps, CopiesRoundTripPinnedAndPageable) {
  constexpr std::size_t kBytes = 1 << 20;
  ex::stream s;
  ex::buffer pin_in = ex::pinned_buffer(kBytes), pin_out = ex::pinned_buffer(kBytes);
  ex::buffer page_in = ex::pageable_buffer(kBytes), page_out = ex::pageable_buffer(kBytes);
  ex::buffer d1 = ex::device_buffer(kBytes), d2 = ex::device_buffer(kBytes);
  auto in = pin_in.host_span<std::uint32_t>();
  std::iota(in.begin(), in.end(), 7u);
  std::memcpy(page_in.data(), pin_in.data(), kBytes);
  std::memset(pin_out.data(), 0, kBytes);
  std::memset(page_out.data(), 0, kBytes);

  ex::copy_h2d_async(d1.data(), pin_in.data(), kBytes, s, "h2d");
  ex::copy_d2d_async(d2.data(), d1.data(), kBytes, s, "d2d");
  ex::copy_d2h_async(pin_out.data(), d2.data(), kBytes, s, "d2h");
  s.sync();
  EXPECT_EQ(std::memcmp(pin_in.data(), pin_out.data(), kBytes), 0);

  ex::memset_async(d1.data(), 0, kBytes, s, "memset");
  ex::copy_h2d_async(d1.data(), page_in.data(), kBytes, s, "pageable h2d");
  ex::copy_d2h_async(page_out.data(), d1.data(), kBytes, s, "pageable d2h");
  s.sync();
  EXPECT_EQ(std::memcmp(page_in.data(), page_out.data(), kBytes), 0);

  ex::memset_async(d2.data(), 0x5A, kBytes, s, "memset");
  ex::copy_d2h_async(pin_out.data(), d2.data(), kBytes, s, "d2h");
  s.sync();
  const auto* bytes = pin_out.as<unsigned char>();
  EXPECT_EQ(bytes[0], 0x5A);
  EXPECT_EQ(bytes[kBytes - 1], 0x5A);
}

TEST(MemoryOps, PrefetchSmallManagedBufferBothWays) {
  constexpr std::size_t kBytes = 1 << 20;  // small on purpose: managed memory can hang a GPU when oversized
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ex::stream s;
  ex::buffer m = ex::managed_buffer(kBytes, "prefetch test");
  auto v = m.host_span<std::uint32_t>();
  std::iota(v.begin(), v.end(), 1u);
  ex::prefetch_async(m, kBytes, device, s, "prefetch to device");
  ex::buffer out = ex::pinned_buffer(kBytes);
  ex::copy_d2h_async(out.data(), m.data(), kBytes, s, "read back");
  ex::prefetch_async(m, kBytes, cudaCpuDeviceId, s, "prefetch to host");
  s.sync();
  EXPECT_EQ(std::memcmp(out.data(), m.data(), kBytes), 0);
  EXPECT_EQ(v[kBytes / 4 - 1], kBytes / 4);
  ex::buffer not_managed = ex::device_buffer(64);
  EXPECT_THROW(ex::prefetch_async(not_managed, 64, device, s, "bad"), ex::CudaError);
}
