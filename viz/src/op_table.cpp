#include "streamlab/viz/op_table.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <tuple>

#include "sorted_runs.hpp"
#include "streamlab/model/radix_sort.hpp"

namespace streamlab::viz {

namespace {
bool digit(char c) noexcept { return c >= '0' && c <= '9'; }
}  // namespace

bool natural_less(std::string_view a, std::string_view b) noexcept {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      const std::size_t i0 = i, j0 = j;
      while (i < a.size() && digit(a[i])) ++i;
      while (j < b.size() && digit(b[j])) ++j;
      // Compare the numbers without leading zeros: longer is larger, then digit by digit.
      std::size_t za = i0, zb = j0;
      while (za + 1 < i && a[za] == '0') ++za;
      while (zb + 1 < j && b[zb] == '0') ++zb;
      const std::string_view na = a.substr(za, i - za), nb = b.substr(zb, j - zb);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      if (i - i0 != j - j0) return i - i0 < j - j0;  // "2" before "02"
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

std::vector<OpColumn> op_columns(std::uint32_t trace_count) {
  using W = OpColumn::What;
  std::vector<OpColumn> c{{W::op, 0}, {W::kind, 0}, {W::engine, 0}};
  for (TraceIndex t = 0; t < trace_count; ++t) {
    c.push_back({W::start, t});
    c.push_back({W::duration, t});
    if (t > 0) {
      c.push_back({W::start_error, t});
      c.push_back({W::duration_error, t});
    }
  }
  return c;
}

std::string column_title(const OpColumn& c, const TraceSet& set) {
  const std::string tag = c.trace < set.size() ? set.tag(c.trace) : "?";
  switch (c.what) {
    case OpColumn::What::op: return "op";
    case OpColumn::What::kind: return "kind";
    case OpColumn::What::engine: return "engine";
    case OpColumn::What::start: return "start " + tag;
    case OpColumn::What::duration: return "dur " + tag;
    // ASCII: the viewer's font has no Greek letters.
    case OpColumn::What::start_error: return "start " + tag + "-" + set.tag(0);
    case OpColumn::What::duration_error: return "dur " + tag + "-" + set.tag(0);
  }
  return "?";
}

std::optional<model::Nanos> op_value(const TraceSet& set, std::span<const model::Nanos> offsets, std::uint32_t key,
                                     const OpColumn& c) noexcept {
  auto span = [&](TraceIndex t) -> const model::Span* {
    if (t >= set.size()) return nullptr;
    const auto s = set.span_of_key(t, key);
    return s == kNone ? nullptr : &set.trace(t).spans[s];
  };
  auto offset = [&](TraceIndex t) { return t < offsets.size() ? offsets[t] : model::Nanos{0}; };
  switch (c.what) {
    case OpColumn::What::op: return 0;
    case OpColumn::What::kind: {
      const auto [t, s] = set.any_span_of_key(key);
      return t == kNone ? std::nullopt : std::optional<model::Nanos>(static_cast<model::Nanos>(set.trace(t).spans[s].kind));
    }
    case OpColumn::What::engine: return static_cast<model::Nanos>(set.engine_of_key(key));
    case OpColumn::What::start:
      if (const auto* s = span(c.trace)) return s->start_ns - offset(c.trace);
      return std::nullopt;
    case OpColumn::What::duration:
      if (const auto* s = span(c.trace)) return s->duration();
      return std::nullopt;
    case OpColumn::What::start_error: {
      const auto* a = span(c.trace);
      const auto* r = span(0);
      if (a == nullptr || r == nullptr) return std::nullopt;
      return (a->start_ns - offset(c.trace)) - (r->start_ns - offset(0));
    }
    case OpColumn::What::duration_error: {
      const auto* a = span(c.trace);
      const auto* r = span(0);
      if (a == nullptr || r == nullptr) return std::nullopt;
      return a->duration() - r->duration();
    }
  }
  return std::nullopt;
}

std::vector<std::uint32_t> all_op_keys(const TraceSet& set) {
  std::vector<std::uint32_t> keys(set.op_key_count());
  std::iota(keys.begin(), keys.end(), 0u);
  return keys;
}

void sort_op_keys(std::vector<std::uint32_t>& keys, const TraceSet& set, std::span<const model::Nanos> offsets,
                  const OpColumn& column, bool descending) {
  if (column.what == OpColumn::What::op) {
    std::stable_sort(keys.begin(), keys.end(), [&](std::uint32_t a, std::uint32_t b) {
      const auto ia = set.op_id_of_key(a), ib = set.op_id_of_key(b);
      if (ia != ib) return descending ? natural_less(ib, ia) : natural_less(ia, ib);
      return a < b;
    });
    return;
  }
  // Ordered by (has a value first, the value, the key): one extraction per key, then linear-time sorts
  // of plain records (a comparison sort of ten million cost n log n): the records by key, then a stable
  // sort by value, which keeps equal values in key order; the keys without a value after them, by key.
  // A column's values over the ops in one stream's order often ascend (the starts of a trace that lists
  // its spans in op order, each stream's in time order): then the streams' sequences are merged
  // (sorted_runs.hpp), the same order in linear time; a run is the stream of the column's trace's span.
  struct Rec {
    model::Nanos v;
    std::uint32_t key;
  };
  std::vector<Rec> recs;
  recs.reserve(keys.size());
  std::vector<std::uint32_t> missing;
  for (const std::uint32_t key : keys) {
    const auto v = op_value(set, offsets, key, column);
    if (!v) {
      missing.push_back(key);
      continue;
    }
    model::Nanos x = *v;
    // Magnitude, saturating: -INT64_MIN does not exist.
    if (column.is_error() && x < 0) x = x == INT64_MIN ? INT64_MAX : -x;
    // Descending: ~v reverses the order of every value (-v would overflow at INT64_MIN).
    if (descending) x = ~x;
    recs.push_back(Rec{x, key});
  }
  const auto by_value = [](const Rec& a, const Rec& b) { return std::tie(a.v, a.key) < std::tie(b.v, b.key); };
  // Looked up while merging is tried (which stops at the first op out of order): the stream of the
  // column's trace's span (a key every value has one in).
  const TraceIndex runs_of = column.trace < set.size() ? column.trace : 0;
  detail::StreamRuns runs;
  const auto run = [&](const Rec& r) -> std::uint32_t {
    const std::uint32_t span = set.span_of_key(runs_of, r.key);
    return span == kNone ? 0 : runs.of(set.trace(runs_of).spans[span].stream);
  };
  if (!detail::merge_sorted_runs(recs, run, by_value)) {
    if (!std::is_sorted(recs.begin(), recs.end(), [](const Rec& a, const Rec& b) { return a.key < b.key; }))
      model::sort_by_key(recs, [](const Rec& r) { return static_cast<std::int64_t>(r.key); });
    model::sort_by_key(recs, [](const Rec& r) { return r.v; });
  }
  std::sort(missing.begin(), missing.end());
  std::size_t i = 0;
  for (const Rec& r : recs) keys[i++] = r.key;
  for (const std::uint32_t key : missing) keys[i++] = key;
}

}  // namespace streamlab::viz
