#pragma once
// Unions and intersections of half-open time intervals: what metrics.cpp and stats.cpp measure busy time
// and overlap with. Internal to streamlab::model.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "streamlab/model/op.hpp"
#include "streamlab/model/radix_sort.hpp"

namespace streamlab::model::intervals {

using Interval = std::pair<Nanos, Nanos>;  // [first, second)

// Differences and sums in 128 bits, clamped back to Nanos: traces read from files have their times
// bounded (kMaxTraceNs) so nothing clamps there; a trace built in code with extreme times gets saturated
// metrics instead of wrapped ones.
__extension__ using Wide = __int128;
inline Nanos clamp_ns(Wide v) {
  constexpr auto lo = static_cast<Wide>(std::numeric_limits<Nanos>::min());
  constexpr auto hi = static_cast<Wide>(std::numeric_limits<Nanos>::max());
  return static_cast<Nanos>(v < lo ? lo : v > hi ? hi : v);
}

/// Sorts `v` by key(element), ascending (stable): radix_sort.hpp.
template <class T, class Key>
void sort_by_time(std::vector<T>& v, Key key) {
  sort_by_key(v, key);
}

/// Sorted, disjoint, non-empty intervals covering the same time as `v` (the union).
inline std::vector<Interval> merge(std::vector<Interval> v) {
  std::erase_if(v, [](const Interval& i) { return i.second <= i.first; });
  // A stream's spans usually come in order: one pass finds that and saves the sort. The union needs
  // the intervals ordered by start only.
  if (!std::is_sorted(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.first < b.first; }))
    sort_by_time(v, [](const Interval& i) { return i.first; });
  // The union written over `v` itself (it is never ahead of the interval being read): no second array.
  std::size_t n = 0;
  for (std::size_t k = 0; k < v.size(); ++k) {
    const Interval i = v[k];
    if (n > 0 && i.first <= v[n - 1].second)
      v[n - 1].second = std::max(v[n - 1].second, i.second);
    else
      v[n++] = i;
  }
  v.resize(n);
  return v;
}

inline Nanos total(const std::vector<Interval>& merged) {
  Wide sum = 0;
  for (const auto& [s, e] : merged) sum += static_cast<Wide>(e) - s;
  return clamp_ns(sum);
}

/// Length of the intersection of two unions (both merged).
inline Nanos intersection(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  Wide sum = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const Nanos lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) sum += static_cast<Wide>(hi) - lo;
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return clamp_ns(sum);
}

inline double fraction(Nanos part, Nanos whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace streamlab::model::intervals
