#include "gpu_model.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cassert>
#include <stdexcept>
#include <string>
#include <utility>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "streamlab/model/errors.hpp"
#include "streamlab/model/copy_arbitration.hpp"
#include "streamlab/model/prefetch.hpp"

namespace streamlab::sim::detail {
namespace {

constexpr std::int32_t kWarp = 32;             // threads are allocated in whole warps
constexpr std::int32_t kRegisterUnit = 256;    // registers per warp are allocated in units of 256 (sm_50..sm_90)

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::uint8_t copy_dir(model::OpKind k) noexcept {
  switch (k) {
    case model::OpKind::d2h: return 1;
    case model::OpKind::d2d: return 2;
    default: return 0;  // h2d, prefetch (managed memory migrates host -> device over the H2D engine)
  }
}

Work work_of(model::OpKind k) noexcept {
  switch (k) {
    case model::OpKind::kernel:
    case model::OpKind::task_pool: return Work::sms;
    case model::OpKind::h2d:
    case model::OpKind::d2h:
    case model::OpKind::d2d:
    case model::OpKind::prefetch: return Work::copy;
    case model::OpKind::host_func: return Work::host_worker;
    case model::OpKind::memset: return Work::fixed;
    case model::OpKind::barrier:
    // Program calls are backend calls (record, wait, synchronize), never enqueued as stream work.
    case model::OpKind::event_record:
    case model::OpKind::event_wait:
    case model::OpKind::stream_sync:
    case model::OpKind::event_sync:
    case model::OpKind::device_sync: return Work::none;
  }
  return Work::none;
}

/// An index off the free list, else a new element at the end: finished things are recycled, so memory
/// follows the work in flight, not the run length.
template <class T>
std::uint32_t reuse_or_grow(std::vector<T>& items, std::vector<std::uint32_t>& free) {
  if (!free.empty()) {
    const std::uint32_t i = free.back();
    free.pop_back();
    return i;
  }
  items.emplace_back();
  return static_cast<std::uint32_t>(items.size() - 1);
}

/// The same for tables with millions of slots (commands, edges), whose free slots are linked through a
/// member (`link`) that a free slot does not otherwise use: a list of its own would grow by a slot per
/// thing finished while the device drains, at the process's peak. Last freed, first reused.
template <class T>
std::uint32_t take_slot(std::vector<T>& items, std::uint32_t& free_head, std::uint32_t T::*link) {
  const std::uint32_t i = free_head;
  if (i != kNone) {
    free_head = items[i].*link;
    return i;
  }
  items.emplace_back();
  return static_cast<std::uint32_t>(items.size() - 1);
}
template <class T>
void give_slot(std::vector<T>& items, std::uint32_t& free_head, std::uint32_t T::*link, std::uint32_t i) {
  items[i].*link = free_head;
  free_head = i;
}

RefKind ref_kind(CmdKind k) noexcept {
  switch (k) {
    case CmdKind::op: return RefKind::op;
    case CmdKind::record: return RefKind::record;
    case CmdKind::wait: return RefKind::wait;
    case CmdKind::callback: return RefKind::callback;
  }
  return RefKind::none;
}

}  // namespace

GpuModel::GpuModel(const DeviceParams& params, std::uint32_t connections, bool record_blocks, bool explain,
                   bool merge_waves, std::uint32_t copy_queues)
    : p_(params), connections_(connections), record_blocks_(record_blocks), explain_(explain),
      merge_waves_(merge_waves) {
  // Copies have hardware queues of their own, per copy engine, so a queued copy never holds a kernel of
  // another stream behind it (H100, 2026-11-23, the PyTorch multi-stream capture under 1 connection: a
  // kernel started while three copies issued before it still waited for the copy engine), nor a copy of
  // the other direction (run 5, 2026-11-24: depth-first chunked copies, each H2D passing the D2H queued
  // before it). Streams s and s + 4 shared a copy queue at 8 connections (run 5: breadth-first over 8
  // streams, the H2D engine ran the copies of streams 1 and 5 in issue order, then those of 2 and 6, ...;
  // run 62, another machine, likewise). On run 71's machine each of 8 streams had a copy queue of its own
  // (every stream's copies back to back, then the next stream's): SimOptions::copy_queues_per_engine.
  copy_pool_ = std::min<std::uint32_t>(connections_, copy_queues != 0 ? copy_queues : kCopyQueuesPerEngine);
  queues_.resize(static_cast<std::size_t>(connections_) + 3 * static_cast<std::size_t>(copy_pool_));
  sms_.assign(p_.sm_count, SmRoom{p_.threads_per_sm, p_.blocks_per_sm, p_.registers_per_sm, p_.smem_per_sm, 0, 0});
  const auto levels = static_cast<std::size_t>(p_.priority_least - p_.priority_greatest + 1);
  level_head_.assign(levels, kNone);
  level_tail_.assign(levels, kNone);
  // H2D, D2H and D2D each get an engine when there are three; with two, D2D shares the H2D engine; with
  // one, every copy serializes on it.
  engines_.resize(std::min<std::uint32_t>(p_.copy_engines, 3));
  engine_of_dir_[0] = 0;
  engine_of_dir_[1] = engines_.size() >= 2 ? 1 : 0;
  engine_of_dir_[2] = engines_.size() >= 3 ? 2 : 0;
  // The legacy NULL stream exists from the start.
  add_stream(policies::StreamKind::legacy_default, 0);
  cmds_.reserve(1024);
  queue_.reserve(1024);
}

void GpuModel::prepare(const model::Workload& w, const std::string& source) {
  w_ = &w;
  source_ = source;
  const std::size_t n = w.ops.size();
  if (n >= 0x80000000u) throw std::length_error("simulator: more than 2^31 - 1 ops");
  op_slot_.resize(n);
  // Reserved, not touched: issuing fills them in order.
  slot_times_.clear();
  slot_times_.reserve(n);
  slot_stream_.clear();
  slot_stream_.reserve(n);
  if (explain_) exps_.assign(explain_only_ == kNone ? n : 1, OpExplanation{});
  // Room for an op, its record and a wait per op, reserved, not touched: a host that issues far ahead of the
  // device (all ops, when it never waits) grows the table without copying it, and one that stays close
  // uses only the first pages.
  cmds_.reserve(std::max<std::size_t>(cmds_.capacity(), 3 * n));
  // Refuse, before anything runs, a kernel that could never be placed. A kernel with a fixed block time
  // gets its numbers from its shape's class, found here while the ops are read in order: when it leaves its
  // queue, long after the host issued it, the line of its times is all it reads (at ten million ops its
  // description there was a cache and TLB miss per kernel). Others are worked out then.
  kernel_classes_.clear();
  std::unordered_map<ShapeKey, std::uint32_t, ShapeKeyHash> class_of;
  for (std::size_t i = 0; i < n; ++i) {
    model::prefetch_ahead(w.ops, i);  // the ops in order, past the hardware's stop at each 4 KB page
    const model::Op& op = w.ops[i];
    op_slot_[i] = kUnissued | std::uint64_t{static_cast<std::uint8_t>(op.kind)} << kKindShift;
    if (!model::runs_on_sms(op.kind)) {
      // cudaMemcpyAsync from/to pageable memory is synchronous for the host, and so is a program's
      // blocking copy or memset (Op::blocking; only copies, memsets and prefetches can be blocking).
      const bool copy_like = model::is_copy(op.kind) || op.kind == model::OpKind::memset ||
                             op.kind == model::OpKind::prefetch;
      const bool pageable = op.host_memory == model::HostMemory::pageable &&
                            (op.kind == model::OpKind::h2d || op.kind == model::OpKind::d2h);
      if (copy_like && (pageable || op.blocking)) op_slot_[i] |= kHostWaits;
      continue;
    }
    const auto index = static_cast<model::OpIndex>(i);
    (void)kernel_info(index, true);
    if (!kernel_classes_on_) continue;  // every kernel is worked out when it leaves its queue
    const auto* fixed = std::get_if<model::FixedPerBlock>(&op.duration);
    if (op.kind != model::OpKind::kernel || fixed == nullptr || fixed->ns < 0 ||
        fixed->ns > static_cast<Nanos>(kClassTimeMask))
      continue;
    const ShapeKey key{op.shape->threads_per_block(), op.shape->blocks(), op.shape->registers_per_thread,
                       op.shape->shared_mem_bytes};
    auto [it, added] = class_of.try_emplace(key, static_cast<std::uint32_t>(kernel_classes_.size()));
    if (added) {
      if (kernel_classes_.size() == kMaxClasses) {  // unlikely: the rest are worked out when they leave
        class_of.erase(it);
        continue;
      }
      kernel_classes_.push_back(kernel_info(index, false));
    }
    op_slot_[i] |= std::uint64_t{it->second + 1} << kClassTimeBits | static_cast<std::uint64_t>(fixed->ns);
  }
}

KernelInfo GpuModel::class_kernel_info(Nanos packed) const noexcept {
  const auto v = static_cast<std::uint64_t>(-2 - packed);
  KernelInfo k = kernel_classes_[v >> kClassTimeBits];
  k.fixed_ns = static_cast<Nanos>(v & kClassTimeMask);
  k.dispatch_ns = dispatch_gap(k.need.threads / kWarp, static_cast<double>(k.fixed_ns));
  return k;
}

Nanos GpuModel::dispatch_gap(std::int64_t warps, double mean_block_ns) const noexcept {
  return p_.block_dispatch + static_cast<Nanos>(std::llround(static_cast<double>(warps) *
                                                             dispatch_per_warp_at(p_, mean_block_ns)));
}

KernelInfo GpuModel::kernel_info(model::OpIndex i, bool preparing) {
  const model::Op& op = w_->ops[i];
  auto bad = [&](const std::string& why) {
    throw model::InputError(source_, "/ops/" + std::to_string(i), op.id, why);
  };
  if (!op.shape) bad("a " + std::string(model::to_string(op.kind)) + " needs a launch shape");
  const model::KernelShape& s = *op.shape;
  const std::uint64_t threads = s.threads_per_block();
  const std::uint64_t blocks = s.blocks();
  if (threads == 0 || blocks == 0) bad("a launch needs at least one block of at least one thread");
  if (threads > static_cast<std::uint64_t>(p_.threads_per_block_max))
    bad("block of " + std::to_string(threads) + " threads exceeds the device's max_threads_per_block " +
        std::to_string(p_.threads_per_block_max));
  if (blocks > 0xffffffffull) bad("more than 2^32-1 blocks");
  if (s.shared_mem_bytes > static_cast<std::uint32_t>(p_.smem_per_block_max))
    bad("block needs " + std::to_string(s.shared_mem_bytes) +
        " bytes of shared memory, above the device's max_shared_mem_per_block_bytes " +
        std::to_string(p_.smem_per_block_max));
  KernelInfo k;
  const std::int64_t warps = ceil_div(static_cast<std::int64_t>(threads), kWarp);
  const std::int64_t regs_per_warp =
      ceil_div(std::int64_t{s.registers_per_thread} * kWarp, kRegisterUnit) * kRegisterUnit;
  k.need.threads = static_cast<std::int32_t>(warps * kWarp);
  // The replacement gap depends on the block's run time where the profile says so (traced runs).
  auto set_dispatch = [&](double mean_block_ns) { k.dispatch_ns = dispatch_gap(warps, mean_block_ns); };
  const std::int64_t regs = warps * regs_per_warp;
  if (regs > p_.registers_per_sm)
    bad("block needs " + std::to_string(regs) + " registers (" + std::to_string(s.registers_per_thread) +
        " per thread, allocated per warp), above the SM's registers_per_sm " + std::to_string(p_.registers_per_sm));
  k.need.regs = static_cast<std::int32_t>(regs);
  k.need.smem = static_cast<std::int32_t>(ceil_div(std::int64_t{s.shared_mem_bytes}, p_.smem_alloc_unit) * p_.smem_alloc_unit) +
                p_.smem_reserved_per_block;
  if (k.need.threads > p_.threads_per_sm)
    bad("block of " + std::to_string(k.need.threads) + " threads exceeds max_threads_per_sm");
  if (k.need.smem > p_.smem_per_sm) bad("block's shared memory exceeds shared_mem_per_sm_bytes");
  k.blocks = static_cast<std::uint32_t>(blocks);
  if (preparing) {  // what remains to check; the times are worked out when the kernel is issued
    if (op.kind == model::OpKind::task_pool && !op.tasks) bad("a task_pool needs a task list");
    if (op.kind == model::OpKind::task_pool && op.tasks->assignment != model::TaskAssignment::dynamic_queue) {
      // Static: block b runs tasks b, b+B, b+2B, ... back to back (sums made once).
      std::vector<Nanos> sums(k.blocks, 0);
      for (std::size_t t = 0; t < op.tasks->task_ns.size(); ++t) sums[t % k.blocks] += op.tasks->task_ns[t];
      static_sums_.emplace(i, std::move(sums));
    }
    const auto* list = std::get_if<model::PerBlockList>(&op.duration);
    if (op.kind != model::OpKind::task_pool && list != nullptr && list->ns.size() != k.blocks)
      bad("per-block duration list has " + std::to_string(list->ns.size()) + " entries for " +
          std::to_string(k.blocks) + " blocks");
    return k;
  }
  // Blocks of this kernel one idle SM holds (the occupancy limit); the launch rate follows how full the
  // first wave leaves the SMs.
  std::int64_t occ = std::min<std::int64_t>(p_.blocks_per_sm, p_.threads_per_sm / k.need.threads);
  occ = std::min<std::int64_t>(occ, p_.registers_per_sm / std::max<std::int32_t>(1, k.need.regs));
  if (k.need.smem > 0) occ = std::min<std::int64_t>(occ, p_.smem_per_sm / k.need.smem);
  if (p_.carveout) {
    // Measured for power-of-two block sizes without shared memory: the next size up stands for a block
    // in between, and a kernel whose own full-occupancy need is larger configures at least that.
    k.need.admit = static_cast<std::int32_t>(occ * k.need.smem);
    std::size_t row = 0;
    while (row + 1 < p_.carveout_by_threads.size() && (kWarp << row) < k.need.threads) ++row;
    k.need.carveout = std::max(p_.carveout_by_threads[row], k.need.admit);
  } else {
    k.need.carveout = p_.smem_per_sm;
  }
  {
    const double wave = static_cast<double>(std::min<std::uint64_t>(blocks, static_cast<std::uint64_t>(occ) * p_.sm_count));
    const double fill = wave * k.need.threads / (static_cast<double>(p_.sm_count) * p_.threads_per_sm);
    k.launch_ns = static_cast<Nanos>(std::llround(static_cast<double>(warps) * launch_rate_at(p_, fill)));
  }

  if (op.kind == model::OpKind::task_pool) {
    if (op.tasks->assignment == model::TaskAssignment::dynamic_queue) {
      k.dur = DurationKind::dynamic_pool;
      k.task_ns_extra = p_.task_fetch;  // every task is one fetch from the shared counter
    } else {
      k.dur = DurationKind::static_pool;  // per-block sums made at prepare
    }
    double total = 0;
    for (Nanos t : op.tasks->task_ns) total += static_cast<double>(t);
    set_dispatch(total / static_cast<double>(k.blocks));
    return k;
  }
  if (const auto* fixed = std::get_if<model::FixedPerBlock>(&op.duration)) {
    k.dur = DurationKind::fixed;
    k.fixed_ns = fixed->ns;
  } else if (const auto* list = std::get_if<model::PerBlockList>(&op.duration)) {
    k.dur = DurationKind::per_block;
    double total = 0;
    for (Nanos t : list->ns) total += static_cast<double>(t);
    set_dispatch(total / static_cast<double>(k.blocks));
    return k;
  } else {
    // Roofline time of the whole kernel on the whole device, shared evenly by the block slots it
    // occupies: a block gets 1/(SMs * blocks per SM it runs alongside) of the device.
    const auto& cost = std::get<model::CostModel>(op.duration);
    const double t = std::max(cost.bytes / p_.dram_bytes_per_ns, cost.flops / p_.fp32_flops_per_ns);
    const std::int64_t per_sm = std::min<std::int64_t>(occ, ceil_div(k.blocks, p_.sm_count));
    k.dur = DurationKind::fixed;
    k.fixed_ns = ceil_ns(t * static_cast<double>(p_.sm_count) * static_cast<double>(per_sm) /
                         static_cast<double>(k.blocks));
  }
  set_dispatch(static_cast<double>(k.fixed_ns));
  return k;
}

std::uint32_t GpuModel::add_stream(policies::StreamKind kind, int priority) {
  const auto id = static_cast<std::uint32_t>(streams_.size());
  StreamState s;
  s.kind = kind;
  s.priority = std::clamp(priority, p_.priority_greatest, p_.priority_least);  // CUDA clamps too
  s.level = static_cast<std::uint8_t>(s.priority - p_.priority_greatest);
  s.queue = id % connections_;
  streams_.push_back(s);
  if (kind == policies::StreamKind::blocking) blocking_streams_.push_back(id);
  return id;
}

std::uint32_t GpuModel::add_event(bool timed) {
  EventState e;
  e.timed = timed;
  events_.push_back(e);
  return static_cast<std::uint32_t>(events_.size() - 1);
}

// ---------------------------------------------------------------------------------------------------
// Commands

std::uint32_t GpuModel::new_command(CmdKind kind, Work work, std::uint32_t stream, std::uint32_t payload) {
  const std::uint32_t c = take_slot(cmds_, free_cmd_, &Command::next_in_queue);
  Command& x = cmds_[c];
  x.stream = stream;
  x.payload = payload;
  x.aux = 0;
  x.pending = 0;
  x.next_in_stream = kNone;
  x.next_in_queue = kNone;
  x.successors = kNone;
  x.kind = kind;
  x.state = ActivityState::inited;
  x.work = work;
  x.last_cause = Cause::none;
  x.queue = 0;
  x.chained = false;
  if (explain_) {
    if (refs_.size() < cmds_.size()) refs_.resize(cmds_.size());
    refs_[c] = CommandRefs{};
  }
  ++stats_.commands;
  ++live_;
  stats_.max_live = std::max<std::uint64_t>(stats_.max_live, live_);
  return c;
}

void GpuModel::free_command(std::uint32_t c) {
  give_slot(cmds_, free_cmd_, &Command::next_in_queue, c);  // a finished command is in no queue
  --live_;
}

void GpuModel::add_edge(std::uint32_t from, std::uint32_t to, EdgeType type) {
  const std::uint32_t e = take_slot(edges_, free_edge_, &Edge::next);
  edges_[e] = Edge{to, cmds_[from].successors, type};
  cmds_[from].successors = e;
  ++cmds_[to].pending;
}

// Stream order, the legacy-stream barrier and the hardware queue; then the arrival event.
void GpuModel::link_and_arrive(std::uint32_t c, Nanos arrival) {
  Command& x = cmds_[c];
  StreamState& s = streams_[x.stream];
  x.pending = 1;  // arrival
  x.queue = static_cast<std::uint8_t>(
      x.work == Work::copy
          ? connections_ + engine_of_dir_[copy_dir(w_->ops[x.payload].kind)] * copy_pool_ + x.stream % copy_pool_
          : s.queue);
  if (s.tail != kNone) {
    Command& before = cmds_[s.tail];
    before.next_in_stream = c;
    // A copy right behind a copy of its stream in the same copy queue: the engine runs a queue's copies in
    // order, so it may follow as soon as the one before left the queue (no wait for its completion).
    x.chained = x.work == Work::copy && before.kind == CmdKind::op && before.work == Work::copy && before.queue == x.queue;
    if (!x.chained || before.state == ActivityState::inited || before.state == ActivityState::waiting) ++x.pending;
  }
  // Legacy default stream semantics: its work waits for all earlier work of blocking streams, and
  // blocking streams' later work waits for it. Non-blocking and per-thread streams are exempt.
  if (s.kind == policies::StreamKind::legacy_default) {
    for (std::uint32_t b : blocking_streams_)
      if (streams_[b].tail != kNone) add_edge(streams_[b].tail, c, EdgeType::legacy);
  } else if (s.kind == policies::StreamKind::blocking && streams_[0].tail != kNone) {
    add_edge(streams_[0].tail, c, EdgeType::legacy);
  }
  if (s.tail == kNone) stream_became_busy(s.queue, +1);
  s.tail = c;
  // An event record does not enter the hardware queue: the driver folds it into the completion of the
  // stream's preceding work (the launch's release semaphore, written when the grid completes), so it never
  // sits at a queue head holding later commands. H100 measurement (experiments E2, 1 connection,
  // depth-first with a record after every kernel): 96.9 ms, the 63 chain boundaries overlapping, not the
  // 128 ms a queue-holding record gives.
  x.queued = x.kind != CmdKind::record;
  if (!x.queued) {
    queue_.push(arrival, kArrival, c, 0);
    return;
  }
  Queue& q = queues_[x.queue];
  if (q.tail == kNone) {
    q.head = c;
  } else {
    cmds_[q.tail].next_in_queue = c;
  }
  q.tail = c;
  queue_.push(arrival, kArrival, c, 0);
}

void GpuModel::issue_op(std::uint32_t stream, model::OpIndex op, Nanos issued, Nanos arrival) {
  std::uint64_t& slot = op_slot_[op];
  assert((slot & kUnissued) != 0 && "an op is issued once");
  const Work work = work_of(issue_brief(op).kind);
  const std::uint32_t c = new_command(CmdKind::op, work, stream, op);
  // A kernel of a class starts out with its class and block time packed where its start time will go,
  // which is all it reads when it leaves its queue.
  Nanos start = -1;
  if (const std::uint64_t cls = (slot >> kClassTimeBits) & kClassMask; cls != 0)
    start = -2 - static_cast<Nanos>(((cls - 1) << kClassTimeBits) | (slot & kClassTimeMask));
  cmds_[c].aux = static_cast<std::uint32_t>(slot_times_.size());
  slot_times_.push_back(OpTimes{start, -1});
  slot_stream_.push_back(stream);
  slot = cmds_[c].aux;
  if (OpExplanation* x = explain_ ? op_exp(op) : nullptr) {
    OpExplanation& e = *x;
    e = OpExplanation{};
    e.op = op;
    e.stream = stream;
    e.queue = work == Work::copy ? stream % copy_pool_ : streams_[stream].queue;
    e.copy_queue = work == Work::copy;
    e.issued = issued;
    e.arrived = arrival;
    e.valid = true;
  }
  link_and_arrive(c, arrival);
  streams_[stream].last_op = op;
}

void GpuModel::issue_record(std::uint32_t event, std::uint32_t stream, Nanos issued) {
  EventState& ev = events_[event];
  StreamState& s = streams_[stream];
  ++ev.gen;
  ev.recorded = true;
  // Fast path: nothing before it on its stream or (for the legacy stream) any blocking stream:
  // the record completes the moment it is issued, exactly as the command would.
  const bool legacy_clear = s.kind == policies::StreamKind::legacy_default
                                ? std::all_of(blocking_streams_.begin(), blocking_streams_.end(),
                                              [&](std::uint32_t b) { return streams_[b].tail == kNone; })
                                : (s.kind != policies::StreamKind::blocking || streams_[0].tail == kNone);
  if (s.tail == kNone && legacy_clear) {
    ev.marker = kNone;
    ev.completed_at = issued;
    return;
  }
  const std::uint32_t c = new_command(CmdKind::record, Work::none, stream, event);
  cmds_[c].aux = ev.gen;
  if (explain_) refs_[c].op = s.last_op;
  ev.marker = c;
  link_and_arrive(c, issued);
}

void GpuModel::issue_wait(std::uint32_t stream, std::uint32_t event, Nanos issued) {
  const EventState& ev = events_[event];
  if (ev.marker == kNone) return;  // never recorded, or its latest record already completed: a no-op
  const std::uint32_t marker = ev.marker;
  const std::uint32_t c = new_command(CmdKind::wait, Work::none, stream, event);
  if (explain_) refs_[c] = CommandRefs{refs_[marker].op, cmds_[marker].stream};
  link_and_arrive(c, issued);
  add_edge(marker, c, EdgeType::event);  // the record current *now*; a later record does not matter
}

void GpuModel::issue_callback(std::uint32_t stream, std::function<void()> fn, Nanos issued) {
  const auto index = static_cast<std::uint32_t>(callbacks_.size());
  callbacks_.push_back(std::move(fn));
  const std::uint32_t c = new_command(CmdKind::callback, Work::host_worker, stream, index);
  if (explain_) refs_[c].op = streams_[stream].last_op;
  link_and_arrive(c, issued);
}

Blocker GpuModel::describe(std::uint32_t c, Cause cause) const {
  const Command& x = cmds_[c];
  Blocker b;
  b.cause = cause;
  b.at = now_;
  b.what = ref_kind(x.kind);
  switch (x.kind) {
    case CmdKind::op:
      b.op = x.payload;
      b.stream = x.stream;
      break;
    case CmdKind::record:
      b.op = refs_[c].op;
      b.stream = x.stream;
      b.event = x.payload;
      break;
    case CmdKind::wait:
      b.op = refs_[c].op;
      b.stream = refs_[c].stream;
      b.event = x.payload;
      break;
    case CmdKind::callback:
      b.op = refs_[c].op;
      b.stream = x.stream;
      break;
  }
  return b;
}

void GpuModel::satisfy(std::uint32_t c, const Blocker& why) {
  Command& x = cmds_[c];
  if (explain_) {
    x.last_cause = why.cause;
    if (OpExplanation* e = exp(c)) {
      e->ready_by = why;
      e->ready = now_;
    }
  }
  assert(x.pending > 0);
  if (--x.pending != 0) return;
  if (!x.queued) {  // an event record: completes with the stream work before it
    x.state = ActivityState::ready;
    dispatch(c);
    return;
  }
  Queue& q = queues_[x.queue];
  if (q.head == c && !q.dirty) {
    q.dirty = true;
    dirty_.push_back(x.queue);
  }
}

void GpuModel::stream_became_busy(std::uint32_t queue, int delta) {
  if (queue >= busy_streams_.size()) busy_streams_.resize(static_cast<std::size_t>(queue) + 1, 0);
  std::uint32_t& n = busy_streams_[queue];
  if (delta > 0) {
    busy_queues_ += n++ == 0 ? 1 : 0;
  } else {
    busy_queues_ -= --n == 0 ? 1 : 0;
  }
}

std::uint32_t GpuModel::other_busy_queues(std::uint32_t stream) const noexcept {
  const std::uint32_t q = streams_[stream].queue;
  const bool own = q < busy_streams_.size() && busy_streams_[q] > 0;
  return busy_queues_ - (own ? 1 : 0);
}

bool GpuModel::is_device_op(const Command& x) const noexcept {
  return x.kind == CmdKind::op && (x.work == Work::sms || x.work == Work::copy || x.work == Work::fixed);
}

void GpuModel::complete(std::uint32_t c) {
  Command& x = cmds_[c];
  x.state = ActivityState::finished;
  if (x.kind == CmdKind::op) {
    slot_times_[x.aux].end = now_;
    if (OpExplanation* e = exp(c)) e->ended = now_;
    // Batched: an atomic add per op costs more than the rest of completing it.
    if (progress_ != nullptr && ++unreported_ops_ == kProgressBatch) flush_progress();
  } else if (x.kind == CmdKind::record) {
    EventState& ev = events_[x.payload];
    if (ev.gen == x.aux) {  // an older record finishing late does not complete the newer one
      ev.marker = kNone;
      ev.completed_at = now_;
      ++event_completions_;
    }
  }
  StreamState& s = streams_[x.stream];
  if (s.tail == c) {
    s.tail = kNone;
    s.idle_since = now_;
    stream_became_busy(s.queue, -1);
  }
  // Back-to-back device ops of one stream: the next starts same_stream_gap after this one ended, even
  // with a record or a satisfied wait in between (the gap is carried by the stream, not the command).
  if ((p_.same_stream_gap > 0 || p_.same_stream_gap_per_busy_queue > 0) && is_device_op(x)) {
    Nanos gap = p_.same_stream_gap;
    // The front end serves the hardware queues in turn: the more other queues hold commands, the later
    // this stream's next op starts (profiles that measured it; the loop is over at most 32 queues).
    if (p_.same_stream_gap_per_busy_queue > 0) {
      Nanos busy = 0;
      for (std::uint32_t i = 0; i < queues_.size(); ++i) busy += (i != x.queue && queues_[i].head != kNone) ? 1 : 0;
      gap += busy * p_.same_stream_gap_per_busy_queue;
    }
    s.gap_until = now_ + gap;
    s.gap_op = x.payload;
  }
  if (x.next_in_stream != kNone && cmds_[x.next_in_stream].chained) {
    // released when this copy left its queue
  } else if (x.next_in_stream != kNone && s.gap_until > now_ && is_device_op(cmds_[x.next_in_stream])) {
    queue_.push(s.gap_until, kStreamGap, x.next_in_stream, s.gap_op);
  } else if (x.next_in_stream != kNone) {
    Blocker why;
    if (explain_) {
      // Zero-time commands pass on what released them, so "why" names the event or the op, not the
      // bookkeeping command in between.
      if (x.kind == CmdKind::wait && x.last_cause == Cause::event_wait) {
        why = describe(c, Cause::event_wait);
      } else if (x.kind != CmdKind::op && x.last_cause == Cause::stream_order && refs_[c].op != kNoRef) {
        why.cause = Cause::stream_order;
        why.at = now_;
        why.what = RefKind::op;
        why.op = refs_[c].op;
        why.stream = x.stream;
      } else {
        why = describe(c, Cause::stream_order);
      }
    }
    satisfy(x.next_in_stream, why);
  }
  std::uint32_t e = x.successors;
  while (e != kNone) {
    const Edge edge = edges_[e];
    give_slot(edges_, free_edge_, &Edge::next, e);
    if (edge.type == EdgeType::legacy) {
      satisfy(edge.target, explain_ ? describe(c, Cause::legacy_barrier) : Blocker{});
    } else if (p_.event_wait_latency > 0) {
      // The waiting stream sees the event only after the semaphore release propagates. The wait was issued
      // long ago (its line is cold): asked for now, it is in the cache when that event comes.
      queue_.push(now_ + p_.event_wait_latency, kSatisfy, edge.target, 0);
      __builtin_prefetch(&cmds_[edge.target]);
    } else {
      satisfy(edge.target, explain_ ? describe(edge.target, Cause::event_wait) : Blocker{});
    }
    e = edge.next;
  }
  free_command(c);
}

// ---------------------------------------------------------------------------------------------------
// The loop

void GpuModel::set_budget(std::uint64_t max_events, double wall_seconds, std::string source) {
  max_events_ = max_events;
  wall_seconds_ = wall_seconds;
  budget_source_ = std::move(source);
  started_ = std::chrono::steady_clock::now();
}

namespace {
std::string shown_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}
}  // namespace

