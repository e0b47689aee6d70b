// The Dispatcher: one scheduling loop over the Backend contract (see dispatcher.hpp for the rules).
// Hot-path rule: after setup, issuing an op allocates nothing but amortized vector growth, and builds no
// strings (reasons are codes; text is made by format_decision_log).
#include "streamlab/policies/dispatcher.hpp"

#include <algorithm>
#include <cstddef>
#include <array>
#include <chrono>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/estimate.hpp"
#include "streamlab/model/prefetch.hpp"
#include "streamlab/model/program.hpp"
#include "streamlab/model/stream_program.hpp"
#include "streamlab/policies/huge_pages.hpp"
#include "streamlab/policies/registry.hpp"
#include "replay.hpp"

namespace streamlab::policies {

namespace {
using model::Nanos;
using model::OpIndex;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

Nanos since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

std::string op_label(const model::Workload& w, OpIndex op) {
  const auto& o = w.ops[op];
  std::string s = "op '" + o.id + "'";
  if (!o.name.empty() && o.name != o.id) s += " (" + o.name + ")";
  return s;
}

std::string ms_text(Nanos ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}
}  // namespace

struct Dispatcher::State {
  Backend& be;
  Policy& pol;
  const DispatchOptions& opt;
  const model::Workload& w;
  DispatchResult result;

  std::uint32_t n = 0;       // ops
  std::uint32_t L = 0;       // the policy's logical streams; lane L = the legacy-hint lane
  std::uint32_t P = 0;       // physical (backend) streams
  std::uint32_t window = 0;
  std::vector<StreamSlot> layout;
  std::vector<std::uint32_t> lane_phys;  // lane -> physical stream index
  std::vector<StreamId> phys_id;         // physical index -> backend StreamId
  std::vector<StreamDesc> phys_desc;     // what to create; kind legacy_default = the NULL stream

  HostView view;
  std::span<const Nanos> est;  // DispatchOptions::estimates, or own_est
  std::vector<Nanos> own_est;
  std::vector<std::uint32_t> out_ops;  // per lane
  std::vector<Nanos> out_ns;           // per lane

  // Per op.
  std::vector<std::uint32_t> succ_off, succ;  // CSR of dependents
  /// Only when hints are honored and some op has one (empty otherwise: see hinted()).
  std::vector<std::uint32_t> hint_lane, next_in_lane;
  /// What issuing an op reads of each of its deps, side by side: the deps of a random DAG lie anywhere in
  /// the workload, so this is one cache line per dep instead of one per array. Its readiness count is here
  /// too: making an op ready and issuing it then touch one random line (in the slots' huge pages) instead
  /// of two.
  struct Slot {
    std::uint32_t phys = kNone;  // physical stream
    std::uint32_t pos = 0;       // position on it, from 1
    std::uint32_t seq = 0;       // issue order
    std::uint32_t snap = 0;      // its stream's clock snapshot when it was issued
    std::uint32_t unissued_succ = 0;
    std::uint32_t lane = kNone;  // the policy's stream; kNone until issued
    EventId event;               // its completion event while it holds one
    /// Until the op is issued: its deps not yet issued (+1 while a hinted predecessor is not), so 0 when
    /// it is issued; from then on 1 once it is observed complete (completed()).
    std::uint32_t pending = 0;
  };
  static_assert(sizeof(Slot) == 32, "two slots per cache line");
  std::vector<Slot> slot;
  [[nodiscard]] bool completed(OpIndex v) const noexcept { return slot[v].pending != 0; }
  /// Hinted ops ready to issue, in the order they became ready: [hinted_head, end) (taking the first,
  /// the usual case, only moves the head).
  std::vector<OpIndex> hinted_ready;
  std::size_t hinted_head = 0;
  bool any_hint = false;
  std::size_t hinted_ops = 0;   // ops with a stream hint, when hints are honored (0 otherwise)
  bool legacy_hinted = false;   // some op's hint is the legacy NULL stream's, when hints are honored

  // Vector clocks: clock[p * P + t] = latest position on t that p's next op is ordered after.
  std::vector<std::uint32_t> clock, stream_len, clock_snap;
  std::vector<std::uint8_t> clock_dirty;
  std::vector<std::uint32_t> snaps;  // immutable rows of P, snapshot 0 = all zero

  // In flight.
  std::vector<std::vector<OpIndex>> fifo;
  std::vector<std::size_t> fifo_head;
  // Per stream: fifo positions below this hold no event (given back early, see maybe_release).
  std::vector<std::size_t> fifo_scan;
  std::vector<OpIndex> issue_order;
  std::size_t oldest = 0;
  std::uint32_t in_flight = 0;
  std::uint32_t issued = 0;
  std::vector<EventId> free_events, all_events;
  bool poll_every = false;

