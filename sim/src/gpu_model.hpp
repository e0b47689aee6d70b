#pragma once
// The device side of the simulator: commands flowing from streams through hardware connection queues to
// their engines (block scheduler on the SMs, copy engines, the host-callback thread), driven by one
// future-event list. The host side (clock, API costs, blocking) lives in SimBackend.
//
// Every command is an activity with an explicit lifecycle:
//   inited   issued by the host, not yet visible to the device (launch latency)
//   waiting  at the device; prerequisites pending (stream predecessor, event waits, legacy barrier) or
//            behind the head of its hardware queue
//   ready    left its queue; waiting for its engine (SM room, copy engine, host-callback thread)
//   running  on its engine
//   finished its successors (next command of its stream, waits on its record, barrier edges) are told
// Prerequisites are a counter plus successor sets (the next-in-stream link and an edge list), so a
// command is touched only when something it depends on changes.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "device_params.hpp"
#include "streamlab/model/progress.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/backend.hpp"
#include "streamlab/sim/budget.hpp"
#include "streamlab/sim/event_queue.hpp"
#include "streamlab/sim/explain.hpp"
#include "streamlab/sim/kernel_race.hpp"

namespace streamlab::sim::detail {

inline constexpr std::uint32_t kNone = 0xffffffffu;
/// Copy queues per copy engine, at most (streams share them by stream id modulo the count).
inline constexpr std::uint32_t kCopyQueuesPerEngine = 4;

enum class ActivityState : std::uint8_t { inited, waiting, ready, running, finished };
enum class CmdKind : std::uint8_t { op, record, wait, callback };
/// What a command occupies once it leaves its hardware queue.
enum class Work : std::uint8_t {
  none,         ///< records, waits, barriers: complete as soon as they leave the queue
  sms,          ///< kernels and task pools: blocks on the SMs
  copy,         ///< h2d, d2h, d2d, prefetch: a copy engine
  host_worker,  ///< host functions: the driver's single callback thread
  fixed,        ///< memset: a fixed duration on no shared resource
};

struct Command {
  std::uint32_t stream = 0;
  std::uint32_t payload = 0;  ///< op: OpIndex; record/wait: event; callback: index into callbacks
  std::uint32_t aux = 0;      ///< op: its slot (GpuModel::slot_times_); record: event generation
  std::uint32_t pending = 0;  ///< unmet prerequisites, arrival included
  std::uint32_t next_in_stream = kNone;
  std::uint32_t next_in_queue = kNone;  ///< hardware queue link, then the engine FIFO link
  std::uint32_t successors = kNone;     ///< head of the edge list
  // Bit fields: a host that issues far ahead of the device keeps millions of commands live at once.
  CmdKind kind : 2 = CmdKind::op;
  ActivityState state : 3 = ActivityState::inited;
  Work work : 3 = Work::none;
  Cause last_cause : 4 = Cause::none;   ///< the prerequisite met last (explanations)
  bool queued : 1 = true;               ///< false: an event record, which bypasses the hardware queue
  bool chained : 1 = false;             ///< copy behind a copy of its stream in its queue: released when that one leaves
  std::uint8_t queue = 0;
};
static_assert(sizeof(Command) == 32, "a command is 7 words and its flags");

/// What a record, wait or host function stands behind, for explanations only (kept per command slot
/// when they are on, so commands stay small without them).
struct CommandRefs {
  std::uint32_t op = kNoRef;      ///< record/wait/callback: last op issued on the stream before it
  std::uint32_t stream = kNoRef;  ///< wait: the stream its record was issued on
};

enum class EdgeType : std::uint8_t { event, legacy };
struct Edge {
  std::uint32_t target = kNone;
  std::uint32_t next = kNone;
  EdgeType type = EdgeType::event;
};

struct StreamState {
  std::uint32_t tail = kNone;       ///< last issued command still unfinished
  std::uint32_t last_op = kNoRef;   ///< last op issued (explanations)
  std::uint32_t gap_op = kNoRef;    ///< the device op whose end set gap_until
  Nanos gap_until = 0;              ///< last device op's end + same_stream_gap: the next device op's earliest start
  Nanos idle_since = 0;             ///< when the last command finished and the stream became idle
  std::uint32_t queue = 0;
  std::uint8_t level = 0;           ///< 0 = highest priority
  int priority = 0;
  policies::StreamKind kind = policies::StreamKind::non_blocking;
};

/// 16 bytes, four to a cache line and none across two: a random DAG's waits, records and completions reach
/// the events in any order (150 MB of them at 10M ops at 24 bytes, where one in four spanned two lines).
struct EventState {
  Nanos completed_at = 0;        ///< of the latest record
  std::uint32_t marker = kNone;  ///< the latest record's command while it is unfinished
  /// Bumped by each record (modulo 2^29); a finishing marker of an older record is ignored. Two records
  /// 2^29 apart never meet: the older would be a command still in flight behind 2^29 others (16 GiB).
  std::uint32_t gen : 29 = 0;
  bool recorded : 1 = false;
  bool timed : 1 = false;
  bool alive : 1 = true;
};
static_assert(sizeof(EventState) == 16);

struct Queue {
  std::uint32_t head = kNone, tail = kNone;
  bool dirty = false;
};

/// Per-block resources, rounded the way the hardware allocates them, and the kernel's shared-memory
/// carveout: `carveout`, the configuration its first block sets on an idle SM; `admit`, what it needs of
/// a busy SM's configuration to start there (its shared memory at full occupancy). Without a measured
/// carveout (DeviceParams::carveout false) carveout is the whole SM and admit 0: any kernel fits anywhere
/// there is room.
struct BlockNeed {
  std::int32_t threads = 0, regs = 0, smem = 0;
  std::int32_t carveout = 0, admit = 0;
};
/// What an SM has left. `smem` counts within the configuration in force (`carveout`), which the first
/// block on an idle SM sets and which stays until the SM is idle again (the hardware reconfigures only an
/// SM that runs nothing: H100, 2026-11-24, a 4 x 32-thread kernel of another stream waited 300 us for a
/// 132 x 1024-thread grid that left every SM room).
struct SmRoom {
  std::int32_t threads = 0, blocks = 0, regs = 0, smem = 0;
  std::int32_t carveout = 0, resident = 0;
  [[nodiscard]] bool fits(const BlockNeed& n) const noexcept {
    if (blocks < 1 || threads < n.threads || regs < n.regs) return false;
    return resident == 0 || (smem >= n.smem && n.admit <= carveout);
  }
  void take(const BlockNeed& n) noexcept {
    if (resident++ == 0) carveout = smem = n.carveout;
    threads -= n.threads;
    blocks -= 1;
    regs -= n.regs;
    smem -= n.smem;
  }
  void give(const BlockNeed& n) noexcept {
    --resident;
    threads += n.threads;
    blocks += 1;
    regs += n.regs;
    smem += n.smem;
  }
};

enum class DurationKind : std::uint8_t { fixed, per_block, static_pool, dynamic_pool };

/// Precomputed per op (kernels and task pools): what a block needs and how long it runs.
struct KernelInfo {
  BlockNeed need;
  std::uint32_t blocks = 0;
  DurationKind dur = DurationKind::fixed;
  Nanos fixed_ns = 0;                   ///< fixed and cost-model kernels
  Nanos launch_ns = 0;                  ///< the block's warps x warp_launch_ns (work-distributor rate)
  Nanos dispatch_ns = 0;                ///< replacement gap: block_dispatch + warps x block_dispatch_per_warp
  Nanos task_ns_extra = 0;              ///< per task: task_fetch for dynamic pools, else 0
};

/// A kernel between leaving its queue and its last block finishing.
struct KernelRun {
  std::uint32_t cmd = kNone;
  std::uint32_t op = 0;
  std::uint32_t blocks = 0, next_block = 0, done_blocks = 0;
  std::uint32_t next_pending = kNone;  ///< FIFO link within its priority level
  std::uint32_t next_task = 0;         ///< dynamic task pools: the shared counter
  Nanos ready_at = 0;
  KernelInfo info;
  std::uint8_t level = 0;
  bool resident = false;
  bool started = false;
};

/// Thread blocks of one kernel that end at the same instant and were placed one right after another, with
/// nothing else scheduled in between: their end events would have had consecutive seqs, so nothing can
/// come between them and one future event stands for all of them. Processing it ends them one by one, in
/// block order, exactly as their own events would have (a kernel's grid placed into an idle device is one
/// wave: 132 block events become one). A dynamic task pool's block is a wave of one (it steps per task).
struct Wave {
  /// Blocks on SMs first, first + 1, ..., first + count - 1: consecutive blocks of a wave usually sit on
  /// consecutive SMs (placement searches round-robin), so a grid spread over the SMs is one run.
  struct SmRun {
    std::uint32_t first = 0, count = 0;
  };
  std::uint32_t run = kNone;
  std::uint32_t first_block = 0;          ///< the blocks are first_block, first_block + 1, ...
  std::uint32_t first_placement = kNone;  ///< index into placements_ of the first block when recording
  std::uint32_t blocks = 0;               ///< the wave's size
  std::uint64_t next_seq = 0;             ///< the seq a block joining now would have been scheduled with
  Nanos end = 0;
  std::vector<SmRun> sms;                 ///< each block's SM, in block order, as runs of consecutive SMs

