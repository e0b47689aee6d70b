// keep_freed_memory_for_reuse: large arrays come from the heap and their memory stays there once freed.
#include <gtest/gtest.h>

#include <cstddef>
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

#include <vector>

#include "streamlab/model/heap_reuse.hpp"

namespace streamlab::model {
namespace {

// A sanitizer's allocator (ASan, TSan, MSan) replaces glibc's: there is nothing of glibc's to observe.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kOwnAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kOwnAllocator = true;
#else
constexpr bool kOwnAllocator = false;
#endif
#else
constexpr bool kOwnAllocator = false;
#endif

TEST(HeapReuse, LargeArraysComeFromTheHeapAndTheirMemoryIsKept) {
#if defined(__GLIBC__)
  if (kOwnAllocator) GTEST_SKIP() << "a sanitizer's allocator serves malloc";
  constexpr std::size_t kBig = std::size_t{64} << 20;  // far above glibc's largest mapping threshold (32 MiB)
  keep_freed_memory_for_reuse();
  const struct mallinfo2 before = ::mallinfo2();
  {
    std::vector<char> big(kBig, 1);
    const struct mallinfo2 during = ::mallinfo2();
    EXPECT_EQ(during.hblkhd, before.hblkhd) << "the array was mapped on its own";
    // In use on the heap (earlier tests in this process may have left enough free heap for it, so the
    // heap need not grow).
    EXPECT_GE(during.uordblks, before.uordblks + kBig) << "the array is not on the heap";
    EXPECT_GE(during.arena, kBig);
  }
  const struct mallinfo2 after = ::mallinfo2();
  EXPECT_GE(after.arena, kBig) << "the heap was trimmed";
  EXPECT_GE(after.fordblks, kBig) << "the freed array is not kept as free heap";
  // The next large array reuses it: the heap does not grow again.
  std::vector<char> again(kBig, 2);
  EXPECT_EQ(::mallinfo2().arena, after.arena);
#else
  GTEST_SKIP() << "only glibc's allocator is tuned";
#endif
}

}  // namespace
}  // namespace streamlab::model