  std::vector<OpIndex> scratch;

  struct Planned {
    OpIndex op;
    std::uint32_t lane;
    Reason reason;
    Nanos cpu;
  };
  std::vector<Planned> plan;

  State(Backend& b, Policy& p, const DispatchOptions& o, const model::Workload& wl)
      : be(b), pol(p), opt(o), w(wl) {}

  // Setup ---------------------------------------------------------------------------------------------
  void setup() {
    n = static_cast<std::uint32_t>(w.ops.size());
    if (!opt.estimates.empty()) {
      if (opt.estimates.size() != n)
        throw std::logic_error("DispatchOptions::estimates has " + std::to_string(opt.estimates.size()) +
                               " estimates for a workload of " + std::to_string(n) + " ops");
      est = opt.estimates;
    } else {
      model::DeviceProfile bundled;
      if (opt.profile == nullptr) bundled = model::bundled_h100_profile();
      const model::DeviceProfile& profile = opt.profile ? *opt.profile : bundled;
      own_est.resize(n);
      for (OpIndex i = 0; i < n; ++i) {
        model::prefetch_ahead(w.ops, i);
        own_est[i] = model::estimate_duration(w.ops[i], profile);
      }
      est = own_est;
    }

    layout = pol.layout(be.priority_range());
    if (layout.empty()) throw std::logic_error("policy '" + std::string(pol.name()) + "' asked for no streams");
    L = static_cast<std::uint32_t>(layout.size());
    window = pol.window();
    const PolicyConfig& cfg = pol.config();

    // The ops' stream hints, counted in one pass (each pass over ten million ops reads them from memory
    // again): whether any op has one, whether all do, whether any names the legacy NULL stream.
    if (cfg.hints == HintMode::honor) {
      for (std::size_t i = 0; i < w.ops.size(); ++i) {
        model::prefetch_ahead(w.ops, i);
        const model::Op& op = w.ops[i];
        if (!op.stream_hint) continue;
        ++hinted_ops;
        if (op.stream_hint == cfg.legacy_hint) legacy_hinted = true;
      }
    }

    // Logical -> physical. Lane L is the legacy-hint lane (the NULL stream), present even if unused.
    lane_phys.assign(L + 1, 0);
    StreamDesc legacy;
    legacy.kind = StreamKind::legacy_default;
    legacy.label = "legacy NULL";
    switch (cfg.stream_kind) {
      case StreamKind::legacy_default:
        phys_desc = {legacy};
        break;
      case StreamKind::per_thread_default: {
        StreamDesc pt;
        pt.kind = StreamKind::per_thread_default;
        pt.label = "per-thread default";
        phys_desc = {pt, legacy};
        lane_phys[L] = 1;
        break;
      }
      case StreamKind::blocking:
      case StreamKind::non_blocking:
        for (std::uint32_t i = 0; i < L; ++i) {
          phys_desc.push_back(layout[i].desc);
          phys_desc.back().kind = cfg.stream_kind;
          lane_phys[i] = i;
        }
        if (legacy_hinted) {  // only when some op goes there
          phys_desc.push_back(legacy);
          lane_phys[L] = L;
        }
        break;
    }
    P = static_cast<std::uint32_t>(phys_desc.size());

    out_ops.assign(L + 1, 0);
    out_ns.assign(L + 1, 0);
    view.workload_ = &w;
    view.estimates_ = est;
    view.outstanding_ops_ = std::span<const std::uint32_t>(out_ops.data(), L);
    view.outstanding_ns_ = std::span<const Nanos>(out_ns.data(), L);
    view.window_ = window;

    // Dependents (CSR) and hint lanes.
    w.dependents(succ_off, succ);
    if (hinted_ops > 0) {
      any_hint = true;
      hint_lane.assign(n, kNone);
      next_in_lane.assign(n, kNone);
      std::vector<std::uint32_t> last(L + 1, kNone);
      for (OpIndex v = 0; v < n; ++v) {
        model::prefetch_ahead(w.ops, v);
        const auto& h = w.ops[v].stream_hint;
        if (!h) continue;
        const std::uint32_t lane = (cfg.legacy_hint && *h == *cfg.legacy_hint) ? L : (*h == 0 ? 0 : *h - 1) % L;
        hint_lane[v] = lane;
        if (last[lane] != kNone) next_in_lane[last[lane]] = v;
        last[lane] = v;
      }
    }
    const PollMode pm = cfg.poll;
    poll_every = pm == PollMode::every_decision || (pm == PollMode::automatic && pol.uses_feedback());

    // Huge pages for the slots (touched for the op, each dep and its completion) unless every op has a stream
    // hint: then ops are issued lane by lane in workload order and the slots are reached in order, where
    // huge pages would only cost their first touches (10M-op stream chains: about 0.5 s more system time).
    if (hinted_ops < n) {
      slot.reserve(n);
      advise_huge_pages(slot.data(), std::size_t{n} * sizeof(Slot));
    }
    slot.assign(n, Slot{});
    for (OpIndex v = 0; v < n; ++v) slot[v].unissued_succ = succ_off[v + 1] - succ_off[v];

    clock.assign(std::size_t{P} * P, 0);
    stream_len.assign(P, 0);
    clock_snap.assign(P, 0);
    clock_dirty.assign(P, 0);
    snaps.assign(P, 0);
    fifo.assign(P, {});
    for (auto& f : fifo) f.reserve(n / P + 8);
    fifo_head.assign(P, 0);
    fifo_scan.assign(P, 0);
    issue_order.reserve(n);
    hinted_ready.reserve(L + 1);
    if (opt.keep_log) {
      result.log.reserve(n);
      result.waits.reserve(succ.size());
    }
  }

