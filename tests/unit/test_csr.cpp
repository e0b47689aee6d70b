// transpose_rows against a stable sort of the entries by column, on random rows: small inputs (the
// plain counting sort), inputs split by the columns' top bits (about a thousand parts, and more parts once a column's
// low bits would pass 16), empty rows and columns, repeated entries, skewed columns; and
// Workload::dependents on a workload with ops added without deps after the last one with any.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamlab/model/csr.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::model {
namespace {

struct Rows {
  std::vector<std::uint32_t> start{0}, entries;
};

/// `rows` rows of up to `max_len` entries each, columns below `columns` (all within `band` of the top
/// when band > 0: one part gets every entry).
Rows random_rows(std::mt19937_64& rng, std::uint32_t rows, std::uint32_t max_len, std::uint32_t columns,
                 std::uint32_t band = 0) {
  Rows r;
  for (std::uint32_t i = 0; i < rows; ++i) {
    const auto len = static_cast<std::uint32_t>(rng() % (max_len + 1));
    for (std::uint32_t k = 0; k < len; ++k) {
      const std::uint32_t c = band > 0 ? columns - 1 - static_cast<std::uint32_t>(rng() % band)
                                       : static_cast<std::uint32_t>(rng() % columns);
      r.entries.push_back(c);
    }
    r.start.push_back(static_cast<std::uint32_t>(r.entries.size()));
  }
  return r;
}

/// The transpose as (column, row) pairs sorted stably by column, checked against `columns` row starts
/// without an array of its own per column (the widest case has 2^26 of them).
void expect_transpose(std::uint32_t columns, const Rows& r) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t row = 0; row + 1 < r.start.size(); ++row)
    for (std::uint32_t e = r.start[row]; e < r.start[row + 1]; ++e) pairs.emplace_back(r.entries[e], row);
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::uint32_t> got_start{7}, got{1, 2, 3};  // replaced, whatever they held
  transpose_rows(columns, r.start, r.entries, got_start, got);
  ASSERT_EQ(got_start.size(), std::size_t{columns} + 1);
  ASSERT_EQ(got.size(), pairs.size());
  std::size_t at = 0, bad_starts = 0, bad_rows = 0;
  for (std::uint32_t c = 0; c <= columns; ++c) {
    while (at < pairs.size() && pairs[at].first < c) ++at;
    bad_starts += got_start[c] != at;
  }
  for (std::size_t k = 0; k < pairs.size(); ++k) bad_rows += got[k] != pairs[k].second;
  EXPECT_EQ(bad_starts, 0U);
  EXPECT_EQ(bad_rows, 0U);
}

TEST(TransposeRows, EqualsTheCountingSort) {
  std::mt19937_64 rng(15);
  expect_transpose(0, Rows{{}, {}});
  expect_transpose(5, Rows{{}, {}});  // no rows at all
  expect_transpose(3, random_rows(rng, 10, 3, 3));
  expect_transpose(65536, random_rows(rng, 100000, 5, 65536));  // small enough for the counting sort
  for (const std::uint32_t columns : {std::uint32_t{65537}, std::uint32_t{1000003}, std::uint32_t{1} << 22}) {
    SCOPED_TRACE("columns " + std::to_string(columns));
    expect_transpose(columns, random_rows(rng, 200000, 4, columns));               // split into parts
    expect_transpose(columns, random_rows(rng, 200000, 4, columns, 300));          // one part holds them all
    expect_transpose(columns, random_rows(rng, 1000, 3, columns));                 // few edges: counting sort
  }
  // Columns past 2^26: a column's low bits would need more than 16, so the parts get more numerous.
  const std::uint32_t wide = (std::uint32_t{1} << 26) + 5;
  Rows r = random_rows(rng, 140000, 3, wide);
  Rows top = random_rows(rng, 140000, 2, wide, 70000);
  for (const std::uint32_t c : top.entries) r.entries.push_back(c);
  for (std::size_t i = 1; i < top.start.size(); ++i) r.start.push_back(r.start[140000] + top.start[i]);
  expect_transpose(wide, r);
}

TEST(TransposeRows, WorkloadDependentsListEveryDependentAscending) {
  Workload w;
  const auto op = [](const char* id) {
    Op o;
    o.id = Text::borrow(id);  // literals
    o.kind = OpKind::barrier;  // no shape or size to check
    return o;
  };
  w.add(op("a"));
  w.add(op("b"), {"a"});
  w.add(op("c"), {"a", "b"});
  w.add(op("d"), {"b", "a"});  // deps in any order: dependents still ascending
  w.ops.push_back(op("e"));    // no deps, added directly: no row of its own
  resolve_and_check(w, "test", ShapeLimits{});
  std::vector<std::uint32_t> start;
  std::vector<OpIndex> rows;
  w.dependents(start, rows);
  EXPECT_EQ(start, (std::vector<std::uint32_t>{0, 3, 5, 5, 5, 5}));
  EXPECT_EQ(rows, (std::vector<OpIndex>{1, 2, 3, 2, 3}));
}

}  // namespace
}  // namespace streamlab::model
