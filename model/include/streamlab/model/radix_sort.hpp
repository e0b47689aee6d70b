#pragma once
/// \file radix_sort.hpp
/// A stable sort of large arrays by an integer key, in time linear in the array: the metrics, compare,
/// the canonical writer and the viewer sort arrays of millions of spans or edges by a time or an index,
/// where std::sort's n log n comparisons (and their cache misses) cost several times more.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace streamlab::model {

/// Sorts `v` by key(element) (a std::int64_t, or anything that converts to one), ascending and stable.
/// Small arrays go to std::stable_sort. Large ones: an LSD radix sort of the keys' offsets from the
/// smallest, 11 bits a pass and only as many passes as the keys' range needs (times of a trace span about
/// 2^30-2^40 ns: 3-4 passes). An array larger than the cache is first split by its top digit (one
/// scattering pass, stable), and each part then sorted by the lower digits on its own: each part's
/// passes stay in the cache instead of scattering the whole array to memory again and again.
template <class T, class Key>
void sort_by_key(std::vector<T>& v, Key key) {
  constexpr std::size_t kSmall = 1 << 12;
  if (v.size() < kSmall) {
    std::stable_sort(v.begin(), v.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
    return;
  }
  std::int64_t lo = key(v.front()), hi = lo;
  for (const T& x : v) {
    lo = std::min<std::int64_t>(lo, key(x));
    hi = std::max<std::int64_t>(hi, key(x));
  }
  const auto offset = [&](const T& x) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(key(x))) - static_cast<std::uint64_t>(lo);
  };
  const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  constexpr unsigned kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  unsigned bits = 0;  // significant bits of the range
  while (bits < 64 && (range >> bits) != 0) ++bits;
  // A part's passes over the digits below `top`, from `src` into `dst` (each serving as the other's
  // buffer): as few passes as digits of up to 11 bits need (8 for parts too small to fill larger count
  // arrays), the digits of equal width. Fixed 8-bit digits took a pass more whenever the range grew past
  // a multiple of 8 bits (the start times of ten million spans, 2^38 ns and more: four passes where a
  // million took three).
  std::vector<std::size_t> at(kBuckets + 1);
  const auto lsd = [&](T* src, T* dst, std::size_t n, unsigned top) {
    if (n < 256) {
      std::stable_sort(src, src + n, [&](const T& a, const T& b) { return offset(a) < offset(b); });
      std::copy(src, src + n, dst);
      return;
    }
    unsigned widest = 8;  // a count array no larger than about a quarter of the part
    while (widest < kBits && (std::size_t{1} << (widest + 2)) <= n) ++widest;
    const unsigned passes = (top + widest - 1) / widest;
    const unsigned width = passes == 0 ? 0 : (top + passes - 1) / passes;
    const std::size_t buckets = std::size_t{1} << width;
    T* from = src;
    T* to = dst;
    for (unsigned pass = 0; pass < passes; ++pass) {
      const unsigned shift = pass * width;
      std::fill(at.begin(), at.begin() + static_cast<std::ptrdiff_t>(buckets) + 1, 0);
      for (std::size_t i = 0; i < n; ++i) ++at[((offset(from[i]) >> shift) & (buckets - 1)) + 1];
      for (std::size_t b = 1; b <= buckets; ++b) at[b] += at[b - 1];
      for (std::size_t i = 0; i < n; ++i) to[at[(offset(from[i]) >> shift) & (buckets - 1)]++] = from[i];
      std::swap(from, to);
    }
    if (from != dst) std::copy(from, from + n, dst);
  };
  constexpr std::size_t kCached = std::size_t{1} << 17;  // elements a part may have to sort in the cache
  if (v.size() <= kCached || bits <= kBits) {
    // Whole-array passes, swapping the arrays instead of copying back.
    std::vector<T> out(v.size());
    for (unsigned shift = 0; shift < bits; shift += kBits) {
      std::fill(at.begin(), at.end(), 0);
      for (const T& x : v) ++at[((offset(x) >> shift) & (kBuckets - 1)) + 1];
      for (std::size_t b = 1; b <= kBuckets; ++b) at[b] += at[b - 1];
      for (const T& x : v) out[at[(offset(x) >> shift) & (kBuckets - 1)]++] = x;
      v.swap(out);
    }
    return;
  }
  // Split by the top digit into a buffer, then sort each part by the lower digits back into `v`. The
  // buffer is memory the split writes first (a vector's value-initialization wrote every byte of it once
  // more, hundreds of megabytes at ten million records).
  static_assert(std::is_trivially_destructible_v<T>, "the buffer's records are left to the memory they lie in");
  const auto release = [n = v.size()](T* p) { std::allocator<T>().deallocate(p, n); };
  const std::unique_ptr<T, decltype(release)> buffer(std::allocator<T>().allocate(v.size()), release);
  T* const buf = buffer.get();
  const unsigned top_shift = bits - kBits;
  std::vector<std::size_t> part(kBuckets + 1, 0);
  for (const T& x : v) ++part[(offset(x) >> top_shift) + 1];
  for (std::size_t b = 1; b <= kBuckets; ++b) part[b] += part[b - 1];
  {
    std::vector<std::size_t> fill(part.begin(), part.end() - 1);
    for (const T& x : v) std::construct_at(buf + fill[offset(x) >> top_shift]++, x);
  }
  for (std::size_t b = 0; b < kBuckets; ++b) {
    const std::size_t n = part[b + 1] - part[b];
    if (n > 0) lsd(buf + part[b], v.data() + part[b], n, top_shift);
  }
}

