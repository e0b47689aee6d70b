#include "streamlab/viz/op_table.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace streamlab::viz {

std::vector<OpRow> build_op_rows(const TracePair& pair) {
  std::vector<OpRow> rows(pair.op_key_count());
  for (std::uint32_t k = 0; k < rows.size(); ++k) {
    OpRow& r = rows[k];
    r.key = k;
    r.pred_span = pair.span_of_key(Side::predicted, k);
    r.meas_span = pair.has(Side::measured) ? pair.span_of_key(Side::measured, k) : kNone;
    if (r.pred_span != kNone) {
      const auto& s = pair.trace(Side::predicted).spans[r.pred_span];
      r.kind = s.kind, r.stream = s.stream, r.pred_start = s.start_ns, r.pred_end = s.end_ns;
    }
    if (r.meas_span != kNone) {
      const auto& s = pair.trace(Side::measured).spans[r.meas_span];
      if (r.pred_span == kNone) r.kind = s.kind, r.stream = s.stream;
      r.meas_start = s.start_ns, r.meas_end = s.end_ns;
    }
  }
  return rows;
}

namespace {

// The sort value of a row in a column; nullopt when the row has none.
std::optional<std::int64_t> value(const OpRow& r, OpColumn c) {
  const bool p = r.pred_span != kNone, m = r.meas_span != kNone;
  switch (c) {
    case OpColumn::op: return 0;  // handled by the tie-break on op id
    case OpColumn::kind: return static_cast<std::int64_t>(r.kind);
    case OpColumn::stream: return r.stream;
    case OpColumn::pred_start: return p ? std::optional<std::int64_t>(r.pred_start) : std::nullopt;
    case OpColumn::meas_start: return m ? std::optional<std::int64_t>(r.meas_start) : std::nullopt;
    case OpColumn::pred_duration: return p ? std::optional<std::int64_t>(r.pred_end - r.pred_start) : std::nullopt;
    case OpColumn::meas_duration: return m ? std::optional<std::int64_t>(r.meas_end - r.meas_start) : std::nullopt;
    case OpColumn::start_error: return r.matched() ? std::optional<std::int64_t>(std::llabs(r.start_error())) : std::nullopt;
    case OpColumn::duration_error:
      return r.matched() ? std::optional<std::int64_t>(std::llabs(r.duration_error())) : std::nullopt;
    case OpColumn::end_error: return r.matched() ? std::optional<std::int64_t>(std::llabs(r.end_error())) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

void sort_op_rows(std::vector<OpRow>& rows, const TracePair& pair, OpColumn column, bool descending) {
  std::stable_sort(rows.begin(), rows.end(), [&](const OpRow& a, const OpRow& b) {
    const auto va = value(a, column), vb = value(b, column);
    if (va.has_value() != vb.has_value()) return va.has_value();  // rows without a value go last
    if (va && *va != *vb) return descending ? *va > *vb : *va < *vb;
    const auto& ia = pair.op_id_of_key(a.key);
    const auto& ib = pair.op_id_of_key(b.key);
    if (ia != ib) return (column == OpColumn::op && descending) ? ia > ib : ia < ib;
    return a.key < b.key;
  });
}

}  // namespace streamlab::viz
