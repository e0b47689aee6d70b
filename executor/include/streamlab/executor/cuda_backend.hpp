#pragma once
/// \file cuda_backend.hpp
/// The Backend contract mapped 1:1 onto the CUDA runtime, so the shared Dispatcher measures on a real GPU
/// what the simulator predicts. Streams: StreamId{0} is the legacy NULL stream (cudaStreamLegacy); created
/// streams map StreamKind onto CUDA (blocking = cudaStreamDefault flag, non_blocking =
/// cudaStreamNonBlocking, per_thread_default = cudaStreamPerThread, legacy_default = cudaStreamLegacy).
/// Events come from an EventPool; completion is observed by cudaEventQuery; host callbacks go through
/// cudaLaunchHostFunc; every host wait polls with a timeout, and a device fault becomes a CudaError naming
/// the op the failing call served.
///
/// Timing (default, CUPTI available): kernels time themselves -- every block of our synthetic kernels
/// writes its %globaltimer start and end to a per-op buffer -- and two anchor kernels (one before the
/// run, one after; the only kernels CUPTI records) map the device's clock onto CUPTI's. Copies and
/// memsets come from CUPTI activity records, joined to ops by CUPTI's correlation ids in call order. No
/// runtime-API records, no per-call tagging, no kernel records during the run: CUPTI's kernel records
/// cost the host about 2 us per launch and slow the device's block dispatch (bench_tracer, calibrate's
/// traced probes), which is the perturbation a measurement must not add. A workload with a kernel that
/// cannot time itself (cost-model kernels) and graph mode keep CUPTI's kernel records on. Where CUPTI
/// cannot start, timed events around each op are the fallback. A barrier does no device work: its span
/// (zero length) is placed at the latest end of its dependencies and its stream's previous op, with no
/// events around it. The trace's time 0 is the run's first
/// call after prepare() (enqueue, record, wait, synchronize, host_work, or the Dispatcher's clock read
/// just before it): prepare() ends on an idle device, so measured traces overlay predicted ones.
///
/// Programs (Workload::program, issued by the replay policy): the replay makes the program's event and
/// synchronize calls through the contract (and its host-lane spans with now()), enqueue() the work; a
/// blocking copy or memset on the legacy NULL stream is cudaMemcpy / cudaMemset, on another stream the
/// async call followed by a wait for that stream.
/// Host waits (synchronize_*, blocking copies) spin on the query as cudaStreamSynchronize does, never
/// sleep, so a wait returns within a query of the completion.
/// prepare() loads the kernels the workload launches (one empty launch each) and ends on an idle device.
///
/// Graph mode: begin_capture() before a Dispatcher run turns everything it issues into one CUDA graph
/// (captured, not run); finish() then instantiates it, and replay() launches it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "streamlab/executor/buffer.hpp"
#include "streamlab/executor/clock_link.hpp"
#include "streamlab/executor/event_pool.hpp"
#include "streamlab/executor/kernels.hpp"
#include "streamlab/executor/stream.hpp"
#include "streamlab/executor/tracer.hpp"
#include "streamlab/policies/backend.hpp"

