// Stream-ordered allocator.
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "streamlab/executor/buffer.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/executor/memory_ops.hpp"
#include "streamlab/executor/stream_allocator.hpp"

namespace ex = streamlab::executor;

TEST(StreamOrderedAllocator, SizeClasses) {
  EXPECT_EQ(ex::StreamOrderedAllocator::size_class(1), 256u);
  EXPECT_EQ(ex::StreamOrderedAllocator::size_class(256), 256u);
  EXPECT_EQ(ex::StreamOrderedAllocator::size_class(257), 512u);
  EXPECT_EQ(ex::StreamOrderedAllocator::size_class(1000), 1024u);
  EXPECT_EQ(ex::StreamOrderedAllocator::size_class((1u << 20) + 1), 2u << 20);
  EXPECT_EQ(ex::StreamOrderedAllocator::size_class(5u << 20), 5u << 20);
}

TEST(StreamOrderedAllocator, ReusesAClassOnItsStreamAndWorksInStreamOrder) {
  ex::StreamOrderedAllocator alloc;
  ex::stream s, t;
  const ex::StreamAllocation a = alloc.allocate(s, 1000, "op 'a'");
  EXPECT_EQ(a.class_bytes, 1024u);
  ex::memset_async(a.ptr, 0x33, a.bytes, s, "op 'a'");
  ex::buffer host = ex::pinned_buffer(1000);
  ex::copy_d2h_async(host.data(), a.ptr, 1000, s, "op 'a'");
  alloc.free(a);
  const ex::StreamAllocation b = alloc.allocate(s, 900, "op 'b'");
  EXPECT_EQ(b.ptr, a.ptr);  // same class, same stream: handed back without a CUDA call
  const ex::StreamAllocation c = alloc.allocate(t, 900, "op 'c'");
  EXPECT_NE(c.ptr, b.ptr);  // another stream, another pool
  s.sync();
  EXPECT_EQ(host.as<unsigned char>()[999], 0x33);
  const auto st = alloc.stats();
  EXPECT_EQ(st.allocations, 3u);
  EXPECT_EQ(st.class_hits, 1u);
  EXPECT_EQ(st.pool_allocs, 2u);
  EXPECT_EQ(st.bytes_in_use, 2048u);
  alloc.free(b);
  alloc.free(c, s);  // freed on another stream: straight back to CUDA
  EXPECT_EQ(alloc.stats().bytes_cached, 1024u);
  alloc.trim(s);
  EXPECT_EQ(alloc.stats().bytes_cached, 0u);
  const ex::StreamAllocation big = alloc.allocate(s, 100u << 20, "op 'big'");  // above the class limit
  EXPECT_EQ(big.class_bytes, 100u << 20);
  alloc.free(big);
  s.sync();
  t.sync();
}

TEST(StreamOrderedAllocator, UnsatisfiableRequestNamesTheOp) {
  ex::StreamOrderedAllocator alloc;
  ex::stream s;
  try {
    (void)alloc.allocate(s, std::size_t{1} << 46, "op 'enormous'");
    FAIL() << "a 64 TiB stream-ordered allocation succeeded";
  } catch (const ex::CudaError& e) {
    EXPECT_EQ(e.status(), cudaErrorMemoryAllocation);
    EXPECT_NE(std::string(e.what()).find("op 'enormous'"), std::string::npos) << e.what();
  }
  const ex::StreamAllocation ok = alloc.allocate(s, 4096, "op 'ok'");
  EXPECT_NE(ok.ptr, nullptr);
  alloc.free(ok);
  s.sync();
}