  void reset_readiness() {
    for (OpIndex v = 0; v < n; ++v) slot[v].pending = static_cast<std::uint32_t>(w.deps(v).size());
    if (any_hint)
      for (OpIndex v = 0; v < n; ++v)
        if (next_in_lane[v] != kNone) ++slot[next_in_lane[v]].pending;
    hinted_ready.clear();
    hinted_head = 0;
    pol.begin(view);
    for (OpIndex v = 0; v < n; ++v)
      if (slot[v].pending == 0) make_ready(v);
  }

  [[nodiscard]] bool hinted(OpIndex v) const noexcept { return any_hint && hint_lane[v] != kNone; }

  void make_ready(OpIndex v) {
    if (hinted(v)) {
      hinted_ready.push_back(v);
    } else {
      pol.on_ready(v);
    }
  }

  void propagate(OpIndex op) {
    for (std::uint32_t i = succ_off[op]; i < succ_off[op + 1]; ++i)
      if (--slot[succ[i]].pending == 0) make_ready(succ[i]);
    if (any_hint && next_in_lane[op] != kNone && --slot[next_in_lane[op]].pending == 0) make_ready(next_in_lane[op]);
  }

  [[nodiscard]] bool lane_has_room(std::uint32_t lane) const noexcept {
    return window == 0 || out_ops[lane] < window;
  }

  /// The op k decisions from now, as far as it is known: hinted ready ops go first (take_hinted), in the
  /// order they became ready (exactly so while their lanes have room), then the policy's upcoming() ones.
  /// For prefetching only.
  OpIndex upcoming(std::size_t k) const noexcept {
    const std::size_t hinted = hinted_ready.size() - hinted_head;
    return k < hinted ? hinted_ready[hinted_head + k] : pol.upcoming(k - hinted);
  }

  /// Why a hinted op goes where it goes. Only the decision log (keep_log) shows the hint's value: without
  /// it the op's description is not read (ops are issued in no index order: a cache and TLB miss each).
  Reason hint_reason(OpIndex op) const {
    Reason r;
    r.code = hint_lane[op] == L ? ReasonCode::legacy_hint : ReasonCode::stream_hint;
    if (opt.keep_log) r.a = *w.ops[op].stream_hint;
    return r;
  }

  /// The first hinted ready op whose lane has room (all of them when `ignore_windows`), removed.
  OpIndex take_hinted(bool ignore_windows) {
    for (std::size_t i = hinted_head; i < hinted_ready.size(); ++i) {
      const OpIndex op = hinted_ready[i];
      if (ignore_windows || lane_has_room(hint_lane[op])) {
        if (i == hinted_head) {
          ++hinted_head;
        } else {
          hinted_ready.erase(hinted_ready.begin() + static_cast<std::ptrdiff_t>(i));
        }
        if (hinted_head == hinted_ready.size()) {
          hinted_ready.clear();
          hinted_head = 0;
        } else if (hinted_head >= 4096 && 2 * hinted_head >= hinted_ready.size()) {
          hinted_ready.erase(hinted_ready.begin(), hinted_ready.begin() + static_cast<std::ptrdiff_t>(hinted_head));
          hinted_head = 0;
        }
        return op;
      }
    }
    return kNone;
  }

