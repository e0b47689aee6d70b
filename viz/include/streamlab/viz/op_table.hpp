#pragma once
/// \file op_table.hpp
/// Rows of the op table: one per (op, engine) seen in either trace, with predicted and measured times
/// (on each trace's own clock, 0 = the backend's prepare()) and their differences, sortable by any column.

#include <cstdint>
#include <vector>

#include "streamlab/viz/trace_pair.hpp"

namespace streamlab::viz {

enum class OpColumn : std::uint8_t {
  op,              ///< op id, then name
  kind,
  stream,          ///< predicted stream, else measured
  pred_start,
  meas_start,
  start_error,     ///< predicted - measured start
  pred_duration,
  meas_duration,
  duration_error,  ///< predicted - measured duration
  end_error,       ///< predicted - measured end
};
inline constexpr int kOpColumnCount = 10;

struct OpRow {
  std::uint32_t key = 0;
  std::uint32_t pred_span = kNone, meas_span = kNone;
  model::OpKind kind = model::OpKind::kernel;
  std::uint32_t stream = 0;
  model::Nanos pred_start = 0, pred_end = 0, meas_start = 0, meas_end = 0;

  [[nodiscard]] bool matched() const noexcept { return pred_span != kNone && meas_span != kNone; }
  [[nodiscard]] model::Nanos start_error() const noexcept { return pred_start - meas_start; }
  [[nodiscard]] model::Nanos end_error() const noexcept { return pred_end - meas_end; }
  [[nodiscard]] model::Nanos duration_error() const noexcept {
    return (pred_end - pred_start) - (meas_end - meas_start);
  }
};

/// Rows in key order (predicted trace order first).
[[nodiscard]] std::vector<OpRow> build_op_rows(const TracePair& pair);

/// Stable sort by one column. Error columns sort by magnitude (descending puts the worst first); rows
/// without a value for the column (an op missing from one trace) go last in either direction; ties keep
/// op id order.
void sort_op_rows(std::vector<OpRow>& rows, const TracePair& pair, OpColumn column, bool descending);

}  // namespace streamlab::viz
