#pragma once
/// \file huge_pages.hpp
/// Transparent huge pages (2 MiB, `madvise(MADV_HUGEPAGE)`) for a large array that a run reaches in no
/// index order. At ten million ops such an array (the Dispatcher's slots, 320 MB) is a TLB miss at every
/// touch, and the page walk behind it misses the cache too: the walks, not the lines, are what the
/// prefetches stalled on. One TLB entry per 2 MiB covers it. The first touch of a huge page costs more
/// system time than that of its 512 small ones on a VM that hands free memory back to its host, so only
/// an array touched at random often enough to repay that should ask (policies/README.md has the numbers).
#include <cstddef>
#include <cstdint>

#include <sys/mman.h>

namespace streamlab::policies {

/// Below this an array keeps small pages (a few huge pages would gain nothing).
inline constexpr std::size_t kHugePagesMinBytes = std::size_t{16} << 20;

/// Asks for huge pages over the whole 2 MiB pages inside [p, p + bytes), before anything touches them (a
/// vector's storage after reserve(), say). A hint: where the kernel has none, small pages serve.
inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  if (bytes < kHugePagesMinBytes) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace streamlab::policies
