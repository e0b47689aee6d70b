#include "streamlab/model/csr.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>

namespace streamlab::model {

void transpose_rows(std::uint32_t columns, std::span<const std::uint32_t> start,
                    std::span<const std::uint32_t> entries, std::vector<std::uint32_t>& t_start,
                    std::vector<std::uint32_t>& t_entries) {
  const std::uint32_t rows = start.empty() ? 0 : static_cast<std::uint32_t>(start.size() - 1);
  const std::size_t edges = rows == 0 ? 0 : start[rows];
  t_start.assign(std::size_t{columns} + 1, 0);
  t_entries.resize(edges);
  const auto prefix_sums = [&] {
    for (std::size_t c = 1; c < t_start.size(); ++c) t_start[c] += t_start[c - 1];
  };
  // Columns per part: 2^shift, about a thousand parts. Below a part's worth of columns (or of edges) the
  // arrays fit in the cache and the plain counting sort has nothing to lose.
  constexpr unsigned kPartBits = 10;
  const unsigned column_bits = columns <= 1 ? 0 : static_cast<unsigned>(std::bit_width(columns - 1u));
  if (column_bits <= kPartBits + 6 || edges < (std::size_t{1} << 18)) {
    for (std::size_t e = 0; e < edges; ++e) ++t_start[entries[e] + 1];
    prefix_sums();
    std::vector<std::uint32_t> fill(t_start.begin(), t_start.end() - 1);
    for (std::uint32_t r = 0; r < rows; ++r)
      for (std::uint32_t e = start[r]; e < start[r + 1]; ++e) t_entries[fill[entries[e]]++] = r;
    return;
  }
  // A column's low bits are kept for the second step (16 at most: two bytes an entry).
  const unsigned shift = std::min(column_bits - kPartBits, 16u);
  const std::size_t parts = (std::size_t{columns - 1u} >> shift) + 1;
  std::vector<std::size_t> part(parts + 1, 0);
  for (std::size_t e = 0; e < edges; ++e) ++part[(entries[e] >> shift) + 1];
  for (std::size_t p = 1; p <= parts; ++p) part[p] += part[p - 1];
  // Each entry's row, and its column's low bits, by part: rows ascending within a part, as read. A
  // part's entries already lie where its columns' rows go: each part is then sorted in place.
  std::vector<std::uint16_t> low(edges);
  {
    std::vector<std::size_t> fill(part.begin(), part.end() - 1);
    const std::uint32_t mask = (std::uint32_t{1} << shift) - 1;
    for (std::uint32_t r = 0; r < rows; ++r)
      for (std::uint32_t e = start[r]; e < start[r + 1]; ++e) {
        const std::size_t at = fill[entries[e] >> shift]++;
        t_entries[at] = r;
        low[at] = static_cast<std::uint16_t>(entries[e] & mask);
      }
  }
  std::vector<std::uint32_t> fill, part_rows;
  for (std::size_t p = 0; p < parts; ++p) {
    std::uint32_t* const counts = t_start.data() + (p << shift) + 1;
    for (std::size_t i = part[p]; i < part[p + 1]; ++i) ++counts[low[i]];
  }
  prefix_sums();
  for (std::size_t p = 0; p < parts; ++p) {
    const std::size_t base = p << shift, width = std::min<std::size_t>(std::size_t{1} << shift, columns - base);
    fill.assign(t_start.begin() + static_cast<std::ptrdiff_t>(base),
                t_start.begin() + static_cast<std::ptrdiff_t>(base + width));
    part_rows.assign(t_entries.begin() + static_cast<std::ptrdiff_t>(part[p]),
                     t_entries.begin() + static_cast<std::ptrdiff_t>(part[p + 1]));
    for (std::size_t i = part[p]; i < part[p + 1]; ++i) t_entries[fill[low[i]]++] = part_rows[i - part[p]];
  }
}

}  // namespace streamlab::model