  /// Appends `count` blocks on SMs sm, sm + 1, ...
  void add(std::uint32_t sm, std::uint32_t count = 1) {
    if (!sms.empty() && sms.back().first + sms.back().count == sm) {
      sms.back().count += count;
    } else {
      sms.push_back(SmRun{sm, count});
    }
    blocks += count;
  }
};

struct CopyEngine {
  std::uint32_t head = kNone, tail = kNone;  ///< copies waiting, FIFO (copies ignore priority)
  std::uint32_t running = kNone;             ///< command
  std::uint8_t dir = 0;                      ///< 0 h2d, 1 d2h, 2 d2d of the running copy
  double remaining = 0;                      ///< bytes not yet moved, as of last_update
  double rate = 0, base_rate = 0;            ///< bytes per ns now / when alone
  Nanos last_update = 0;                     ///< >= the end of the copy's latency phase
  std::uint32_t gen = 0;                     ///< bumps when the finish time moves; older events are stale
  std::uint32_t last_op = kNoRef;            ///< the copy that ran before (explanations)
  std::uint32_t last_queue = kNone;          ///< the copy queue it served last
  /// The running copy's bytes are moved and the engine writes its completion record (a traced run's
  /// copy_record time): the copy's span ended at transfer_end, the engine and the stream wait.
  bool recording = false;
  Nanos transfer_end = 0;
};

struct HostWorker {
  std::uint32_t head = kNone, tail = kNone;
  std::uint32_t running = kNone;
  std::uint32_t last_op = kNoRef;
  RefKind last_kind = RefKind::none;
};

struct ModelStats {
  /// Events processed, each block of a wave counted as its own event (so the count, the trace's
  /// sim_events and the --max-events budget do not depend on how blocks were merged).
  std::uint64_t events = 0;
  std::uint64_t commands = 0, blocks = 0, max_heap = 0, max_live = 0;
  std::uint64_t pops = 0;      ///< entries taken off the future-event list (a wave is one)
  std::uint64_t heap_sum = 0;  ///< sum over pops of the list's size at the pop (mean depth)
};

class GpuModel {
 public:
  /// `merge_waves` false gives every block its own future event and ends and places each block by the
  /// general code, no shortcut (the reference: results are identical; for tests and the benchmark).
  /// `copy_queues` 0: kCopyQueuesPerEngine.
  GpuModel(const DeviceParams& params, std::uint32_t connections, bool record_blocks, bool explain,
           bool merge_waves = true, std::uint32_t copy_queues = 0);
  /// With explanations on, keeps op `op`'s alone (call before prepare()).
  void explain_only(model::OpIndex op) noexcept { explain_only_ = op; }
  /// take_spans() hands the heap's free pages back to the system first (SimOptions::trim_heap).
  void trim_heap(bool on) noexcept { trim_heap_ = on; }
  /// Kernels with a fixed block time get their numbers from their shape's class (SimOptions::kernel_classes;
  /// call before prepare()).
  void kernel_classes(bool on) noexcept { kernel_classes_on_ = on; }
  /// Which copy queue an engine serves next when the one it served last has no copy waiting: false, the
  /// queue of the longest-waiting copy; true, the next queue in bit-reversed round-robin order (queues
  /// 0, 2, 1, 3 of four, counted from the first stream's), as some H100 machines arbitrate.
  void bit_reversed_copy_queues(bool on) noexcept { bit_reversed_copy_queues_ = on; }
  /// Kernels of any priority that become ready within `window` of each other: the one `rule`
  /// prefers places its blocks first, the other waits until it has arrived (SimOptions::kernel_race).
  void kernel_race(KernelRace rule, Nanos window) noexcept {
    kernel_race_ = rule;
    kernel_race_window_ = window;
  }