void GpuModel::budget_exceeded(bool wall) const {
  char at[64];
  std::snprintf(at, sizeof at, "%.3f us", static_cast<double>(now_) / 1000.0);
  if (wall)
    throw SimBudgetExceeded(budget_source_ + ": simulation: stopped after " + shown_seconds(wall_seconds_) +
                            " s of wall-clock time, at simulated time " + at + " after " +
                            std::to_string(stats_.events) + " events (the --time-limit budget)");
  throw SimBudgetExceeded(budget_source_ + ": simulation: stopped at simulated time " + std::string(at) +
                          " after " + std::to_string(max_events_) + " events, the limit (raise it with --max-events)");
}

void GpuModel::count_events(std::uint64_t n) {
  const std::uint64_t before = stats_.events;
  stats_.events += n;
  // Over the limit: the event past it is due at now_ (a wave's blocks all are), so the message is the one
  // counting them one at a time gives.
  if (stats_.events > max_events_) budget_exceeded(false);
  if (wall_seconds_ > 0 && (before >> 14) != (stats_.events >> 14) &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count() > wall_seconds_)
    budget_exceeded(true);
}

void GpuModel::process(const SimEvent& ev) {
  now_ = ev.time;
  // Whatever is scheduled from here on has a later seq than anything queued; a wave stays open only while
  // the blocks joining it are placed back to back, within one event's processing.
  open_wave_ = kNone;
  count_events(1);
  ++stats_.pops;
  stats_.max_heap = std::max<std::uint64_t>(stats_.max_heap, queue_.size() + 1);
  stats_.heap_sum += queue_.size() + 1;
  switch (ev.kind()) {
    case kArrival: {
      Command& x = cmds_[ev.a];
      x.state = ActivityState::waiting;
      Blocker why;
      if (explain_) {
        why = describe(ev.a, Cause::host_issue);
        why.what = RefKind::none;
      }
      satisfy(ev.a, why);
      break;
    }
    case kSatisfy:
      satisfy(ev.a, explain_ ? describe(ev.a, Cause::event_wait) : Blocker{});
      break;
    case kBlockDone:
      wave_done(ev.a);
      break;
    case kTaskDone: {
      KernelRun& k = runs_[waves_[ev.a].run];
      const model::TaskList& tasks = *w_->ops[k.op].tasks;
      if (k.next_task < tasks.task_ns.size()) {
        queue_.push(now_ + k.info.task_ns_extra + tasks.task_ns[k.next_task++], kTaskDone, ev.a, 0);
      } else {
        wave_done(ev.a);
      }
      break;
    }
    case kCopyDone:
      copy_done(ev.a, ev.b);
      break;
    case kWorkerDone:
      worker_done(ev.a);
      break;
    case kFixedDone:
      complete(ev.a);
      break;
    case kKernelRelease:
      kernel_enqueue(ev.a, false, explain_ ? describe(ev.b, Cause::earlier_kernel) : Blocker{});
      break;
    case kStreamGap: {
      Blocker why;
      if (explain_) {
        why.cause = Cause::stream_order;
        why.at = now_;
        why.what = RefKind::op;
        why.op = ev.b;
        why.stream = cmds_[ev.a].stream;
      }
      satisfy(ev.a, why);
      break;
    }
    default:
      assert(false);
  }
  drain();
}