  // Deadlock checks (nothing issued yet) ---------------------------------------------------------------
  void check_hinted_program() {
    if (!any_hint || !opt.check_deadlock) return;
    ++result.stats.deadlock_checks;
    // Hinted lanes in workload order; every other op on a stream of its own, so that cycles through
    // unhinted ops (which the policy may place anywhere) are still seen. When every dependency names an
    // earlier op (as generated and most written workloads do), every edge of that program, dependency or
    // stream order, goes from an earlier op to a later one: it has no cycle, and one pass over the deps
    // shows it without building the program and its graph (10M-op stream chains: about 0.25 s).
    bool forward = true;
    for (OpIndex v = 0; v < n && forward; ++v)
      for (const OpIndex u : w.deps(v)) forward = forward && u < v;
    if (forward) return;
    model::StreamProgram prog;
    prog.streams.resize(L + 1);
    for (OpIndex v = 0; v < n; ++v) {
      if (hinted(v)) {
        prog.streams[hint_lane[v]].push_back(v);
      } else {
        prog.streams.push_back({v});
      }
    }
    model::check_stream_program(w, prog, opt.source);
  }

  void plan_static() {
    const auto t0 = Clock::now();
    reset_readiness();
    plan.reserve(n);
    // Windows are ignored while planning (out_ops stays 0): a static policy's choices do not depend on
    // them.
    const auto ahead = [&](std::size_t k) { return upcoming(k); };
    while (plan.size() < n) {
      if (opt.prefetch_ahead) prefetch_ahead<kPropagating>(ahead);
      const auto c0 = opt.measure_cpu ? Clock::now() : Clock::time_point{};
      const OpIndex h = take_hinted(true);
      Planned p{};
      if (h != kNone) {
        p = {h, hint_lane[h], hint_reason(h), 0};
      } else {
        const auto choice = pol.choose(view);
        if (!choice) {
          throw std::logic_error("policy '" + std::string(pol.name()) + "' stopped choosing with " +
                                 std::to_string(n - plan.size()) + " ops left while planning");
        }
        p = {choice->op, choice->stream, choice->reason, 0};
      }
      if (p.lane < L) pol.on_issued(p.op, p.lane);
      propagate(p.op);
      if (opt.measure_cpu) p.cpu = since(c0);
      plan.push_back(p);
    }
    if (opt.check_deadlock) {
      model::StreamProgram prog;
      prog.streams.resize(P);
      for (auto& s : prog.streams) s.reserve(n / P + 8);
      for (const auto& p : plan) prog.streams[lane_phys[p.lane]].push_back(p.op);
      ++result.stats.deadlock_checks;
      model::check_stream_program(w, prog, opt.source);
    }
    result.stats.plan_ns += since(t0);
  }

  // Streams -------------------------------------------------------------------------------------------
  void create_streams() {
    phys_id.resize(P);
    for (std::uint32_t p = 0; p < P; ++p) {
      if (phys_desc[p].kind == StreamKind::legacy_default) {
        phys_id[p] = be.legacy_default_stream();
      } else {
        phys_id[p] = be.create_stream(phys_desc[p]);
        ++result.stats.streams_created;
      }
    }
    result.streams.resize(L);
    for (std::uint32_t i = 0; i < L; ++i) result.streams[i] = phys_id[lane_phys[i]];
  }

  // Events and completions ----------------------------------------------------------------------------
  /// Gives op u's completion event back to the pool once nothing needs it: no future wait (every
  /// dependent is issued, and cudaStreamWaitEvent captured the record current at its call), and no
  /// observation (u was observed complete, or a later op of its stream carries a newer event whose
  /// completion implies u's). Re-recording a given-back event is safe for exactly that reason. This
  /// keeps the pool full without spending queries on the GPU (~1.6 us each on an H100).
  /// `superseded`: a newer op was just enqueued on u's stream and is about to record its own event.
  void maybe_release(OpIndex u, bool superseded = false) {
    if (!slot[u].event.valid()) return;
    if (completed(u)) {
      if (!opt.elide_completed_waits && slot[u].unissued_succ != 0) return;  // a later wait may still need it
    } else {
      if (slot[u].unissued_succ != 0) return;
      const auto& f = fifo[slot[u].phys];
      if (!superseded && (f.empty() || f.back() == u)) return;  // newest of its stream: observed through it
    }
    free_events.push_back(slot[u].event);
    slot[u].event = EventId{};
  }

  /// The oldest unobserved op of stream p that still holds its event (the newest always does), or kNone.
  OpIndex first_observable(std::uint32_t p) {
    const auto& f = fifo[p];
    std::size_t& i = fifo_scan[p];
    i = std::max(i, fifo_head[p]);
    while (i < f.size() && !slot[f[i]].event.valid()) ++i;
    return i < f.size() ? f[i] : kNone;
  }

