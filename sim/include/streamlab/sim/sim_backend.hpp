#pragma once
/// \file sim_backend.hpp
/// SimBackend: the prediction half of streamlab. It implements the Backend contract over a discrete-event
/// model of the host thread, streams, events, hardware connections, copy engines, the host-callback
/// thread and the SMs' block scheduler (sim/README.md lists every rule and its source).
///
/// The host clock advances by each API call's cost from the device profile. The device model advances
/// lazily: each call first processes every device event due at or before the host's time; a blocking
/// call processes events until its condition holds (or its timeout) and then adds the wake-up latency.
/// Everything is integer nanoseconds and deterministic: the same calls give the same trace.
/// Many SimBackends may live in one process (no global state).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/progress.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/backend.hpp"
#include "streamlab/sim/budget.hpp"
#include "streamlab/sim/explain.hpp"
#include "streamlab/sim/kernel_race.hpp"

namespace streamlab::sim {

struct SimOptions {
  /// CUDA_DEVICE_MAX_CONNECTIONS (1..32); unset = the profile's `connections`.
  std::optional<std::uint32_t> connections;
  /// Record every thread block's SM and time in Trace::blocks (the viewer's occupancy strip).
  bool record_blocks = false;
  /// Keep per-op explanations (explain()); costs ~150 bytes per op.
  bool explain = false;
  /// With `explain`: keep the explanation of this op only (explain() answers for it alone, the same
  /// explanation as with every op kept), so a run explaining one op costs no memory per op for it.
  std::optional<model::OpIndex> explain_only;
  /// TraceMeta::profile (path or name of the profile the run used).
  std::string profile_label;
  /// TraceMeta::date; empty = today's date (UTC, ISO 8601). Set it for byte-identical reruns.
  std::string date;
  /// Names the workload in errors.
  std::string source = "<workload>";
  /// Overrides the profile's `warp_launch_ns` (the work distributor's device-wide launch time per warp: a
  /// block starts no earlier than the warps of the blocks launched before it have gone out, so a grid's
  /// blocks ramp up over its warps x this). Unset = the profile's value; tests of hand-computed timelines
  /// set 0.
  std::optional<double> warp_launch_ns;
  /// Hardware copy queues per copy engine (1..32, capped at the connections); unset = 4: streams s and
  /// s + 4 share a copy queue at 8 connections, as on some H100 machines; on others every stream's copies
  /// had a queue of their own (8 or more). The engine serves one queue's copies back to back, so this
  /// decides which stream's queued copies it takes next (a machine-to-machine spread: predict both).
  std::optional<std::uint32_t> copy_queues_per_engine;
  /// When the copy queue an engine served last has no copy waiting, it takes the next queue in
  /// bit-reversed round-robin order from the first stream's (0, 2, 1, 3 of four; H100 run 84's machine:
  /// E1's 8 streams' uploads went 1, 5, 3, 7, 2, 6, 4, 8 and E3's three buffers' 0, 2, 1) instead of the
  /// queue of the longest-waiting copy (runs 5 and 62's machines). Another machine-to-machine spread.
  /// Unset: oldest first. Which order a run sees depends on the process's streams, not only on the
  /// machine (H100 run 98: calibrate's fresh streams took oldest-first in one round and bit-reversed in the
  /// next, in two processes alike), so a prediction covers both (the experiments' and V1's ranges).
  std::optional<bool> bit_reversed_copy_queues;
  /// Kernels that become ready within `kernel_race_window_ns` of each other are a race the GPU decides
  /// either way from run to run (kernel_race.hpp), whatever their priority levels: with a rule other than
  /// ready_order the kernel it prefers places its blocks first, the other waiting until it has arrived.
  /// H100 run 84, E7 with equal priorities: a foreground and a background kernel ended within a
  /// microsecond of each other, and the 5 runs of each configuration had either one's successor go first
  /// (latencies one background kernel apart); run 106, the foreground at the higher priority: the same
  /// split (a higher priority orders the kernels waiting for room, not a race for room that is free). Default: in the order they became ready (a prediction takes every rule:
  /// the experiments' ranges).
  KernelRace kernel_race = KernelRace::ready_order;
  /// The race window of `kernel_race`: a microsecond, because the simulator places a kernel's end only to
  /// within a few hundred ns (E7, run 84: a 132-block kernel's span measured 20.48 us, predicted 20.03).
  model::Nanos kernel_race_window_ns = 1000;
  /// The prediction is for a run measured with CUPTI activity tracing on (CudaBackend's measured runs):
  /// every kernel launch also costs the profile's `traced_launch_overhead_ns` of host time; blocks
  /// dispatch at `traced_warp_launch_ns` / `traced_warp_launch_half_fill_ns` /
  /// `traced_block_dispatch_per_warp_ns`; back-to-back device ops of a stream are `traced_same_stream_gap_ns`
  /// apart; and kernels are reported as CUPTI records them, `traced_span_pad_ns` wider than their blocks.
  bool traced = false;
  /// Multiplies every host API call cost (launch, copy issue, event create/record/query, stream query and
  /// wait, host-function issue, the traced launch overhead) -- not the wake-up after a blocking wait and
  /// not device time. For predicting a run on a host that is faster or slower than when the profile was
  /// calibrated (a shared or virtual machine drifts); 1 = the profile's costs. Must be in (0, 100].
  double host_cost_scale = 1.0;
  /// Predict for the typical host (the profile's values) or for one in a fast or slow spell: every host
  /// API call cost at the low or high end of the range calibrate measured for it (model::at_host_speed;
  /// a profile without ranges cannot predict fast or slow). Applied before host_cost_scale.
  model::HostSpeed host_speed = model::HostSpeed::typical;
  /// At finish(), once the run's own state is freed and before the spans are made, hand the pages of the
  /// process's freed heap memory back to the system (glibc's malloc_trim; elsewhere nothing): the spans
  /// then do not come on top of what the run (and the Dispatcher before it) left in the heap. For a process
  /// simulating one large workload (streamlab sim); memory allocated later is faulted in again.
  bool trim_heap = false;
  /// When set, counts the workload's ops completed (total = its op count) for a progress display.
  model::ProgressCounter* progress = nullptr;
  /// Events and wall-clock time the run may take (prepare() refuses a workload too large for it).
  SimBudget budget;
  /// One future event per wave: a kernel's blocks that end at the same instant and were placed back to
  /// back (a grid placed into free room is one wave). The trace, block placements, explanations, event
  /// count and budget errors are the same either way; false schedules one event per block and handles
  /// each block by the general code, without the shortcuts waves allow (the reference the equivalence
  /// tests and the benchmark compare against).
  bool merge_block_waves = true;
  /// A kernel with a fixed block time takes its block needs and launch time from its shape's class, found
  /// at prepare(), and does not read its op when it leaves its queue (sim/README.md, "Cold memory"). The
  /// trace and everything else are the same either way; false works out every kernel from its op then
  /// (the reference the equivalence tests and the benchmark compare against).
  bool kernel_classes = true;
};

/// Counters of one run (for benchmarks and sanity checks).
struct SimStats {
  /// Device events processed (stale copy re-rates included), each block of a merged wave counted as one:
  /// the same count as with merge_block_waves off.
  std::uint64_t events_processed = 0;
  std::uint64_t commands = 0;          ///< device commands issued (ops, records, waits, host funcs)
  std::uint64_t blocks = 0;            ///< thread blocks placed
  std::uint64_t max_pending_events = 0;  ///< future-event list entries (a wave is one)
  double mean_pending_events = 0;        ///< future-event list depth when an entry is popped, on average
  std::uint64_t max_live_commands = 0;
  std::uint64_t queue_pops = 0;          ///< entries taken off the future-event list (a wave is one)
  /// CPU seconds (user + system, the whole process) spent in prepare(), in finish() running the device
  /// dry, and in finish() making the spans: with the caller's own clock around the run, where its time
  /// went (`streamlab sim --timing`).
  double prepare_cpu_s = 0, drain_cpu_s = 0, spans_cpu_s = 0;
};

class SimBackend final : public policies::Backend {
 public:
  explicit SimBackend(model::DeviceProfile profile, SimOptions options = {});
  ~SimBackend() override;

