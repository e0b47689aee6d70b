#include "streamlab/viz/trace_set.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <map>
#include <numeric>
#include <tuple>

#include "streamlab/model/prefetch.hpp"

namespace streamlab::viz {

bool is_host_call(const model::Span& s) noexcept {
  return s.engine == model::Engine::host && s.kind != model::OpKind::host_func && s.kind != model::OpKind::barrier;
}

std::string describe_trace(const model::TraceMeta& m) {
  std::string out;
  auto add = [&](std::string_view prefix, const std::string& v) {
    if (v.empty()) return;
    if (!out.empty()) out += " \xc2\xb7 ";  // middle dot
    out += prefix;
    out += v;
  };
  add("", m.backend == "cuda" ? std::string("measured (cuda)") : m.backend == "sim" ? std::string("simulated") : m.backend);
  add("", m.device_name);
  // A simulation names the profile it ran; a measurement's device name already says where it ran.
  if (m.backend != "cuda") add("profile ", m.profile);
  add("policy ", m.policy);
  add("", m.date.substr(0, std::min<std::size_t>(m.date.size(), 10)));  // the day; the time is noise here
  return out.empty() ? std::string("trace") : out;
}

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

namespace {

std::uint64_t id_hash(std::string_view id) noexcept {
  // std::hash of a string_view is a good hash; the multiply spreads it over the table's high bits too.
  return std::hash<std::string_view>{}(id) * 0x9E3779B97F4A7C15ull;
}

std::string tag_of(std::size_t i) {
  std::string t;
  for (std::size_t n = i + 1; n > 0; n = (n - 1) / 26) t.insert(t.begin(), static_cast<char>('A' + (n - 1) % 26));
  return t;
}

}  // namespace

TraceSet::TraceSet(std::vector<model::Trace> traces, std::vector<std::string> files) {
  traces_.resize(traces.size());
  for (std::size_t i = 0; i < traces.size(); ++i) {
    Entry& e = traces_[i];
    e.trace = std::move(traces[i]);
    if (i < files.size()) e.file = std::move(files[i]);
    e.tag = tag_of(i);
    e.label = describe_trace(e.trace.meta);
    bool any = false, any_device = false;
    // Spans per engine of each device; consecutive spans are nearly always of one device.
    std::map<std::uint32_t, std::array<std::size_t, 256>> per_device;
    std::uint32_t counted_device = 0;
    std::array<std::size_t, 256>* counted = nullptr;
    for (std::size_t at = 0; at < e.trace.spans.size(); ++at) {
      model::prefetch_ahead(e.trace.spans, at);
      const model::Span& sp = e.trace.spans[at];
      if (counted == nullptr || sp.device != counted_device) {
        counted = &per_device.try_emplace(sp.device).first->second;  // value-initialized: zeros
        counted_device = sp.device;
      }
      ++(*counted)[static_cast<std::uint8_t>(sp.engine)];
      max_device_ = std::max(max_device_, sp.device);
      e.begin = any ? std::min(e.begin, sp.start_ns) : sp.start_ns;
      e.end = any ? std::max(e.end, sp.end_ns) : sp.end_ns;
      any = true;
      if (sp.engine != model::Engine::host) {
        e.first_device = any_device ? std::min(e.first_device, sp.start_ns) : sp.start_ns;
        any_device = true;
      }
      e.host_calls = e.host_calls || is_host_call(sp);
      kinds_.set(static_cast<std::size_t>(sp.kind));
    }
    if (!any_device) e.first_device = e.begin;
    for (const auto& [device, counts] : per_device)
      for (std::size_t k = 0; k < counts.size(); ++k)
        if (counts[k] > 0) e.engine_spans.push_back(EngineSpans{device, static_cast<model::Engine>(k), counts[k]});
    e.occupancy = sm_occupancy(e.trace.blocks);
  }
  intern_keys();
}

void TraceSet::intern_keys() {
  // Keys whose ids number them are found by arithmetic (KeyRuns): every generator's ids, in a trace
  // that lists its ops in order. From the first span whose key does not fit on, every key goes into a
  // table (intern_by_table).
  std::size_t longest = 0;
  for (const auto& e : traces_) longest = std::max(longest, e.trace.spans.size());
  key_runs_ = KeyRuns(16 + longest / 8);  // past that many runs they are no smaller than the table
  key_first_.reserve(traces_.empty() ? 0 : traces_[0].trace.spans.size());
  key_engines_.reserve(key_first_.capacity());
  bool by_runs = true;
  for (auto& e : traces_) {
    const auto& spans = e.trace.spans;
    e.keys.resize(spans.size());
    std::size_t i = 0;
    for (; by_runs && i < spans.size(); ++i) {
      model::prefetch_ahead(spans, i);
      const std::string_view id = spans[i].op_id;
      const model::Engine engine = spans[i].engine;
      const auto next = static_cast<std::uint32_t>(key_engines_.size());
      const std::uint32_t k = key_runs_.find_or_add(id, engine, next);
      if (k == kNone) {
        by_runs = false;
        // Sized for the longest trace (the keys of one workload's traces are mostly the same).
        make_key_slots(std::bit_ceil(std::max<std::size_t>(std::max(longest, key_engines_.size()) * 4 / 3 + 1, 16)));
        break;
      }
      if (k == next) {
        key_first_.push_back(static_cast<std::uint32_t>(i));
        key_engines_.push_back(engine);
      }
      e.keys[i] = k;
    }
    if (!by_runs) intern_by_table(e, i);
    keys_made_.push_back(static_cast<std::uint32_t>(key_engines_.size()));
  }
  for (auto& e : traces_) {
    e.key_span.assign(key_engines_.size(), kNone);
    for (std::uint32_t i = 0; i < e.keys.size(); ++i) {
      auto& slot = e.key_span[e.keys[i]];
      if (slot == kNone) slot = i;  // a repeated (op, engine) keeps its first span
    }
  }
  if (traces_.empty()) return;
  const auto& ref = traces_[0].key_span;
  for (auto& e : traces_) {
    for (std::uint32_t k = 0; k < key_engines_.size(); ++k) e.common += (ref[k] != kNone && e.key_span[k] != kNone) ? 1 : 0;
  }
}

void TraceSet::intern_by_table(Entry& e, std::size_t from) {
  // An open-addressing table keyed on the op id's hash (the engine is compared, not hashed, so every key
  // of one op id sits on one probe chain: keys_of_op_id walks it). Load factor at most 3/4 (a
  // probe reads a few neighbouring slots of one cache line; at most 1/2 took a table of 2^25 slots, 256
  // MB read at random, for ten million keys). A slot holds the key and 32 bits of its hash, so a probe
  // past another id rarely reads that id's string.
  // At ten million spans the table and the ids it names are hundreds of megabytes read at random: span
  // i + kFar's first slot starts loading while span i is looked up, and span i + kNear's candidate (the
  // key that slot names: its id and engine) once the slot is in. Traces of one workload often list their
  // spans in the same order: key i is then span i's key, found without a probe; a span found so when its
  // loading would start loads nothing (a load of a random slot per span, to be thrown away, cost most of
  // the matching of the second trace of ten million).
  constexpr std::size_t kFar = 16, kNear = 8;
  const auto& spans = e.trace.spans;
  std::array<std::uint64_t, kFar> ahead{};  // id hashes of the spans from i on, by index mod kFar
  std::array<bool, kFar> in_order{};        // span i's key is key i, by index mod kFar
  const auto start_loading = [&](std::size_t i) {
    if (i >= spans.size()) return;
    // Keys made by this trace (not yet made when this runs ahead) are found through the table: the
    // same key, as a trace's repeated (op id, engine) has one.
    in_order[i % kFar] = i < key_engines_.size() && key_engines_[i] == spans[i].engine &&
                         op_id_of_key(static_cast<std::uint32_t>(i)) == spans[i].op_id;
    if (in_order[i % kFar]) return;
    ahead[i % kFar] = id_hash(spans[i].op_id);
    __builtin_prefetch(&key_slots_[ahead[i % kFar] & (key_slots_.size() - 1)]);
  };
  const auto load_candidate = [&](std::size_t i) {
    if (i >= spans.size() || in_order[i % kFar]) return;
    const std::uint64_t v = key_slots_[ahead[i % kFar] & (key_slots_.size() - 1)];
    if (v == kEmptySlot || static_cast<std::uint32_t>(v >> 32) != static_cast<std::uint32_t>(ahead[i % kFar] >> 32))
      return;
    const auto cand = static_cast<std::uint32_t>(v);
    __builtin_prefetch(&key_first_[cand]);
    __builtin_prefetch(&key_engines_[cand]);
  };
  for (std::size_t i = from; i < from + kFar; ++i) start_loading(i);
  for (std::size_t i = from; i < spans.size(); ++i) {
    const std::uint64_t h = ahead[i % kFar];
    const bool found_in_order = in_order[i % kFar];
    model::prefetch_ahead(spans, i + kFar);
    model::prefetch_ahead(traces_[0].trace.spans, i + kFar);  // key i + kFar's span, when in order
    start_loading(i + kFar);
    load_candidate(i + kNear);
    if (found_in_order) {
      e.keys[i] = static_cast<std::uint32_t>(i);
      continue;
    }
    const std::string_view id = spans[i].op_id;
    const model::Engine engine = spans[i].engine;
    if (4 * (key_engines_.size() + 1) > 3 * key_slots_.size()) make_key_slots(key_slots_.size() * 2);
    const std::size_t mask = key_slots_.size() - 1;
    const auto fp = static_cast<std::uint32_t>(h >> 32);
    std::size_t slot = h & mask;
    std::uint32_t k = kNone;
    for (;; slot = (slot + 1) & mask) {
      const std::uint64_t v = key_slots_[slot];
      if (v == kEmptySlot) break;
      if (static_cast<std::uint32_t>(v >> 32) != fp) continue;
      const auto cand = static_cast<std::uint32_t>(v);
      if (key_engines_[cand] == engine && op_id_of_key(cand) == id) {
        k = cand;
        break;
      }
    }
    if (k == kNone) {
      k = static_cast<std::uint32_t>(key_engines_.size());
      key_slots_[slot] = (std::uint64_t{fp} << 32) | k;
      key_first_.push_back(static_cast<std::uint32_t>(i));
      key_engines_.push_back(engine);
    }
    e.keys[i] = k;
  }
}

void TraceSet::make_key_slots(std::size_t slots) {
  key_slots_.assign(slots, kEmptySlot);
  const std::size_t mask = slots - 1;
  for (std::uint32_t k = 0; k < key_engines_.size(); ++k) {
    const std::uint64_t h = id_hash(op_id_of_key(k));
    std::size_t slot = h & mask;
    while (key_slots_[slot] != kEmptySlot) slot = (slot + 1) & mask;
    key_slots_[slot] = (h >> 32 << 32) | k;
  }
}

std::string_view TraceSet::op_id_of_key(std::uint32_t key) const noexcept {
  // The first trace that had made more keys than `key` made it; none yet: the trace being interned.
  const auto t = static_cast<std::size_t>(std::upper_bound(keys_made_.begin(), keys_made_.end(), key) - keys_made_.begin());
  return traces_[t].trace.spans[key_first_[key]].op_id;
}

std::size_t TraceSet::span_count() const noexcept {
  std::size_t n = 0;
  for (const auto& e : traces_) n += e.trace.spans.size();
  return n;
}

std::pair<TraceIndex, std::uint32_t> TraceSet::any_span_of_key(std::uint32_t key) const noexcept {
  for (TraceIndex t = 0; t < size(); ++t)
    if (const auto s = span_of_key(t, key); s != kNone) return {t, s};
  return {kNone, kNone};
}

std::vector<std::uint32_t> TraceSet::keys_of_op_id(std::string_view op_id) const {
  std::vector<std::uint32_t> out;
  if (key_slots_.empty()) {  // every key is in a run: one engine per op id
    if (const std::uint32_t k = key_runs_.find_any(op_id); k != kNone) out.push_back(k);
    return out;
  }
  const std::size_t mask = key_slots_.size() - 1;
  const std::uint64_t h = id_hash(op_id);
  const auto fp = static_cast<std::uint32_t>(h >> 32);
  for (std::size_t slot = h & mask; key_slots_[slot] != kEmptySlot; slot = (slot + 1) & mask) {
    const auto k = static_cast<std::uint32_t>(key_slots_[slot]);
    if (static_cast<std::uint32_t>(key_slots_[slot] >> 32) == fp && op_id_of_key(k) == op_id) out.push_back(k);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace streamlab::viz