  void observe(OpIndex op) {
    slot[op].pending = 1;  // completed()
    const std::uint32_t lane = slot[op].lane;
    --out_ops[lane];
    out_ns[lane] -= est[op];
    --in_flight;
    maybe_release(op);
    if (lane < L) pol.on_completed(op, lane);
    if (opt.on_complete) opt.on_complete(op);
  }

  /// Observes every op of stream p up to and including `op` (stream order: they all completed).
  void observe_through(std::uint32_t p, OpIndex op) {
    auto& f = fifo[p];
    auto& h = fifo_head[p];
    while (h < f.size()) {
      const OpIndex v = f[h++];
      observe(v);
      if (v == op) break;
    }
    if (h == f.size()) {
      f.clear();
      h = 0;
      fifo_scan[p] = 0;
    }
  }

  bool query(OpIndex op) {
    ++result.stats.queries;
    return be.query_event(slot[op].event);
  }

  /// Newest op of the stream first (one query retires the whole stream when it is idle), then from the
  /// oldest until one is still running.
  void poll_stream(std::uint32_t p) {
    auto& f = fifo[p];
    if (fifo_head[p] == f.size()) return;
    const OpIndex newest = f.back();
    if (query(newest)) {
      observe_through(p, newest);
      return;
    }
    while (fifo_head[p] < f.size()) {
      const OpIndex head = first_observable(p);
      if (head == newest || head == kNone || !query(head)) break;
      observe_through(p, head);
    }
  }

  void poll_all() {
    for (std::uint32_t p = 0; p < P; ++p) poll_stream(p);
  }

  OpIndex oldest_in_flight() {
    while (oldest < issue_order.size() && completed(issue_order[oldest])) ++oldest;
    return oldest < issue_order.size() ? issue_order[oldest] : kNone;
  }

  [[noreturn]] void timeout(OpIndex op, std::string_view during) {
    const auto& o = w.ops[op];
    throw DispatchTimeout(op, o.id,
                          opt.source + ": timed out after " + ms_text(opt.timeout_ns) + " " + std::string(during) +
                              ": " + op_label(w, op) + " on stream " +
                              std::to_string(phys_id[slot[op].phys].value()) + " did not complete");
  }

  /// Blocks until the oldest unobserved op of some stream completes; observes it.
  void block_any() {
    scratch.clear();
    for (std::uint32_t p = 0; p < P; ++p)
      if (fifo_head[p] < fifo[p].size()) scratch.push_back(first_observable(p));
    std::vector<EventId> events(scratch.size());  // blocking path: the allocation is noise next to a wait
    for (std::size_t i = 0; i < scratch.size(); ++i) events[i] = slot[scratch[i]].event;
    ++result.stats.blocking_waits;
    const auto hit = be.wait_any_event(events, opt.timeout_ns);
    if (!hit) {
      OpIndex first = scratch.front();
      for (OpIndex v : scratch)
        if (slot[v].seq < slot[first].seq) first = v;
      timeout(first, "waiting for any stream");
    }
    const OpIndex op = scratch.at(*hit);
    observe_through(slot[op].phys, op);
  }

  /// Blocks until lane has room under the window.
  void block_for_lane(std::uint32_t lane) {
    const std::uint32_t p = lane_phys[lane];
    while (!lane_has_room(lane)) {
      const OpIndex head = first_observable(p);
      ++result.stats.blocking_waits;
      if (be.synchronize_event(slot[head].event, opt.timeout_ns) == WaitStatus::timed_out)
        timeout(head, "waiting for room in the window");
      observe_through(p, head);
    }
  }

  EventId acquire_event() {
    if (free_events.empty() && in_flight > 0) {
      // Before creating an event, see whether the oldest op in flight is done (one query).
      const OpIndex old = oldest_in_flight();
      if (old != kNone && slot[old].event.valid() && query(old)) observe_through(slot[old].phys, old);
    }
    if (!free_events.empty()) {
      const EventId e = free_events.back();
      free_events.pop_back();
      ++result.stats.events_reused;
      return e;
    }
    const EventId e = be.create_event(opt.event_timing);
    all_events.push_back(e);
    ++result.stats.events_created;
    return e;
  }