  /// Binds the workload and precomputes per-op block needs and durations. Throws InputError when a
  /// kernel's block can never fit on an SM, naming the op and the limit.
  void prepare(const model::Workload& w, const std::string& source);
  /// Ops completed go to `p` (nullptr: none), for a progress display.
  void set_progress(model::ProgressCounter* p) noexcept { progress_ = p; }
  /// Reports the ops completed since the last report (completions are reported in batches).
  void flush_progress() noexcept {
    if (progress_ != nullptr && unreported_ops_ != 0) progress_->add(unreported_ops_);
    unreported_ops_ = 0;
  }

  /// Run budget: more than `max_events` events, or more than `wall_seconds` (> 0) of wall-clock time,
  /// throws SimBudgetExceeded naming `source`. Checked as each event is processed.
  void set_budget(std::uint64_t max_events, double wall_seconds, std::string source);

  std::uint32_t add_stream(policies::StreamKind kind, int priority);
  std::uint32_t add_event(bool timed);
  void destroy_event(std::uint32_t e) { events_[e].alive = false; }
  [[nodiscard]] std::uint32_t stream_count() const noexcept { return static_cast<std::uint32_t>(streams_.size()); }
  /// Hardware queues other than `stream`'s with a stream that has unfinished work (a command running or
  /// waiting): the host's kernel launch costs more the more of them there are.
  [[nodiscard]] std::uint32_t other_busy_queues(std::uint32_t stream) const noexcept;
  /// The compute queue (connection) `stream`'s kernels go to.
  [[nodiscard]] std::uint32_t queue_of(std::uint32_t stream) const noexcept { return streams_[stream].queue; }
  [[nodiscard]] std::uint32_t event_count() const noexcept { return static_cast<std::uint32_t>(events_.size()); }
  [[nodiscard]] const EventState& event(std::uint32_t e) const noexcept { return events_[e]; }
  /// Hints (SimBackend::prefetch_issue): what issuing op `op`, or recording or waiting on event `e`,
  /// reads first.
  void prefetch_op(model::OpIndex op) const noexcept {
    if (op < op_slot_.size()) __builtin_prefetch(op_slot_.data() + op);
  }
  /// What issuing op `op` (not yet issued) needs of its description, from its entry in op_slot_: issuing
  /// reads no line of the op itself.
  struct IssueBrief {
    model::OpKind kind;
    bool host_waits;  ///< a pageable h2d/d2h copy, or a program's blocking copy or memset
  };
  [[nodiscard]] IssueBrief issue_brief(model::OpIndex op) const noexcept {
    const std::uint64_t v = op_slot_[op];
    return {static_cast<model::OpKind>((v >> kKindShift) & kKindMask), (v & kHostWaits) != 0};
  }
  void prefetch_event(std::uint32_t e) const noexcept { __builtin_prefetch(&events_[e]); }
  [[nodiscard]] const StreamState& stream(std::uint32_t s) const noexcept { return streams_[s]; }