void GpuModel::drain() {
  while (dirty_head_ < dirty_.size()) {
    const std::uint32_t q = dirty_[dirty_head_++];
    queues_[q].dirty = false;
    advance_queue(q);
  }
  dirty_.clear();
  dirty_head_ = 0;
}

// A hardware queue hands commands to the device strictly in order: a command whose prerequisites are not
// met blocks every command behind it, whatever stream they belong to (false serialization).
void GpuModel::advance_queue(std::uint32_t qi) {
  Queue& q = queues_[qi];
  Blocker behind;
  bool have_behind = false;
  while (q.head != kNone) {
    const std::uint32_t c = q.head;
    Command& x = cmds_[c];
    if (x.pending != 0) break;
    // What comes next lies in cold lines (commands are issued long before the device reaches them, into
    // whichever slots were free): ask for the op's times, which dispatching it reads, and for the next
    // command of the queue, which the loop reads after that, so that the two misses overlap.
    if (x.kind == CmdKind::op) __builtin_prefetch(&slot_times_[x.aux]);
    q.head = x.next_in_queue;
    if (q.head == kNone) {
      q.tail = kNone;
    } else {
      __builtin_prefetch(&cmds_[q.head]);
    }
    x.next_in_queue = kNone;
    x.state = ActivityState::ready;
    if (explain_) {
      if (OpExplanation* e = exp(c)) {
        e->dequeued = now_;
        if (have_behind && e->ready < now_) e->dequeued_by = behind;
      }
      behind = describe(c, Cause::connection_queue);
      have_behind = true;
    }
    const std::uint32_t next = x.next_in_stream;
    dispatch(c);
    if (next != kNone && cmds_[next].chained) satisfy(next, explain_ ? describe(c, Cause::stream_order) : Blocker{});
  }
}