namespace streamlab::executor {

using policies::EventId;
using policies::StreamId;

enum class TimingMode : std::uint8_t {
  automatic,  ///< gpu_timer for a workload without copies or memsets, else CUPTI when it starts, else events
  cupti,      ///< CUPTI or fail
  /// Kernels time themselves (%globaltimer block records); the GPU timer is tied to the host clock by a
  /// handshake kernel before and after the run (clock_link.hpp). CUPTI is never started: on the H100 an
  /// attached CUPTI cost each kernel launch about a microsecond of host time even with every activity kind
  /// off. Copies and memsets get no spans (untimed: timing a copy has the copy engine write a timestamp,
  /// about 1.3 us per copy on the H100); cost-model kernels, graph capture and the fault hook are refused.
  gpu_timer,
  events,     ///< timed events recorded around every op (changes the stream program slightly)
  none,       ///< no per-op timing (benchmarks of the issue path); the trace has no device spans
};
[[nodiscard]] std::string_view to_string(TimingMode m) noexcept;

struct CudaBackendOptions {
  int device = 0;
  TimingMode timing = TimingMode::automatic;
  /// With TimingMode::automatic: pick gpu_timer where it can time the run. Off: CUPTI, else events.
  bool auto_gpu_timer = true;
  /// NVTX range per issued op, named after it (for Nsight). Off by default: a range push and pop per op
  /// are host calls the program does not make.
  bool nvtx = false;
  EventPool::Options event_pool{};
  /// How long finish() waits for the device before throwing TimeoutError.
  std::chrono::nanoseconds finish_timeout = std::chrono::seconds(120);
  /// Test hook: this op's kernel writes through an invalid address instead of running.
  std::optional<model::OpIndex> fault_op;
  /// Graph mode: prepare() ends by calling begin_capture(), so a Dispatcher run (which calls prepare()
  /// itself) is captured into a CUDA graph instead of running. Needs a static policy and window 0.
  bool capture_graph = false;
  /// Keep a compact log of the CUDA work calls issued (kernel/copy/record/wait), so a benchmark can
  /// replay the same program with hand-written CUDA.
  bool log_calls = false;
  /// Put every self-timed kernel's blocks (SM, start, end from their own %globaltimer reads) into the
  /// trace (Trace::blocks), as the simulator's record_blocks does: where a kernel's span comes from.
  bool record_blocks = false;
};

/// One work call as the backend issued it (for the raw-CUDA baseline).
struct IssuedCall {
  enum class Kind : std::uint8_t { op, record, wait, host_func };
  Kind kind = Kind::op;
  std::uint32_t stream = 0;  ///< StreamId value
  std::uint32_t index = 0;   ///< op index or EventId value
};

/// A CUDA graph captured from one Dispatcher run, instantiated and ready to replay.
class CapturedGraph {
 public:
  CapturedGraph() = default;
  ~CapturedGraph();
  CapturedGraph(CapturedGraph&& other) noexcept;
  CapturedGraph& operator=(CapturedGraph&& other) noexcept;
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  [[nodiscard]] bool valid() const noexcept { return exec_ != nullptr; }
  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_; }
  /// cudaGraphLaunch on `s` (asynchronous).
  void launch(stream_ref s) const;
  [[nodiscard]] cudaGraphExec_t exec() const noexcept { return exec_; }

 private:
  friend class CudaBackend;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::size_t nodes_ = 0;
};

/// Replay measurements: host cost of cudaGraphLaunch and device time per replay.
struct GraphReplayStats {
  std::size_t nodes = 0;
  std::size_t replays = 0;
  double host_launch_ns = 0;      ///< median host time of one cudaGraphLaunch call
  double device_ns = 0;           ///< median device time of one replay (timed events around it)
  [[nodiscard]] double host_ns_per_node() const noexcept { return nodes == 0 ? 0 : host_launch_ns / nodes; }
  [[nodiscard]] double device_ns_per_node() const noexcept { return nodes == 0 ? 0 : device_ns / nodes; }
};

class CudaBackend final : public policies::Backend {
 public:
  explicit CudaBackend(CudaBackendOptions options = {});
  ~CudaBackend() override;

  [[nodiscard]] std::string_view name() const noexcept override { return "cuda"; }
  void prepare(const model::Workload& workload) override;
  [[nodiscard]] std::pair<int, int> priority_range() const override { return priority_range_; }
  StreamId create_stream(const policies::StreamDesc& desc) override;
  [[nodiscard]] StreamId legacy_default_stream() override { return StreamId{0u}; }
  void enqueue(StreamId stream, model::OpIndex op) override;
  void launch_host_func(StreamId stream, std::function<void()> fn) override;
  EventId create_event(policies::EventTiming timing) override;
  void destroy_event(EventId event) override;
  void record_event(EventId event, StreamId stream) override;
  void stream_wait_event(StreamId stream, EventId event) override;
  [[nodiscard]] bool query_event(EventId event) override;
  [[nodiscard]] bool query_stream(StreamId stream) override;
  [[nodiscard]] model::Nanos elapsed(EventId start, EventId end) override;
  policies::WaitStatus synchronize_event(EventId event, model::Nanos timeout) override;
  policies::WaitStatus synchronize_stream(StreamId stream, model::Nanos timeout) override;
  policies::WaitStatus synchronize_device(model::Nanos timeout) override;
  std::optional<std::size_t> wait_any_event(std::span<const EventId> events, model::Nanos timeout) override;
  [[nodiscard]] model::Nanos now() override;
  void host_work(model::Nanos ns) override;
  [[nodiscard]] model::Trace finish() override;