  // Issue: `issued` is host time at the end of the call; the device sees the command at `arrival`.
  // The caller has advanced the device to `issued` first.
  void issue_op(std::uint32_t stream, model::OpIndex op, Nanos issued, Nanos arrival);
  void issue_record(std::uint32_t event, std::uint32_t stream, Nanos issued);
  void issue_wait(std::uint32_t stream, std::uint32_t event, Nanos issued);
  void issue_callback(std::uint32_t stream, std::function<void()> fn, Nanos issued);

  /// Processes every event due at or before t.
  void advance_to(Nanos t) {
    while (!queue_.empty() && queue_.top().time <= t) process(queue_.pop());
  }
  /// Processes events in order until done() holds (returns the device time it became true) or the next
  /// event is later than `limit` or there is none (returns nullopt). done() is checked first.
  template <class Done>
  std::optional<Nanos> advance_until(Done&& done, Nanos limit) {
    for (;;) {
      if (done()) return now_;
      if (queue_.empty() || queue_.top().time > limit) return std::nullopt;
      process(queue_.pop());
    }
  }
  [[nodiscard]] bool idle() const noexcept { return queue_.empty(); }

  [[nodiscard]] bool event_complete(std::uint32_t e) const noexcept { return events_[e].marker == kNone; }
  /// Bumped whenever an event's latest record completes: a host waiting on many events rescans them only
  /// when this moved.
  [[nodiscard]] std::uint64_t event_completions() const noexcept { return event_completions_; }
  [[nodiscard]] bool stream_idle(std::uint32_t s) const noexcept { return streams_[s].tail == kNone; }
  /// When stream `s` last became idle (its last command finished); meaningful while stream_idle(s).
  [[nodiscard]] Nanos stream_idle_since(std::uint32_t s) const noexcept { return streams_[s].idle_since; }
  [[nodiscard]] bool device_idle() const noexcept { return live_ == 0; }
  /// When the last stream became idle (the device's last completion, while device_idle()).
  [[nodiscard]] Nanos device_idle_since() const noexcept {
    Nanos t = 0;
    for (const StreamState& s : streams_) t = std::max(t, s.idle_since);
    return t;
  }
  [[nodiscard]] bool op_finished(model::OpIndex op) const noexcept {
    return op_issued(op) && slot_times_[static_cast<std::uint32_t>(op_slot_[op])].end >= 0;
  }
  [[nodiscard]] bool op_issued(model::OpIndex op) const noexcept { return (op_slot_[op] & kUnissued) == 0; }
  [[nodiscard]] Nanos device_now() const noexcept { return now_; }