void GpuModel::dispatch(std::uint32_t c) {
  Command& x = cmds_[c];
  switch (x.work) {
    case Work::none:
      x.state = ActivityState::running;
      if (x.kind == CmdKind::op) {
        slot_times_[x.aux].start = now_;
        if (OpExplanation* e = exp(c)) e->started = now_;
      }
      complete(c);
      return;
    case Work::fixed: {
      x.state = ActivityState::running;
      const model::Op& op = w_->ops[x.payload];
      slot_times_[x.aux].start = now_;
      if (OpExplanation* e = exp(c)) e->started = now_;
      queue_.push(now_ + ceil_ns(static_cast<double>(op.bytes) / p_.memset), kFixedDone, c, 0);
      return;
    }
    case Work::copy:
      copy_enqueue(c);
      return;
    case Work::host_worker:
      worker_enqueue(c);
      return;
    case Work::sms:
      kernel_enqueue(c);
      return;
  }
}

// ---------------------------------------------------------------------------------------------------
// Block scheduler

std::uint32_t GpuModel::head_run() noexcept {
  if (pending_kernels_ == 0) return kNone;
  while (level_head_[first_level_] == kNone) ++first_level_;  // a pending kernel exists at or after it
  return level_head_[first_level_];
}

// Within a level only the head can have placed blocks (FIFO, left-over), so the resident grids with blocks
// left are level heads.
std::uint32_t GpuModel::resident_with_blocks_left() const noexcept {
  for (std::size_t level = first_level_; level < level_head_.size(); ++level) {
    const std::uint32_t r = level_head_[level];
    if (r != kNone && runs_[r].resident) return r;
  }
  return kNone;
}

