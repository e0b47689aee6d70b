#pragma once
/// \file huge_page_allocator.hpp
/// An allocator that puts large arrays in transparent huge pages (2 MiB, `madvise(MADV_HUGEPAGE)`), for
/// per-op state that a run reaches in no index order. At ten million ops such an array (the Dispatcher's
/// slots, 320 MB) is a TLB miss at every touch, and the page walk behind it misses the cache too: the
/// walks, not the lines, are what the prefetches stalled on. One TLB entry per 2 MiB covers it. Arrays
/// below kMinBytes get ordinary pages (a small workload's state would round up to a 2 MiB page that the
/// kernel clears whole). The first touch of a huge page costs more system time than that of its 512 small
/// ones on a VM that hands free memory back to its host, so only arrays touched at random often enough to
/// repay it use this (policies/README.md has the measurements).
#include <cstddef>
#include <cstdlib>
#include <new>

#include <sys/mman.h>

namespace streamlab::policies {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kMinBytes = std::size_t{16} << 20;

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t count) {
    const std::size_t bytes = count * sizeof(T);
    void* p = nullptr;
    if (bytes < kMinBytes) {
      p = std::malloc(bytes);
    } else {
      const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
      p = std::aligned_alloc(kHugePage, rounded);
      if (p != nullptr) madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without it, small pages
    }
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) = default;
};

}  // namespace streamlab::policies