  /// Spans of the issued ops, in op order. Ends the run: its per-op and per-command state is freed
  /// (counters, explanations and block placements stay).
  [[nodiscard]] std::vector<model::Span> take_spans();
  [[nodiscard]] std::vector<model::BlockPlacement> take_placements() { return std::move(placements_); }
  [[nodiscard]] const OpExplanation* explanation(model::OpIndex op) const;
  [[nodiscard]] const ModelStats& stats() const noexcept { return stats_; }

 private:
  enum Kind : std::uint8_t {
    kArrival, kSatisfy, kBlockDone, kTaskDone, kCopyDone, kWorkerDone, kFixedDone,
    kStreamGap,  ///< a device op's same-stream successor, same_stream_gap after the op ended (b = that op)
    kKernelRelease  ///< a kernel held for one that wins their race (kernel_race); b = that one
  };
  /// Kernels, task pools, copies and memsets: the ops the same-stream gap lies between (not host functions,
  /// whose round trip already holds the stream, nor barriers).
  [[nodiscard]] bool is_device_op(const Command& x) const noexcept;

  // Commands and edges.
  std::uint32_t new_command(CmdKind kind, Work work, std::uint32_t stream, std::uint32_t payload);
  void link_and_arrive(std::uint32_t c, Nanos arrival);
  void add_edge(std::uint32_t from, std::uint32_t to, EdgeType type);
  void satisfy(std::uint32_t c, const Blocker& why);
  void complete(std::uint32_t c);
  void free_command(std::uint32_t c);
  [[nodiscard]] Blocker describe(std::uint32_t c, Cause cause) const;