  // Prefetch ------------------------------------------------------------------------------------------
  /// Ops are issued in no index order (a random DAG's ops become ready in random order), so what issuing
  /// one reads lies in cold lines of a dozen per-op arrays, each found only through the one before (its
  /// deps' range, then the deps, then their slots; its dependents, then their counters). At 10M ops that
  /// chain of misses, not the work, was most of the Dispatcher's time. The ops handled next are known a
  /// few decisions ahead (the plan, or the policy's upcoming()): `ahead(k)` is the op k decisions from now
  /// (0: this one), anything >= n when unknown. Each stage reads only lines the stage before asked for;
  /// `kReads` says what the loop reads of an op: what issuing it needs, what making its dependents ready
  /// needs (propagate), or both.
  static constexpr unsigned kIssuing = 1, kPropagating = 2;
  template <unsigned kReads, class Ahead>
  void prefetch_ahead(const Ahead& ahead) const {
    constexpr bool issuing = (kReads & kIssuing) != 0, propagating = (kReads & kPropagating) != 0;
    if constexpr (issuing) {
      if (const OpIndex v = ahead(9); v < n) w.prefetch_deps(v);  // what deps(v) reads first, below
    }
    if (const OpIndex v = ahead(6); v < n) {
      if constexpr (issuing) {
        __builtin_prefetch(&slot[v]);
        __builtin_prefetch(&est[v]);
        __builtin_prefetch(w.deps(v).data());
      }
      if constexpr (propagating) __builtin_prefetch(&succ_off[v]);
    }
    if (const OpIndex v = ahead(3); v < n) {
      if constexpr (issuing)
        for (const OpIndex u : w.deps(v)) __builtin_prefetch(&slot[u]);
      if constexpr (propagating) __builtin_prefetch(succ.data() + succ_off[v]);
    }
    if (const OpIndex v = ahead(1); v < n) {
      if constexpr (issuing) {
        // The backend's own state for the op and the events it will wait on and record (the pool's next).
        // Not the op's description: issuing reads none of it here, and a backend that reads it asks for
        // it itself (the simulator keeps what it needs in a small entry per op: at 10M ops asking for
        // the op's own line stalled on page-table walks).
        std::array<EventId, 9> events{};
        std::size_t k = 0;
        for (const OpIndex u : w.deps(v)) {
          if (k == events.size() - 1) break;
          if (slot[u].event.valid()) events[k++] = slot[u].event;
        }
        if (!free_events.empty()) events[k++] = free_events.back();
        be.prefetch_issue(v, std::span<const EventId>(events.data(), k));
      }
      if constexpr (propagating)
        for (std::uint32_t i = succ_off[v]; i < succ_off[v + 1]; ++i) __builtin_prefetch(&slot[succ[i]]);
    }
  }