std::uint32_t GpuModel::preferred_racing_kernel(std::uint32_t c, Nanos& at) const {
  const std::uint32_t stream = cmds_[c].stream;
  std::uint32_t found = kNone;
  queue_.for_each_due_by(now_ + kernel_race_window_, [&](const SimEvent& ev) {
    const std::uint8_t kind = ev.kind();
    if (kind != kArrival && kind != kSatisfy && kind != kStreamGap) return;
    const Command& y = cmds_[ev.a];
    if (y.kind != CmdKind::op || y.work != Work::sms || y.pending != 1 || !y.queued) return;
    if (queues_[y.queue].head != ev.a) return;  // any priority level: the first to arrive takes the room (run 106)
    const bool preferred = kernel_race_ == KernelRace::lower_stream_first ? y.stream < stream : y.stream > stream;
    if (preferred && (found == kNone || ev.time < at)) {
      found = ev.a;
      at = ev.time;
    }
  });
  return found;
}

void GpuModel::kernel_enqueue(std::uint32_t c, bool may_hold, Blocker trigger) {
  // A race the GPU decides either way from run to run (kernel_race.hpp): a kernel the rule prefers due
  // within the window goes first; this one comes back when it has arrived (the release's seq is later).
  if (may_hold && kernel_race_ != KernelRace::ready_order) {
    Nanos at = 0;
    const std::uint32_t winner = preferred_racing_kernel(c, at);
    if (winner != kNone) {
      queue_.push(at, kKernelRelease, c, winner);
      return;
    }
  }
  const std::uint32_t r = reuse_or_grow(runs_, free_runs_);
  const Command& x = cmds_[c];
  KernelRun& k = runs_[r];
  // Field by field, not `k = KernelRun{}`: the temporary's copy stalls on store forwarding.
  k.cmd = c;
  k.op = x.payload;
  // Worked out here, not at issue: a table of them per command in flight would hold one per kernel the
  // host has issued ahead of the device (all of them, when it never waits). A kernel of a class has its
  // class and block time where its start time will go (prepare()).
  const Nanos packed = slot_times_[x.aux].start;
  k.info = packed < -1 ? class_kernel_info(packed) : kernel_info(x.payload, false);
  k.blocks = k.info.blocks;
  k.next_block = 0;
  k.done_blocks = 0;
  k.next_pending = kNone;
  k.next_task = 0;
  k.level = streams_[x.stream].level;
  k.ready_at = now_;
  k.resident = false;
  k.started = false;
  if (level_tail_[k.level] == kNone) {
    level_head_[k.level] = r;
  } else {
    runs_[level_tail_[k.level]].next_pending = r;
  }
  level_tail_[k.level] = r;
  first_level_ = pending_kernels_ == 0 ? k.level : std::min<std::uint32_t>(first_level_, k.level);
  ++pending_kernels_;
  try_dispatch_blocks(kNone, false, trigger);
}

std::uint32_t GpuModel::find_sm(const BlockNeed& need) {
  const auto n = static_cast<std::uint32_t>(sms_.size());
  std::uint32_t i = cursor_;
  for (std::uint32_t tried = 0; tried < n; ++tried) {
    if (sms_[i].fits(need)) {
      cursor_ = i + 1 == n ? 0 : i + 1;
      return i;
    }
    i = i + 1 == n ? 0 : i + 1;
  }
  return kNone;
}