  // The loop.
  void process(const SimEvent& e);
  void drain();
  void advance_queue(std::uint32_t q);
  /// A stream of compute queue `queue` got its first unfinished command (+1) or finished its last (-1).
  void stream_became_busy(std::uint32_t queue, int delta);
  void dispatch(std::uint32_t c);

  // SMs.
  /// Block needs and durations of kernel/task-pool op i; throws InputError when it can never run.
  /// `preparing`: only the checks (and a static pool's per-block sums), at prepare; the rest at issue.
  [[nodiscard]] KernelInfo kernel_info(model::OpIndex i, bool preparing);
  /// The KernelInfo of a kernel whose class and block time prepare() packed into its start time.
  [[nodiscard]] KernelInfo class_kernel_info(Nanos packed) const noexcept;
  /// The gap before a replacement block of `warps` warps starts (KernelInfo::dispatch_ns).
  [[nodiscard]] Nanos dispatch_gap(std::int64_t warps, double mean_block_ns) const noexcept;
  /// `may_hold`: false when it is a held kernel's release (it is held at most once).
  void kernel_enqueue(std::uint32_t c, bool may_hold = true, Blocker trigger = {});
  /// `replacement`: the room was freed by a finishing block, so a block placed now starts its kernel's
  /// dispatch_ns later.
  void try_dispatch_blocks(std::uint32_t freed_sm, bool replacement, Blocker trigger);
  [[nodiscard]] std::uint32_t find_sm(const BlockNeed& need);
  void start_block(std::uint32_t run, std::uint32_t sm, Nanos start);
  /// Places the rest of `run`'s grid into free room as members of the wave its last block opened.
  void fill_wave(std::uint32_t run);
  /// Schedules the end of block `block` of `run` on `sm` at `end`: joins the open wave when it can.
  void schedule_block_end(std::uint32_t run, std::uint32_t block, std::uint32_t sm, Nanos end, std::uint8_t kind);
  /// Ends every block of wave w in order, each as its own event would (counted, then drained).
  void wave_done(std::uint32_t w);
  /// Frees one block's room; completes its kernel when it was the last; refills the SM.
  void block_done(std::uint32_t run, std::uint32_t sm, std::uint32_t placement);
  /// block_done's common case on a full device, taken only when it is certain: the block is not its
  /// kernel's last, and the head kernel, waiting for room, puts exactly one block (not its last) on the SM
  /// it frees. Returns false, having changed nothing, when that is not certain.
  [[nodiscard]] bool refill_in_place(std::uint32_t run, std::uint32_t sm, std::uint32_t placement);
  /// Counts n processed events against the run budget.
  void count_events(std::uint64_t n);
  [[nodiscard]] std::uint32_t head_run() noexcept;
  /// The first grid in dispatch order that is resident and has blocks left to place (kNone: none).
  [[nodiscard]] std::uint32_t resident_with_blocks_left() const noexcept;

  // Copy engines.
  void copy_enqueue(std::uint32_t c);
  void copy_start(std::uint32_t engine);
  void copy_schedule(std::uint32_t engine);
  void copy_rerate(std::uint32_t engine);
  /// Re-rates the engine of the direction opposite `dir` (not D2D) when it runs a copy: `engine`'s copy
  /// began or stopped moving bytes.
  void rerate_opposite(std::uint32_t engine, std::uint8_t dir);
  void copy_done(std::uint32_t engine, std::uint32_t gen);
  [[nodiscard]] bool opposite_busy(std::uint8_t dir) const noexcept;

  // Host-callback thread.
  void worker_enqueue(std::uint32_t c);
  void worker_start();
  void worker_done(std::uint32_t c);

  OpExplanation* exp(std::uint32_t c) noexcept {
    return explain_ && cmds_[c].kind == CmdKind::op ? op_exp(cmds_[c].payload) : nullptr;
  }
  /// Where op `op`'s explanation is kept (nullptr: it is not, under explain_only).
  OpExplanation* op_exp(model::OpIndex op) noexcept {
    if (explain_only_ == kNone) return &exps_[op];
    return op == explain_only_ ? &exps_[0] : nullptr;
  }

