#pragma once
/// \file op_table.hpp
/// The op table: one row per op key (op id, engine) seen in any trace, with each trace's start and
/// duration on the aligned axis and each other trace's errors against trace 0, sortable by any column.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamlab/viz/trace_set.hpp"

namespace streamlab::viz {

/// "op_2" < "op_10": runs of digits compare as numbers, equal numbers by digit count ("op_2" < "op_2b" <
/// "op_02"),
/// everything else byte by byte. A strict weak order.
[[nodiscard]] bool natural_less(std::string_view a, std::string_view b) noexcept;

struct OpColumn {
  enum class What : std::uint8_t {
    op,              ///< op id (natural order)
    kind,
    engine,
    start,           ///< aligned start in `trace`
    duration,        ///< duration in `trace`
    start_error,     ///< `trace` minus trace 0, aligned start
    duration_error,  ///< `trace` minus trace 0, duration
  };
  What what = What::op;
  TraceIndex trace = 0;
  [[nodiscard]] bool is_error() const noexcept { return what == What::start_error || what == What::duration_error; }
  friend bool operator==(const OpColumn&, const OpColumn&) = default;
};

/// op, kind, engine; then per trace its start and duration, and for traces after the first the start
/// and duration errors against trace 0.
[[nodiscard]] std::vector<OpColumn> op_columns(std::uint32_t trace_count);
/// Header text, e.g. "start A", "dur B", "start B-A" (an error against trace 0).
[[nodiscard]] std::string column_title(const OpColumn& c, const TraceSet& set);

/// A cell's value (ns, or the enum value for kind/engine); nullopt when the row's op is missing from a
/// trace the column needs. `offsets`: per trace (alignment.hpp), or empty.
[[nodiscard]] std::optional<model::Nanos> op_value(const TraceSet& set, std::span<const model::Nanos> offsets,
                                                   std::uint32_t key, const OpColumn& c) noexcept;

/// Every key, in key order (trace 0's span order first).
[[nodiscard]] std::vector<std::uint32_t> all_op_keys(const TraceSet& set);

/// Sorts keys by one column. Error columns sort by magnitude (descending puts the worst first); keys
/// without a value go last in either direction; ties go in key order. Costs one value extraction
/// per key plus a sort of (value, key) pairs, or a natural sort of op ids for the op column.
void sort_op_keys(std::vector<std::uint32_t>& keys, const TraceSet& set, std::span<const model::Nanos> offsets,
                  const OpColumn& column, bool descending);

}  // namespace streamlab::viz
