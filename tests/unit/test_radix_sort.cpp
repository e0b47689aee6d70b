// sort_by_key against std::stable_sort: every size class (std::stable_sort, whole-array passes, split by
// the top digit), key ranges of one value to all 64 bits, negative keys, heavy ties (stability).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/model/radix_sort.hpp"

namespace streamlab::model {
namespace {

TEST(RadixSort, EqualsStableSortForEverySizeAndRange) {
  std::mt19937_64 rng(7);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096},
                              std::size_t{131072}, std::size_t{131073}, std::size_t{400000}})
    for (const std::int64_t range : {std::int64_t{1}, std::int64_t{7}, std::int64_t{2048}, std::int64_t{2049},
                                     std::int64_t{1} << 20, std::int64_t{1} << 40, std::int64_t{-1}}) {
      SCOPED_TRACE("n " + std::to_string(n) + " range " + std::to_string(range));
      std::vector<std::pair<std::int64_t, std::uint32_t>> v(n);
      for (std::size_t i = 0; i < n; ++i)
        v[i] = {range < 0 ? static_cast<std::int64_t>(rng()) : static_cast<std::int64_t>(rng() % range) - range / 2,
                static_cast<std::uint32_t>(i)};
      auto want = v;
      std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      sort_by_key(v, [](const auto& p) { return p.first; });
      EXPECT_TRUE(v == want);
    }
}

// Arrays whose parts (after the split by the top digit) are large enough for digits wider than 8 bits,
// over ranges that need 2 to 4 such digits below the top one (a part's passes alternating between the
// part and the buffer, an odd or even number of them).
TEST(RadixSort, LargePartsEqualStableSort) {
  std::mt19937_64 rng(3);
  for (const std::int64_t range : {std::int64_t{1} << 29, std::int64_t{1} << 33, std::int64_t{1} << 38}) {
    SCOPED_TRACE("range " + std::to_string(range));
    std::vector<std::pair<std::int64_t, std::uint32_t>> v(2'500'000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = {static_cast<std::int64_t>(rng() % range), static_cast<std::uint32_t>(i)};
    auto want = v;
    std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    sort_by_key(v, [](const auto& p) { return p.first; });
    EXPECT_TRUE(v == want);
  }
}

// Parts of one record (a top digit only one key has) and of none, next to large ones.
TEST(RadixSort, PartsOfOneRecordEqualStableSort) {
  std::mt19937_64 rng(5);
  std::vector<std::pair<std::int64_t, std::uint32_t>> v(300'000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = {static_cast<std::int64_t>(rng() % 1000), static_cast<std::uint32_t>(i)};
  v[123] = {std::int64_t{1} << 40, 123};
  v[4567] = {(std::int64_t{1} << 39) + 5, 4567};
  auto want = v;
  std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  sort_by_key(v, [](const auto& p) { return p.first; });
  EXPECT_TRUE(v == want);
}

// sorted_positions: the order of std::stable_sort by (key, tie), whether key and position fit in one
// 64-bit word (small ranges) or not (the full range of int64).
TEST(RadixSort, SortedPositionsEqualAStableSortByKeyThenTie) {
  std::mt19937_64 rng(11);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{200000}})
    for (const std::int64_t range : {std::int64_t{5}, std::int64_t{1} << 30, std::int64_t{-1}}) {
      SCOPED_TRACE("n " + std::to_string(n) + " range " + std::to_string(range));
      std::vector<std::pair<std::int64_t, std::uint32_t>> v(n);  // (key, tie-break value with repeats)
      for (auto& [key, second] : v) {
        key = range < 0 ? static_cast<std::int64_t>(rng()) : static_cast<std::int64_t>(rng() % range) - range / 2;
        second = static_cast<std::uint32_t>(rng() % 3);
      }
      std::vector<std::uint32_t> want(n);
      for (std::uint32_t k = 0; k < n; ++k) want[k] = k;
      std::stable_sort(want.begin(), want.end(), [&](std::uint32_t x, std::uint32_t y) { return v[x] < v[y]; });
      const auto got = sorted_positions(
          n, [&](std::uint32_t k) { return v[k].first; }, [&](std::uint32_t x, std::uint32_t y) { return v[x].second < v[y].second; });
      EXPECT_TRUE(got == want);
    }
}

}  // namespace
}  // namespace streamlab::model
