#include "streamlab/viz/lanes.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <tuple>

namespace streamlab::viz {

std::string_view to_string(LaneMode m) noexcept { return m == LaneMode::stream ? "stream" : "engine"; }

std::string_view engine_label(model::Engine e) noexcept {
  switch (e) {
    case model::Engine::host: return "host";
    case model::Engine::sm: return "SMs";
    case model::Engine::copy_h2d: return "copy H2D";
    case model::Engine::copy_d2h: return "copy D2H";
    case model::Engine::copy_d2d: return "copy D2D";
  }
  return "engine ?";
}

std::uint32_t LaneRow::count_of(model::OpKind k, std::uint32_t first, std::uint32_t count) const noexcept {
  const auto ki = static_cast<std::size_t>(k);
  if (!kind_prefix.empty()) {
    if (ki >= kind_prefix.size() || kind_prefix[ki].empty()) return 0;
    return kind_prefix[ki][first + count] - kind_prefix[ki][first];
  }
  // Single-kind row (no prefix table): either all spans are of k or none is.
  return (count > 0 && kind[first] == k) ? count : 0;
}

model::OpKind LaneRow::majority_kind(std::uint32_t first, std::uint32_t count) const noexcept {
  if (kind_prefix.empty() || count == 0) return kind[first];
  std::size_t best = 0;
  std::uint32_t best_count = 0;
  for (std::size_t k = 0; k < kind_prefix.size(); ++k) {
    const auto& p = kind_prefix[k];
    const std::uint32_t c = p.empty() ? 0 : p[first + count] - p[first];
    if (c > best_count) best = k, best_count = c;
  }
  return static_cast<model::OpKind>(best);
}

std::vector<LaneRow> make_rows(const std::vector<model::Span>& spans, std::vector<std::uint32_t> members) {
  // Sort compact (start, end, index) records: far fewer cache misses than a comparator reading Spans.
  // Spans of a stream are usually already in order, which the check below finds in one pass.
  struct Rec {
    model::Nanos start, end;
    std::uint32_t index;
  };
  std::vector<Rec> recs(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    const auto& s = spans[members[i]];
    // A negative duration would break the sort on end: such a span is drawn as an instant.
    recs[i] = Rec{s.start_ns, std::max(s.end_ns, s.start_ns), members[i]};
  }
  members = {};
  auto less = [](const Rec& a, const Rec& b) { return std::tie(a.start, a.end, a.index) < std::tie(b.start, b.end, b.index); };
  if (!std::is_sorted(recs.begin(), recs.end(), less)) std::sort(recs.begin(), recs.end(), less);

  std::vector<LaneRow> rows;
  // Busy rows by the end of their last span; free rows by index (the lowest free row is reused first).
  using Busy = std::pair<model::Nanos, std::uint32_t>;
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> free_rows;
  for (const Rec& r : recs) {
    while (!busy.empty() && busy.top().first <= r.start) {
      free_rows.push(busy.top().second);
      busy.pop();
    }
    std::uint32_t row = 0;
    if (free_rows.empty()) {
      row = static_cast<std::uint32_t>(rows.size());
      rows.emplace_back();
    } else {
      row = free_rows.top();
      free_rows.pop();
    }
    LaneRow& lr = rows[row];
    lr.start.push_back(r.start);
    lr.end.push_back(r.end);
    lr.span.push_back(r.index);
    lr.kind.push_back(spans[r.index].kind);
    busy.emplace(r.end, row);
  }
  for (auto& r : rows) {
    KindSet present;
    std::size_t top = 0;
    for (const auto k : r.kind) {
      present.set(static_cast<std::size_t>(k));
      top = std::max(top, static_cast<std::size_t>(k));
    }
    if (present.count() <= 1) continue;
    r.kind_prefix.resize(top + 1);
    for (std::size_t k = 0; k <= top; ++k) {
      if (!present[k]) continue;
      auto& p = r.kind_prefix[k];
      p.resize(r.size() + 1);
      p[0] = 0;
      for (std::size_t i = 0; i < r.size(); ++i) p[i + 1] = p[i] + (static_cast<std::size_t>(r.kind[i]) == k ? 1u : 0u);
    }
  }
  return rows;
}

void LaneSet::add_span_lane(const TraceSet& set, Lane lane, std::vector<std::uint32_t> members) {
  lane.kind = LaneKind::spans;
  lane.rows = make_rows(set.trace(lane.trace).spans, std::move(members));
  const auto index = static_cast<std::uint32_t>(lanes_.size());
  auto& where = where_[lane.trace];
  for (std::uint32_t r = 0; r < lane.rows.size(); ++r)
    for (std::uint32_t p = 0; p < lane.rows[r].size(); ++p) where[lane.rows[r].span[p]] = SpanLocation{index, r, p};
  lanes_.push_back(std::move(lane));
}

LaneSet::LaneSet(const TraceSet& set, LaneMode mode) : mode_(mode), where_(set.size()) {
  std::uint32_t max_device = 0;
  for (TraceIndex t = 0; t < set.size(); ++t) {
    where_[t].assign(set.trace(t).spans.size(), SpanLocation{});
    for (const auto& sp : set.trace(t).spans) max_device = std::max(max_device, sp.device);
  }
  auto device_prefix = [&](std::uint32_t device) {
    return max_device > 0 ? "dev " + std::to_string(device) + " " : std::string{};
  };
  std::uint32_t group = 0;
  auto add_occupancy_lane = [&](TraceIndex t) {
    if (!set.occupancy(t)) return;
    Lane lane;
    lane.kind = LaneKind::sm_occupancy;
    lane.trace = t, lane.group = group;
    lane.label = "SMs busy";
    lanes_.push_back(std::move(lane));
  };

  if (mode == LaneMode::stream) {
    // Per trace: its host calls, then its streams. Streams of different traces are not put side by side:
    // two runs (two policies) may use the same stream number for different ops; ops pair by key instead.
    for (TraceIndex t = 0; t < set.size(); ++t, ++group) {
      const auto& spans = set.trace(t).spans;
      std::vector<std::uint32_t> host;
      std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> streams;
      for (std::uint32_t i = 0; i < spans.size(); ++i) {
        if (is_host_call(spans[i])) host.push_back(i);
        else streams[{spans[i].device, spans[i].stream}].push_back(i);
      }
      if (!host.empty()) {
        Lane lane;
        lane.trace = t, lane.engine = model::Engine::host, lane.host_calls = true, lane.group = group;
        lane.label = "host calls";
        add_span_lane(set, std::move(lane), std::move(host));
      }
      for (auto& [key, members] : streams) {
        Lane lane;
        lane.trace = t, lane.device = key.first, lane.stream = key.second, lane.group = group;
        lane.label = device_prefix(key.first) + "stream " + std::to_string(key.second);
        lane.engine = set.trace(t).spans[members.front()].engine;
        add_span_lane(set, std::move(lane), std::move(members));
      }
      add_occupancy_lane(t);
    }
  } else {
    // Per (device, engine), in the order work flows through a GPU: host, uploads, SMs, downloads.
    static constexpr model::Engine kOrder[] = {model::Engine::host, model::Engine::copy_h2d, model::Engine::sm,
                                               model::Engine::copy_d2h, model::Engine::copy_d2d};
    auto rank = [](model::Engine e) {
      for (std::size_t i = 0; i < std::size(kOrder); ++i)
        if (kOrder[i] == e) return i;
      return std::size(kOrder) + static_cast<std::size_t>(e);
    };
    // (device, engine rank) -> per trace members
    std::map<std::pair<std::uint32_t, std::size_t>, std::vector<std::vector<std::uint32_t>>> groups;
    for (TraceIndex t = 0; t < set.size(); ++t) {
      const auto& spans = set.trace(t).spans;
      for (std::uint32_t i = 0; i < spans.size(); ++i) {
        auto& g = groups[{spans[i].device, rank(spans[i].engine)}];
        if (g.empty()) g.resize(set.size());
        g[t].push_back(i);
      }
    }
    for (auto& [key, per_trace] : groups) {
      // Every trace gets the lane, empty or not, so the traces' lanes stay in the same order in each group.
      model::Engine engine = model::Engine::sm;
      for (TraceIndex t = 0; t < set.size(); ++t)
        if (!per_trace[t].empty()) engine = set.trace(t).spans[per_trace[t].front()].engine;
      for (TraceIndex t = 0; t < set.size(); ++t) {
        Lane lane;
        lane.trace = t, lane.device = key.first, lane.engine = engine, lane.group = group;
        lane.label = device_prefix(key.first) + std::string(engine_label(engine));
        add_span_lane(set, std::move(lane), std::move(per_trace[t]));
      }
      ++group;
    }
    // SM occupancy strips, one per trace that carries block placements, together at the bottom.
    for (TraceIndex t = 0; t < set.size(); ++t) add_occupancy_lane(t);
  }
}

}  // namespace streamlab::viz