// Places pending blocks in order: highest-priority level first, kernels FIFO within a level, a kernel's
// blocks in index order. A later kernel gets room only once every earlier one has placed all its blocks
// (the left-over policy); running blocks are never preempted. `freed_sm` names the one SM whose room just
// grew (kNone: rescan all), so the common case "head still does not fit" costs O(1).
// A head that waits for a grid slot (max_resident_grids) holds back only grids without one: the resident
// grids that still have blocks to place hold the slots and give them back only by finishing, so they keep
// placing, in dispatch order (waiting for the head, with priorities, they could never finish).
void GpuModel::try_dispatch_blocks(std::uint32_t freed_sm, bool replacement, Blocker trigger) {
  if (explain_ && trigger.cause != Cause::none)
    trigger.cause = head_waits_for_grid_ ? Cause::resident_grids : Cause::sm_room;
  for (;;) {
    std::uint32_t r = head_run();
    if (r == kNone) return;
    head_waits_for_grid_ = !runs_[r].resident && resident_ >= p_.max_resident_grids;
    if (head_waits_for_grid_) {
      const std::uint32_t holder = resident_with_blocks_left();
      if (holder == kNone) {
        blocked_head_ = r;
        blocked_on_grids_ = true;
        return;
      }
      r = holder;
    }
    KernelRun& k = runs_[r];
    const BlockNeed& need = k.info.need;
    // Known not to fit anywhere but possibly on the SM that just freed room: look only there.
    const bool known_blocked = blocked_head_ == r && !blocked_on_grids_;
    const std::uint32_t sm =
        known_blocked ? (freed_sm != kNone && sms_[freed_sm].fits(need) ? freed_sm : kNone) : find_sm(need);
    if (sm == kNone) {
      blocked_head_ = r;
      blocked_on_grids_ = false;
      return;
    }
    if (!known_blocked) {
      blocked_head_ = kNone;
      blocked_on_grids_ = false;
    }
    const Nanos delay = replacement ? k.info.dispatch_ns : 0;
    const bool first = k.next_block == 0;
    if (first && explain_) {
      if (OpExplanation* e = exp(k.cmd)) {
        e->started = now_ + delay;
        if (trigger.cause != Cause::none) e->started_by = trigger;
      }
    }
    start_block(r, sm, now_ + delay);
    // Searching all SMs (not just the freed one): the rest of the grid can follow into free room at once.
    if (!known_blocked) fill_wave(r);
    KernelRun& kk = runs_[r];  // start_block may grow runs_? no, but slots_ may grow; keep a fresh ref
    if (kk.next_block == kk.blocks) {
      // Every block placed: the next kernel in order becomes the head.
      level_head_[kk.level] = kk.next_pending;
      if (kk.next_pending == kNone) level_tail_[kk.level] = kNone;
      --pending_kernels_;
      if (blocked_head_ == r) blocked_head_ = kNone;
      if (explain_) {
        const std::uint32_t next = head_run();
        Blocker b = describe(kk.cmd, Cause::earlier_kernel);
        if (next != kNone && runs_[next].level > kk.level) b.cause = Cause::higher_priority;
        trigger = b;
      }
    }
  }
}

// The blocks that follow a fixed-time grid's block into free room, with no launch-rate limit, start when
// it did (launch_free_ stays at its start) and end with it, so they join its wave: what is left per block
// is this loop's SM search and room, exactly as try_dispatch_blocks would do them one by one. Stops at the
// first block that fits nowhere (try_dispatch_blocks then finds the same and records the head blocked).
void GpuModel::fill_wave(std::uint32_t r) {
  KernelRun& k = runs_[r];
  if (open_wave_ == kNone || k.info.dur != DurationKind::fixed || k.info.launch_ns != 0) return;
  Wave& w = waves_[open_wave_];
  if (w.run != r || w.first_block + w.blocks != k.next_block || w.next_seq != queue_.pushed()) return;
  const BlockNeed need = k.info.need;
  const Nanos start = launch_free_;
  const std::uint32_t first = k.next_block;
  const auto n = static_cast<std::uint32_t>(sms_.size());
  while (k.next_block < k.blocks) {
    // find_sm's first candidate usually fits (room spreads breadth-first): try it inline.
    std::uint32_t sm = cursor_;
    if (!sms_[sm].fits(need)) {
      sm = find_sm(need);
      if (sm == kNone) break;
    }
    // The next block's search starts at the SM after this one, which usually fits too: place on
    // consecutive SMs while they do (up to the last SM; the search then wraps to SM 0).
    const std::uint32_t last = std::min<std::uint32_t>(n, sm + (k.blocks - k.next_block));
    std::uint32_t end = sm;
    do {
      sms_[end].take(need);
      if (record_blocks_) placements_.push_back(model::BlockPlacement{k.op, k.next_block + (end - sm), end, start, w.end});
      ++end;
    } while (end < last && sms_[end].fits(need));
    cursor_ = end == n ? 0 : end;
    w.add(sm, end - sm);
    k.next_block += end - sm;
  }
  // Each joined block takes the seq its own event would have had.
  const std::uint32_t placed = k.next_block - first;
  stats_.blocks += placed;
  queue_.take_seqs(placed);
  w.next_seq = queue_.pushed();
}

void GpuModel::start_block(std::uint32_t r, std::uint32_t sm, Nanos start) {
  KernelRun& k = runs_[r];
  const KernelInfo& info = k.info;
  // The work distributor launches warps at a bounded rate, device-wide: a block starts once the warps of
  // the blocks launched before it have gone out.
  if (launch_free_ > start) start = launch_free_;
  launch_free_ = start + info.launch_ns;
  SmRoom& room = sms_[sm];
  room.take(info.need);
  const std::uint32_t block = k.next_block++;
  if (!k.resident) {
    k.resident = true;
    ++resident_;
  }
  if (!k.started) {
    k.started = true;
    times_of(k.cmd).start = start;
    cmds_[k.cmd].state = ActivityState::running;
    // Asked for now, what the kernel's completion reads that the host set up long before: the state of
    // the event its stream's next command records and that record's first waiter. A random DAG's ops
    // record an event each, reused in any order: at ten million ops that state was a cache miss at nearly
    // every completion. (Written here, not in a helper of its own: GCC finds such a helper free of side
    // effects and drops its calls.)
    const std::uint32_t next = cmds_[k.cmd].next_in_stream;
    if (next != kNone && cmds_[next].kind == CmdKind::record) {
      __builtin_prefetch(&events_[cmds_[next].payload]);
      if (cmds_[next].successors != kNone) __builtin_prefetch(&edges_[cmds_[next].successors]);
    }
  }
  ++stats_.blocks;

  Nanos end = start;
  std::uint8_t kind = kBlockDone;
  switch (info.dur) {
    case DurationKind::fixed: end = start + info.fixed_ns; break;
    case DurationKind::per_block: end = start + std::get<model::PerBlockList>(w_->ops[k.op].duration).ns[block]; break;
    case DurationKind::static_pool: end = start + static_sums_.find(k.op)->second[block]; break;
    case DurationKind::dynamic_pool: {
      // The block takes the next task from the shared counter as soon as it runs.
      const model::TaskList& tasks = *w_->ops[k.op].tasks;
      if (k.next_task < tasks.task_ns.size()) {
        end = start + info.task_ns_extra + tasks.task_ns[k.next_task++];
        kind = kTaskDone;
      }
      break;
    }
  }
  if (record_blocks_) placements_.push_back(model::BlockPlacement{k.op, block, sm, start, end});
  schedule_block_end(r, block, sm, end, kind);
}

void GpuModel::schedule_block_end(std::uint32_t r, std::uint32_t block, std::uint32_t sm, Nanos end,
                                  std::uint8_t kind) {
  if (open_wave_ != kNone) {
    Wave& w = waves_[open_wave_];
    // Its own event would come right after the wave's last block: same run, same instant, next seq.
    if (w.run == r && w.end == end && w.next_seq == queue_.pushed() && w.first_block + w.blocks == block) {
      assert(w.first_placement == kNone || w.first_placement + w.blocks + 1 == placements_.size());
      w.add(sm);
      queue_.take_seqs(1);
      w.next_seq = queue_.pushed();
      return;
    }
  }
  const std::uint32_t wi = reuse_or_grow(waves_, free_waves_);
  Wave& w = waves_[wi];
  w.run = r;
  w.first_block = block;
  w.first_placement = record_blocks_ ? static_cast<std::uint32_t>(placements_.size() - 1) : kNone;
  w.end = end;
  w.sms.clear();
  w.blocks = 0;
  w.add(sm);
  queue_.push(end, kind, wi, 0);
  w.next_seq = queue_.pushed();
  // A task pool's block steps task by task on its own event: never merged.
  open_wave_ = merge_waves_ && kind == kBlockDone ? wi : kNone;
}