  // Issue ---------------------------------------------------------------------------------------------
  void issue(OpIndex op, std::uint32_t lane, const Reason& reason, Nanos host_t0, Clock::time_point cpu_t0,
             Nanos extra_cpu) {
    const std::uint32_t p = lane_phys[lane];
    const StreamId sid = phys_id[p];
    auto& st = result.stats;
    const auto first_wait = static_cast<std::uint32_t>(result.waits.size());

    // What issuing the op touches lies anywhere in memory (ops are issued in no index order): ask for it
    // all first so that the cache misses overlap instead of each waiting behind a branch on the one
    // before. (A loop of nothing but prefetches is deleted by the compiler; these ride on work.)
    __builtin_prefetch(&est[op]);
    scratch.clear();
    for (OpIndex u : w.deps(op)) {
      __builtin_prefetch(&slot[u]);
      scratch.push_back(u);
    }
    // Cross-stream deps, latest issued first, so that a wait makes its ancestors' waits implied.
    std::size_t kept = 0;
    for (const OpIndex u : scratch) {
      if (slot[u].phys == p) continue;  // stream order
      if (opt.elide_completed_waits && completed(u)) {
        ++st.waits_completed;
        continue;
      }
      scratch[kept++] = u;
    }
    scratch.resize(kept);
    if (scratch.size() > 1)
      std::sort(scratch.begin(), scratch.end(), [&](OpIndex a, OpIndex b) { return slot[a].seq > slot[b].seq; });
    std::uint32_t* row = &clock[std::size_t{p} * P];
    std::uint32_t waits = 0;
    for (std::size_t k = 0; k < scratch.size(); ++k) {
      const OpIndex u = scratch[k];
      if (k > 0 && u == scratch[k - 1]) continue;  // a dep listed twice
      const std::uint32_t t = slot[u].phys;
      const std::uint32_t pu = slot[u].pos;
      if (row[t] >= pu) {
        ++st.waits_implied;
        continue;
      }
      be.stream_wait_event(sid, slot[u].event);
      ++waits;
      if (opt.keep_log) result.waits.push_back({slot[u].event, u, phys_id[t]});
      const std::uint32_t* snap = &snaps[std::size_t{slot[u].snap} * P];
      for (std::uint32_t q = 0; q < P; ++q) row[q] = std::max(row[q], snap[q]);
      row[t] = std::max(row[t], pu);
      clock_dirty[p] = 1;
    }
    st.waits_inserted += waits;

    be.enqueue(sid, op);
    const OpIndex prev_newest = fifo[p].size() > fifo_head[p] ? fifo[p].back() : kNone;
    // Deps whose every dependent is now issued can give their events back before we take one.
    for (OpIndex u : w.deps(op)) {
      if (--slot[u].unissued_succ == 0) maybe_release(u);
    }
    if (prev_newest != kNone) maybe_release(prev_newest, true);  // op's event will observe stream p
    const EventId ev = acquire_event();
    be.record_event(ev, sid);
    ++st.event_records;
    slot[op].event = ev;

    if (clock_dirty[p]) {
      clock_snap[p] = static_cast<std::uint32_t>(snaps.size() / P);
      snaps.insert(snaps.end(), row, row + P);
      clock_dirty[p] = 0;
    }
    slot[op].snap = clock_snap[p];
    slot[op].pos = ++stream_len[p];
    slot[op].phys = p;
    slot[op].lane = lane;
    slot[op].seq = issued++;
    fifo[p].push_back(op);
    issue_order.push_back(op);
    ++out_ops[lane];
    out_ns[lane] += est[op];
    ++in_flight;
    st.max_in_flight = std::max(st.max_in_flight, in_flight);
    ++st.ops;

    const Nanos host = be.now() - host_t0;
    st.coordination_ns += host;
    Nanos cpu = extra_cpu;
    if (opt.measure_cpu) cpu += since(cpu_t0);
    st.cpu_ns += cpu;
    if (opt.keep_log) {
      Decision d;
      d.op = op;
      d.stream = sid;
      d.logical_stream = lane;
      d.reason = reason;
      d.first_wait = first_wait;
      d.wait_count = waits;
      d.host_ns = host;
      d.cpu_ns = cpu;
      result.log.push_back(d);
    }
  }

  Clock::time_point cpu_now() const { return opt.measure_cpu ? Clock::now() : Clock::time_point{}; }

  void run_static() {
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const Planned& pl = plan[i];
      if (opt.prefetch_ahead)
        prefetch_ahead<kIssuing>([&](std::size_t k) { return i + k < plan.size() ? plan[i + k].op : kNone; });
      if (!lane_has_room(pl.lane)) block_for_lane(pl.lane);
      const Nanos t0 = be.now();
      const auto c0 = cpu_now();
      if (poll_every && in_flight > 0) poll_all();
      issue(pl.op, pl.lane, pl.reason, t0, c0, pl.cpu);
    }
  }

  void run_dynamic() {
    reset_readiness();
    const auto ahead = [&](std::size_t k) { return upcoming(k); };
    while (issued < n) {
      if (opt.prefetch_ahead) prefetch_ahead<kIssuing | kPropagating>(ahead);
      const Nanos t0 = be.now();
      const auto c0 = cpu_now();
      if (poll_every && in_flight > 0) poll_all();
      const OpIndex h = take_hinted(false);
      if (h != kNone) {
        if (hint_lane[h] < L) pol.on_issued(h, hint_lane[h]);
        issue(h, hint_lane[h], hint_reason(h), t0, c0, 0);
        propagate(h);
        continue;
      }
      if (const auto choice = pol.choose(view)) {
        if (choice->stream >= L || choice->op >= n || slot[choice->op].lane != kNone) {
          throw std::logic_error("policy '" + std::string(pol.name()) + "' made an invalid choice");
        }
        pol.on_issued(choice->op, choice->stream);
        issue(choice->op, choice->stream, choice->reason, t0, c0, 0);
        propagate(choice->op);
        continue;
      }
      if (in_flight == 0) {
        throw std::logic_error("policy '" + std::string(pol.name()) + "' made no choice with " +
                               std::to_string(n - issued) + " ops left and nothing in flight");
      }
      block_any();
    }
  }

  void drain() {
    if (in_flight > 0) {
      ++result.stats.blocking_waits;
      if (be.synchronize_device(opt.timeout_ns) == WaitStatus::timed_out) timeout(oldest_in_flight(), "at the end");
      for (std::uint32_t p = 0; p < P; ++p)
        if (fifo_head[p] < fifo[p].size()) observe_through(p, fifo[p].back());
    }
    for (EventId e : all_events) be.destroy_event(e);
    all_events.clear();
    free_events.clear();
  }
};

