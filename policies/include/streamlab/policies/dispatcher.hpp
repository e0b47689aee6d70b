#pragma once
/// \file dispatcher.hpp
/// The one scheduling loop, written only against Backend, in the synchronous style of a CUDA host thread:
///
///   prepare the backend; create the policy's streams; check the hinted (and, for static policies, the
///   fully planned) stream program for deadlock before anything is issued; then repeat: offer newly
///   ready ops to the policy (ready = every dep *issued*; device order comes from stream order + events),
///   let it choose an op and a stream, insert the minimal event waits for the op's cross-stream deps,
///   enqueue it, record its completion event; poll or block on the backend for completions when a window
///   is full; finally synchronize and take the backend's trace.
///
/// Minimal waits: for each stream the Dispatcher keeps a vector clock, clock[s][t] = the latest position
/// on stream t that stream s's next op is already ordered after (through stream order and the waits
/// issued so far, transitively). A dep u (on stream t, at position p) of an op going to s needs no wait
/// when clock[s][t] >= p. Deps are handled latest-issued first, so a wait for one dep makes the waits
/// for its ancestors implied. Result: the waits inserted are exactly the cross-stream edges of the
/// transitive reduction of (dependency edges + stream order) — the fewest any host could issue. Implicit
/// synchronization of the legacy NULL stream is deliberately *not* counted as ordering (its waits are
/// redundant but harmless; E5 measures that stream's cost separately). With
/// DispatchOptions::elide_completed_waits, a dep whose completion the host has already observed needs no
/// wait either.
///
/// Completion: the Dispatcher records one (pooled) event after every op; cross-stream waits use the
/// producer's event, and completions are observed by querying those events (a stream's ops complete in
/// order, so one query of its newest op can retire all of them) or by blocking on them. An event goes
/// back to the pool once its op is observed complete and every dependent of the op has been issued;
/// when the pool is empty the Dispatcher first queries the oldest op in flight (one query) before
/// creating a new event.
///
/// Programs (model::Workload::program). Under the replay policy (Policy::replays_program) the Dispatcher
/// issues the program exactly as written and decides nothing: it creates the declared streams (priority
/// clamped into priority_range(), kind as declared; stream 0 is the legacy NULL stream) and one untimed
/// event per event name, then makes each op's call in order: host_work(host_gap_ns), then enqueue for
/// device work, record_event / stream_wait_event for the event pairs, synchronize_stream / _event /
/// _device for the host syncs (each with the timeout); a blocking copy is one enqueue, which returns once
/// the copy is done (Backend contract). It adds no call between the program's calls: no completion events, no queries; the run ends
/// with one synchronize_device, then finish(). Completion callbacks fire after that, in program order.
/// Trace time 0 is the start of the program (after stream and event creation); spans carry the
/// program's stream ids; each API call adds a host span (Span::host_call) unless
/// DispatchOptions::host_call_spans is off. Any other policy given a program runs on its DAG view
/// (model::program_dag), and the result (trace, log, waits) names the program's op indices: a what-if.
/// Replay given a DAG workload is an InputError. When stream hints pin every op (hints honored), the
/// policy decides nothing, and DispatchResult::warnings says so.
///
/// Deadlock check (before anything is issued, the backend untouched but for priority_range()): the
/// hinted stream program is checked whenever there are hinted ops (when every dependency names an earlier
/// op, every edge of that program goes forward, and one pass over the deps shows it has no cycle); for
/// static policies the whole run is planned first (the policy is asked for every decision with windows
/// ignored, which cannot change a static policy's choices), the planned program is checked, and then the
/// plan is issued (windows only delay it). Dynamic policies cannot be planned; without hints their issue order is a topological order
/// by construction and cannot deadlock, with hints the hinted program is what could, and it is checked.

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/backend.hpp"
#include "streamlab/policies/policy.hpp"