void GpuModel::wave_done(std::uint32_t w) {
  const std::uint32_t n = waves_[w].blocks;
  std::size_t run = 0;     // block i sits at offset `at` of SM run `run`
  std::uint32_t at = 0;
  for (std::uint32_t i = 0; i < n;) {
    if (i > 0) {
      // What process() does between two events: finish the previous block's consequences, count this one.
      drain();
      count_events(1);
    }
    const Wave& wave = waves_[w];  // re-read: ending a block may place blocks and grow waves_
    KernelRun& k = runs_[wave.run];
    // No kernel waiting for room (nothing pending stays so: a block's end changes that only by completing
    // its kernel): the blocks before the kernel's last one only give their room back.
    const std::uint32_t quiet = merge_waves_ && pending_kernels_ == 0 ? std::min(n - i, k.blocks - k.done_blocks - 1) : 0;
    if (quiet > 0) {
      count_events(quiet - 1);  // block i is counted already
      const BlockNeed need = k.info.need;
      for (std::uint32_t left = quiet; left > 0;) {
        const Wave::SmRun& sms = wave.sms[run];
        const std::uint32_t here = std::min(left, sms.count - at);
        for (std::uint32_t sm = sms.first + at; sm < sms.first + at + here; ++sm) sms_[sm].give(need);
        left -= here;
        at += here;
        if (at == sms.count) {
          ++run;
          at = 0;
        }
      }
      if (wave.first_placement != kNone)
        for (std::uint32_t j = i; j < i + quiet; ++j) placements_[wave.first_placement + j].end_ns = now_;
      k.done_blocks += quiet;
      i += quiet;
      continue;
    }
    const std::uint32_t sm = wave.sms[run].first + at;
    if (++at == wave.sms[run].count) {
      ++run;
      at = 0;
    }
    const std::uint32_t placement = wave.first_placement == kNone ? kNone : wave.first_placement + i;
    const std::uint32_t r = wave.run;
    if (!refill_in_place(r, sm, placement)) block_done(r, sm, placement);
    ++i;
  }
  free_waves_.push_back(w);
}

// What block_done + try_dispatch_blocks do when the head kernel is known to fit nowhere (blocked_head_):
// the freed SM is the only candidate; if the head fits there it gets one block, starting dispatch_ns
// later, and the search stops once a second block does not fit. Certain here, so the search is skipped;
// the replacements of one wave's blocks join one wave.
bool GpuModel::refill_in_place(std::uint32_t r, std::uint32_t sm, std::uint32_t placement) {
  // Explanations note what started each kernel: block_done. Without merging: the reference path.
  if (explain_ || !merge_waves_ || pending_kernels_ == 0) return false;
  KernelRun& k = runs_[r];
  if (k.done_blocks + 1 == k.blocks) return false;  // completes its kernel
  const std::uint32_t h = head_run();
  if (h != blocked_head_ || blocked_on_grids_) return false;
  const KernelRun& head = runs_[h];
  if (!head.resident && resident_ >= p_.max_resident_grids) return false;
  if (head.next_block + 1 >= head.blocks) return false;  // its last block: the next kernel gets a search
  SmRoom room = sms_[sm];
  room.give(k.info.need);
  if (!room.fits(head.info.need)) return false;
  SmRoom after = room;
  after.take(head.info.need);
  if (after.fits(head.info.need)) return false;  // a second block would follow
  sms_[sm] = room;
  if (placement != kNone) placements_[placement].end_ns = now_;
  ++k.done_blocks;
  start_block(h, sm, now_ + head.info.dispatch_ns);
  return true;
}

void GpuModel::block_done(std::uint32_t r, std::uint32_t sm, std::uint32_t placement) {
  KernelRun& k = runs_[r];
  const KernelInfo& info = k.info;
  SmRoom& room = sms_[sm];
  room.give(info.need);
  if (placement != kNone) placements_[placement].end_ns = now_;
  Blocker trigger;
  if (explain_) trigger = describe(k.cmd, Cause::sm_room);
  else trigger.cause = Cause::sm_room;
  if (++k.done_blocks == k.blocks) {
    --resident_;
    const std::uint32_t c = k.cmd;
    free_runs_.push_back(r);
    complete(c);
  }
  try_dispatch_blocks(sm, true, trigger);
}

// ---------------------------------------------------------------------------------------------------
// Copy engines: one FIFO per engine (same direction serializes, priorities are ignored); a copy is a
// latency phase then its bytes at the engine's rate, which drops to rate * the copy's own direction's
// factor (h2d_/d2h_bidirectional_factor) while the opposite direction's engine is also running.

bool GpuModel::opposite_busy(std::uint8_t dir) const noexcept {
  if (dir == 2) return false;
  const std::uint32_t mine = engine_of_dir_[dir];
  const std::uint32_t other = engine_of_dir_[1 - dir];
  if (mine == other) return false;
  const CopyEngine& e = engines_[other];
  return e.running != kNone && !e.recording && e.dir == 1 - dir;
}

void GpuModel::copy_enqueue(std::uint32_t c) {
  const std::uint8_t dir = copy_dir(w_->ops[cmds_[c].payload].kind);
  const std::uint32_t ei = engine_of_dir_[dir];
  CopyEngine& e = engines_[ei];
  if (e.tail == kNone) {
    e.head = c;
  } else {
    cmds_[e.tail].next_in_queue = c;
  }
  e.tail = c;
  if (e.running == kNone) copy_start(ei);
}

void GpuModel::copy_start(std::uint32_t ei) {
  CopyEngine& e = engines_[ei];
  // The engine stays with the copy queue it served last while that queue has a copy waiting (run 5: the
  // copies of one queue back to back, then the next queue's), else takes the longest waiting, or with
  // bit_reversed_copy_queues_ the next queue in bit-reversed order (model/copy_arbitration.hpp).
  std::uint32_t c = e.head, before = kNone;
  bool stays = false;
  for (std::uint32_t p = kNone, y = e.head; y != kNone; p = y, y = cmds_[y].next_in_queue)
    if (cmds_[y].queue == e.last_queue) {
      c = y;
      before = p;
      stays = true;
      break;
    }
  if (!stays && bit_reversed_copy_queues_ && e.last_queue != kNone) {
    // The next queue after the last one served in the arbitration order, its oldest copy first.
    const std::uint32_t last = copy_queue_slot(e.last_queue);
    std::uint32_t best = ~0u;
    for (std::uint32_t p = kNone, y = e.head; y != kNone; p = y, y = cmds_[y].next_in_queue) {
      const std::uint32_t d = model::bit_reversed_distance(last, copy_queue_slot(cmds_[y].queue), copy_pool_);
      if (d < best) {
        best = d;
        c = y;
        before = p;
      }
    }
  }
  if (before == kNone) {
    e.head = cmds_[c].next_in_queue;
  } else {
    cmds_[before].next_in_queue = cmds_[c].next_in_queue;
  }
  if (e.tail == c) e.tail = before;
  e.last_queue = cmds_[c].queue;
  cmds_[c].next_in_queue = kNone;
  cmds_[c].state = ActivityState::running;
  const model::Op& op = w_->ops[cmds_[c].payload];
  const std::uint8_t dir = copy_dir(op.kind);
  const bool pageable = op.host_memory == model::HostMemory::pageable && op.kind != model::OpKind::prefetch;
  Nanos latency = 0;
  double rate = 0;
  switch (dir) {
    case 0: latency = p_.h2d_latency; rate = pageable ? p_.h2d_pageable : p_.h2d_pinned; break;
    case 1: latency = p_.d2h_latency; rate = pageable ? p_.d2h_pageable : p_.d2h_pinned; break;
    default: latency = p_.d2d_latency; rate = p_.d2d; break;
  }
  e.running = c;
  e.dir = dir;
  e.remaining = static_cast<double>(op.bytes);
  e.base_rate = rate;
  e.rate = opposite_busy(dir) ? rate * p_.bidirectional_factor[dir] : rate;
  e.last_update = now_ + latency;
  times_of(c).start = now_;
  if (OpExplanation* x = exp(c)) {
    x->started = now_;
    if (x->dequeued < now_) {
      x->started_by.cause = Cause::copy_engine;
      x->started_by.at = now_;
      x->started_by.what = RefKind::op;
      x->started_by.op = e.last_op;
      x->started_by.stream = e.last_op != kNoRef ? stream_of_op(e.last_op) : kNoRef;
    }
  }
  copy_schedule(ei);
  rerate_opposite(ei, dir);
}

