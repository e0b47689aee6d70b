#include "streamlab/viz/lanes.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <queue>
#include <tuple>

#include "sorted_runs.hpp"
#include "streamlab/model/prefetch.hpp"
#include "streamlab/model/radix_sort.hpp"

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

RowSpan RowSpan::of(const model::Span& s, std::uint32_t index, std::uint16_t run) noexcept {
  // A negative duration would break the sort on end: such a span is drawn as an instant.
  return RowSpan{s.start_ns, std::max(s.end_ns, s.start_ns), index, s.kind, run};
}

std::vector<LaneRow> make_rows(std::vector<RowSpan> recs) {
  // Spans of a stream are usually already in order, which the check below finds in one pass; a lane of
  // several streams whose spans each come in order (an engine's lane) is their merge. Otherwise a radix
  // sort on the start (linear: a lane of millions of spans), then each run of equal starts by end and
  // index.
  using Rec = RowSpan;
  auto less = [](const Rec& a, const Rec& b) { return std::tie(a.start, a.end, a.index) < std::tie(b.start, b.end, b.index); };
  if (!std::is_sorted(recs.begin(), recs.end(), less) &&
      !detail::merge_sorted_runs(recs, [](const Rec& r) { return std::uint32_t{r.run}; }, less)) {
    model::sort_by_key(recs, [](const Rec& r) { return r.start; });
    for (std::size_t i = 0; i < recs.size();) {
      std::size_t end = i + 1;
      while (end < recs.size() && recs[end].start == recs[i].start) ++end;
      if (end - i > 1)
        std::sort(recs.begin() + static_cast<std::ptrdiff_t>(i), recs.begin() + static_cast<std::ptrdiff_t>(end), less);
      i = end;
    }
  }

  // Pass 1: each record's row: the lowest-numbered row whose last span ended by its start. A lane whose
  // spans never overlap (every stream lane of a sane trace) has one row. A lane of a few rows (an
  // engine's, rows as many as the kernels that run at once) looks at each row's end; one that outgrows
  // that starts again with busy rows by the end of their last span and free rows by index in heaps
  // (the same rows: a row is free exactly when its last span ended by the start).
  std::vector<std::uint32_t> row_of(recs.size(), 0);
  std::vector<std::uint32_t> row_size;
  bool overlaps = false;
  for (std::size_t i = 1; i < recs.size() && !overlaps; ++i) overlaps = recs[i].start < recs[i - 1].end;
  constexpr std::size_t kScannedRows = 32;
  bool few_rows = overlaps;
  if (overlaps) {
    std::vector<model::Nanos> row_end;
    for (std::size_t i = 0; i < recs.size() && few_rows; ++i) {
      std::size_t row = 0;
      while (row < row_end.size() && row_end[row] > recs[i].start) ++row;
      if (row == row_end.size()) {
        if (row == kScannedRows) {
          few_rows = false;
          break;
        }
        row_end.push_back(0);
        row_size.push_back(0);
      }
      row_end[row] = recs[i].end;
      row_of[i] = static_cast<std::uint32_t>(row);
      ++row_size[row];
    }
    if (!few_rows) row_size.clear();
  }
  if (!overlaps) {
    if (!recs.empty()) row_size.push_back(static_cast<std::uint32_t>(recs.size()));
  } else if (!few_rows) {
    using Busy = std::pair<model::Nanos, std::uint32_t>;
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> free_rows;
    for (std::size_t i = 0; i < recs.size(); ++i) {
      while (!busy.empty() && busy.top().first <= recs[i].start) {
        free_rows.push(busy.top().second);
        busy.pop();
      }
      std::uint32_t row = 0;
      if (free_rows.empty()) {
        row = static_cast<std::uint32_t>(row_size.size());
        row_size.push_back(0);
      } else {
        row = free_rows.top();
        free_rows.pop();
      }
      row_of[i] = row;
      ++row_size[row];
      busy.emplace(recs[i].end, row);
    }
  }
  // Pass 2: fill rows of known sizes.
  std::vector<LaneRow> rows(row_size.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    rows[r].start.reserve(row_size[r]);
    rows[r].end.reserve(row_size[r]);
    rows[r].span.reserve(row_size[r]);
    rows[r].kind.reserve(row_size[r]);
  }
  for (std::size_t i = 0; i < recs.size(); ++i) {
    LaneRow& lr = rows[row_of[i]];
    lr.start.push_back(recs[i].start);
    lr.end.push_back(recs[i].end);
    lr.span.push_back(recs[i].index);
    lr.kind.push_back(recs[i].kind);
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

void LaneSet::add_span_lane(Lane lane, std::vector<LaneRow> rows) {
  lane.kind = LaneKind::spans;
  lane.rows = std::move(rows);
  lanes_.push_back(std::move(lane));
}

SpanLocation LaneSet::locate(const TraceSet& set, TraceIndex t, std::uint32_t span) const noexcept {
  if (t >= set.size() || span >= set.trace(t).spans.size()) return {};
  const model::Span& s = set.trace(t).spans[span];
  // The lane the constructor put the span in: stream mode by its host-call-ness, device and stream;
  // engine mode by device and engine (host calls have engine host).
  const auto holds = [&](const Lane& l) {
    if (l.kind != LaneKind::spans || l.trace != t || l.device != s.device) return false;
    if (mode_ == LaneMode::engine) return l.engine == s.engine;
    return is_host_call(s) ? l.host_calls : !l.host_calls && l.stream == s.stream;
  };
  for (std::uint32_t li = 0; li < lanes_.size(); ++li) {
    if (!holds(lanes_[li])) continue;
    const auto& rows = lanes_[li].rows;
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
      const auto& start = rows[r].start;
      for (auto it = std::lower_bound(start.begin(), start.end(), s.start_ns); it != start.end() && *it == s.start_ns;
           ++it) {
        const auto pos = static_cast<std::uint32_t>(it - start.begin());
        if (rows[r].span[pos] == span) return SpanLocation{li, r, pos};
      }
    }
    return {};
  }
  return {};
}

LaneSet::LaneSet(const TraceSet& set, LaneMode mode) : mode_(mode) {
  const std::uint32_t max_device = set.max_device();
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
      std::vector<RowSpan> host;
      std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<model::Engine, std::vector<RowSpan>>> streams;
      for (std::uint32_t i = 0; i < spans.size(); ++i) {
        model::prefetch_ahead(spans, i);
        if (is_host_call(spans[i])) {
          host.push_back(RowSpan::of(spans[i], i));
          continue;
        }
        auto& [engine, members] = streams[{spans[i].device, spans[i].stream}];
        if (members.empty()) engine = spans[i].engine;
        members.push_back(RowSpan::of(spans[i], i));
      }
      if (!host.empty()) {
        Lane lane;
        lane.trace = t, lane.engine = model::Engine::host, lane.host_calls = true, lane.group = group;
        lane.label = "host calls";
        add_span_lane(std::move(lane), make_rows(std::move(host)));
      }
      for (auto& [key, engine_members] : streams) {
        Lane lane;
        lane.trace = t, lane.device = key.first, lane.stream = key.second, lane.group = group;
        lane.label = device_prefix(key.first) + "stream " + std::to_string(key.second);
        lane.engine = engine_members.first;  // of its first span (a stream may mix engines)
        add_span_lane(std::move(lane), make_rows(std::move(engine_members.second)));
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
    // (device, engine rank) -> each trace's rows
    struct Group {
      model::Engine engine = model::Engine::sm;
      std::vector<std::vector<LaneRow>> rows;
    };
    std::map<std::pair<std::uint32_t, std::size_t>, Group> groups;
    // A trace's spans go to arrays of their group's exact size (counted by the TraceSet; an array of ten
    // million spans grown one at a time was copied again and again); its lanes' rows are made before the
    // next trace's spans are gathered, so that one trace's span records (24 bytes a span) and the rows'
    // sort are in memory at a time, not every trace's.
    for (TraceIndex t = 0; t < set.size(); ++t) {
      const auto& spans = set.trace(t).spans;
      std::map<std::pair<std::uint32_t, std::size_t>, std::vector<RowSpan>> members;
      for (const TraceSet::EngineSpans& c : set.engine_spans(t)) {
        const std::pair<std::uint32_t, std::size_t> key{c.device, rank(c.engine)};
        members[key].reserve(c.spans);
        Group& g = groups[key];
        if (g.rows.empty()) {
          g.rows.resize(set.size());
          g.engine = c.engine;
        }
      }
      // Each group's streams numbered as met (RowSpan::run), so that make_rows can merge them.
      std::map<std::pair<std::uint32_t, std::size_t>, detail::StreamRuns> runs;
      // Consecutive spans are often of one group: remember the last one instead of a map lookup each.
      std::pair<std::uint32_t, std::size_t> last_key{kNone, 0};
      std::vector<RowSpan>* last = nullptr;
      detail::StreamRuns* last_runs = nullptr;
      for (std::uint32_t i = 0; i < spans.size(); ++i) {
        model::prefetch_ahead(spans, i);
        const std::pair<std::uint32_t, std::size_t> key{spans[i].device, rank(spans[i].engine)};
        if (last == nullptr || key != last_key) {
          last = &members.at(key);
          last_runs = &runs[key];
          last_key = key;
        }
        last->push_back(RowSpan::of(spans[i], i, last_runs->of(spans[i].stream)));
      }
      for (auto& [key, m] : members) groups[key].rows[t] = make_rows(std::move(m));
    }
    for (auto& [key, g] : groups) {
      // Every trace gets the lane, empty or not, so the traces' lanes stay in the same order in each group.
      for (TraceIndex t = 0; t < set.size(); ++t) {
        Lane lane;
        lane.trace = t, lane.device = key.first, lane.engine = g.engine, lane.group = group;
        lane.label = device_prefix(key.first) + std::string(engine_label(g.engine));
        add_span_lane(std::move(lane), std::move(g.rows[t]));
      }
      ++group;
    }
    // SM occupancy strips, one per trace that carries block placements, together at the bottom.
    for (TraceIndex t = 0; t < set.size(); ++t) add_occupancy_lane(t);
  }
}

}  // namespace streamlab::viz