  // Beyond the contract -------------------------------------------------------------------------------
  /// synchronize_stream, but a timeout throws TimeoutError naming the last op issued on the stream.
  void synchronize_stream_or_throw(StreamId stream, model::Nanos timeout);
  /// The timing source in effect after prepare() (automatic resolves to cupti or events).
  [[nodiscard]] TimingMode timing() const noexcept { return timing_; }
  /// Why CUPTI was not used, when it was not.
  [[nodiscard]] const std::string& cupti_problem() const noexcept { return cupti_problem_; }
  [[nodiscard]] cudaStream_t handle(StreamId s) const { return streams_.at(s.value()).handle; }
  [[nodiscard]] cudaEvent_t event_handle(EventId e) const { return events_.at(e.value()).handle; }
  [[nodiscard]] const std::vector<IssuedCall>& issued_calls() const noexcept { return calls_; }
  [[nodiscard]] EventPoolUtilization event_pool_utilization() const { return pool_.utilization(); }
  /// "op 'id' (name)" for messages.
  [[nodiscard]] std::string describe_op(model::OpIndex op) const;
  /// Issues op `op` on raw stream `s` exactly as enqueue would (no bookkeeping): the hand-written
  /// baseline of the benchmark uses it so both sides launch the same kernels.
  void issue_raw(cudaStream_t s, model::OpIndex op);

  /// Graph mode: call after prepare() and before the Dispatcher issues anything. Queries then report
  /// "not complete" (so every dependency becomes a captured edge) and blocking waits return at once.
  void begin_capture();
  [[nodiscard]] bool capturing() const noexcept { return capturing_; }
  /// The graph captured by the last run (valid after finish() in graph mode).
  [[nodiscard]] const CapturedGraph& graph() const noexcept { return graph_; }
  /// Replays the captured graph `replays` times (after `warmup` untimed ones) and measures it.
  GraphReplayStats replay(std::size_t replays, std::size_t warmup = 3);
  /// One more replay under CUPTI, converted to a trace (ops matched through graph node ids).
  [[nodiscard]] model::Trace replay_trace();

 private:
  struct StreamSlot {
    cudaStream_t handle = nullptr;
    std::unique_ptr<stream> owned;
    policies::StreamKind kind = policies::StreamKind::legacy_default;
    int priority = 0;
    std::string label;
    std::optional<model::OpIndex> last_op;
    bool joined_capture = false;
  };
  struct EventSlot {
    cudaEvent_t handle = nullptr;
    policies::EventTiming timing = policies::EventTiming::untimed;
    bool alive = false;
    std::optional<model::OpIndex> last_op;  ///< the op its latest record follows (for messages)
  };
  struct HostFuncState {
    CudaBackend* self = nullptr;
    model::OpIndex op = 0;
    model::Nanos host_ns = 0;
    std::atomic<std::int64_t> start{-1}, end{-1};  ///< steady-clock ns since epoch
  };
  struct OpResources {
    buffer device_a, device_b, host;
    std::optional<StreamId> stream;
    std::string nvtx_name;
    cudaEvent_t start_ev = nullptr, end_ev = nullptr;  ///< events timing mode
    unsigned shared_bytes = 0;
    std::unique_ptr<HostFuncState> host_state;
    buffer block_records;  ///< self-timed kernels: one kernels::BlockRecord per block (per task)
    std::uint32_t record_count = 0;
    std::optional<model::OpIndex> prev_in_stream;  ///< the op issued on its stream before it
    std::uint64_t issue_seq = 0;                   ///< its place in the run's issue order
  };
  /// One anchor kernel: the same instant on CUPTI's clock and on the device's %globaltimer.
  struct Anchor {
    std::uint64_t cupti_end = 0;
    double cupti_mid = 0, device_mid = 0;
    std::uint32_t correlation = 0;
    double uncertainty = 0;  ///< gpu_timer mode: the clock link's half round trip (ns)
    std::vector<ActivityRecord> records;  ///< everything CUPTI had when the anchor was taken
  };
  /// Runs anchor kernel `slot` (0 in prepare, 1 in finish, which also records closing_ev_) and reads it.
  Anchor run_anchor(int slot);
  /// gpu_timer mode: the same anchor from a clock-link handshake; "cupti" fields hold host steady ns.
  Anchor link_anchor(int slot);

