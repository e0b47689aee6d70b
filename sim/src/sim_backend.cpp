#include "streamlab/sim/sim_backend.hpp"

#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "device_params.hpp"
#include "gpu_model.hpp"
#include "streamlab/model/errors.hpp"

namespace streamlab::sim {

using model::Nanos;
using policies::EventId;
using policies::StreamId;
using policies::WaitStatus;

namespace {

// A wait that nothing pending can satisfy "sleeps" its timeout when that is a plausible host wait.
constexpr Nanos kLongestSleep = 3'600'000'000'000;  // 1 h

std::string today_utc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

/// CPU time of the process so far (user + system), for SimStats' phase times.
double process_cpu_s() {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Nanos saturating_add(Nanos a, Nanos b) {
  if (b > 0 && a > std::numeric_limits<Nanos>::max() - b) return std::numeric_limits<Nanos>::max();
  return a + b;
}

}  // namespace

struct SimBackend::Impl {
  Impl(model::DeviceProfile prof, SimOptions opt)
      : profile(std::move(prof)),
        options(std::move(opt)),
        params(with_options(detail::derive_params(model::at_host_speed(profile, options.host_speed)), options)),
        connections(checked_connections(options.connections.value_or(params.connections))),
        gpu(params, connections, options.record_blocks, options.explain, options.merge_block_waves,
            checked_copy_queues(options.copy_queues_per_engine)) {
    if (options.explain_only) gpu.explain_only(*options.explain_only);
    gpu.trim_heap(options.trim_heap);
    gpu.kernel_classes(options.kernel_classes);
    gpu.bit_reversed_copy_queues(options.bit_reversed_copy_queues.value_or(false));
    gpu.kernel_race(options.kernel_race, options.kernel_race_window_ns);
  }

  static detail::DeviceParams with_options(detail::DeviceParams p, const SimOptions& o) {
    // A traced run (CUPTI activity records on, as in streamlab run) dispatches blocks at the rates
    // calibrate measured with tracing on: the tracer is part of the measured system.
    if (o.traced) {
      p.warp_launch_ns = p.traced_warp_launch_ns;
      p.warp_launch_half_fill_ns = p.traced_warp_launch_half_fill_ns;
      p.same_stream_gap = p.traced_same_stream_gap;
      p.span_pad = p.traced_span_pad;
      p.block_dispatch_per_warp_ns = p.traced_block_dispatch_per_warp_ns;
      p.block_dispatch_per_warp_long_ns = p.traced_block_dispatch_per_warp_long_ns;
      p.dispatch_short_block = p.traced_dispatch_short_block;
      p.dispatch_long_block = p.traced_dispatch_long_block;
      p.copy_record = p.traced_copy_record;
    }
    if (o.warp_launch_ns) p.warp_launch_ns = p.warp_launch_half_fill_ns = *o.warp_launch_ns;
    if (!(o.host_cost_scale > 0) || o.host_cost_scale > 100)
      throw model::InputError("<options>", "host_cost_scale", "",
                              "host cost scale must be in (0, 100], got " + std::to_string(o.host_cost_scale));
    if (o.host_cost_scale != 1.0) {
      for (Nanos* c : {&p.kernel_launch, &p.memcpy_issue, &p.event_create, &p.event_destroy, &p.record_timed, &p.record_untimed,
                       &p.event_query, &p.stream_query, &p.stream_wait, &p.host_func_issue, &p.stream_first_use,
                       &p.traced_launch_overhead, &p.traced_copy_issue_overhead, &p.first_call_after_sync, &p.kernel_launch_per_busy_queue,
                       &p.kernel_launch_queue_switch, &p.queue_first_use})
        *c = static_cast<Nanos>(std::llround(static_cast<double>(*c) * o.host_cost_scale));
      if (p.program_first_call)
        p.program_first_call = static_cast<Nanos>(std::llround(static_cast<double>(*p.program_first_call) * o.host_cost_scale));
    }
    if (!(p.warp_launch_ns >= 0) || p.warp_launch_ns > 1e6)
      throw model::InputError("<options>", "warp_launch_ns", "",
                              "warp launch time must be in [0, 1e6] ns, got " + std::to_string(p.warp_launch_ns));
    return p;
  }