std::uint32_t GpuModel::copy_queue_slot(std::uint32_t queue) const noexcept {
  // A copy queue is connections_ + engine * copy_pool_ + stream % copy_pool_, and the first stream made
  // (stream 1) is the one the arbitration starts from: its slot is (stream - 1) % copy_pool_.
  return ((queue - connections_) % copy_pool_ + copy_pool_ - 1) % copy_pool_;
}

void GpuModel::copy_schedule(std::uint32_t ei) {
  CopyEngine& e = engines_[ei];
  ++e.gen;
  queue_.push(e.last_update + ceil_ns(e.remaining / e.rate), kCopyDone, ei, e.gen);
}

void GpuModel::rerate_opposite(std::uint32_t ei, std::uint8_t dir) {
  if (dir == 2) return;
  const std::uint32_t other = engine_of_dir_[1 - dir];
  if (other != ei && engines_[other].running != kNone) copy_rerate(other);
}

void GpuModel::copy_rerate(std::uint32_t ei) {
  CopyEngine& e = engines_[ei];
  if (e.recording) return;  // its bytes are moved: no rate left to change
  const double rate = opposite_busy(e.dir) ? e.base_rate * p_.bidirectional_factor[e.dir] : e.base_rate;
  if (rate == e.rate) return;
  if (now_ > e.last_update) {  // past the latency phase: account the bytes moved at the old rate
    e.remaining = std::max(0.0, e.remaining - static_cast<double>(now_ - e.last_update) * e.rate);
    e.last_update = now_;
  }
  e.rate = rate;
  copy_schedule(ei);
}

void GpuModel::copy_done(std::uint32_t ei, std::uint32_t gen) {
  CopyEngine& e = engines_[ei];
  if (gen != e.gen || e.running == kNone) return;  // superseded by a re-rate
  const std::uint32_t c = e.running;
  const std::uint8_t dir = e.dir;
  const bool records = p_.copy_record > 0 && w_->ops[cmds_[c].payload].kind != model::OpKind::prefetch;
  if (records && !e.recording) {
    // A traced run: the bytes are moved (the copy's span ends here), then the engine writes the copy's
    // completion record; the link is free for the other direction meanwhile.
    e.recording = true;
    e.transfer_end = now_;
    queue_.push(now_ + p_.copy_record, kCopyDone, ei, ++e.gen);
    rerate_opposite(ei, dir);
    return;
  }
  const bool recorded = e.recording;
  e.recording = false;
  e.running = kNone;
  e.last_op = cmds_[c].payload;
  complete(c);
  if (recorded && cmds_[c].kind == CmdKind::op) {
    slot_times_[cmds_[c].aux].end = e.transfer_end;
    if (OpExplanation* x = exp(c)) x->ended = e.transfer_end;
  }
  if (e.running == kNone && e.head != kNone) copy_start(ei);
  rerate_opposite(ei, dir);
}

// ---------------------------------------------------------------------------------------------------
// Host-callback thread: CUDA runs every host function of a context on one driver thread, in the order
// the streams reach them. A host function holds its stream for the round trip plus its own run time.

void GpuModel::worker_enqueue(std::uint32_t c) {
  if (worker_.tail == kNone) {
    worker_.head = c;
  } else {
    cmds_[worker_.tail].next_in_queue = c;
  }
  worker_.tail = c;
  if (worker_.running == kNone) worker_start();
}

void GpuModel::worker_start() {
  const std::uint32_t c = worker_.head;
  worker_.head = cmds_[c].next_in_queue;
  if (worker_.head == kNone) worker_.tail = kNone;
  Command& x = cmds_[c];
  x.next_in_queue = kNone;
  x.state = ActivityState::running;
  worker_.running = c;
  Nanos d = p_.host_func_roundtrip;
  if (x.kind == CmdKind::op) {
    d += w_->ops[x.payload].host_ns;
    slot_times_[x.aux].start = now_;
    if (OpExplanation* e = exp(c)) {
      e->started = now_;
      if (e->dequeued < now_) {
        e->started_by.cause = Cause::host_worker;
        e->started_by.at = now_;
        e->started_by.what = worker_.last_kind;
        e->started_by.op = worker_.last_op;
      }
    }
  } else {
    // cudaLaunchHostFunc: the function runs when its stream reaches it.
    if (auto& fn = callbacks_[x.payload]) fn();
    callbacks_[x.payload] = nullptr;
  }
  queue_.push(now_ + d, kWorkerDone, c, 0);
}

void GpuModel::worker_done(std::uint32_t c) {
  worker_.running = kNone;
  worker_.last_kind = ref_kind(cmds_[c].kind);
  worker_.last_op = cmds_[c].kind == CmdKind::op ? cmds_[c].payload : explain_ ? refs_[c].op : kNoRef;
  complete(c);
  if (worker_.head != kNone) worker_start();
}

// ---------------------------------------------------------------------------------------------------

namespace {
/// Frees a vector's memory (clear() keeps its capacity).
template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}
}  // namespace

std::vector<model::Span> GpuModel::take_spans() {
#if defined(__GLIBC__)
  // What the run freed before (the Dispatcher's per-op arrays, say) sits in the middle of the heap, where
  // free() keeps it: hand its pages back so that the spans' peak is not on top of them. The command table
  // goes after the trim and keeps its pages: the spans fit in its reserved room (three commands of 32
  // bytes per op) and take it, so most of their pages are ones the commands touched already, not fresh
  // ones (at ten million ops a fresh page cost the system microseconds).
  if (trim_heap_) malloc_trim(0);
#endif
  // The run is over: its commands, edges, runs and waves go before the spans are made, so the spans
  // do not come on top of them at the process's peak.
  release(cmds_);
  release(refs_);
  free_cmd_ = kNone;
  release(edges_);
  free_edge_ = kNone;
  release(runs_);
  release(free_runs_);
  release(waves_);
  release(free_waves_);
  std::vector<model::Span> out;
  if (w_ == nullptr) return out;
  out.reserve(w_->ops.size());
  // Slots are in issue order: op order reads them at random, so ask for them some ops ahead.
  constexpr std::size_t kAhead = 16;
  for (std::size_t i = 0; i < w_->ops.size(); ++i) {
    if (i + kAhead < op_slot_.size() && (op_slot_[i + kAhead] & kUnissued) == 0) {
      const auto ahead = static_cast<std::uint32_t>(op_slot_[i + kAhead]);
      __builtin_prefetch(slot_times_.data() + ahead);
      __builtin_prefetch(slot_stream_.data() + ahead);
    }
    model::prefetch_ahead(w_->ops, i);
    if ((op_slot_[i] & kUnissued) != 0) continue;  // never issued
    const auto slot = static_cast<std::uint32_t>(op_slot_[i]);
    if (slot_times_[slot].end < 0) continue;
    const model::Op& op = w_->ops[i];
    model::Span& s = out.emplace_back();
    s.op = static_cast<model::OpIndex>(i);
    s.op_id = op.id;
    s.name = op.name.empty() ? op.id : op.name;
    s.kind = op.kind;
    s.stream = slot_stream_[slot];
    s.engine = model::engine_for(op.kind);
    s.start_ns = slot_times_[slot].start;
    s.end_ns = slot_times_[slot].end;
    // A traced kernel's record is wider than its blocks' span (reporting only). All of the width goes
    // before the first block: the kernel's completion, which the host and later work see, stays the
    // record's end, so no host wait is reported as resuming before the kernel it waited for ended.
    if (p_.span_pad > 0 && model::runs_on_sms(op.kind)) s.start_ns = std::max<Nanos>(0, s.start_ns - p_.span_pad);
  }
  release(slot_times_);
  release(slot_stream_);
  release(op_slot_);
  return out;
}

const OpExplanation* GpuModel::explanation(model::OpIndex op) const {
  if (!explain_) return nullptr;
  const OpExplanation* e = nullptr;
  if (explain_only_ == kNone) {
    if (op < exps_.size()) e = &exps_[op];
  } else if (op == explain_only_ && !exps_.empty()) {
    e = &exps_[0];
  }
  return e != nullptr && e->valid ? e : nullptr;
}

}  // namespace streamlab::sim::detail