namespace streamlab::policies {

/// Called on the host thread when the Dispatcher observes that an op completed.
using CompletionCallback = std::function<void(model::OpIndex op)>;

struct DispatchOptions {
  /// Source of duration estimates (model::estimate_duration); null = the bundled H100 profile.
  const model::DeviceProfile* profile = nullptr;
  /// Names the workload in errors (file path or "<generated>").
  std::string source = "<workload>";
  /// Every blocking wait on the backend uses this timeout (backend time); expiry throws DispatchTimeout
  /// naming the op waited for.
  model::Nanos timeout_ns = 60'000'000'000;
  /// Keep the per-op Decision log (cheap: no strings until format_decision_log).
  bool keep_log = true;
  /// Refuse deadlocking stream programs before issuing (see class comment). Off only for benchmarks of
  /// the loop itself.
  bool check_deadlock = true;
  /// Timed or untimed completion events (timed ones cost more to record on a real GPU).
  EventTiming event_timing = EventTiming::untimed;
  /// Skip the wait for a dep the host has already observed complete. Off by default: waits then depend
  /// only on the assignment and issue order, so decision logs compare across backends whose timing
  /// differs; on, a feedback-driven host saves the stream_wait_event call.
  bool elide_completed_waits = false;
  /// Measure Decision::cpu_ns with std::chrono::steady_clock (two clock reads per op).
  bool measure_cpu = true;
  /// Ask for the memory the next few ops will need while this one is issued (the plan's next ops, or
  /// Policy::upcoming()). Changes no decision; false is the reference benchmarks compare against.
  bool prefetch_ahead = true;
  CompletionCallback on_complete;
  /// Trace metadata the Dispatcher fills in (policy, workload, workload_hash come from the run).
  std::string profile_name;
  /// Every op's duration estimate (model::estimate_duration with `profile`), by op index, when the caller
  /// has them already (`streamlab sim` sums them for its default timeout): the Dispatcher then reads these
  /// instead of estimating every op again (a pass over the whole workload: 0.4 s at ten million ops).
  /// Empty = estimated here. One per op of the workload given to run(); a program's DAG view (a policy
  /// applied to a program) has fewer ops and estimates its own. They must outlive run().
  std::span<const model::Nanos> estimates;
  /// Workload::hash() when the caller already has it; empty = computed after the run (it serializes the
  /// whole workload to JSON: ~ms for 10^4 ops, more than the dispatching itself).
  std::string workload_hash;
  /// Replay: add one host span (Span::host_call) per API call of the program to the trace, timed with
  /// the backend's host clock. Off when the backend records the calls itself.
  bool host_call_spans = true;
};

/// One cross-stream wait the Dispatcher inserted before an op.
struct InsertedWait {
  EventId event;
  model::OpIndex producer = 0;  ///< the dep whose completion event is waited on
  StreamId producer_stream;
  friend bool operator==(const InsertedWait&, const InsertedWait&) = default;
};

/// One decision: op -> stream, why, which waits it needed, and what it cost the host.
struct Decision {
  model::OpIndex op = 0;
  StreamId stream;                ///< backend stream
  std::uint32_t logical_stream = 0;
  Reason reason;
  std::uint32_t first_wait = 0;   ///< into DispatchResult::waits
  std::uint32_t wait_count = 0;
  model::Nanos host_ns = 0;       ///< backend host clock spent deciding + inserting waits + issuing
  model::Nanos cpu_ns = 0;        ///< CPU time of the Dispatcher's own bookkeeping for this op
};

struct DispatchStats {
  std::uint64_t ops = 0;
  std::uint64_t waits_inserted = 0;
  std::uint64_t waits_implied = 0;         ///< cross-stream deps already ordered by stream order/waits
  std::uint64_t waits_completed = 0;       ///< cross-stream deps already observed complete
  std::uint64_t events_created = 0;
  std::uint64_t events_reused = 0;
  std::uint64_t event_records = 0;
  std::uint64_t queries = 0;               ///< query_event calls
  std::uint64_t blocking_waits = 0;        ///< wait_any_event / synchronize calls
  std::uint64_t deadlock_checks = 0;
  std::uint32_t streams_created = 0;
  std::uint32_t max_in_flight = 0;         ///< most ops issued and not observed complete at once
  model::Nanos coordination_ns = 0;        ///< sum of Decision::host_ns
  model::Nanos cpu_ns = 0;                 ///< sum of Decision::cpu_ns
  model::Nanos plan_ns = 0;                ///< CPU time planning + deadlock check before issuing
  [[nodiscard]] double average_coordination_ns() const noexcept {
    return ops == 0 ? 0.0 : static_cast<double>(coordination_ns) / static_cast<double>(ops);
  }
};

struct DispatchResult {
  model::Trace trace;              ///< backend.finish(), meta.policy / workload / workload_hash filled
  std::vector<Decision> log;       ///< in issue order (empty when keep_log is off)
  std::vector<InsertedWait> waits; ///< Decision::first_wait indexes here
  std::vector<StreamId> streams;   ///< logical stream -> backend stream (replay: declared streams in order)
  DispatchStats stats;
  /// One line each, for the user (e.g. "every op has a stream hint: policy 'priority' decides nothing").
  std::vector<std::string> warnings;
};

/// A blocking wait on the backend ran past DispatchOptions::timeout_ns.
class DispatchTimeout : public std::runtime_error {
 public:
  DispatchTimeout(model::OpIndex op, std::string op_id, const std::string& what)
      : std::runtime_error(what), op_(op), op_id_(std::move(op_id)) {}
  [[nodiscard]] model::OpIndex op() const noexcept { return op_; }
  [[nodiscard]] const std::string& op_id() const noexcept { return op_id_; }

 private:
  model::OpIndex op_;
  std::string op_id_;
};

/// Runs one workload through one policy on one backend. Not reentrant; one run per Dispatcher call.
class Dispatcher {
 public:
  Dispatcher(Backend& backend, Policy& policy, DispatchOptions options = {});
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  /// The whole run. Throws model::InputError ("deadlock: ...", listing every cycle) before any call
  /// to enqueue when the stream program can deadlock; DispatchTimeout when the backend does not
  /// complete an op in time.
  [[nodiscard]] DispatchResult run(const model::Workload& workload);

 private:
  struct State;
  [[nodiscard]] DispatchResult run_dag(const model::Workload& workload, const DispatchOptions& options);
  void fill_meta(DispatchResult& r, const model::Workload& workload, const DispatchOptions& options) const;
  Backend& backend_;
  Policy& policy_;
  DispatchOptions options_;
};

/// Convenience: Dispatcher(backend, policy, options).run(workload).
[[nodiscard]] DispatchResult dispatch(Backend& backend, const model::Workload& workload, Policy& policy,
                                      DispatchOptions options = {});

/// One line per decision, stable and diffable (no times):
/// `#12 op 'gemm3' -> stream 2 (s1) | least outstanding work: 12.3 us (3 ops) | wait 'load3'@s3`
[[nodiscard]] std::string format_decision_log(const model::Workload& workload, const DispatchResult& result);

}  // namespace streamlab::policies
