// E4 event costs, E5 legacy default stream vs explicit streams, E8 host synchronization hierarchy.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "catalog_util.hpp"

namespace streamlab::experiments::detail {

// E4 -----------------------------------------------------------------------------------------------------

namespace {

struct CallKind {
  const char* name;
  double claim_ns;  // NaN: the source states no figure
};

constexpr CallKind kCalls[] = {
    {"event-create-timed", 1000},   {"event-create-untimed", 1000}, {"event-record-timed", 500},
    {"event-record-untimed", 500},  {"event-query", 200},           {"stream-wait-event", 300},
    {"event-destroy", kNone},       {"event-synchronize-complete", kNone}, {"stream-query-idle", kNone},
};

// Times `n` calls of one kind through the HostApi (after 16 untimed warm-up calls) and returns ns per call.
Measurement e4_probe(ProbeContext& ctx, std::string_view call, std::uint32_t n) {
  using policies::EventTiming;
  auto& api = ctx.api;
  policies::StreamDesc d;
  d.kind = policies::StreamKind::non_blocking;
  d.label = "probe";
  const policies::StreamId s = ctx.backend.create_stream(d);
  d.label = "probe-waiter";
  const policies::StreamId s2 = ctx.backend.create_stream(d);
  // body(i) gets i = 0..15 for the warm-up calls and 16..n+15 for the timed ones.
  constexpr std::uint32_t kWarmup = 16;
  auto time_loop = [&](auto&& body) {
    for (std::uint32_t i = 0; i < kWarmup; ++i) body(i);
    const Nanos t0 = api.now();
    for (std::uint32_t i = kWarmup; i < kWarmup + n; ++i) body(i);
    return static_cast<double>(api.now() - t0) / n;
  };
  double per_call = kNone;
  if (call == "event-create-timed" || call == "event-create-untimed" || call == "event-destroy") {
    const EventTiming t = call == "event-create-untimed" ? EventTiming::untimed : EventTiming::timed;
    std::vector<std::uint32_t> events;
    events.reserve(n + kWarmup);
    if (call == "event-destroy") {
      for (std::uint32_t i = 0; i < n + kWarmup; ++i) events.push_back(api.create_event(t));
      per_call = time_loop([&](std::uint32_t i) { api.destroy_event(events[i]); });
    } else {
      per_call = time_loop([&](std::uint32_t) { events.push_back(api.create_event(t)); });
      for (std::uint32_t e : events) api.destroy_event(e);
    }
  } else if (call == "event-record-timed" || call == "event-record-untimed") {
    const std::uint32_t e = api.create_event(call == "event-record-timed" ? EventTiming::timed : EventTiming::untimed);
    per_call = time_loop([&](std::uint32_t) { api.record_event(e, s); });
    api.synchronize_device();
    api.destroy_event(e);
  } else {
    const std::uint32_t e = api.create_event(EventTiming::untimed);
    api.record_event(e, s);
    api.synchronize_event(e);
    if (call == "event-query") {
      per_call = time_loop([&](std::uint32_t) {
        if (!api.query_event(e)) throw std::runtime_error("E4: a completed event queried as pending");
      });
    } else if (call == "stream-wait-event") {
      per_call = time_loop([&](std::uint32_t) { api.stream_wait_event(s2, e); });
    } else if (call == "event-synchronize-complete") {
      per_call = time_loop([&](std::uint32_t) { api.synchronize_event(e); });
    } else if (call == "stream-query-idle") {
      per_call = time_loop([&](std::uint32_t) { (void)api.query_stream(s); });
    } else {
      throw std::logic_error("E4: unknown call " + std::string(call));
    }
    api.synchronize_device();
    api.destroy_event(e);
  }
  (void)ctx.backend.finish();
  Measurement m;
  m.metric = per_call;
  return m;
}

double claim_of(std::string_view call) {
  for (const auto& c : kCalls)
    if (call == c.name) return c.claim_ns;
  return kNone;
}

}  // namespace

Experiment make_e4() {
  Experiment e;
  e.name = "E4";
  e.claim_short = "event create ~1, record ~0.5, query ~0.2, wait ~0.3 us";
  e.title = "Event costs (timed and untimed)";
  e.claim = "CUDA events are cheap: creating one costs about 1 us, recording about 0.5 us, querying about 0.2 us and "
            "a stream wait on one about 0.3 us of host time (about 2 us per operation in all).";
  e.source = "A table of event overheads for asynchronous pipelines: creating an event about 1 us, recording about "
             "0.5 us, querying about 0.2 us, a stream wait about 0.3 us of host time, about 2 us per operation in all.";
  e.setup = "A probe, not a Dispatcher run: after prepare() it creates two non-blocking streams and times N calls of "
            "one kind back to back on the host clock (after 16 untimed warm-up calls), N = 2000 (quick: 200): "
            "cudaEventCreateWithFlags with and without cudaEventDisableTiming, cudaEventRecord of a timed and an "
            "untimed event on an idle stream, cudaEventQuery of a completed event, cudaStreamWaitEvent on a "
            "completed event, cudaEventDestroy, cudaEventSynchronize of a completed event, cudaStreamQuery of an "
            "idle stream. Predicted = what the simulator charges for that call (the profile's cost, read through "
            "SimBackend::now()). Measured = the raw CUDA runtime calls on the CudaBackend's stream handles (not "
            "the backend's pooled events), median of the runs, in a process that never started CUPTI (its kernels "
            "time themselves; a fresh child process when an earlier experiment of the same command started it: an "
            "attached CUPTI made a completed event's query about 1.4 us dearer on the H100). A claim holds when the "
            "measured cost is within a factor of 2 of the stated figure.";
  e.metric = {"call_cost", "host time per call", "us", 1e-3};
  e.has_makespan = false;
  e.configurations = [](const ConfigContext& ctx) {
    std::vector<Configuration> out;
    const std::uint32_t n = ctx.quick ? 200 : 2000;
    for (const auto& call : kCalls) {
      Configuration c;
      const std::string name = call.name;
      c.label = "call=" + name;
      c.params = {{"call", name}};
      c.workload = [] {
        model::Workload w;
        w.name = "e4-probe";
        add_kernel(w, "noop", 1, 32, 1'000);
        return finish_workload(std::move(w));
      };
      c.probe = [name, n](ProbeContext& ctx2) { return e4_probe(ctx2, name, n); };
      out.push_back(std::move(c));
    }
    return out;
  };
  e.verdict = [](std::span<const ConfigResult> rows, Side side) {
    int ok = 0, off = 0;
    std::string detail;
    for (const auto& r : rows) {
      const double claim = claim_of(r.param("call"));
      const double v = metric_of(&r, side);
      if (!has_value(claim) || !has_value(v)) continue;
      const double ratio = v / claim;
      (ratio >= 0.5 && ratio <= 2.0 ? ok : off) += 1;
      detail += (detail.empty() ? "" : ", ") + r.param("call") + " " + fmt_us(v) + " (claim " + fmt_us(claim) + ")";
    }
    if (ok + off == 0) return missing(side, "the calls with a stated cost");
    const std::string numbers = "Per call: " + detail + ".";
    if (off == 0) return verdict(Outcome::confirmed, "Every stated cost holds within a factor of 2. " + numbers);
    if (ok == 0) return verdict(Outcome::refuted, "No stated cost holds within a factor of 2. " + numbers);
    return verdict(Outcome::depends, std::to_string(ok) + " of " + std::to_string(ok + off) +
                                         " stated costs hold within a factor of 2. " + numbers);
  };
  e.headline = [](std::span<const ConfigResult> rows, Side side) -> std::string {
    const double c = metric_of(find_row(rows, {{"call", "event-create-timed"}}), side);
    const double r = metric_of(find_row(rows, {{"call", "event-record-untimed"}}), side);
    const double q = metric_of(find_row(rows, {{"call", "event-query"}}), side);
    const double w = metric_of(find_row(rows, {{"call", "stream-wait-event"}}), side);
    if (!has_value(c)) return "";
    return "create " + fmt_num(c / 1e3, 2) + ", record " + fmt_num(r / 1e3, 2) + ", query " + fmt_num(q / 1e3, 2) +
           ", wait " + fmt_num(w / 1e3, 2) + " us";
  };
  return e;
}

// E5 -----------------------------------------------------------------------------------------------------

namespace {

// 4 chains of 8 kernels (16 blocks x 128 threads; chain c's kernel k runs 50 + 50 * ((c + k) % 4) us per block, so
// every round has one long kernel but every chain the same total) plus 8 independent "housekeeping" kernels
// hinted to stream 5, listed after each round.
// Built by appends: GCC 12's -Wrestrict misfires on "literal" + std::string&& chains here (a false positive
// that -Werror turns into a build failure).
std::string chain_op_id(std::uint32_t chain, std::uint32_t k) {
  std::string id = "c";
  id += std::to_string(chain);
  id += "_k";
  id += std::to_string(k);
  return id;
}

model::Workload e5_workload() {
  model::Workload w;
  w.name = "e5-legacy-barriers";
  w.description = "4 kernel chains on streams 1-4 plus 8 small housekeeping kernels hinted to stream 5";
  for (std::uint32_t k = 0; k < 8; ++k) {
    for (std::uint32_t c = 0; c < 4; ++c) {
      const std::string id = chain_op_id(c, k);
      std::vector<std::string> deps;
      if (k > 0) deps.push_back(chain_op_id(c, k - 1));
      add_kernel(w, id, 16, 128, 50'000 + 50'000 * ((c + k) % 4), c + 1, deps);
    }
    add_kernel(w, "hk" + std::to_string(k), 1, 64, 20'000, 5u);
  }
  return finish_workload(std::move(w));
}

struct E5Mode {
  const char* name;
  policies::StreamKind kind;
  bool legacy_housekeeping;
  std::uint32_t streams;
};
constexpr E5Mode kE5Modes[] = {
    {"explicit non-blocking streams", policies::StreamKind::non_blocking, false, 5},
    {"non-blocking + legacy NULL housekeeping", policies::StreamKind::non_blocking, true, 4},
    {"blocking + legacy NULL housekeeping", policies::StreamKind::blocking, true, 4},
    {"per-thread default + legacy NULL housekeeping", policies::StreamKind::per_thread_default, true, 4},
    {"everything on the legacy NULL stream", policies::StreamKind::legacy_default, false, 4},
};

}  // namespace

Experiment make_e5() {
  Experiment e;
  e.name = "E5";
  e.claim_short = "the legacy NULL stream serializes blocking streams; non-blocking ones are exempt";
  e.title = "Legacy default stream vs non-blocking and per-thread streams";
  e.claim = "Work on the legacy default (NULL) stream implicitly synchronizes with every blocking stream, which "
            "serializes otherwise independent streams; explicit non-blocking streams (and the per-thread default "
            "stream) avoid the implicit barrier.";
  e.source = "The CUDA Runtime API's 'stream synchronization behavior' (the legacy default stream synchronizes with "
             "blocking streams; cudaStreamNonBlocking and nvcc --default-stream per-thread are exempt).";
  e.setup = "Workload (built in code): 4 independent chains of 8 kernels on streams 1-4 (16 blocks x 128 threads, chain "
            "c's kernel k runs 50 + 50*((c+k) mod 4) us per block: each round has one 200 us kernel, each chain the "
            "same total) and 8 independent 20 us single-block housekeeping kernels hinted to stream 5, one per round. "
            "Policy round-robin, hints honoured. Modes: (1) explicit non-blocking streams, housekeeping on its own "
            "stream; (2) non-blocking streams, housekeeping on the legacy NULL stream (PolicyConfig::legacy_hint = 5); "
            "(3) blocking streams (cudaStreamDefault), housekeeping on the legacy NULL stream; (4) every chain on the "
            "per-thread default stream, housekeeping on the legacy NULL stream; (5) everything on the legacy NULL "
            "stream. Metric: makespan. Barrier cost = makespan(3) / makespan(2) - 1; exemption = makespan(2) / "
            "makespan(1) - 1.";
  e.metric = {"makespan", "makespan", "ms", 1e-6};
  e.makespan_target = true;
  e.configurations = [](const ConfigContext&) {
    std::vector<Configuration> out;
    for (const auto& m : kE5Modes) {
      Configuration c;
      c.label = std::string("mode=") + m.name;
      c.params = {{"mode", m.name}};
      c.workload = e5_workload;
      c.policy = "round-robin";
      c.config.streams = m.streams;
      c.config.stream_kind = m.kind;
      if (m.legacy_housekeeping) c.config.legacy_hint = 5;
      out.push_back(std::move(c));
    }
    return out;
  };
  e.verdict = [](std::span<const ConfigResult> rows, Side side) {
    const double t1 = metric_of(find_row(rows, {{"mode", kE5Modes[0].name}}), side);
    const double t2 = metric_of(find_row(rows, {{"mode", kE5Modes[1].name}}), side);
    const double t3 = metric_of(find_row(rows, {{"mode", kE5Modes[2].name}}), side);
    const double t4 = metric_of(find_row(rows, {{"mode", kE5Modes[3].name}}), side);
    const double t5 = metric_of(find_row(rows, {{"mode", kE5Modes[4].name}}), side);
    if (!has_value(t1) || !has_value(t2) || !has_value(t3)) return missing(side, "modes 1-3");
    const double barrier = t3 / t2 - 1, exempt = t2 / t1 - 1;
    std::string numbers = "Explicit non-blocking " + fmt_ms(t1) + "; non-blocking + NULL-stream housekeeping " +
                          fmt_ms(t2) + " (" + fmt_pct(exempt) + "); blocking + NULL-stream housekeeping " + fmt_ms(t3) +
                          " (barrier cost " + fmt_pct(barrier) + ")";
    if (has_value(t4)) numbers += "; per-thread default + NULL-stream housekeeping " + fmt_ms(t4);
    if (has_value(t5)) numbers += "; all on the NULL stream " + fmt_ms(t5);
    numbers += ".";
    if (barrier >= 0.20 && std::abs(exempt) <= 0.05)
      return verdict(Outcome::confirmed, "The NULL stream serializes blocking streams and non-blocking ones are exempt. " + numbers);
    if (barrier < 0.05 || exempt > 0.20)
      return verdict(Outcome::refuted, barrier < 0.05 ? "No implicit barrier cost was seen. " + numbers
                                                      : "Non-blocking streams were slowed by the NULL stream too. " + numbers);
    return verdict(Outcome::depends, "Partly: the barrier costs less than 20% or the exemption is not complete. " + numbers);
  };
  e.headline = [](std::span<const ConfigResult> rows, Side side) -> std::string {
    const double t2 = metric_of(find_row(rows, {{"mode", kE5Modes[1].name}}), side);
    const double t3 = metric_of(find_row(rows, {{"mode", kE5Modes[2].name}}), side);
    if (!has_value(t2) || !has_value(t3)) return "";
    return "NULL-stream barrier costs " + fmt_pct(t3 / t2 - 1) + " (blocking vs non-blocking)";
  };
  return e;
}

// E8 -----------------------------------------------------------------------------------------------------

namespace {

constexpr const char* kE8Modes[] = {"device-synchronize", "stream-synchronize", "event-synchronize",
                                    "event-query-polling", "stream-query-polling"};

// Kernel A (1 ms per block) on stream 1 with an event after it, kernel B (3 ms per block) on stream 2; the host
// waits for A's result in one of five ways and notes when it resumes.
Measurement e8_probe(ProbeContext& ctx, std::string_view mode) {
  auto& api = ctx.api;
  policies::StreamDesc d;
  d.kind = policies::StreamKind::non_blocking;
  d.label = "A";
  const policies::StreamId s1 = ctx.backend.create_stream(d);
  d.label = "B";
  const policies::StreamId s2 = ctx.backend.create_stream(d);
  const std::uint32_t ev = api.create_event(policies::EventTiming::untimed);
  ctx.backend.enqueue(s1, 0);
  api.record_event(ev, s1);
  ctx.backend.enqueue(s2, 1);
  // Polls stop with an error after 10 s of host time (a hung GPU must not hang the suite).
  constexpr Nanos kPollLimit = 10'000'000'000;
  const Nanos poll_start = api.now();
  std::uint64_t polls = 0;
  auto give_up = [&] { return (++polls & 1023) == 0 && api.now() - poll_start > kPollLimit; };
  if (mode == "device-synchronize") {
    api.synchronize_device();
  } else if (mode == "stream-synchronize") {
    api.synchronize_stream(s1);
  } else if (mode == "event-synchronize") {
    api.synchronize_event(ev);
  } else if (mode == "event-query-polling") {
    while (!api.query_event(ev))
      if (give_up()) throw std::runtime_error("E8: event not complete after 10 s of polling");
  } else if (mode == "stream-query-polling") {
    while (!api.query_stream(s1))
      if (give_up()) throw std::runtime_error("E8: stream not drained after 10 s of polling");
  } else {
    throw std::logic_error("E8: unknown mode " + std::string(mode));
  }
  const double resumed = static_cast<double>(api.now());
  api.synchronize_device();
  api.destroy_event(ev);
  const model::Trace t = ctx.backend.finish();
  const double end_a = span_end(t, "A"), end_b = span_end(t, "B");
  Measurement m;
  m.metric = resumed - end_a;
  const double awaited = mode == "device-synchronize" ? std::max(end_a, end_b) : end_a;
  m.extra["wakeup_ns"] = resumed - awaited;
  m.extra["b_after_a_ns"] = end_b - end_a;
  m.extra["polls"] = static_cast<double>(polls);
  return m;
}

}  // namespace

Experiment make_e8() {
  Experiment e;
  e.name = "E8";
  e.claim_short = "narrower sync scope resumes the host sooner";
  e.title = "Host synchronization hierarchy";
  e.claim = "cudaDeviceSynchronize waits for every stream, cudaStreamSynchronize for one stream and "
            "cudaEventSynchronize for one point in a stream, so the narrower call lets the host resume as soon as "
            "the work it needs is done; cudaEventQuery / cudaStreamQuery poll without blocking.";
  e.source = "The CUDA synchronization calls as usually ranked for host waits: device > stream > event "
             "synchronization from widest to narrowest, non-blocking queries instead of waits, and 'delay "
             "synchronization as long as possible'.";
  e.setup = "A probe: kernel A (132 blocks x 256 threads, 1 ms per block) on stream 1 followed by an event record, and "
            "kernel B (132 x 256, 3 ms per block) on stream 2, both issued at once; the host then needs A's result "
            "and waits by cudaDeviceSynchronize, cudaStreamSynchronize(stream 1), cudaEventSynchronize(event), a "
            "cudaEventQuery loop or a cudaStreamQuery loop, and notes the host clock when the call returns. Metric: "
            "host resumes after A ends = return time - end of A's span (trace clock, time 0 = prepare(); on the GPU "
            "the kernels time themselves on %globaltimer, tied to the host clock by a handshake kernel before and "
            "after, in a process that never started CUPTI, which would make every poll dearer). Extra: wakeup = return time - end of what the "
            "call waits for. Predicted = SimBackend (sync_wakeup_ns after a blocking wait, event_query_ns per poll); "
            "measured = raw CUDA calls on the CudaBackend's handles, under the runtime's default scheduling "
            "(cudaDeviceScheduleAuto).";
  e.metric = {"resume_after_a", "host resumes after kernel A ends", "us", 1e-3};
  e.has_makespan = false;
  e.configurations = [](const ConfigContext&) {
    std::vector<Configuration> out;
    for (const char* mode : kE8Modes) {
      Configuration c;
      const std::string m = mode;
      c.label = "wait=" + m;
      c.params = {{"wait", m}};
      c.workload = [] {
        model::Workload w;
        w.name = "e8-sync-hierarchy";
        add_kernel(w, "A", 132, 256, 1'000'000);
        add_kernel(w, "B", 132, 256, 3'000'000);
        return finish_workload(std::move(w));
      };
      c.probe = [m](ProbeContext& ctx) { return e8_probe(ctx, m); };
      out.push_back(std::move(c));
    }
    return out;
  };
  e.verdict = [](std::span<const ConfigResult> rows, Side side) {
    const ConfigResult* dev = find_row(rows, {{"wait", "device-synchronize"}});
    const double gap = extra_of(dev, side, "b_after_a_ns");
    const double t_dev = metric_of(dev, side);
    if (!has_value(t_dev) || !has_value(gap)) return missing(side, "device-synchronize");
    std::string detail;
    bool narrow_ok = true;
    int narrow = 0;
    for (const char* mode : {"stream-synchronize", "event-synchronize", "event-query-polling", "stream-query-polling"}) {
      const double t = metric_of(find_row(rows, {{"wait", mode}}), side);
      if (!has_value(t)) continue;
      ++narrow;
      narrow_ok = narrow_ok && t < 0.1 * gap;
      detail += std::string(detail.empty() ? "" : ", ") + mode + " " + fmt_us(t);
    }
    const bool device_waits = t_dev >= 0.9 * gap;
    const std::string numbers = "Host resumes after A: device-synchronize " + fmt_us(t_dev) + " (B ends " + fmt_us(gap) +
                                " after A), " + detail + ".";
    if (narrow == 0) return missing(side, "the narrower waits");
    if (device_waits && narrow_ok)
      return verdict(Outcome::confirmed, "Device-wide sync waits for the other stream; stream/event waits and polls "
                                         "resume within 10% of that gap. " + numbers);
    if (!device_waits && narrow_ok)
      return verdict(Outcome::depends, "The narrow waits are fast, but device-synchronize did not wait for B. " + numbers);
    return verdict(Outcome::refuted, "A narrower wait also waited for the other stream. " + numbers);
  };
  e.headline = [](std::span<const ConfigResult> rows, Side side) -> std::string {
    const double dev = metric_of(find_row(rows, {{"wait", "device-synchronize"}}), side);
    const double ev = metric_of(find_row(rows, {{"wait", "event-synchronize"}}), side);
    const double poll = metric_of(find_row(rows, {{"wait", "event-query-polling"}}), side);
    if (!has_value(dev)) return "";
    return "resume after A: device " + fmt_us(dev) + ", event " + fmt_us(ev) + ", polling " + fmt_us(poll);
  };
  return e;
}

}  // namespace streamlab::experiments::detail