Dispatcher::Dispatcher(Backend& backend, Policy& policy, DispatchOptions options)
    : backend_(backend), policy_(policy), options_(std::move(options)) {}
Dispatcher::~Dispatcher() = default;

DispatchResult Dispatcher::run(const model::Workload& workload) {
  if (policy_.replays_program()) {
    DispatchResult r = detail::replay_program(backend_, policy_, options_, workload);
    fill_meta(r, workload, options_);
    return r;
  }
  if (!workload.program) return run_dag(workload, options_);

  // A policy applied to a program: a what-if on its DAG view, reported in the program's op indices.
  const model::Workload view = model::program_dag(workload, options_.source);
  std::vector<OpIndex> to_program;
  to_program.reserve(view.ops.size());
  for (OpIndex i = 0; i < workload.ops.size(); ++i)
    if (model::does_device_work(workload.ops[i].kind)) to_program.push_back(i);
  DispatchOptions opt = options_;
  opt.estimates = {};  // by the program's op indices: the view's ops are fewer
  if (opt.workload_hash.empty()) opt.workload_hash = workload.hash();
  if (options_.on_complete) opt.on_complete = [&](OpIndex op) { options_.on_complete(to_program[op]); };
  DispatchResult r = run_dag(view, opt);
  for (Decision& d : r.log) d.op = to_program[d.op];
  for (InsertedWait& wt : r.waits) wt.producer = to_program[wt.producer];
  for (model::Span& s : r.trace.spans) s.op = to_program[s.op];
  for (model::BlockPlacement& b : r.trace.blocks) b.op = to_program[b.op];
  r.trace.meta.extra["program_view"] = "dag";
  return r;
}

DispatchResult Dispatcher::run_dag(const model::Workload& workload, const DispatchOptions& options) {
  DispatchResult r;
  bool all_hinted = false;  // honored hints place every op: the policy decides nothing
  {
    // The per-op state goes before finish(): a simulator makes every span there, on top of what is alive.
    State s(backend_, policy_, options, workload);
    s.setup();
    // Everything that can refuse the run happens before the backend is touched.
    s.check_hinted_program();
    const bool planned = policy_.is_static();
    if (planned) s.plan_static();
    backend_.prepare(workload);
    s.create_streams();
    if (planned) {
      s.run_static();
    } else {
      s.run_dynamic();
    }
    s.drain();
    r = std::move(s.result);
    all_hinted = s.n > 0 && s.hinted_ops == s.n;
  }
  r.trace = backend_.finish();
  if (all_hinted)
    r.warnings.push_back("every op of '" + workload.name + "' has a stream hint and hints are honored: policy '" +
                         std::string(policy_.name()) + "' decides nothing (--hints ignore lets it place the ops)");
  fill_meta(r, workload, options);
  return r;
}

void Dispatcher::fill_meta(DispatchResult& r, const model::Workload& workload, const DispatchOptions& options) const {
  r.trace.meta.policy = std::string(policy_.name());
  r.trace.meta.workload = workload.name;
  r.trace.meta.workload_hash = options.workload_hash.empty() ? workload.hash() : options.workload_hash;
  if (r.trace.meta.profile.empty()) r.trace.meta.profile = options.profile_name;
  r.trace.meta.extra["policy_config"] = to_string(policy_.config());
}

DispatchResult dispatch(Backend& backend, const model::Workload& workload, Policy& policy, DispatchOptions options) {
  return Dispatcher(backend, policy, std::move(options)).run(workload);
}

std::string format_decision_log(const model::Workload& w, const DispatchResult& r) {
  std::string out;
  out.reserve(r.log.size() * 80);
  std::size_t i = 0;
  for (const Decision& d : r.log) {
    out += '#';
    out += std::to_string(i++);
    out += " op '";
    out += w.ops[d.op].id;
    out += "' -> stream ";
    out += std::to_string(d.stream.value());
    if (d.logical_stream < r.streams.size()) {
      out += " (s";
      out += std::to_string(d.logical_stream);
      out += ") | ";
    } else {
      out += " (legacy lane) | ";
    }
    out += describe(d.reason);
    for (std::uint32_t k = 0; k < d.wait_count; ++k) {
      const InsertedWait& wt = r.waits[d.first_wait + k];
      out += k == 0 ? " | wait " : ", ";
      out += '\'';
      out += w.ops[wt.producer].id;
      out += "'@";
      out += std::to_string(wt.producer_stream.value());
    }
    out += '\n';
  }
  return out;
}

}  // namespace streamlab::policies