  [[nodiscard]] std::string_view name() const noexcept override { return "sim"; }
  /// Checks every kernel's shape against the profile's per-SM limits (an InputError names the op and
  /// the limit when a block can never fit on an SM) and resets the clocks to 0.
  void prepare(const model::Workload& workload) override;

  [[nodiscard]] std::pair<int, int> priority_range() const override;
  policies::StreamId create_stream(const policies::StreamDesc& desc) override;
  [[nodiscard]] policies::StreamId legacy_default_stream() override;

  void enqueue(policies::StreamId stream, model::OpIndex op) override;
  void prefetch_issue(model::OpIndex op, std::span<const policies::EventId> events) noexcept override;
  void launch_host_func(policies::StreamId stream, std::function<void()> fn) override;

  policies::EventId create_event(policies::EventTiming timing) override;
  void destroy_event(policies::EventId event) override;
  void record_event(policies::EventId event, policies::StreamId stream) override;
  void stream_wait_event(policies::StreamId stream, policies::EventId event) override;
  [[nodiscard]] bool query_event(policies::EventId event) override;
  [[nodiscard]] bool query_stream(policies::StreamId stream) override;
  [[nodiscard]] model::Nanos elapsed(policies::EventId start, policies::EventId end) override;

  /// A wait whose condition nothing pending can bring about returns timed_out at once (the host time
  /// advances by `timeout` when that is at most an hour, else it stays).
  policies::WaitStatus synchronize_event(policies::EventId event, model::Nanos timeout) override;
  policies::WaitStatus synchronize_stream(policies::StreamId stream, model::Nanos timeout) override;
  policies::WaitStatus synchronize_device(model::Nanos timeout) override;
  std::optional<std::size_t> wait_any_event(std::span<const policies::EventId> events,
                                            model::Nanos timeout) override;

  [[nodiscard]] model::Nanos now() override;
  void host_work(model::Nanos ns) override;
  [[nodiscard]] model::Trace finish() override;

  // Simulator-only -------------------------------------------------------------------------------
  /// Why op `op` started when it did (SimOptions::explain must be on; nullptr otherwise or when the op
  /// was never issued).
  [[nodiscard]] const OpExplanation* explain(model::OpIndex op) const;
  [[nodiscard]] const SimStats& stats() const noexcept;
  [[nodiscard]] const model::DeviceProfile& profile() const noexcept;
  /// Hardware queues in use (SimOptions::connections or the profile's).
  [[nodiscard]] std::uint32_t connections() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace streamlab::sim
