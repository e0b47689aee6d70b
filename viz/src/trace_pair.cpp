#include "streamlab/viz/trace_pair.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace streamlab::viz {

std::string_view to_string(Side s) noexcept { return s == Side::predicted ? "predicted" : "measured"; }

std::uint32_t LaneRow::count_of(model::OpKind k, std::uint32_t first, std::uint32_t count) const noexcept {
  const auto& prefix = kind_prefix[static_cast<std::size_t>(k)];
  if (!prefix.empty()) return prefix[first + count] - prefix[first];
  // Single-kind row (no prefix table): either all spans are of k or none is.
  return (count > 0 && kind[first] == k) ? count : 0;
}

model::OpKind LaneRow::majority_kind(std::uint32_t first, std::uint32_t count) const noexcept {
  bool single_kind = true;
  for (const auto& p : kind_prefix) single_kind = single_kind && p.empty();
  if (single_kind || count == 0) return kind[first];
  std::size_t best = 0;
  std::uint32_t best_count = 0;
  for (std::size_t k = 0; k < kOpKindCount; ++k) {
    const auto& p = kind_prefix[k];
    const std::uint32_t c = p.empty() ? 0 : p[first + count] - p[first];
    if (c > best_count) best = k, best_count = c;
  }
  return static_cast<model::OpKind>(best);
}

namespace {

// A lane's spans -> non-overlapping rows (greedy interval partitioning: each span goes to the first row
// that is free at its start). Spans of one stream run in order, so this is almost always one row.
std::vector<LaneRow> make_rows(const std::vector<model::Span>& spans, std::vector<std::uint32_t> members) {
  std::sort(members.begin(), members.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = spans[a];
    const auto& y = spans[b];
    return std::tie(x.start_ns, x.end_ns, a) < std::tie(y.start_ns, y.end_ns, b);
  });
  std::vector<LaneRow> rows;
  for (const std::uint32_t i : members) {
    const auto& s = spans[i];
    auto row = std::find_if(rows.begin(), rows.end(),
                            [&](const LaneRow& r) { return r.end.back() <= s.start_ns; });
    if (row == rows.end()) row = rows.emplace(rows.end());
    row->start.push_back(s.start_ns);
    row->end.push_back(std::max(s.end_ns, s.start_ns));  // a negative duration would break the sort on end
    row->span.push_back(i);
    row->kind.push_back(s.kind);
  }
  for (auto& r : rows) {
    std::array<bool, kOpKindCount> present{};
    for (const auto k : r.kind) present[static_cast<std::size_t>(k)] = true;
    if (std::count(present.begin(), present.end(), true) <= 1) continue;
    for (std::size_t k = 0; k < kOpKindCount; ++k) {
      if (!present[k]) continue;
      auto& p = r.kind_prefix[k];
      p.resize(r.size() + 1);
      p[0] = 0;
      for (std::size_t i = 0; i < r.size(); ++i)
        p[i + 1] = p[i] + (static_cast<std::size_t>(r.kind[i]) == k ? 1u : 0u);
    }
  }
  return rows;
}

}  // namespace

std::optional<SmOccupancy> sm_occupancy(std::span<const model::BlockPlacement> blocks) {
  if (blocks.empty()) return std::nullopt;
  // Per SM, the union of its blocks' intervals; then count how many SMs are inside a union interval.
  std::vector<std::uint32_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(blocks[a].sm, blocks[a].start_ns) < std::tie(blocks[b].sm, blocks[b].start_ns);
  });
  std::vector<std::pair<model::Nanos, model::Nanos>> busy;
  SmOccupancy occ;
  for (std::size_t i = 0; i < order.size();) {
    const std::uint32_t sm = blocks[order[i]].sm;
    occ.sm_count = std::max(occ.sm_count, sm + 1);
    model::Nanos s = blocks[order[i]].start_ns, e = blocks[order[i]].end_ns;
    for (++i; i < order.size() && blocks[order[i]].sm == sm; ++i) {
      const auto& b = blocks[order[i]];
      if (b.start_ns > e) {
        busy.emplace_back(s, e);
        s = b.start_ns;
      }
      e = std::max(e, b.end_ns);
    }
    busy.emplace_back(s, e);
  }
  const auto changes = count_open_intervals(std::move(busy));
  occ.busy_sms = StepFunction(changes);
  return occ;
}