  static std::uint32_t checked_copy_queues(std::optional<std::uint32_t> q) {
    if (!q) return 0;
    if (*q < 1 || *q > 32)
      throw model::InputError("<options>", "copy_queues_per_engine", "",
                              "copy queues per engine must be in [1, 32], got " + std::to_string(*q));
    return *q;
  }

  static std::uint32_t checked_connections(std::uint32_t c) {
    if (c < 1 || c > 32)
      throw model::InputError("<options>", "--connections", "",
                              "CUDA_DEVICE_MAX_CONNECTIONS must be in [1, 32], got " + std::to_string(c));
    return c;
  }

  model::DeviceProfile profile;
  SimOptions options;
  detail::DeviceParams params;
  std::uint32_t connections;
  detail::GpuModel gpu;
  const model::Workload* workload = nullptr;
  Nanos host = 0;
  bool prepared = false;
  bool finished = false;
  SimStats stats;
  double prepare_cpu_s = 0, drain_cpu_s = 0, spans_cpu_s = 0;

  // -- checks ------------------------------------------------------------------------------------
  void need_prepared(const char* call) const {
    if (!prepared) throw std::logic_error(std::string("sim backend: ") + call + " before prepare()");
    if (finished) throw std::logic_error(std::string("sim backend: ") + call + " after finish()");
  }
  std::uint32_t stream_index(StreamId s, const char* call) const {
    if (!s.valid() || s.value() >= gpu.stream_count())
      throw std::invalid_argument(std::string("sim backend: ") + call + ": unknown stream " +
                                  std::to_string(s.value()));
    return s.value();
  }
  std::uint32_t event_index(EventId e, const char* call) const {
    if (!e.valid() || e.value() >= gpu.event_count() || !gpu.event(e.value()).alive)
      throw std::invalid_argument(std::string("sim backend: ") + call + ": unknown or destroyed event " +
                                  std::to_string(e.value()));
    return e.value();
  }

  // -- host clock ----------------------------------------------------------------------------------
  /// Charges a call's cost and brings the device up to the host's time.
  void charge(Nanos cost) {
    host += cost;
    gpu.advance_to(host);
  }
  /// Whether a query made now sees a completion that happened on the device at `done`.
  [[nodiscard]] bool seen(Nanos done) const noexcept { return saturating_add(done, params.completion_seen) <= host; }
  /// A synchronize that found its work done returns no earlier than the host can see that completion
  /// (`done` on the device); after it, queries see the completion too.
  void see(Nanos done) {
    const Nanos v = saturating_add(done, params.completion_seen);
    if (v > host) {
      host = v;
      gpu.advance_to(host);
    }
  }
  /// The first call that issues work or waits after a host wait (the program starts after its set-up's
  /// synchronize) costs first_call_after_sync more; the program's first call that issues work costs
  /// program_first_call instead, where the profile has it (event creation and queries do not count: a
  /// program makes its events in its set-up, and the measurements are of launches).
  Nanos first_call_extra(bool work) {
    if (!after_sync) return 0;
    after_sync = false;
    if (work && !first_work_call_made) {
      first_work_call_made = true;
      if (params.program_first_call) return *params.program_first_call;
    }
    return params.first_call_after_sync;
  }
  bool after_sync = true;  ///< no work call since the program began or the host last waited for the device
  bool first_work_call_made = false;  ///< the program put work into a stream
  static constexpr std::uint32_t kNoQueue = ~std::uint32_t{0};
  std::uint32_t last_launch_queue = kNoQueue;  ///< compute queue of the previous kernel launch
  /// Charges a call that puts work into stream `s`: its cost, plus stream_first_use the first time a
  /// created stream gets work, and queue_first_use more when its hardware queue never had work before.
  void charge_into(std::uint32_t s, Nanos cost) {
    cost += first_call_extra(true);
    if (s < stream_used.size() && !stream_used[s]) {
      stream_used[s] = 1;
      cost += params.stream_first_use;
      const std::uint32_t q = gpu.queue_of(s);
      if (q >= queue_used.size()) queue_used.resize(static_cast<std::size_t>(q) + 1, 0);
      if (!queue_used[q]) {
        queue_used[q] = 1;
        cost += params.queue_first_use;
      }
    }
    charge(cost);
  }
  std::vector<char> stream_used;  ///< per stream: work was put into it (the legacy stream counts as used)
  /// Per compute queue: a stream on it had work. The legacy stream's queue counts as used: a program's
  /// set-up (module loading, its warm-up launch) runs there before time 0.
  std::vector<char> queue_used = std::vector<char>(1, 1);