/// The positions 0..n-1 ordered by key(position) (a std::int64_t, or anything that converts to one),
/// ascending, and within a run of equal keys by `tie(x, y)` (a strict weak order on positions, applied
/// by a stable sort: position order where it sees no difference). The key's offset from the smallest and
/// the position share one 64-bit word where they fit: the sort then moves 8 bytes an element and reads
/// each key once, in position order (a sort of positions by a key read through them reads the array at
/// random on every pass). For an array of large records (a comparison's matched ops, a lane's spans) this
/// is cheaper than sorting the records themselves, and needs no second array of them.
template <class Key, class Tie>
std::vector<std::uint32_t> sorted_positions(std::size_t n, Key key, Tie tie) {
  std::vector<std::uint32_t> order(n);
  if (n == 0) return order;
  std::int64_t lo = key(std::uint32_t{0}), hi = lo;
  for (std::uint32_t k = 0; k < n; ++k) {
    lo = std::min<std::int64_t>(lo, key(k));
    hi = std::max<std::int64_t>(hi, key(k));
  }
  unsigned index_bits = 0, key_bits = 0;
  while (index_bits < 64 && ((n - 1) >> index_bits) != 0) ++index_bits;
  const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  while (key_bits < 64 && (range >> key_bits) != 0) ++key_bits;
  std::vector<std::uint64_t> packed;  // (key - lo) << index_bits | position, in key order
  if (key_bits + index_bits <= 63) {
    packed.reserve(n);
    for (std::uint32_t k = 0; k < n; ++k)
      packed.push_back((static_cast<std::uint64_t>(static_cast<std::int64_t>(key(k))) - static_cast<std::uint64_t>(lo))
                           << index_bits |
                       k);
    sort_by_key(packed, [index_bits](std::uint64_t p) { return static_cast<std::int64_t>(p >> index_bits); });
    const std::uint64_t mask = (std::uint64_t{1} << index_bits) - 1;
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(packed[i] & mask);
  } else {
    for (std::uint32_t k = 0; k < n; ++k) order[k] = k;
    sort_by_key(order, key);
  }
  const auto key_at = [&](std::size_t i) {
    return packed.empty() ? static_cast<std::int64_t>(key(order[i])) : static_cast<std::int64_t>(packed[i] >> index_bits);
  };
  for (std::size_t i = 0; i < n;) {
    std::size_t end = i + 1;
    while (end < n && key_at(end) == key_at(i)) ++end;
    if (end - i > 1)
      std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(i), order.begin() + static_cast<std::ptrdiff_t>(end), tie);
    i = end;
  }
  return order;
}

}  // namespace streamlab::model