  /// Issues op's CUDA call(s) on `s`; returns the name of the CUDA call made.
  const char* issue(cudaStream_t s, model::OpIndex op);
  /// Barrier spans (at `positions` of trace.spans) get zero length at the latest end among their
  /// dependencies and their stream's previous op: a barrier has no device work of its own.
  void place_barriers(model::Trace& trace, const std::vector<std::size_t>& positions) const;
  /// Time 0 of the trace: the first call after prepare().
  void start_clock() {
    if (!started_) start_clock_now();
  }
  void start_clock_now();
  /// A blocking copy's wait for its stream (spinning, finish_timeout as the limit).
  void blocking_wait(cudaStream_t s, model::OpIndex op);
  StreamSlot& stream_slot(StreamId s);
  EventSlot& event_slot(EventId e);
  void join_capture(StreamSlot& s);
  [[nodiscard]] std::string stream_op_label(const StreamSlot& s) const;
  [[nodiscard]] std::string event_op_label(const EventSlot& e) const;
  [[nodiscard]] bool poll_event(EventSlot& e);
  void release_op_resources() noexcept;
  void build_spans(model::Trace& trace, const std::vector<ActivityRecord>& records, std::uint64_t t0,
                   bool graph_nodes);
  /// Joins every captured stream into the origin stream and ends the capture (nullptr graph on failure
  /// when `throw_on_error` is false).
  cudaGraph_t end_capture(bool throw_on_error);
  static void host_func_trampoline(void* user) noexcept;
  static void generic_host_func(void* user) noexcept;

  CudaBackendOptions options_;
  cudaDeviceProp props_{};
  std::pair<int, int> priority_range_{0, 0};
  EventPool pool_;
  const model::Workload* workload_ = nullptr;
  std::vector<StreamSlot> streams_;
  std::vector<EventSlot> events_;
  std::vector<std::uint32_t> free_events_;
  std::vector<OpResources> ops_;
  std::deque<std::function<void()>> host_funcs_;  ///< alive until the next prepare (graph replays reuse them)
  std::vector<IssuedCall> calls_;
  std::vector<std::int64_t> device_calls_;  ///< op of every call that makes a CUPTI record, in call order
  bool self_timed_ = false;                 ///< kernels carry %globaltimer block records (CUPTI kernel records off)
  buffer anchor_records_;                   ///< the two anchor kernels' block records
  std::optional<Anchor> anchor0_, anchor1_;
  bool started_ = false;
  bool issued_work_ = false;  ///< the run issued an op (a synchronize before that ends the set-up)
  std::unique_ptr<ClockLinker> linker_;  ///< gpu-timer runs: the clock link's mapped memory, kept
  TimingMode timing_ = TimingMode::none;
  bool untimed_copies_ = false;  ///< gpu-timer run of a program with copies or memsets: they get no spans
  std::uint64_t issued_ops_ = 0;  ///< ops issued so far (OpResources::issue_seq)
  std::string cupti_problem_;
  std::unique_ptr<CuptiTracer> tracer_;
  std::chrono::steady_clock::time_point t0_host_;
  std::chrono::steady_clock::time_point origin_host_;  ///< host time by which origin_ev_ had completed
  std::uint64_t t0_cupti_ = 0;
  cudaEvent_t origin_ev_ = nullptr;   ///< events mode: reference of event-timed spans (prepare())
  cudaEvent_t closing_ev_ = nullptr;  ///< CUPTI mode: reference of event-timed spans, behind finish()'s anchor
  buffer task_state_;                 ///< one kernels::TaskPoolState per task_pool op
  // Graph mode.
  bool capturing_ = false;
  bool captured_ = false;
  std::unique_ptr<stream> origin_stream_;
  cudaEvent_t fork_ev_ = nullptr;
  std::vector<std::pair<std::uint64_t, model::OpIndex>> graph_nodes_;  ///< CUPTI node id -> op
  CapturedGraph graph_;
};

}  // namespace streamlab::executor