  DeviceParams p_;
  std::uint32_t connections_;
  std::uint32_t copy_pool_ = 1;  ///< copy queues per copy engine
  bool record_blocks_;
  bool explain_;
  std::uint32_t explain_only_ = kNone;  ///< the one op explained (kNone: every op)
  bool trim_heap_ = false;
  bool kernel_classes_on_ = true;
  bool bit_reversed_copy_queues_ = false;
  KernelRace kernel_race_ = KernelRace::ready_order;
  Nanos kernel_race_window_ = 0;
  /// The kernel command that kernel_race_ prefers to `c`, at any priority level, whose arrival at the
  /// block scheduler is due soonest within kernel_race_window_ of now (kNone: none), with its time in
  /// `at`. Looks at the future events that make a command ready: a kernel at the head of its hardware
  /// queue with one prerequisite left.
  [[nodiscard]] std::uint32_t preferred_racing_kernel(std::uint32_t c, Nanos& at) const;
  /// A copy queue's slot among its engine's, counted from the first stream's (bit_reversed_copy_queues).
  [[nodiscard]] std::uint32_t copy_queue_slot(std::uint32_t queue) const noexcept;
  bool merge_waves_;
  model::ProgressCounter* progress_ = nullptr;
  static constexpr std::uint32_t kProgressBatch = 4096;
  std::uint32_t unreported_ops_ = 0;  ///< completed, not yet added to progress_
  const model::Workload* w_ = nullptr;
  std::string source_;

  EventQueue queue_;
  Nanos now_ = 0;
  ModelStats stats_;
  std::uint64_t max_events_ = UINT64_MAX;
  double wall_seconds_ = 0;
  std::chrono::steady_clock::time_point started_;
  std::string budget_source_;
  [[noreturn]] void budget_exceeded(bool wall) const;

  std::vector<Command> cmds_;
  std::vector<CommandRefs> refs_;  ///< per command slot, with explanations on (empty otherwise)
  /// Free command slots, linked through Command::next_in_queue (a list of its own would grow by a slot
  /// per command finished while the device drains, at the process's peak).
  std::uint32_t free_cmd_ = kNone;
  std::uint64_t live_ = 0;
  std::vector<Edge> edges_;
  std::uint32_t free_edge_ = kNone;  ///< free edge slots, linked through Edge::next
  std::vector<StreamState> streams_;
  std::vector<std::uint32_t> blocking_streams_;
  std::vector<EventState> events_;
  std::uint64_t event_completions_ = 0;
  std::vector<Queue> queues_;
  std::vector<std::uint32_t> busy_streams_;  ///< per compute queue: its streams with unfinished work
  std::uint32_t busy_queues_ = 0;            ///< compute queues with at least one such stream
  std::vector<std::uint32_t> dirty_;
  std::size_t dirty_head_ = 0;
  std::vector<std::function<void()>> callbacks_;