  /// Blocks the host until done() holds. The call first costs `poll` (the driver checks the condition);
  /// if it holds then, the call returns; otherwise the device runs until it holds and the host wakes
  /// `sync_wakeup` later.
  template <class Done>
  WaitStatus block_until(Done&& done, Nanos timeout, Nanos poll, bool wakeup = true) {
    charge(poll + first_call_extra(false));
    // A synchronize (not a blocking copy, which waits inside its own call) makes the next work call a
    // first call after a host wait, whether it had to wait or not.
    after_sync = wakeup;
    if (done()) return WaitStatus::ready;
    const Nanos limit = saturating_add(host, std::max<Nanos>(timeout, 0));
    if (const auto t = gpu.advance_until(done, limit)) {
      host = std::max(host, *t + (wakeup ? params.sync_wakeup : 0));
      gpu.advance_to(host);
      return WaitStatus::ready;
    }
    // Timed out, or nothing pending can ever satisfy the condition (the device ran dry).
    if (timeout <= kLongestSleep) host = limit;
    gpu.advance_to(host);
    return WaitStatus::timed_out;
  }
};

SimBackend::SimBackend(model::DeviceProfile profile, SimOptions options)
    : impl_(std::make_unique<Impl>(std::move(profile), std::move(options))) {}

SimBackend::~SimBackend() = default;

void SimBackend::prepare(const model::Workload& workload) {
  if (impl_->prepared) throw std::logic_error("sim backend: prepare() called twice");
  const double cpu0 = process_cpu_s();
  const SimBudget& b = impl_->options.budget;
  model::check_simulation_size(workload, impl_->options.source, b.max_events);
  impl_->gpu.set_budget(b.max_events, b.wall_seconds, impl_->options.source);
  impl_->gpu.prepare(workload, impl_->options.source);
  if (impl_->options.progress != nullptr) {
    impl_->options.progress->set_total(workload.size());
    impl_->gpu.set_progress(impl_->options.progress);
  }
  impl_->workload = &workload;
  impl_->prepared = true;
  impl_->host = 0;
  impl_->prepare_cpu_s = process_cpu_s() - cpu0;
}

std::pair<int, int> SimBackend::priority_range() const {
  return {impl_->params.priority_least, impl_->params.priority_greatest};
}

StreamId SimBackend::create_stream(const policies::StreamDesc& desc) {
  if (desc.kind == policies::StreamKind::legacy_default)
    throw std::invalid_argument("sim backend: the legacy default stream is StreamId{0u}; it is not created");
  const std::uint32_t id = impl_->gpu.add_stream(desc.kind, desc.priority);
  impl_->stream_used.resize(id + 1, 1);
  impl_->stream_used[id] = 0;
  return StreamId{id};
}

StreamId SimBackend::legacy_default_stream() { return StreamId{0u}; }

void SimBackend::enqueue(StreamId stream, model::OpIndex op) {
  Impl& m = *impl_;
  m.need_prepared("enqueue");
  const std::uint32_t s = m.stream_index(stream, "enqueue");
  if (op >= m.workload->ops.size())
    throw std::invalid_argument("sim backend: enqueue: op index " + std::to_string(op) + " out of range");
  if (m.gpu.op_issued(op))
    throw std::logic_error("sim backend: op '" + m.workload->ops[op].id + "' enqueued twice");
  // Not the op's description: what issuing reads of it the simulator keeps in a small per-op entry
  // (GpuModel::issue_brief), since ops are issued in no index order.
  const detail::GpuModel::IssueBrief brief = m.gpu.issue_brief(op);
  Nanos cost = 0, latency = 0;
  switch (brief.kind) {
    case model::OpKind::kernel:
    case model::OpKind::task_pool:
      cost = m.params.kernel_launch + (m.options.traced ? m.params.traced_launch_overhead : 0);
      if (m.params.kernel_launch_per_busy_queue > 0 || m.params.kernel_launch_queue_switch > 0) {
        const Nanos busy = static_cast<Nanos>(m.gpu.other_busy_queues(s));
        cost += m.params.kernel_launch_per_busy_queue * busy;
        const std::uint32_t q = m.gpu.queue_of(s);
        if (m.last_launch_queue != Impl::kNoQueue && q != m.last_launch_queue && busy > 0)
          cost += m.params.kernel_launch_queue_switch;
        m.last_launch_queue = q;
      }
      latency = m.params.kernel_start_latency;
      break;
    case model::OpKind::h2d:
    case model::OpKind::d2h:
    case model::OpKind::d2d:
    case model::OpKind::memset:
      cost = m.params.memcpy_issue + (m.options.traced ? m.params.traced_copy_issue_overhead : 0);
      break;
    case model::OpKind::prefetch: cost = m.params.memcpy_issue; break;  // no copy record of its own
    case model::OpKind::host_func: cost = m.params.host_func_issue; break;
    case model::OpKind::barrier: break;  // a position in the stream; no API call of its own
    case model::OpKind::event_record:
    case model::OpKind::event_wait:
    case model::OpKind::stream_sync:
    case model::OpKind::event_sync:
    case model::OpKind::device_sync:
      throw std::logic_error("sim backend: op '" + m.workload->ops[op].id + "' is a program call (" +
                             std::string(model::to_string(brief.kind)) + "); the replay makes it as its own call");
  }
  m.charge_into(s, cost);
  m.gpu.issue_op(s, op, m.host, m.host + latency);
  // cudaMemcpyAsync from/to pageable memory is synchronous for the host: it returns only once the copy
  // (and so everything before it on its stream) has completed. No wake-up: the calling thread drives it.
  // A program's blocking copy or memset (Op::blocking) returns the same way: the host waits in the call.
  if (brief.host_waits)
    (void)m.block_until([&] { return m.gpu.op_finished(op); }, std::numeric_limits<Nanos>::max(), 0, false);
}

void SimBackend::launch_host_func(StreamId stream, std::function<void()> fn) {
  Impl& m = *impl_;
  m.need_prepared("launch_host_func");
  const std::uint32_t s = m.stream_index(stream, "launch_host_func");
  m.charge_into(s, m.params.host_func_issue);
  m.gpu.issue_callback(s, std::move(fn), m.host);
}

EventId SimBackend::create_event(policies::EventTiming timing) {
  Impl& m = *impl_;
  if (m.prepared) m.charge(m.params.event_create);
  return EventId{m.gpu.add_event(timing == policies::EventTiming::timed)};
}

void SimBackend::destroy_event(EventId event) {
  Impl& m = *impl_;
  const std::uint32_t e = m.event_index(event, "destroy_event");
  if (m.prepared) m.charge(m.params.event_destroy);
  m.gpu.destroy_event(e);
}

void SimBackend::prefetch_issue(model::OpIndex op, std::span<const EventId> events) noexcept {
  Impl& m = *impl_;
  m.gpu.prefetch_op(op);
  for (const EventId e : events)
    if (e.valid() && e.value() < m.gpu.event_count()) m.gpu.prefetch_event(e.value());
}

void SimBackend::record_event(EventId event, StreamId stream) {
  Impl& m = *impl_;
  m.need_prepared("record_event");
  const std::uint32_t e = m.event_index(event, "record_event");
  const std::uint32_t s = m.stream_index(stream, "record_event");
  m.charge_into(s, m.gpu.event(e).timed ? m.params.record_timed : m.params.record_untimed);
  m.gpu.issue_record(e, s, m.host);
}

void SimBackend::stream_wait_event(StreamId stream, EventId event) {
  Impl& m = *impl_;
  m.need_prepared("stream_wait_event");
  const std::uint32_t s = m.stream_index(stream, "stream_wait_event");
  const std::uint32_t e = m.event_index(event, "stream_wait_event");
  m.charge_into(s, m.params.stream_wait);
  m.gpu.issue_wait(s, e, m.host);
}

bool SimBackend::query_event(EventId event) {
  Impl& m = *impl_;
  m.need_prepared("query_event");
  const std::uint32_t e = m.event_index(event, "query_event");
  m.charge(m.params.event_query);
  // The host sees a completion completion_seen after it happened on the device (the front end's and the
  // completion write's latency).
  return m.gpu.event_complete(e) && m.seen(m.gpu.event(e).completed_at);
}

bool SimBackend::query_stream(StreamId stream) {
  Impl& m = *impl_;
  m.need_prepared("query_stream");
  const std::uint32_t s = m.stream_index(stream, "query_stream");
  m.charge(m.params.stream_query);
  return m.gpu.stream_idle(s) && m.seen(m.gpu.stream_idle_since(s));
}

Nanos SimBackend::elapsed(EventId start, EventId end) {
  Impl& m = *impl_;
  const std::uint32_t a = m.event_index(start, "elapsed");
  const std::uint32_t b = m.event_index(end, "elapsed");
  for (std::uint32_t e : {a, b}) {
    const detail::EventState& ev = m.gpu.event(e);
    if (!ev.timed)
      throw std::logic_error("sim backend: elapsed: event " + std::to_string(e) + " was created untimed");
    if (!ev.recorded || !m.gpu.event_complete(e))
      throw std::logic_error("sim backend: elapsed: event " + std::to_string(e) + " is not recorded and complete");
  }
  return m.gpu.event(b).completed_at - m.gpu.event(a).completed_at;
}

WaitStatus SimBackend::synchronize_event(EventId event, Nanos timeout) {
  Impl& m = *impl_;
  m.need_prepared("synchronize_event");
  const std::uint32_t e = m.event_index(event, "synchronize_event");
  const WaitStatus st = m.block_until([&] { return m.gpu.event_complete(e); }, timeout, m.params.event_query);
  if (st == WaitStatus::ready) m.see(m.gpu.event(e).completed_at);
  return st;
}

WaitStatus SimBackend::synchronize_stream(StreamId stream, Nanos timeout) {
  Impl& m = *impl_;
  m.need_prepared("synchronize_stream");
  const std::uint32_t s = m.stream_index(stream, "synchronize_stream");
  const WaitStatus st = m.block_until([&] { return m.gpu.stream_idle(s); }, timeout, m.params.stream_query);
  if (st == WaitStatus::ready) m.see(m.gpu.stream_idle_since(s));
  return st;
}

WaitStatus SimBackend::synchronize_device(Nanos timeout) {
  Impl& m = *impl_;
  m.need_prepared("synchronize_device");
  const WaitStatus st = m.block_until([&] { return m.gpu.device_idle(); }, timeout, m.params.stream_query);
  if (st == WaitStatus::ready && m.params.completion_seen > 0) m.see(m.gpu.device_idle_since());
  return st;
}

std::optional<std::size_t> SimBackend::wait_any_event(std::span<const EventId> events, Nanos timeout) {
  Impl& m = *impl_;
  m.need_prepared("wait_any_event");
  std::vector<std::uint32_t> idx;
  idx.reserve(events.size());
  for (EventId e : events) idx.push_back(m.event_index(e, "wait_any_event"));
  std::size_t hit = 0;
  std::uint64_t seen = ~std::uint64_t{0};
  auto any = [&] {
    if (m.gpu.event_completions() == seen) return false;  // no event completed since the last scan
    seen = m.gpu.event_completions();
    for (std::size_t i = 0; i < idx.size(); ++i)
      if (m.gpu.event_complete(idx[i])) {
        hit = i;
        return true;
      }
    return false;
  };
  if (m.block_until(any, timeout, m.params.event_query) == WaitStatus::timed_out) return std::nullopt;
  m.see(m.gpu.event(idx[hit]).completed_at);
  return hit;
}

Nanos SimBackend::now() { return impl_->host; }

void SimBackend::host_work(Nanos ns) {
  Impl& m = *impl_;
  m.need_prepared("host_work");
  if (ns < 0) throw std::invalid_argument("sim backend: host_work of negative time");
  // The host is busy; the device runs on meanwhile. Host work is not an API call: the next call still
  // pays first_call_after_sync where one is due.
  m.host += ns;
  m.gpu.advance_to(m.host);
}

model::Trace SimBackend::finish() {
  Impl& m = *impl_;
  m.need_prepared("finish");
  const double cpu0 = process_cpu_s();
  if (m.block_until([&] { return m.gpu.device_idle(); }, std::numeric_limits<Nanos>::max(), 0) !=
      WaitStatus::ready)
    throw std::logic_error("sim backend: finish: device work can never complete");
  m.gpu.flush_progress();
  m.finished = true;
  const double cpu1 = process_cpu_s();
  m.drain_cpu_s = cpu1 - cpu0;
  model::Trace t;
  t.meta.backend = "sim";
  t.meta.device_name = m.profile.name;
  t.meta.profile = m.options.profile_label.empty() ? m.profile.name : m.options.profile_label;
  t.meta.version = STREAMLAB_VERSION;
  t.meta.date = m.options.date.empty() ? today_utc() : m.options.date;
  t.meta.extra["connections"] = std::to_string(m.connections);
  t.meta.extra["sim_events"] = std::to_string(m.gpu.stats().events);
  if (!m.profile.driver.empty()) t.meta.extra["driver"] = m.profile.driver;
  if (!m.profile.cuda_version.empty()) t.meta.extra["cuda_version"] = m.profile.cuda_version;
  // The spans' ids and names are the workload's texts: the trace keeps its table.
  if (m.workload != nullptr) t.share_strings(m.workload->strings());
  t.spans = m.gpu.take_spans();
  if (m.options.record_blocks) t.blocks = m.gpu.take_placements();
  m.spans_cpu_s = process_cpu_s() - cpu1;
  return t;
}

const OpExplanation* SimBackend::explain(model::OpIndex op) const { return impl_->gpu.explanation(op); }

const SimStats& SimBackend::stats() const noexcept {
  const detail::ModelStats& s = impl_->gpu.stats();
  impl_->stats = SimStats{s.events, s.commands, s.blocks, s.max_heap,
                          s.pops == 0 ? 0.0 : static_cast<double>(s.heap_sum) / static_cast<double>(s.pops),
                          s.max_live, s.pops, impl_->prepare_cpu_s, impl_->drain_cpu_s, impl_->spans_cpu_s};
  return impl_->stats;
}

const model::DeviceProfile& SimBackend::profile() const noexcept { return impl_->profile; }
std::uint32_t SimBackend::connections() const noexcept { return impl_->connections; }

}  // namespace streamlab::sim