TracePair::TracePair(model::Trace predicted, std::optional<model::Trace> measured)
    : predicted_(std::move(predicted)), measured_(std::move(measured)) {
  std::unordered_map<std::string, std::uint32_t> index;
  intern_keys(Side::predicted, index);
  if (measured_) intern_keys(Side::measured, index);
  // keys_by_id_ views strings of key_ids_, which no longer grows.
  keys_by_id_.reserve(key_ids_.size());
  for (std::uint32_t k = 0; k < key_ids_.size(); ++k) keys_by_id_.emplace(key_ids_[k], k);
  for (const Side s : {Side::predicted, Side::measured}) {
    if (!has(s)) continue;
    key_span_[idx(s)].assign(key_ids_.size(), kNone);
    for (std::uint32_t i = 0; i < keys_[idx(s)].size(); ++i) {
      auto& slot = key_span_[idx(s)][keys_[idx(s)][i]];
      if (slot == kNone) slot = i;  // a repeated (op, engine) keeps its first span
    }
  }
  if (measured_) {
    for (std::uint32_t k = 0; k < key_ids_.size(); ++k)
      common_ += (key_span_[0][k] != kNone && key_span_[1][k] != kNone) ? 1 : 0;
  }
  bool any = false;
  for (const Side s : {Side::predicted, Side::measured}) {
    if (!has(s)) continue;
    for (const auto& sp : trace(s).spans) {
      begin_ = any ? std::min(begin_, sp.start_ns) : sp.start_ns;
      end_ = any ? std::max(end_, sp.end_ns) : sp.end_ns;
      any = true;
    }
    occupancy_[idx(s)] = sm_occupancy(trace(s).blocks);
  }
  build_lanes();
}

void TracePair::intern_keys(Side s, std::unordered_map<std::string, std::uint32_t>& index) {
  // (op id, engine) -> key; the engine goes after a separator byte that op ids do not contain.
  const auto& spans = trace(s).spans;
  auto& keys = keys_[idx(s)];
  keys.resize(spans.size());
  std::string composite;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    composite.assign(spans[i].op_id);
    composite.push_back('\x1f');
    composite.push_back(static_cast<char>('0' + static_cast<int>(spans[i].engine)));
    const auto [it, inserted] = index.try_emplace(composite, static_cast<std::uint32_t>(key_ids_.size()));
    if (inserted) key_ids_.push_back(spans[i].op_id);
    keys[i] = it->second;
  }
}

void TracePair::build_lanes() {
  // (device, stream) -> members per side, ascending by device then stream.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::array<std::vector<std::uint32_t>, 2>> groups;
  std::uint32_t max_device = 0;
  for (const Side s : {Side::predicted, Side::measured}) {
    if (!has(s)) continue;
    const auto& spans = trace(s).spans;
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      groups[{spans[i].device, spans[i].stream}][idx(s)].push_back(i);
      max_device = std::max(max_device, spans[i].device);
    }
    where_[idx(s)].assign(spans.size(), SpanLocation{});
  }
  for (auto& [key, members] : groups) {
    for (const Side s : {Side::predicted, Side::measured}) {
      if (!has(s)) continue;
      Lane lane;
      lane.kind = LaneKind::spans;
      lane.side = s;
      lane.device = key.first;
      lane.stream = key.second;
      lane.label = (max_device > 0 ? "dev " + std::to_string(key.first) + " " : std::string{}) + "stream " +
                   std::to_string(key.second) + (s == Side::predicted ? "  pred" : "  meas");
      lane.rows = make_rows(trace(s).spans, std::move(members[idx(s)]));
      const auto lane_index = static_cast<std::uint32_t>(lanes_.size());
      for (std::uint32_t r = 0; r < lane.rows.size(); ++r)
        for (std::uint32_t p = 0; p < lane.rows[r].size(); ++p)
          where_[idx(s)][lane.rows[r].span[p]] = SpanLocation{lane_index, r, p};
      lanes_.push_back(std::move(lane));
    }
  }
  for (const Side s : {Side::predicted, Side::measured}) {
    if (!has(s) || !occupancy_[idx(s)]) continue;
    Lane lane;
    lane.kind = LaneKind::sm_occupancy;
    lane.side = s;
    lane.label = std::string("SMs busy  ") + (s == Side::predicted ? "pred" : "meas");
    lanes_.push_back(std::move(lane));
  }
}

std::size_t TracePair::span_count() const noexcept {
  return predicted_.spans.size() + (measured_ ? measured_->spans.size() : 0);
}

std::vector<std::uint32_t> TracePair::keys_of_op_id(std::string_view op_id) const {
  std::vector<std::uint32_t> out;
  const auto [lo, hi] = keys_by_id_.equal_range(op_id);
  for (auto it = lo; it != hi; ++it) out.push_back(it->second);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace streamlab::viz
