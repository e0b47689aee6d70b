// Capture -> program workload + measured trace. The order of ops is the host's issue order (API call
// start times); cross-stream ordering is the program's own event record / wait pairs, taken from the
// trace's links where it has them and otherwise bound by the measured timeline (README: "Event links").
#include "streamlab/import/program_builder.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "streamlab/import/block_time.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/estimate.hpp"

namespace streamlab::import {
namespace {

constexpr Nanos kNever = std::numeric_limits<Nanos>::min();
/// A waiting op may appear to start this much before the work it waited for ends: CUPTI opens a kernel's
/// record before its first block (the profile's cupti_kernel_pad_ns, under 1 us on H100) and clocks jitter.
constexpr Nanos kWaitTolerance = 2'000;
/// How many earlier event records a wait considers when the trace does not link it to one.
constexpr std::size_t kRecordSearchWindow = 4096;

std::string list(const std::set<std::uint32_t>& xs) {
  std::string s;
  for (auto x : xs) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}


/// One host call (or, for GPU work the trace shows no call for, the work itself) in issue order.
struct Item {
  Nanos start = 0, end = 0;
  const ApiCall* call = nullptr;
  std::span<const GpuActivity* const> acts;  ///< in GPU start order (a range of the correlation index)
  std::uint64_t correlation = 0;
};

struct Record {
  std::size_t item = 0;
  std::uint32_t stream = 0;
  Nanos completes = kNever;  ///< end of the last work on its stream issued before it
  std::int64_t event_id = -1;
  std::int64_t bound_event = -1;  ///< the event id a wait bound it to (-1: none yet)
  bool used = false;
};

struct Binding {
  std::size_t record = 0;  ///< index in records
  bool inferred = false;   ///< bound by the timeline, not by the trace's own link
};

/// Host time the simulator charges for issuing an op of this kind (device_profile.hpp: the host API costs;
/// a traced run adds traced_launch_overhead_ns to every kernel launch).
Nanos modeled_call_cost(model::OpKind kind, const model::DeviceProfile& p, bool traced) {
  auto ns = [](const model::Param& x) { return static_cast<Nanos>(std::llround(x.value)); };
  switch (kind) {
    case model::OpKind::kernel:
      return ns(p.kernel_launch_ns) + (traced ? ns(p.traced_launch_overhead_ns) : 0);
    case model::OpKind::h2d:
    case model::OpKind::d2h:
    case model::OpKind::d2d:
    case model::OpKind::memset:
      return ns(p.memcpy_async_issue_ns);
    case model::OpKind::event_record:
      return ns(p.event_record_untimed_ns);
    case model::OpKind::event_wait:
      return ns(p.stream_wait_event_ns);
    default:
      return 0;
  }
}

}  // namespace

model::Nanos per_block_ns_for_span(const model::KernelShape& shape, model::Nanos span,
                                   const model::DeviceProfile& profile) {
  const std::uint64_t slots =
      model::blocks_per_sm(shape, profile) * std::max<std::uint64_t>(1, static_cast<std::uint64_t>(profile.sm_count.value));
  const std::uint64_t waves = (shape.blocks() + slots - 1) / slots;
  const auto pad = static_cast<Nanos>(std::llround(model::cupti_kernel_pad_ns(profile)));
  const Nanos own = std::max<Nanos>(1, span - pad);
  return std::max<Nanos>(1, static_cast<Nanos>(std::llround(static_cast<double>(own) / static_cast<double>(waves))));
}

Imported build_program(const Capture& cap, const BuildOptions& opt) {
  const std::string& src = cap.source;
  auto fail = [&](const std::string& why) -> void { throw model::InputError(src, "", "", why); };
  if (cap.activities.empty())
    fail("no GPU activity (no kernel, memcpy or memset records): was the profiler recording CUDA activity?");
  const model::DeviceProfile fallback = opt.profile == nullptr ? model::bundled_h100_profile() : model::DeviceProfile{};
  const model::DeviceProfile& profile = opt.profile != nullptr ? *opt.profile : fallback;

  // Device and process choice.
  std::set<std::uint32_t> devices;
  for (const auto& a : cap.activities) devices.insert(a.device);
  std::uint32_t device = *devices.begin();
  if (opt.device) {
    if (!devices.contains(*opt.device))
      fail("no GPU activity on device " + std::to_string(*opt.device) + "; the trace has device(s) " + list(devices));
    device = *opt.device;
  } else if (devices.size() > 1) {
    fail("GPU activity on several devices (" + list(devices) + "): choose one with --gpu");
  }
  // The chosen device's GPU work grouped by correlation id (most calls have exactly one activity, so a
  // sorted vector and binary search beat a map of vectors on million-activity traces).
  std::vector<const GpuActivity*> by_corr;
  by_corr.reserve(cap.activities.size());
  for (const auto& a : cap.activities)
    if (a.device == device) by_corr.push_back(&a);
  std::sort(by_corr.begin(), by_corr.end(), [](const GpuActivity* a, const GpuActivity* b) {
    return a->correlation != b->correlation ? a->correlation < b->correlation : a->start < b->start;
  });
  auto work_of = [&](std::uint64_t corr) -> std::span<const GpuActivity* const> {
    const auto lo = std::lower_bound(by_corr.begin(), by_corr.end(), corr,
                                     [](const GpuActivity* a, std::uint64_t c) { return a->correlation < c; });
    auto hi = lo;
    while (hi != by_corr.end() && (*hi)->correlation == corr) ++hi;
    return {lo, hi};
  };
  // Each kernel's own block time, with the wait for SM room that earlier kernels held taken out of its span.
  std::vector<Nanos> block_ns(by_corr.size(), 0);
  std::size_t kernels_contended = 0, kernels_inconsistent = 0, kernels_uncorrected = 0;
  {
    std::vector<MeasuredKernel> kernels;
    std::vector<std::size_t> where;
    for (std::size_t k = 0; k < by_corr.size(); ++k)
      if (by_corr[k]->kind == ActivityKind::kernel) {
        kernels.push_back(MeasuredKernel{by_corr[k]->start, by_corr[k]->end, by_corr[k]->shape});
        where.push_back(k);
      }
    if (opt.kernel_time == KernelTime::replay) {
      const BlockTimes bt = kernel_block_times(kernels, profile);
      for (std::size_t k = 0; k < where.size(); ++k) block_ns[where[k]] = bt.ns[k];
      kernels_contended = bt.contended;
      kernels_inconsistent = bt.inconsistent;
      kernels_uncorrected = bt.uncorrected;
    } else {
      for (std::size_t k = 0; k < where.size(); ++k)
        block_ns[where[k]] = per_block_ns_for_span(kernels[k].shape, kernels[k].end - kernels[k].start, profile);
    }
  }
  auto on_other_device = [&](std::uint64_t corr) {
    if (devices.size() == 1) return false;
    return std::any_of(cap.activities.begin(), cap.activities.end(),
                       [&](const GpuActivity& a) { return a.correlation == corr && a.device != device; });
  };
  std::set<std::uint32_t> processes;
  for (const auto& c : cap.calls)
    if (makes_gpu_work(c.kind) && !work_of(c.correlation).empty()) processes.insert(c.process);
  std::optional<std::uint32_t> process;
  if (opt.process) {
    std::set<std::uint32_t> all;
    for (const auto& c : cap.calls) all.insert(c.process);
    if (!all.contains(*opt.process))
      fail("no API calls from process " + std::to_string(*opt.process) + "; the trace has process(es) " + list(all));
    process = opt.process;
  } else if (processes.size() > 1) {
    fail("GPU work on device " + std::to_string(device) + " issued by several processes (" + list(processes) +
         "): choose one with --process");
  } else if (!processes.empty()) {
    process = *processes.begin();
  }

  std::vector<const ApiCall*> calls;
  for (const auto& c : cap.calls)
    if (!process || c.process == *process) calls.push_back(&c);
  std::sort(calls.begin(), calls.end(), [](const ApiCall* a, const ApiCall* b) {
    return a->start != b->start ? a->start < b->start : a->correlation < b->correlation;
  });
  std::unordered_map<std::uint64_t, const SyncRecord*> sync_of;
  for (const auto& s : cap.syncs) sync_of.emplace(s.correlation, &s);
  std::unordered_map<std::uint64_t, const EventRecordInfo*> event_info;
  for (const auto& e : cap.event_records) event_info.emplace(e.correlation, &e);

  // Issue order.
  Imported out;
  ImportStats& st = out.stats;
  st.kernels_contended = kernels_contended;
  st.kernels_inconsistent = kernels_inconsistent;
  st.kernels_uncorrected = kernels_uncorrected;
  std::vector<Item> items;
  items.reserve(calls.size());
  std::vector<bool> called(by_corr.size(), false);  // by index of an activity in by_corr
  for (const ApiCall* c : calls) {
    if (makes_gpu_work(c->kind)) {
      const auto acts = work_of(c->correlation);
      if (acts.empty()) {
        if (on_other_device(c->correlation)) continue;
        fail("API call " + std::string(c->name) + " (correlation " + std::to_string(c->correlation) + ", thread " +
             std::to_string(c->thread) + ") has no GPU activity: the trace lost GPU records or was cut off");
      }
      called[static_cast<std::size_t>(acts.data() - by_corr.data())] = true;
      items.push_back(Item{c->start, c->end, c, acts, c->correlation});
    } else if (c->kind != CallKind::other) {
      items.push_back(Item{c->start, c->end, c, {}, c->correlation});
    }
  }
  {
    std::vector<Item> orphans;
    for (std::size_t k = 0; k < by_corr.size();) {
      const auto acts = work_of(by_corr[k]->correlation);
      if (!called[k]) {
        // Work whose call is not in the trace (another thread's calls were not recorded, or it was issued
        // before the window): issued no later than it started.
        orphans.push_back(Item{acts.front()->start, acts.front()->start, nullptr, acts, by_corr[k]->correlation});
        st.activities_without_call += acts.size();
      }
      k += acts.size();
    }
    std::sort(orphans.begin(), orphans.end(), [](const Item& a, const Item& b) { return a.start < b.start; });
    std::vector<Item> merged;
    merged.reserve(items.size() + orphans.size());
    std::merge(items.begin(), items.end(), orphans.begin(), orphans.end(), std::back_inserter(merged),
               [](const Item& a, const Item& b) { return a.start < b.start; });
    items = std::move(merged);
  }
  if (items.empty()) fail("no GPU activity on device " + std::to_string(device));

  // Streams of records, waits and syncs; the work each record captures.
  const std::size_t n = items.size();
  std::vector<std::int64_t> item_stream(n, -1);  // for records, waits, syncs
  std::vector<Record> records;
  std::unordered_map<std::uint64_t, std::size_t> record_by_corr;
  std::unordered_map<std::uint32_t, Nanos> last_end;
  std::unordered_map<std::uint32_t, std::uint32_t> thread_stream;
  for (std::size_t i = 0; i < n; ++i) {
    Item& it = items[i];
    for (const GpuActivity* a : it.acts) {
      auto& e = last_end[a->stream];
      e = std::max(e, a->end);
      if (it.call != nullptr) thread_stream[it.call->thread] = a->stream;
    }
    if (it.call == nullptr || !it.acts.empty()) continue;
    const auto sync = sync_of.find(it.correlation);
    const SyncRecord* s = sync == sync_of.end() ? nullptr : sync->second;
    const auto current = thread_stream.find(it.call->thread);
    switch (it.call->kind) {
      case CallKind::event_record: {
        const auto info = event_info.find(it.correlation);
        std::int64_t stream = -1, event_id = -1;
        if (info != event_info.end()) {
          stream = info->second->stream;
          event_id = info->second->event_id;
        } else if (current != thread_stream.end()) {
          stream = current->second;  // the stream this thread last issued work to
        }
        if (stream < 0) break;
        item_stream[i] = stream;
        const auto le = last_end.find(static_cast<std::uint32_t>(stream));
        record_by_corr[it.correlation] = records.size();
        records.push_back(Record{i, static_cast<std::uint32_t>(stream), le == last_end.end() ? kNever : le->second,
                                 event_id, -1, false});
        break;
      }
      case CallKind::stream_wait_event:
      case CallKind::stream_sync:
        if (s != nullptr && s->stream >= 0) item_stream[i] = s->stream;
        else if (it.call->kind == CallKind::stream_sync && current != thread_stream.end()) item_stream[i] = current->second;
        break;
      default:
        break;
    }
  }
  // Waits without a sync record name no stream: the stream this thread issues work to next.
  {
    std::unordered_map<std::uint32_t, std::uint32_t> next_thread_stream;
    std::unordered_map<std::uint32_t, Nanos> next_start;
    std::vector<Nanos> wait_next_start(n, kNever);
    for (std::size_t k = n; k-- > 0;) {
      Item& it = items[k];
      if (!it.acts.empty()) {
        next_start[it.acts.front()->stream] = it.acts.front()->start;
        if (it.call != nullptr) next_thread_stream[it.call->thread] = it.acts.front()->stream;
        continue;
      }
      if (it.call == nullptr || it.call->kind != CallKind::stream_wait_event) continue;
      if (item_stream[k] < 0) {
        const auto nt = next_thread_stream.find(it.call->thread);
        if (nt != next_thread_stream.end()) item_stream[k] = nt->second;
      }
      if (item_stream[k] >= 0) {
        const auto ns = next_start.find(static_cast<std::uint32_t>(item_stream[k]));
        wait_next_start[k] = ns == next_start.end() ? std::numeric_limits<Nanos>::max() : ns->second;
      }
    }
    // Bind waits and event synchronizes to records. First the trace's own links (the record's correlation
    // id, a CUDA event record with the same event id, or the recording stream).
    std::unordered_map<std::size_t, Binding> binding;  // item -> record
    struct Observation {
      std::size_t item;
      bool wait;
      Nanos deadline;  // the record's work must have finished by then (+ tolerance)
    };
    std::map<std::int64_t, std::vector<Observation>> unlinked_by_event;  // event id -> observations
    std::vector<Observation> unlinked_anonymous;                         // no event id at all
    std::size_t first_record_after = 0;  // records[0 .. first_record_after) precede item i
    std::vector<std::size_t> records_before(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      while (first_record_after < records.size() && records[first_record_after].item < i) ++first_record_after;
      records_before[i] = first_record_after;
      const Item& it = items[i];
      if (it.call == nullptr || !it.acts.empty()) continue;
      const bool wait = it.call->kind == CallKind::stream_wait_event;
      if (!wait && it.call->kind != CallKind::event_sync) continue;
      if (wait && item_stream[i] < 0) { ++st.waits_dropped; continue; }
      const auto sync = sync_of.find(it.correlation);
      const SyncRecord* s = sync == sync_of.end() ? nullptr : sync->second;
      std::optional<std::size_t> chosen;
      if (s != nullptr && s->record_correlation >= 0) {
        const auto r = record_by_corr.find(static_cast<std::uint64_t>(s->record_correlation));
        if (r != record_by_corr.end()) chosen = r->second;
      }
      if (!chosen && s != nullptr && s->event_id >= 0) {
        for (std::size_t r = first_record_after; r-- > 0;)
          if (records[r].event_id == s->event_id) { chosen = r; break; }
      }
      if (!chosen && s != nullptr && s->record_stream >= 0) {
        for (std::size_t r = first_record_after; r-- > 0;)
          if (records[r].stream == static_cast<std::uint32_t>(s->record_stream)) { chosen = r; break; }
      }
      if (chosen) {
        records[*chosen].used = true;
        if (s->event_id >= 0) records[*chosen].bound_event = s->event_id;
        ++st.waits_linked;
        binding.emplace(i, Binding{*chosen, false});
        continue;
      }
      const Observation obs{i, wait, wait ? wait_next_start[i] : it.end};
      if (s != nullptr && s->event_id >= 0) unlinked_by_event[s->event_id].push_back(obs);
      else unlinked_anonymous.push_back(obs);
    }
    // Then the timeline. A candidate record precedes the first observation, is on another stream than a
    // waiting one, and its captured work had finished when the waiting stream's next work started (a wait)
    // or the host returned (an event synchronize). CUDA hands out event ids in creation order and PyTorch
    // creates an event at its first record, so events are taken in id order, each bound to the earliest
    // free candidate after the previous event's record; where none is left, the latest candidate.
    auto fits = [&](const Record& rec, const std::vector<Observation>& obs) {
      for (const auto& o : obs) {
        if (rec.item >= o.item) return false;
        if (o.wait && rec.stream == static_cast<std::uint32_t>(item_stream[o.item])) return false;
        // A wait with no later work on its stream has the largest deadline: subtract, never add to it.
        if (rec.completes != kNever && o.deadline != kNever && rec.completes - kWaitTolerance > o.deadline) return false;
      }
      return true;
    };
    auto bind_all = [&](const std::vector<Observation>& obs, std::size_t r) {
      records[r].used = true;
      for (const auto& o : obs) {
        binding.emplace(o.item, Binding{r, true});
        ++st.waits_inferred;
      }
    };
    std::optional<std::size_t> previous;
    for (const auto& [event_id, obs] : unlinked_by_event) {
      const std::size_t end = records_before[obs.front().item];
      const std::size_t lowest = end > kRecordSearchWindow ? end - kRecordSearchWindow : 0;
      std::optional<std::size_t> chosen;
      for (std::size_t r = std::max(lowest, previous ? *previous + 1 : 0); r < end && !chosen; ++r)
        if (records[r].bound_event < 0 && !records[r].used && fits(records[r], obs)) chosen = r;
      for (std::size_t r = end; !chosen && r-- > lowest;)
        if (fits(records[r], obs)) chosen = r;
      if (!chosen) {
        st.waits_dropped += obs.size();
        continue;
      }
      records[*chosen].bound_event = event_id;
      if (!previous || *chosen > *previous) previous = chosen;
      bind_all(obs, *chosen);
    }
    for (const auto& o : unlinked_anonymous) {
      const std::size_t end = records_before[o.item];
      const std::size_t lowest = end > kRecordSearchWindow ? end - kRecordSearchWindow : 0;
      std::optional<std::size_t> chosen;
      for (std::size_t r = end; !chosen && r-- > lowest;)
        if (fits(records[r], {o})) chosen = r;
      if (chosen) bind_all({o}, *chosen);
      else ++st.waits_dropped;
    }

    // Emit ops.
    model::Workload& w = out.workload;
    w.program = true;
    w.name = opt.name.empty() ? std::filesystem::path(src).stem().stem().string() : opt.name;
    model::Trace& t = out.measured;
    t.share_strings(w.strings());  // the spans name the ops' texts
    const Nanos t0 = items.front().start;
    // The previous emitted call: when it started and returned, and what the simulator charges for it.
    Nanos prev_start = items.front().start, prev_end = items.front().start, prev_cost = 0;
    bool prev_blocks = true;
    std::map<std::uint32_t, std::optional<int>> stream_prio;
    // Ids are unique by construction: one correlation id per call, a kind letter per op, ".k" for a call's
    // k-th activity (graph launches); resolve_and_check would still refuse a duplicate.
    auto unique_id = [&w](const std::string& id) { return w.intern(id); };
    // Names repeat (one kernel launched many times): each distinct one is interned once. The capture's
    // names are each stored once already, so their address identifies them; event names are made here.
    std::unordered_map<const char*, model::Text> capture_names;
    auto name_of = [&](std::string_view name) {
      const auto [at, fresh] = capture_names.try_emplace(name.data());
      if (fresh) at->second = w.intern(name);
      return at->second;
    };
    std::unordered_map<std::string, model::Text> event_names;
    auto event_of = [&](const std::string& name) {
      const auto [at, fresh] = event_names.try_emplace(name);
      if (fresh) at->second = w.intern(name);
      return at->second;
    };
    w.ops.reserve(items.size());
    t.spans.reserve(items.size() * 2);
    auto add_op = [&](model::Op op, const Item& it, bool first_of_item, const GpuActivity* act) {
      if (first_of_item && it.call != nullptr) {
        // own: time between the previous call's return and this call. trace_timing: this call is issued
        // when the trace issued it, given that the model charges `prev_cost` for the previous call (a
        // blocking call returns when the device lets it, so its return is the reference either way).
        const bool own = opt.host_gaps == HostGaps::own || prev_blocks;
        op.host_gap_ns = std::max<Nanos>(0, own ? it.start - prev_end : it.start - prev_start - prev_cost);
        prev_start = it.start;
        prev_end = std::max(prev_end, it.end);
        prev_cost = modeled_call_cost(op.kind, profile, opt.traced);
        prev_blocks = model::is_host_sync(op.kind) || op.blocking;
      }
      op.type = model::default_workload_type(op.kind);
      if (op.name.empty()) op.name = op.id;
      const auto index = static_cast<model::OpIndex>(w.ops.size());
      if (op.stream_hint && *op.stream_hint != 0) {
        auto& p = stream_prio[*op.stream_hint];
        if (act != nullptr && act->priority && !p) p = act->priority;
      }
      const std::uint32_t stream = op.stream_hint.value_or(0);
      if (first_of_item && it.call != nullptr)
        t.spans.push_back(model::Span{index, op.id, name_of(it.call->name), op.kind, device, stream, model::Engine::host,
                                      it.call->start - t0, it.call->end - t0, /*host_call=*/true});
      if (act != nullptr)
        t.spans.push_back(model::Span{index, op.id, op.name, op.kind, act->device, act->stream,
                                      model::engine_for(op.kind), act->start - t0, act->end - t0});
      w.ops.push_back(std::move(op));
    };
    for (std::size_t i = 0; i < n; ++i) {
      const Item& it = items[i];
      const std::string c = std::to_string(it.correlation);
      if (!it.acts.empty()) {
        const bool sync_call = it.call != nullptr && (it.call->kind == CallKind::memcpy_sync ||
                                                      it.call->kind == CallKind::memset_sync);
        for (std::size_t k = 0; k < it.acts.size(); ++k) {
          const GpuActivity& a = *it.acts[k];
          model::Op op;
          const std::string suffix = it.acts.size() > 1 ? "." + std::to_string(k + 1) : "";
          op.name = name_of(a.name);
          op.stream_hint = a.stream;
          switch (a.kind) {
            case ActivityKind::kernel:
              op.id = unique_id("k" + c + suffix);
              op.kind = model::OpKind::kernel;
              op.shape = a.shape;
              op.duration = model::FixedPerBlock{block_ns[static_cast<std::size_t>(&it.acts[k] - by_corr.data())]};
              ++st.kernels;
              break;
            case ActivityKind::memcpy:
              if (a.name.find("HtoH") != std::string::npos) {
                st.notes.push_back("host-to-host copy '" + std::string(a.name) + "' (correlation " + c +
                                   ") has no device work: its time stays host time");
                continue;
              }
              op.id = unique_id("c" + c + suffix);
              op.kind = a.copy_kind;
              op.bytes = a.bytes;
              // Only a copy touching the host has host memory (the workload format keeps it for those
              // alone); a device-to-device record naming pageable memory would not survive the round trip.
              if (op.kind != model::OpKind::d2d) op.host_memory = a.host_memory;
              op.blocking = sync_call;
              ++st.copies;
              break;
            case ActivityKind::memset:
              op.id = unique_id("m" + c + suffix);
              op.kind = model::OpKind::memset;
              op.bytes = a.bytes;
              op.blocking = sync_call;
              ++st.memsets;
              break;
          }
          add_op(std::move(op), it, k == 0, &a);
        }
        continue;
      }
      model::Op op;
      switch (it.call->kind) {
        case CallKind::event_record: {
          const auto r = record_by_corr.find(it.correlation);
          if (r == record_by_corr.end() || !records[r->second].used) continue;  // nothing waits on it
          op.id = unique_id("r" + c);
          op.kind = model::OpKind::event_record;
          op.stream_hint = records[r->second].stream;
          op.event = event_of("e" + c);
          ++st.event_records;
          break;
        }
        case CallKind::stream_wait_event:
        case CallKind::event_sync: {
          const auto b = binding.find(i);
          if (b == binding.end()) continue;
          const Record& rec = records[b->second.record];
          const bool wait = it.call->kind == CallKind::stream_wait_event;
          op.id = unique_id((wait ? "w" : "s") + c);
          op.kind = wait ? model::OpKind::event_wait : model::OpKind::event_sync;
          op.stream_hint = wait ? static_cast<std::uint32_t>(item_stream[i]) : rec.stream;
          op.event = event_of("e" + std::to_string(items[rec.item].correlation));
          if (wait) ++st.event_waits;
          else ++st.host_syncs;
          break;
        }
        case CallKind::stream_sync:
          if (item_stream[i] < 0) {
            st.notes.push_back("cudaStreamSynchronize (correlation " + c + ") names no stream: left out");
            continue;
          }
          op.id = unique_id("s" + c);
          op.kind = model::OpKind::stream_sync;
          op.stream_hint = static_cast<std::uint32_t>(item_stream[i]);
          ++st.host_syncs;
          break;
        case CallKind::device_sync:
          op.id = unique_id("d" + c);
          op.kind = model::OpKind::device_sync;
          ++st.host_syncs;
          break;
        default:
          continue;
      }
      op.name = name_of(it.call->name);
      add_op(std::move(op), it, true, nullptr);
    }

    // Streams, with priorities: the command line, then the kernel records, then the trace's stream table.
    std::map<std::uint32_t, int> table_prio(cap.stream_priorities.begin(), cap.stream_priorities.end());
    for (const auto& [id, from_records] : stream_prio) {
      model::StreamDecl d;
      d.id = id;
      d.kind = model::StreamKind::non_blocking;
      if (const auto o = opt.stream_priority.find(id); o != opt.stream_priority.end()) d.priority = o->second;
      else if (from_records) d.priority = *from_records;
      else if (const auto p = table_prio.find(id); p != table_prio.end()) d.priority = p->second;
      d.label = "stream " + std::to_string(id);
      w.streams.push_back(d);
    }
    for (const auto& [id, prio] : opt.stream_priority)
      if (!stream_prio.contains(id))
        fail("--stream-priority names stream " + std::to_string(id) + ", which has no work in the trace");

    w.description = "imported from the " + cap.format + " trace " + std::filesystem::path(src).filename().string() +
                    " (device " + std::to_string(device) + (cap.device_name.empty() ? "" : ", " + cap.device_name) +
                    "): " + std::to_string(st.kernels) + " kernels, " + std::to_string(st.copies) + " copies, " +
                    std::to_string(st.memsets) + " memsets on " + std::to_string(w.streams.size()) + " streams";
    model::resolve_and_check(w, src);
    t.meta.backend = "cuda";
    t.meta.device_name = cap.device_name;
    t.meta.policy = "replay";
    t.meta.workload = w.name;
    t.meta.workload_hash = w.hash();
    t.meta.version = STREAMLAB_VERSION;
    t.meta.extra["source"] = cap.format + ": " + std::filesystem::path(src).filename().string();
    t.meta.extra["device_index"] = std::to_string(device);
    t.meta.extra["clock"] = "0 = the program's first traced API call";
  }
  return out;
}

}  // namespace streamlab::import