  // Per op. The device reaches ops in about the order the host issued them, which a random DAG makes
  // nothing like op order: what the device reads and writes of an op is kept by its *slot*, its position
  // among the ops issued (in its command's `aux`), so that it walks those arrays in order; at ten million
  // ops an array in op order was a cache and TLB miss per kernel leaving its queue. Only issuing and the
  // spans at the end go from an op to its slot.
  /// An op's start and end side by side: it ends soon after it starts in event order, so the end finds
  /// the line the start brought in.
  struct OpTimes {
    Nanos start = -1, end = -1;
  };
  /// By slot. Before a kernel of a class starts, `start` holds -2 - (class << kClassTimeBits | block time).
  std::vector<OpTimes> slot_times_;
  std::vector<std::uint32_t> slot_stream_;  ///< by slot: the stream it was issued on
  /// By op: its slot once issued; before, kUnissued | what issuing it reads of its description: its kind,
  /// whether the host waits in its call, and a kernel's class + 1 (0: a kernel without one, or another
  /// op) and block time. Ops are issued in no index order: at ten million ops reading the op's own
  /// lines there was a cache and TLB miss per op (and the Dispatcher's prefetch of them stalled on
  /// page-table walks), where this entry is one line of a far smaller array.
  std::vector<std::uint64_t> op_slot_;
  static constexpr std::uint64_t kUnissued = std::uint64_t{1} << 63;  ///< slots stay below 2^31 (prepare() checks)
  static constexpr std::uint64_t kHostWaits = std::uint64_t{1} << 62;
  static constexpr int kKindShift = 57;  ///< 4 bits of the op's kind (model::OpKind has 14)
  static constexpr std::uint64_t kKindMask = 0xf;
  static constexpr std::uint64_t kClassMask = (std::uint64_t{1} << 17) - 1;  ///< class + 1, above the block time
  [[nodiscard]] OpTimes& times_of(std::uint32_t c) noexcept { return slot_times_[cmds_[c].aux]; }
  [[nodiscard]] std::uint32_t stream_of_op(model::OpIndex op) const noexcept {
    return slot_stream_[static_cast<std::uint32_t>(op_slot_[op])];
  }
  /// Kernels with a fixed block time, by shape (threads per block, blocks, registers, shared memory): the
  /// KernelInfo of the first of them, whose block time and replacement gap each kernel replaces by its own.
  std::vector<KernelInfo> kernel_classes_;
  struct ShapeKey {
    std::uint64_t threads = 0, blocks = 0;
    std::uint32_t regs = 0, smem = 0;
    friend bool operator==(const ShapeKey&, const ShapeKey&) = default;
  };
  struct ShapeKeyHash {
    std::size_t operator()(const ShapeKey& k) const noexcept {
      std::uint64_t h = k.threads * 0x9e3779b97f4a7c15ull;
      h = (h ^ k.blocks) * 0x9e3779b97f4a7c15ull;
      h = (h ^ (std::uint64_t{k.regs} << 32 | k.smem)) * 0x9e3779b97f4a7c15ull;
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  static constexpr int kClassTimeBits = 40;  ///< block times up to 2^40 - 1 ns (the workload limit: 2^40)
  static constexpr std::uint64_t kClassTimeMask = (std::uint64_t{1} << kClassTimeBits) - 1;
  /// Classes fit op_slot_'s 17 bits (and packed start times stay below 2^62); kernels of further shapes
  /// are worked out when they leave their queue.
  static constexpr std::size_t kMaxClasses = std::size_t{1} << 16;
  std::unordered_map<model::OpIndex, std::vector<Nanos>> static_sums_;  ///< static task pools' per-block sums
  std::vector<OpExplanation> exps_;

  // Block scheduler.
  std::vector<SmRoom> sms_;
  Nanos launch_free_ = 0;     ///< when the work distributor can launch the next block's warps
  std::uint32_t cursor_ = 0;  ///< round-robin start of the next SM search (breadth-first distribution)
  std::uint32_t resident_ = 0;
  std::vector<std::uint32_t> level_head_, level_tail_;
  std::uint32_t first_level_ = 0;  ///< no pending kernel at a level below this (highest priority = 0)
  std::uint32_t pending_kernels_ = 0;
  std::uint32_t blocked_head_ = kNone;  ///< head run known to fit on no SM (or blocked by the grid limit)
  bool blocked_on_grids_ = false;
  bool head_waits_for_grid_ = false;    ///< the head of dispatch order waits for a grid slot (explanations)
  std::vector<KernelRun> runs_;
  std::vector<std::uint32_t> free_runs_;
  std::vector<Wave> waves_;
  std::vector<std::uint32_t> free_waves_;
  std::uint32_t open_wave_ = kNone;  ///< the wave a block ending at the same time may still join
  std::vector<model::BlockPlacement> placements_;

  // Copy engines and the callback thread.
  std::vector<CopyEngine> engines_;
  std::uint32_t engine_of_dir_[3] = {0, 0, 0};
  HostWorker worker_;
};

}  // namespace streamlab::sim::detail
