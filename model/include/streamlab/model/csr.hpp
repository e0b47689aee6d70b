#pragma once
/// \file csr.hpp
/// Turning compressed sparse rows around: from each op's deps, each op's dependents (the Dispatcher,
/// Workload::dependents) and a Dag's successor rows from its predecessor rows, or back.

#include <cstdint>
#include <span>
#include <vector>

namespace streamlab::model {

/// The transpose of the rows `start`/`entries` (row r lists entries[start[r] .. start[r + 1]), each a
/// column < `columns`; start.size() - 1 rows, or none when `start` is empty): `t_start` gets columns + 1
/// row starts and `t_entries` every row index once per entry, each new row listing its rows in ascending
/// order (a stable counting sort by column).
///
/// Large inputs are first split by the column's top bits (one pass that writes to about a thousand
/// places, each of which stays in the cache), and each part is then counted and filled where its
/// columns' entries lie together. The plain counting sort makes two passes of writes to random places in
/// arrays of every column: at ten million ops each of those writes missed the cache (and the TLB),
/// which made the Dispatcher's set-up grow faster than the op count (perf at 1M and 10M ops: 13.6x).
void transpose_rows(std::uint32_t columns, std::span<const std::uint32_t> start,
                    std::span<const std::uint32_t> entries, std::vector<std::uint32_t>& t_start,
                    std::vector<std::uint32_t>& t_entries);

}  // namespace streamlab::model
