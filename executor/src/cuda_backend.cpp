#include "streamlab/executor/cuda_backend.hpp"
#include "streamlab/executor/clock_link.hpp"
#include "streamlab/model/errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "streamlab/executor/barrier.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/model/trace.hpp"

namespace streamlab::executor {

using model::OpKind;
using Clock = std::chrono::steady_clock;

namespace {


std::int64_t steady_ns(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// Our spin kernel uses few registers, so a shape's register pressure would not limit residency on the
// GPU as it does in the simulator. Reproduce the limit with shared memory: ask for just enough per block
// that no more blocks fit on an SM than the shape's registers allow.
unsigned effective_shared_bytes(const model::KernelShape& sh, const cudaDeviceProp& p) {
  unsigned shared = sh.shared_mem_bytes;
  const std::uint64_t threads = std::max<std::uint64_t>(1, sh.threads_per_block());
  const std::uint64_t warps = (threads + 31) / 32;
  const std::uint64_t regs_per_warp = (std::uint64_t{sh.registers_per_thread} * 32 + 255) / 256 * 256;
  if (regs_per_warp == 0) return shared;
  const std::uint64_t by_regs = std::max<std::uint64_t>(1, p.regsPerMultiprocessor / (regs_per_warp * warps));
  const std::uint64_t by_threads = static_cast<std::uint64_t>(p.maxThreadsPerMultiProcessor) / threads;
  const std::uint64_t by_blocks = static_cast<std::uint64_t>(p.maxBlocksPerMultiProcessor);
  const std::uint64_t reserved = p.reservedSharedMemPerBlock;
  const std::uint64_t by_shared = p.sharedMemPerMultiprocessor / (shared + reserved);
  if (by_regs >= std::min({by_threads, by_blocks, by_shared})) return shared;
  const std::uint64_t per_block = p.sharedMemPerMultiprocessor / by_regs;
  std::uint64_t s = per_block > reserved ? (per_block - reserved) / 128 * 128 : 0;
  s = std::min<std::uint64_t>(s, p.sharedMemPerBlockOptin);
  return std::max<unsigned>(shared, static_cast<unsigned>(s));
}

dim3 to_dim3(const model::Dim3& d) { return dim3(d.x, d.y, d.z); }

// Host waits spin on the query, as cudaStreamSynchronize does by default, yielding every 64 polls (a
// no-op on an idle core): the wake-up stays within one query of the completion, where a sleeping poll
// would add tens of microseconds to every host synchronization of the measured program.
template <class Done>
bool spin_until(Done&& done, std::chrono::nanoseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (std::uint32_t k = 1; !done(); ++k) {
    if ((k & 63U) != 0) continue;
    if (Clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// cudaSuccess -> true, cudaErrorNotReady -> false, anything else throws naming `what`.
bool query_ready(cudaError_t st, const char* call, const std::string& what) {
  if (st == cudaSuccess) return true;
  if (st == cudaErrorNotReady) return false;
  detail::throw_cuda_error(st, call, __FILE__, __LINE__, what);
}

[[noreturn]] void blocked_in_capture() {
  throw std::logic_error(
      "graph capture: the Dispatcher blocked on the device, which does not run during capture; graph mode needs a "
      "static policy with an unbounded window (--window 0)");
}

// Runs before the event pool is built (the pool creates events on the current device).
EventPool::Options select_device(int device, EventPool::Options pool) {
  (void)query_device(device);  // a clear "no CUDA device" error first
  STREAMLAB_CUDA_CHECK(cudaSetDevice(device));
  return pool;
}

}  // namespace

std::string_view to_string(TimingMode m) noexcept {
  switch (m) {
    case TimingMode::automatic: return "auto";
    case TimingMode::cupti: return "cupti";
    case TimingMode::gpu_timer: return "gpu-timer";
    case TimingMode::events: return "events";
    case TimingMode::none: return "none";
  }
  return "?";
}

// ---- CapturedGraph --------------------------------------------------------------------------------

CapturedGraph::~CapturedGraph() {
  if (exec_ != nullptr) STREAMLAB_CUDA_LOG(cudaGraphExecDestroy(exec_));
  if (graph_ != nullptr) STREAMLAB_CUDA_LOG(cudaGraphDestroy(graph_));
}

CapturedGraph::CapturedGraph(CapturedGraph&& o) noexcept : graph_(o.graph_), exec_(o.exec_), nodes_(o.nodes_) {
  o.graph_ = nullptr;
  o.exec_ = nullptr;
  o.nodes_ = 0;
}

CapturedGraph& CapturedGraph::operator=(CapturedGraph&& o) noexcept {
  CapturedGraph tmp(std::move(o));
  std::swap(graph_, tmp.graph_);
  std::swap(exec_, tmp.exec_);
  std::swap(nodes_, tmp.nodes_);
  return *this;
}

void CapturedGraph::launch(stream_ref s) const { STREAMLAB_CUDA_CHECK_OP(cudaGraphLaunch(exec_, s.get()), "graph replay"); }

// ---- CudaBackend ----------------------------------------------------------------------------------

CudaBackend::CudaBackend(CudaBackendOptions options)
    : options_(std::move(options)),
      pool_(select_device(options_.device, options_.event_pool)) {
  STREAMLAB_CUDA_CHECK(cudaGetDeviceProperties(&props_, options_.device));
  priority_range_ = stream_priority_range();
  StreamSlot legacy;
  legacy.handle = cudaStreamLegacy;
  legacy.kind = policies::StreamKind::legacy_default;
  legacy.label = "legacy NULL stream";
  streams_.push_back(std::move(legacy));
}

CudaBackend::~CudaBackend() {
  if (capturing_) {
    if (cudaGraph_t g = end_capture(false); g != nullptr) (void)cudaGraphDestroy(g);
  }
  (void)cudaDeviceSynchronize();
  (void)cudaGetLastError();
  release_op_resources();
  for (auto& e : events_) {
    if (e.alive) pool_.release_raw(e.handle, e.timing);
  }
  if (fork_ev_ != nullptr) STREAMLAB_CUDA_LOG(cudaEventDestroy(fork_ev_));
}

std::string CudaBackend::describe_op(model::OpIndex op) const {
  if (workload_ == nullptr || op >= workload_->ops.size()) return "op #" + std::to_string(op);
  const model::Op& o = workload_->ops[op];
  std::string s = "op '" + o.id + "'";
  if (!o.name.empty() && o.name != o.id) s += " (" + o.name + ")";
  return s;
}

void CudaBackend::release_op_resources() noexcept {
  for (auto& r : ops_) {
    if (r.start_ev != nullptr) STREAMLAB_CUDA_LOG(cudaEventDestroy(r.start_ev));
    if (r.end_ev != nullptr) STREAMLAB_CUDA_LOG(cudaEventDestroy(r.end_ev));
    r.start_ev = r.end_ev = nullptr;
  }
  if (origin_ev_ != nullptr) STREAMLAB_CUDA_LOG(cudaEventDestroy(origin_ev_));
  if (closing_ev_ != nullptr) STREAMLAB_CUDA_LOG(cudaEventDestroy(closing_ev_));
  origin_ev_ = closing_ev_ = nullptr;
}

void CudaBackend::prepare(const model::Workload& workload) {
  STREAMLAB_CUDA_CHECK(cudaSetDevice(options_.device));
  STREAMLAB_CUDA_CHECK_OP(cudaDeviceSynchronize(), "prepare");
  release_op_resources();
  ops_.clear();
  host_funcs_.clear();
  calls_.clear();
  graph_nodes_.clear();
  graph_ = CapturedGraph{};
  captured_ = false;
  workload_ = &workload;
  started_ = false;
  issued_work_ = false;
  const std::size_t n = workload.ops.size();
  ops_.resize(n);
  device_calls_.clear();
  device_calls_.reserve(n + 2);

  // Timing source first: the trace needs it, and CUPTI must be on before the work it records.
  timing_ = options_.timing;
  // What only CUPTI can time: copies and memsets (copy engines run no code of ours), cost-model kernels
  // (their own code, no block records), and the graph / fault-hook paths. gpu-timer runs a program with
  // copies or memsets and leaves them untimed: every way to time a copy has the copy engine write a
  // timestamp, about 1.3 us of engine time per copy on the H100 (validation runs 85-86).
  std::string needs_cupti, copy_op;
  for (const auto& o : workload.ops) {
    if (!needs_cupti.empty()) break;
    if ((is_copy(o.kind) || o.kind == OpKind::memset) && o.bytes > 0) {
      if (copy_op.empty()) copy_op = o.id;
    } else if (o.kind == OpKind::kernel && std::holds_alternative<model::CostModel>(o.duration)) {
      needs_cupti = "op '" + o.id + "' is a cost-model kernel";
    }
  }
  if (options_.capture_graph) needs_cupti = "graph capture";
  if (options_.fault_op) needs_cupti = "the fault hook";
  if (timing_ == TimingMode::gpu_timer && !needs_cupti.empty())
    throw model::InputError("", "--timing", "", "gpu-timer cannot time this run: " + needs_cupti + " (use auto or cupti)");
  if (timing_ == TimingMode::automatic && needs_cupti.empty() && copy_op.empty() && options_.auto_gpu_timer)
    timing_ = TimingMode::gpu_timer;
  untimed_copies_ = timing_ == TimingMode::gpu_timer && !copy_op.empty();
  if (timing_ == TimingMode::gpu_timer) {
    tracer_.reset();
    // Its mapped memory now, before the set-up's synchronize, and kept for every later link (ClockLinker).
    if (!linker_) linker_ = std::make_unique<ClockLinker>(32);
  } else if (timing_ == TimingMode::automatic || timing_ == TimingMode::cupti) {
    try {
      // Graph replays are matched through node ids; every other run joins records in call order.
      const auto correlation = CuptiCorrelation::issue_order;
      if (!tracer_ || tracer_->correlation() != correlation || (options_.capture_graph && !tracer_->graph_callbacks())) {
        tracer_.reset();
        tracer_ = std::make_unique<CuptiTracer>(correlation, false, options_.capture_graph);
      }
      timing_ = TimingMode::cupti;
    } catch (const CuptiUnavailable& e) {
      cupti_problem_ = e.what();
      if (timing_ == TimingMode::cupti) throw;
      timing_ = TimingMode::events;
    }
  } else {
    tracer_.reset();
  }

  // Kernels time themselves (%globaltimer block records) unless one cannot (a cost-model kernel, the
  // fault hook) or a graph is captured: then CUPTI's kernel records stay on for the whole run.
  self_timed_ = timing_ == TimingMode::gpu_timer || (timing_ == TimingMode::cupti && !options_.capture_graph && !options_.fault_op);
  for (const auto& o : workload.ops)
    if (o.kind == OpKind::kernel && std::holds_alternative<model::CostModel>(o.duration)) self_timed_ = false;
  if (tracer_) {
    tracer_->set_kernel_records(!self_timed_);
    // Copy and memset records only when the program has copies or memsets: with no activity kind on, CUPTI
    // costs the program's launches nothing.
    bool copies = false;
    for (const auto& o : workload.ops) copies = copies || is_copy(o.kind) || o.kind == OpKind::memset;
    tracer_->set_copy_records(copies || options_.capture_graph);
  }
  std::size_t task_pools = 0;
  for (const auto& o : workload.ops) task_pools += o.kind == OpKind::task_pool ? 1 : 0;
  // One state per task pool, plus a spare for the warm-up launch.
  task_state_ = device_buffer((task_pools + 1) * sizeof(kernels::TaskPoolState), "task pool state");
  STREAMLAB_CUDA_CHECK(cudaMemset(task_state_.data(), 0, task_state_.size()));

  for (std::size_t i = 0; i < n; ++i) {
    const model::Op& o = workload.ops[i];
    OpResources& r = ops_[i];
    const std::string label = describe_op(static_cast<model::OpIndex>(i));
    r.nvtx_name = o.name.empty() ? o.id : o.name;
    const auto host_kind = o.host_memory == model::HostMemory::pinned ? MemoryKind::pinned_host : MemoryKind::pageable_host;
    switch (o.kind) {
      case OpKind::h2d:
      case OpKind::d2h:
        // Device side first: an impossible size fails there, before a huge host allocation is tried.
        r.device_a = device_buffer(o.bytes, label);
        r.host = buffer(host_kind, o.bytes, label);
        // Touch pageable pages now so the timed copy does not pay first-touch page faults.
        if (host_kind == MemoryKind::pageable_host && o.bytes > 0) std::memset(r.host.data(), 1, o.bytes);
        break;
      case OpKind::d2d:
        r.device_a = device_buffer(o.bytes, label);
        r.device_b = device_buffer(o.bytes, label);
        break;
      case OpKind::memset:
        r.device_a = device_buffer(o.bytes, label);
        break;
      case OpKind::prefetch:
        r.host = managed_buffer(o.bytes, label);
        if (o.bytes > 0) std::memset(r.host.data(), 1, o.bytes);  // resident on the host to start with
        break;
      case OpKind::kernel:
        if (const auto* list = std::get_if<model::PerBlockList>(&o.duration)) {
          r.device_a = device_buffer(list->ns.size() * sizeof(std::int64_t), label);
          STREAMLAB_CUDA_CHECK_OP(cudaMemcpy(r.device_a.data(), list->ns.data(), r.device_a.size(), cudaMemcpyHostToDevice),
                                  label);
        } else if (const auto* cost = std::get_if<model::CostModel>(&o.duration)) {
          const auto bytes = static_cast<std::size_t>(std::max(cost->bytes, 0.0));
          r.device_a = device_buffer(std::max<std::size_t>(64, (bytes + 31) / 32 * 32), label);
          STREAMLAB_CUDA_CHECK_OP(cudaMemset(r.device_a.data(), 0, r.device_a.size()), label);
        }
        break;
      case OpKind::task_pool:
        if (o.tasks && !o.tasks->task_ns.empty()) {
          r.device_a = device_buffer(o.tasks->task_ns.size() * sizeof(std::int64_t), label);
          STREAMLAB_CUDA_CHECK_OP(cudaMemcpy(r.device_a.data(), o.tasks->task_ns.data(), r.device_a.size(),
                                             cudaMemcpyHostToDevice),
                                  label);
        }
        break;
      case OpKind::host_func:
        r.host_state = std::make_unique<HostFuncState>();
        r.host_state->self = this;
        r.host_state->op = static_cast<model::OpIndex>(i);
        r.host_state->host_ns = o.host_ns;
        break;
      case OpKind::barrier:
      // Program calls need no resources: the replay makes them as event / synchronize calls.
      case OpKind::event_record:
      case OpKind::event_wait:
      case OpKind::stream_sync:
      case OpKind::event_sync:
      case OpKind::device_sync:
        break;
    }
    if (o.shape) r.shared_bytes = effective_shared_bytes(*o.shape, props_);
    if (self_timed_ && runs_on_sms(o.kind)) {
      // One record per block (per task for a task pool): where the kernel's span comes from.
      const std::size_t count = o.kind == OpKind::task_pool ? (o.tasks ? o.tasks->task_ns.size() : 0)
                                : o.shape ? std::size_t{o.shape->grid.x} * o.shape->grid.y * o.shape->grid.z
                                          : 1;
      r.block_records = device_buffer(std::max<std::size_t>(1, count) * sizeof(kernels::BlockRecord), label);
      r.record_count = static_cast<std::uint32_t>(count);
      STREAMLAB_CUDA_CHECK_OP(cudaMemset(r.block_records.data(), 0, r.block_records.size()), label);
    }
    // Timed events around the op: every op in events mode; in CUPTI mode only the kind CUPTI has no
    // record for (prefetch). A barrier has no device work: its span is placed where its dependencies and its
    // stream's previous op ended (finish); timed by events it landed 90-360 us before its own dependencies
    // on the H100 (2026-11-24, validation run 74: E9's fork-join traces), and the events were calls the
    // program does not make.
    const bool needs_events =
        !model::is_program_call(o.kind) &&
        (timing_ == TimingMode::events || ((timing_ == TimingMode::cupti || timing_ == TimingMode::gpu_timer) &&
                                            o.kind == OpKind::prefetch));
    if (needs_events) {
      STREAMLAB_CUDA_CHECK_OP(cudaEventCreate(&r.start_ev), label);
      STREAMLAB_CUDA_CHECK_OP(cudaEventCreate(&r.end_ev), label);
    }
  }
  // Load the kernels the run launches before it starts: with lazy module loading (CUDA's default) the
  // first launch of each kernel would otherwise pay the load inside the measured run.
  bool spins = false;
  for (const auto& o : workload.ops) spins = spins || (o.kind == OpKind::kernel && std::holds_alternative<model::FixedPerBlock>(o.duration));
  if (spins) STREAMLAB_CUDA_CHECK_OP(kernels::launch_spin(dim3(1), dim3(1), 0, cudaStreamLegacy, 0), "prepare (kernel load)");
  if (task_pools > 0) {
    auto* spare = task_state_.as<kernels::TaskPoolState>() + task_pools;
    STREAMLAB_CUDA_CHECK_OP(kernels::launch_task_pool(dim3(1), dim3(1), 0, cudaStreamLegacy, nullptr, 0, true, spare),
                            "prepare (kernel load)");
  }
  if (timing_ == TimingMode::events) STREAMLAB_CUDA_CHECK_OP(cudaEventCreate(&origin_ev_), "prepare");
  if (timing_ == TimingMode::cupti || timing_ == TimingMode::gpu_timer)
    STREAMLAB_CUDA_CHECK_OP(cudaEventCreate(&closing_ev_), "prepare");
  STREAMLAB_CUDA_CHECK_OP(cudaDeviceSynchronize(), "prepare");
  if (tracer_) (void)tracer_->take();  // drop prepare()'s own copies

  // The anchor kernel ties the blocks' %globaltimer to CUPTI's clock (events mode: the origin event ties
  // event times to the host's). Time 0 comes later, at the run's first call; until then the clocks read
  // from here (graph replays keep it).
  t0_host_ = Clock::now();
  anchor0_.reset();
  anchor1_.reset();
  if (timing_ == TimingMode::cupti) {
    t0_cupti_ = CuptiTracer::timestamp();
    if (anchor_records_.data() == nullptr) anchor_records_ = device_buffer(2 * sizeof(kernels::BlockRecord), "anchor kernels");
    anchor0_ = run_anchor(0);
  } else if (timing_ == TimingMode::gpu_timer) {
    anchor0_ = link_anchor(0);
  }
  if (origin_ev_ != nullptr) STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(origin_ev_, cudaStreamLegacy), "prepare");
  // The run starts on an idle device, as a program does after its setup.
  STREAMLAB_CUDA_CHECK_OP(cudaDeviceSynchronize(), "prepare");
  origin_host_ = Clock::now();  // the origin event completed by now (events mode maps it to host time)
  if (options_.capture_graph) begin_capture();
}

CudaBackend::Anchor CudaBackend::run_anchor(int slot) {
  // CUPTI's kernel record of a one-block kernel and the block's own %globaltimer reads: the same instant
  // on both clocks (midpoints, so CUPTI's pad around the block cancels). The kernel runs alone, with
  // kernel records on only around it.
  auto* rec = anchor_records_.as<kernels::BlockRecord>() + slot;
  tracer_->set_kernel_records(true);
  const cudaError_t st = kernels::launch_spin(dim3(1), dim3(32), 0, cudaStreamLegacy, 0, rec);
  STREAMLAB_CUDA_CHECK_OP(st, "anchor kernel");
  // Event-timed spans map through the closing event, right behind the closing anchor, not through an event
  // behind the first one: on the H100 (2026-11-23, executor/validation/h100-2026-11-23/run4) an event
  // recorded right behind prepare()'s anchor completed 4.3 and 4.8 ms after the kernel's CUPTI end
  // (its blocks' %globaltimer agreed with CUPTI), while events mapped through the closing one land within
  // ~3 us of the CUPTI records of the copies they follow. Mapped through both, the event scale came out
  // 2.8-3.0 and a barrier landed ~250 us before the host function it depends on.
  if (slot == 1 && closing_ev_ != nullptr) STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(closing_ev_, cudaStreamLegacy), "finish");
  STREAMLAB_CUDA_CHECK_OP(cudaDeviceSynchronize(), "anchor kernel");
  tracer_->set_kernel_records(!self_timed_);
  Anchor a;
  a.records = tracer_->take();
  // The anchor is the last kernel launched: the kernel record with the greatest correlation id.
  const ActivityRecord* k = nullptr;
  for (const auto& r : a.records)
    if (r.kind == ActivityRecord::Kind::kernel && (k == nullptr || r.correlation > k->correlation)) k = &r;
  if (k == nullptr) throw CuptiUnavailable("CUPTI returned no record of the anchor kernel");
  kernels::BlockRecord b{};
  STREAMLAB_CUDA_CHECK_OP(cudaMemcpy(&b, rec, sizeof b, cudaMemcpyDeviceToHost), "anchor kernel");
  a.cupti_end = k->end_ns;
  a.cupti_mid = (static_cast<double>(k->start_ns) + static_cast<double>(k->end_ns)) / 2;
  a.device_mid = (static_cast<double>(b.start_ns) + static_cast<double>(b.end_ns)) / 2;
  a.correlation = k->correlation;
  return a;
}

CudaBackend::Anchor CudaBackend::link_anchor(int slot) {
  // The clock service kernel on the idle device; the closing event right behind it (as behind the CUPTI
  // closing anchor), so event-timed spans map through it.
  const ClockLink link = linker_->link(cudaStreamLegacy, std::chrono::seconds(2));
  Anchor a;
  a.cupti_mid = static_cast<double>(link.host_ns);
  a.device_mid = static_cast<double>(link.device_ns);
  a.uncertainty = link.uncertainty_ns;
  a.cupti_end = static_cast<std::uint64_t>(link.last_reply_host_ns);
  if (slot == 1 && closing_ev_ != nullptr) {
    STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(closing_ev_, cudaStreamLegacy), "finish");
    a.cupti_end = static_cast<std::uint64_t>(steady_ns(Clock::now()));
    STREAMLAB_CUDA_CHECK_OP(cudaDeviceSynchronize(), "finish");
  }
  return a;
}

void CudaBackend::start_clock_now() {
  started_ = true;
  if (timing_ == TimingMode::cupti) t0_cupti_ = CuptiTracer::timestamp();
  t0_host_ = Clock::now();
}

CudaBackend::StreamSlot& CudaBackend::stream_slot(StreamId s) {
  if (s.value() >= streams_.size()) throw std::out_of_range("CudaBackend: unknown stream " + std::to_string(s.value()));
  return streams_[s.value()];
}

CudaBackend::EventSlot& CudaBackend::event_slot(EventId e) {
  if (e.value() >= events_.size() || !events_[e.value()].alive) {
    throw std::out_of_range("CudaBackend: unknown or destroyed event " + std::to_string(e.value()));
  }
  return events_[e.value()];
}

StreamId CudaBackend::create_stream(const policies::StreamDesc& desc) {
  StreamSlot slot;
  slot.kind = desc.kind;
  slot.label = desc.label;
  const auto [least, greatest] = priority_range_;
  slot.priority = std::clamp(desc.priority, greatest, least);
  switch (desc.kind) {
    case policies::StreamKind::legacy_default:
      slot.handle = cudaStreamLegacy;
      slot.priority = 0;
      break;
    case policies::StreamKind::per_thread_default:
      slot.handle = cudaStreamPerThread;
      slot.priority = 0;
      break;
    case policies::StreamKind::blocking:
      slot.owned = std::make_unique<stream>(StreamFlags::blocking, slot.priority);
      slot.handle = slot.owned->get();
      break;
    case policies::StreamKind::non_blocking:
      slot.owned = std::make_unique<stream>(StreamFlags::non_blocking, slot.priority);
      slot.handle = slot.owned->get();
      break;
  }
  // With CUPTI attached, a stream's first launch costs 20-40 us more than the plain program's first
  // launch on it (H100: executor/validation/h100-2026-11-24/run10), which is the tracer's cost and not the
  // program's. Before time 0 the backend pays it instead: one empty launch of the spin kernel on the new
  // stream, waited for, so the device is idle again when the program starts. Without CUPTI (gpu-timer
  // timing) nothing is launched: the first use of a stream and of its hardware queue (about 0.5 and 1.7 us
  // on the H100, run 48) is the program's own cost, and the measurement keeps it.
  if (slot.owned && !capturing_ && !started_ && tracer_) {
    STREAMLAB_CUDA_CHECK_OP(kernels::launch_spin(dim3(1), dim3(32), 0, slot.handle, 0, nullptr), "stream warm-up");
    STREAMLAB_CUDA_CHECK_OP(cudaStreamSynchronize(slot.handle), "stream warm-up");
    if (tracer_ && tracer_->kernel_records()) (void)tracer_->take();  // the warm-up is not an op
  }
  streams_.push_back(std::move(slot));
  return StreamId{static_cast<std::uint32_t>(streams_.size() - 1)};
}

void CudaBackend::join_capture(StreamSlot& s) {
  if (s.joined_capture) return;
  if (s.handle == cudaStreamLegacy) {
    throw std::logic_error("graph capture: the legacy NULL stream cannot be captured; use created streams");
  }
  STREAMLAB_CUDA_CHECK_OP(cudaStreamWaitEvent(s.handle, fork_ev_, 0), "graph capture (fork)");
  s.joined_capture = true;
}

const char* CudaBackend::issue(cudaStream_t s, model::OpIndex op) {
  const model::Op& o = workload_->ops[op];
  OpResources& r = ops_[op];
  issued_work_ = true;
  // A blocking copy: cudaMemcpy on the legacy NULL stream (where CUDA puts it), elsewhere the async call
  // and a synchronize of that stream (what a program writes for "this copy, now, on my stream").
  const bool legacy = s == cudaStreamLegacy;
  auto copy = [&](void* dst, const void* src, cudaMemcpyKind kind) -> const char* {
    if (o.blocking && legacy) {
      STREAMLAB_CUDA_CHECK_OP(cudaMemcpy(dst, src, o.bytes, kind), describe_op(op));
      return "cudaMemcpy";
    }
    STREAMLAB_CUDA_CHECK_OP(cudaMemcpyAsync(dst, src, o.bytes, kind, s), describe_op(op));
    if (!o.blocking) return "cudaMemcpyAsync";
    blocking_wait(s, op);
    return "cudaMemcpyAsync+cudaStreamSynchronize";
  };
  const bool makes_record = runs_on_sms(o.kind) ||
                            ((o.kind == OpKind::h2d || o.kind == OpKind::d2h || o.kind == OpKind::d2d ||
                              o.kind == OpKind::memset) && o.bytes > 0);
  if (makes_record && !capturing_ && !(self_timed_ && runs_on_sms(o.kind)))
    device_calls_.push_back(static_cast<std::int64_t>(op));
  auto* block_records = r.block_records.data() != nullptr ? r.block_records.as<kernels::BlockRecord>() : nullptr;
  switch (o.kind) {
    case OpKind::kernel: {
      const dim3 grid = o.shape ? to_dim3(o.shape->grid) : dim3(1);
      const dim3 block = o.shape ? to_dim3(o.shape->block) : dim3(1);
      if (options_.fault_op && *options_.fault_op == op) {
        STREAMLAB_CUDA_CHECK_OP(kernels::launch_fault(s), describe_op(op));
        return "cudaLaunchKernel";
      }
      if (const auto* fixed = std::get_if<model::FixedPerBlock>(&o.duration)) {
        STREAMLAB_CUDA_CHECK_OP(
            kernels::launch_spin(grid, block, r.shared_bytes, s, static_cast<std::uint64_t>(fixed->ns), block_records),
            describe_op(op));
      } else if (std::holds_alternative<model::PerBlockList>(o.duration)) {
        STREAMLAB_CUDA_CHECK_OP(
            kernels::launch_spin_per_block(grid, block, r.shared_bytes, s, r.device_a.as<std::int64_t>(), block_records),
            describe_op(op));
      } else {
        const auto& cost = std::get<model::CostModel>(o.duration);
        STREAMLAB_CUDA_CHECK_OP(kernels::launch_cost_model(grid, block, s, r.device_a.data(),
                                                           r.device_a.size() >= 64 ? r.device_a.size() : 0, cost.flops),
                                describe_op(op));
      }
      return "cudaLaunchKernel";
    }
    case OpKind::task_pool: {
      const dim3 grid = o.shape ? to_dim3(o.shape->grid) : dim3(1);
      const dim3 block = o.shape ? to_dim3(o.shape->block) : dim3(1);
      std::size_t pool_index = 0;
      for (model::OpIndex j = 0; j < op; ++j) pool_index += workload_->ops[j].kind == OpKind::task_pool ? 1 : 0;
      auto* state = task_state_.as<kernels::TaskPoolState>() + pool_index;
      const auto tasks = o.tasks ? static_cast<std::uint32_t>(o.tasks->task_ns.size()) : 0u;
      const bool dynamic = o.tasks && o.tasks->assignment == model::TaskAssignment::dynamic_queue;
      STREAMLAB_CUDA_CHECK_OP(kernels::launch_task_pool(grid, block, r.shared_bytes, s, r.device_a.as<std::int64_t>(),
                                                        tasks, dynamic, state, block_records),
                              describe_op(op));
      return "cudaLaunchKernel";
    }
    case OpKind::h2d: return copy(r.device_a.data(), r.host.data(), cudaMemcpyHostToDevice);
    case OpKind::d2h: return copy(r.host.data(), r.device_a.data(), cudaMemcpyDeviceToHost);
    case OpKind::d2d: return copy(r.device_b.data(), r.device_a.data(), cudaMemcpyDeviceToDevice);
    case OpKind::memset:
      if (o.blocking && legacy) {
        STREAMLAB_CUDA_CHECK_OP(cudaMemset(r.device_a.data(), 0, o.bytes), describe_op(op));
        return "cudaMemset";
      }
      STREAMLAB_CUDA_CHECK_OP(cudaMemsetAsync(r.device_a.data(), 0, o.bytes, s), describe_op(op));
      if (!o.blocking) return "cudaMemsetAsync";
      blocking_wait(s, op);
      return "cudaMemsetAsync+cudaStreamSynchronize";
    case OpKind::prefetch: {
      if (o.bytes == 0) return "cudaMemPrefetchAsync";
      cudaMemLocation loc{};
      loc.type = cudaMemLocationTypeDevice;
      loc.id = options_.device;
      STREAMLAB_CUDA_CHECK_OP(cudaMemPrefetchAsync(r.host.data(), o.bytes, loc, 0, s), describe_op(op));
      return "cudaMemPrefetchAsync";
    }
    case OpKind::host_func:
      STREAMLAB_CUDA_CHECK_OP(cudaLaunchHostFunc(s, &CudaBackend::host_func_trampoline, r.host_state.get()),
                              describe_op(op));
      return "cudaLaunchHostFunc";
    case OpKind::barrier:
      return "barrier";  // joins its deps through the waits the Dispatcher inserted; no device work
    case OpKind::event_record:
    case OpKind::event_wait:
    case OpKind::stream_sync:
    case OpKind::event_sync:
    case OpKind::device_sync:
      throw std::logic_error("CudaBackend: " + describe_op(op) + " is a program call; the replay makes it as its own call");
  }
  return "?";
}

void CudaBackend::blocking_wait(cudaStream_t s, model::OpIndex op) {
  const auto timeout = options_.finish_timeout;
  if (!spin_until([&] { return query_ready(cudaStreamQuery(s), "cudaStreamQuery", describe_op(op)); }, timeout)) {
    throw TimeoutError(describe_op(op), timeout,
                       "timeout: " + describe_op(op) + " did not complete within " +
                           std::to_string(timeout.count() / 1'000'000) + " ms");
  }
}

void CudaBackend::issue_raw(cudaStream_t s, model::OpIndex op) { issue(s, op); }

void CudaBackend::enqueue(StreamId sid, model::OpIndex op) {
  if (workload_ == nullptr || op >= ops_.size()) throw std::out_of_range("CudaBackend::enqueue: op outside the prepared workload");
  StreamSlot& s = stream_slot(sid);
  if (capturing_) join_capture(s);
  start_clock();
  OpResources& r = ops_[op];
  r.stream = sid;
  if (options_.nvtx) nvtx_push(r.nvtx_name.c_str());
  struct Pop {
    bool nvtx;
    ~Pop() {
      if (nvtx) nvtx_pop();
    }
  } pop{options_.nvtx};
  if (r.start_ev != nullptr && !capturing_) STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(r.start_ev, s.handle), describe_op(op));
  issue(s.handle, op);
  if (r.end_ev != nullptr && !capturing_) STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(r.end_ev, s.handle), describe_op(op));
  if (!model::is_program_call(workload_->ops[op].kind)) {
    r.prev_in_stream = s.last_op;
    r.issue_seq = ++issued_ops_;
    s.last_op = op;
  }
  if (options_.log_calls) calls_.push_back(IssuedCall{IssuedCall::Kind::op, sid.value(), op});
  if (capturing_ && tracer_) {
    cudaStreamCaptureStatus status{};
    const cudaGraphNode_t* deps = nullptr;
    std::size_t count = 0;
    if (cudaStreamGetCaptureInfo(s.handle, &status, nullptr, nullptr, &deps, nullptr, &count) == cudaSuccess && count == 1) {
      graph_nodes_.emplace_back(CuptiTracer::graph_node_id(deps[0]), op);
    }
    (void)cudaGetLastError();
  }
}

void CudaBackend::host_func_trampoline(void* user) noexcept {
  auto* st = static_cast<HostFuncState*>(user);
  const auto start = Clock::now();
  const auto until = start + std::chrono::nanoseconds(st->host_ns);
  while (Clock::now() < until) {
  }
  st->start.store(steady_ns(start), std::memory_order_relaxed);
  st->end.store(steady_ns(Clock::now()), std::memory_order_release);
}

void CudaBackend::generic_host_func(void* user) noexcept {
  try {
    (*static_cast<std::function<void()>*>(user))();
  } catch (...) {
    std::fprintf(stderr, "streamlab: a host function threw; ignored (host functions must not throw)\n");
  }
}

void CudaBackend::launch_host_func(StreamId sid, std::function<void()> fn) {
  StreamSlot& s = stream_slot(sid);
  if (capturing_) join_capture(s);
  start_clock();
  host_funcs_.push_back(std::move(fn));
  STREAMLAB_CUDA_CHECK_OP(cudaLaunchHostFunc(s.handle, &CudaBackend::generic_host_func, &host_funcs_.back()),
                          "host function on stream " + std::to_string(sid.value()));
  if (options_.log_calls) calls_.push_back(IssuedCall{IssuedCall::Kind::host_func, sid.value(), 0});
}

EventId CudaBackend::create_event(policies::EventTiming timing) {
  std::uint32_t id = 0;
  if (!free_events_.empty()) {
    id = free_events_.back();
    free_events_.pop_back();
  } else {
    id = static_cast<std::uint32_t>(events_.size());
    events_.emplace_back();
  }
  EventSlot& e = events_[id];
  e.handle = pool_.acquire_raw(timing);
  e.timing = timing;
  e.alive = true;
  e.last_op.reset();
  return EventId{id};
}

void CudaBackend::destroy_event(EventId event) {
  EventSlot& e = event_slot(event);
  pool_.release_raw(e.handle, e.timing);
  e.alive = false;
  e.handle = nullptr;
  free_events_.push_back(event.value());
}

void CudaBackend::record_event(EventId event, StreamId sid) {
  EventSlot& e = event_slot(event);
  StreamSlot& s = stream_slot(sid);
  if (capturing_) join_capture(s);
  start_clock();
  STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(e.handle, s.handle),
                          s.last_op ? describe_op(*s.last_op) : "event record on stream " + std::to_string(sid.value()));
  e.last_op = s.last_op;
  if (options_.log_calls) calls_.push_back(IssuedCall{IssuedCall::Kind::record, sid.value(), event.value()});
}

void CudaBackend::stream_wait_event(StreamId sid, EventId event) {
  EventSlot& e = event_slot(event);
  StreamSlot& s = stream_slot(sid);
  if (capturing_) join_capture(s);
  start_clock();
  STREAMLAB_CUDA_CHECK_OP(cudaStreamWaitEvent(s.handle, e.handle, 0), "stream wait for " + event_op_label(e));
  if (options_.log_calls) calls_.push_back(IssuedCall{IssuedCall::Kind::wait, sid.value(), event.value()});
}

std::string CudaBackend::event_op_label(const EventSlot& e) const {
  return e.last_op ? describe_op(*e.last_op) : std::string("an event recorded before any op");
}

std::string CudaBackend::stream_op_label(const StreamSlot& s) const {
  return s.last_op ? describe_op(*s.last_op) : std::string("stream '" + s.label + "' (no op issued)");
}

bool CudaBackend::poll_event(EventSlot& e) {
  const cudaError_t st = cudaEventQuery(e.handle);
  if (st == cudaSuccess) return true;
  if (st == cudaErrorNotReady) return false;
  detail::throw_cuda_error(st, "cudaEventQuery", __FILE__, __LINE__, "completion of " + event_op_label(e));
}

bool CudaBackend::query_event(EventId event) {
  EventSlot& e = event_slot(event);
  if (capturing_) return false;  // nothing runs during capture; never let the Dispatcher skip an edge
  return poll_event(e);
}

bool CudaBackend::query_stream(StreamId sid) {
  StreamSlot& s = stream_slot(sid);
  if (capturing_) return false;
  const cudaError_t st = cudaStreamQuery(s.handle);
  if (st == cudaSuccess) return true;
  if (st == cudaErrorNotReady) return false;
  detail::throw_cuda_error(st, "cudaStreamQuery", __FILE__, __LINE__, "completion of " + stream_op_label(s));
}

model::Nanos CudaBackend::elapsed(EventId start, EventId end) {
  return executor::elapsed(event_ref{event_slot(start).handle}, event_ref{event_slot(end).handle}, "elapsed time")
      .count();
}


policies::WaitStatus CudaBackend::synchronize_event(EventId event, model::Nanos timeout) {
  EventSlot& e = event_slot(event);
  if (capturing_) blocked_in_capture();
  start_clock();
  const bool done = spin_until(
      [&] { return query_ready(cudaEventQuery(e.handle), "cudaEventQuery", "completion of " + event_op_label(e)); },
      std::chrono::nanoseconds(timeout));
  return done ? policies::WaitStatus::ready : policies::WaitStatus::timed_out;
}

policies::WaitStatus CudaBackend::synchronize_stream(StreamId sid, model::Nanos timeout) {
  StreamSlot& s = stream_slot(sid);
  if (capturing_) blocked_in_capture();
  start_clock();
  const bool done = spin_until(
      [&] { return query_ready(cudaStreamQuery(s.handle), "cudaStreamQuery", "completion of " + stream_op_label(s)); },
      std::chrono::nanoseconds(timeout));
  return done ? policies::WaitStatus::ready : policies::WaitStatus::timed_out;
}

void CudaBackend::synchronize_stream_or_throw(StreamId sid, model::Nanos timeout) {
  if (synchronize_stream(sid, timeout) == policies::WaitStatus::ready) return;
  const StreamSlot& s = stream_slot(sid);
  throw TimeoutError(stream_op_label(s), std::chrono::nanoseconds(timeout),
                     "timeout: stream " + std::to_string(sid.value()) + " did not finish " + stream_op_label(s) +
                         " within " + std::to_string(timeout / 1000) + " us");
}

policies::WaitStatus CudaBackend::synchronize_device(model::Nanos timeout) {
  if (capturing_) return policies::WaitStatus::ready;  // the end of a captured run: nothing to wait for
  start_clock();
  const auto deadline = Clock::now() + std::chrono::nanoseconds(timeout);
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    const auto left = std::max<Clock::duration>(deadline - Clock::now(), Clock::duration::zero());
    const StreamSlot& s = streams_[i];
    if (!spin_until([&] { return query_ready(cudaStreamQuery(s.handle), "cudaStreamQuery", "completion of " + stream_op_label(s)); },
                    left)) {
      return policies::WaitStatus::timed_out;
    }
  }
  // The synchronize that ends a program's set-up, after its streams are made: every stream answered
  // idle, so cudaDeviceSynchronize returns at once, and what the driver does in it (for the streams just
  // made) falls before the program's first call, as in the hand-written program, whose set-up ends with
  // one after its streams are made (H100, 2026-11-24, runs 52-56: with it the run's first launch took a
  // median 8.2-9.6 us against 9.3-11.2 without, the hand-written program's 7.3-7.6).
  if (!issued_work_ && !capturing_) STREAMLAB_CUDA_CHECK_OP(cudaDeviceSynchronize(), "set-up synchronize");
  return policies::WaitStatus::ready;
}

std::optional<std::size_t> CudaBackend::wait_any_event(std::span<const EventId> events, model::Nanos timeout) {
  if (capturing_) blocked_in_capture();
  std::vector<EventSlot*> slots;
  slots.reserve(events.size());
  for (EventId e : events) slots.push_back(&event_slot(e));
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::nanoseconds(timeout);
  for (;;) {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (poll_event(*slots[i])) return i;
    }
    const auto now = Clock::now();
    if (now >= deadline) return std::nullopt;
    // CUDA has no wait-any: spin while completions are likely near, then back off.
    if (now - start > std::chrono::milliseconds(2)) std::this_thread::sleep_for(std::chrono::microseconds(20));
    else if (now - start > std::chrono::microseconds(50)) std::this_thread::yield();
  }
}

model::Nanos CudaBackend::now() {
  start_clock();  // a Dispatcher reads the clock just before its first call: time 0 within a decision of it
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_host_).count();
}

void CudaBackend::host_work(model::Nanos ns) {
  start_clock();
  const auto until = Clock::now() + std::chrono::nanoseconds(ns);
  while (Clock::now() < until) {
  }
}

void CudaBackend::begin_capture() {
  if (workload_ == nullptr) throw std::logic_error("CudaBackend::begin_capture: call prepare() first");
  if (capturing_) return;
  STREAMLAB_CUDA_CHECK_OP(cudaDeviceSynchronize(), "graph capture");
  if (!origin_stream_) origin_stream_ = std::make_unique<stream>(StreamFlags::non_blocking, 0);
  if (fork_ev_ == nullptr) STREAMLAB_CUDA_CHECK_OP(cudaEventCreateWithFlags(&fork_ev_, cudaEventDisableTiming), "graph capture");
  for (auto& s : streams_) s.joined_capture = false;
  // Relaxed: the Dispatcher may create events while capturing.
  STREAMLAB_CUDA_CHECK_OP(cudaStreamBeginCapture(origin_stream_->get(), cudaStreamCaptureModeRelaxed), "graph capture");
  STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(fork_ev_, origin_stream_->get()), "graph capture (fork)");
  capturing_ = true;
}

cudaGraph_t CudaBackend::end_capture(bool throw_on_error) {
  cudaStream_t origin = origin_stream_->get();
  std::vector<cudaEvent_t> joins;
  cudaError_t st = cudaSuccess;
  for (auto& s : streams_) {
    if (!s.joined_capture || st != cudaSuccess) continue;
    cudaEvent_t e = nullptr;
    st = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    if (st != cudaSuccess) break;
    joins.push_back(e);
    st = cudaEventRecord(e, s.handle);
    if (st == cudaSuccess) st = cudaStreamWaitEvent(origin, e, 0);
    s.joined_capture = false;
  }
  cudaGraph_t g = nullptr;
  capturing_ = false;
  const cudaError_t end = cudaStreamEndCapture(origin, &g);
  if (st == cudaSuccess) st = end;
  for (cudaEvent_t e : joins) STREAMLAB_CUDA_LOG(cudaEventDestroy(e));
  if (st != cudaSuccess) {
    if (g != nullptr) (void)cudaGraphDestroy(g);
    if (throw_on_error) STREAMLAB_CUDA_CHECK_OP(st, "graph capture (end)");
    (void)cudaGetLastError();
    return nullptr;
  }
  return g;
}

model::Trace CudaBackend::finish() {
  model::Trace trace;
  const DeviceInfo info = query_device(options_.device);
  trace.meta.backend = "cuda";
  trace.meta.device_name = info.name;
  trace.meta.version = STREAMLAB_VERSION;
  trace.meta.date = iso_date_utc();
  trace.meta.extra["driver"] = info.driver;
  trace.meta.extra["cuda_runtime"] = info.cuda_runtime;
  trace.meta.extra["cuda_driver_api"] = info.cuda_driver_api;
  trace.meta.extra["compute_capability"] = info.compute_capability;
  trace.meta.extra["sm_count"] = std::to_string(props_.multiProcessorCount);

  if (capturing_) {
    cudaGraph_t g = end_capture(true);
    graph_ = CapturedGraph{};
    graph_.graph_ = g;
    STREAMLAB_CUDA_CHECK_OP(cudaGraphGetNodes(g, nullptr, &graph_.nodes_), "graph capture");
    STREAMLAB_CUDA_CHECK_OP(cudaGraphInstantiate(&graph_.exec_, g, 0), "graph instantiate");
    captured_ = true;
    trace.meta.extra["timing"] = "none (graph captured, not run)";
    trace.meta.extra["graph_nodes"] = std::to_string(graph_.nodes_);
    return trace;
  }

  // Wait for everything, naming what did not finish.
  const auto timeout = options_.finish_timeout.count();
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    synchronize_stream_or_throw(StreamId{static_cast<std::uint32_t>(i)}, timeout);
  }
  // Second anchor (CUPTI mode): event-timed spans are mapped onto CUPTI's clock linearly between the two,
  // so a rate difference between the GPU's timer and the host clock CUPTI normalizes to cancels out.
  std::vector<ActivityRecord> records;
  if (timing_ == TimingMode::cupti) {
    anchor1_ = run_anchor(1);
    records = std::move(anchor1_->records);
  } else if (timing_ == TimingMode::gpu_timer) {
    anchor1_ = link_anchor(1);
  }
  STREAMLAB_CUDA_CHECK_OP(cudaDeviceSynchronize(), "finish");

  trace.meta.extra["timing"] = std::string(to_string(timing_));
  if (timing_ == TimingMode::cupti) {
    trace.meta.extra["clock"] =
        self_timed_ ? "kernels: their blocks' %globaltimer reads, mapped onto CUPTI's clock through two anchor kernels; "
                      "copies and memsets: CUPTI activity records joined to ops in call order; 0 = the run's first call"
                    : "CUPTI activity timestamps (device start/end, CUPTI clock), joined to ops in call order; 0 = the "
                      "run's first call";
    trace.meta.extra["cupti_dropped_records"] = std::to_string(tracer_->dropped());
    build_spans(trace, records, t0_cupti_, false);
  } else if (timing_ == TimingMode::gpu_timer) {
    trace.meta.extra["clock"] =
        std::string("kernels: their blocks' %globaltimer reads, mapped onto the host's steady clock through two clock-link "
                    "handshakes (before and after the run; no CUPTI); 0 = the run's first call") +
        (untimed_copies_ ? "; copies and memsets: not timed (no device spans): timing one has the copy engine write a "
                           "timestamp, which lengthens the copy"
                         : "");
    if (untimed_copies_) {
      std::size_t untimed = 0;
      for (const auto& o : workload_->ops) untimed += (is_copy(o.kind) || o.kind == OpKind::memset) && o.bytes > 0;
      trace.meta.extra["untimed_ops"] = std::to_string(untimed);
    }
    trace.meta.extra["clock_link_uncertainty_ns"] =
        std::to_string(static_cast<long long>(std::max(anchor0_ ? anchor0_->uncertainty : 0.0,
                                                       anchor1_ ? anchor1_->uncertainty : 0.0)));
    build_spans(trace, records, static_cast<std::uint64_t>(steady_ns(t0_host_)), false);
  } else if (timing_ == TimingMode::events) {
    trace.meta.extra["clock"] =
        "cudaEventElapsedTime from an origin event recorded in prepare(), shifted by the host time to the run's first "
        "call (0.5 us resolution)";
    if (!cupti_problem_.empty()) trace.meta.extra["cupti_problem"] = cupti_problem_;
    build_spans(trace, {}, 0, false);
  }
  return trace;
}

void CudaBackend::build_spans(model::Trace& trace, const std::vector<ActivityRecord>& records, std::uint64_t t0,
                              bool graph_nodes) {
  const std::size_t n = ops_.size();
  // The spans' ids and names are the workload's texts: the trace keeps its table (Backend::finish).
  if (workload_ != nullptr) trace.share_strings(workload_->strings());
  struct Acc {
    std::uint64_t start = ~std::uint64_t{0}, end = 0;
    bool found = false;
  };
  std::vector<Acc> acc(n);
  // CUPTI ns per %globaltimer ns, from the anchor kernels of prepare() and finish() (1 without both).
  double device_rate = 1.0;
  if (anchor0_ && anchor1_ && anchor1_->device_mid > anchor0_->device_mid)
    device_rate = (anchor1_->cupti_mid - anchor0_->cupti_mid) / (anchor1_->device_mid - anchor0_->device_mid);
  std::map<std::uint64_t, model::OpIndex> node_to_op;
  auto add = [&](model::OpIndex op, const ActivityRecord& r) {
    Acc& a = acc[op];
    a.start = std::min(a.start, r.start_ns);
    a.end = std::max(a.end, r.end_ns);
    a.found = true;
  };
  if (graph_nodes) {
    node_to_op.insert(graph_nodes_.begin(), graph_nodes_.end());
    for (const auto& r : records) {
      const std::uint64_t node = tracer_ ? tracer_->original_node(r.graph_node) : r.graph_node;
      if (auto it = node_to_op.find(node); it != node_to_op.end()) add(it->second, r);
    }
  } else {
    // Call order: CUPTI's correlation id grows with every runtime call, so the records sorted by it are
    // the record-making calls in the order they were made (device_calls_). Records of one call (a copy
    // CUDA splits) share an id. A record that does not fit the next call (kind, bytes) is left out and
    // counted, never joined to the wrong op; the closing anchor (the last kernel) is not an op.
    std::vector<const ActivityRecord*> sorted;
    sorted.reserve(records.size());
    for (const auto& r : records)
      if (!anchor1_ || r.correlation != anchor1_->correlation) sorted.push_back(&r);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const ActivityRecord* a, const ActivityRecord* b) { return a->correlation < b->correlation; });
    auto fits = [&](const ActivityRecord& r, model::OpIndex op) {
      const model::Op& o = workload_->ops[op];
      switch (o.kind) {
        case OpKind::h2d:
        case OpKind::d2h:
        case OpKind::d2d: return r.kind == ActivityRecord::Kind::memcpy && r.bytes == o.bytes;
        case OpKind::memset: return r.kind == ActivityRecord::Kind::memset && r.bytes == o.bytes;
        default: return r.kind == ActivityRecord::Kind::kernel;
      }
    };
    std::size_t k = 0, unjoined = 0;
    std::optional<std::uint32_t> last_correlation;
    for (const ActivityRecord* r : sorted) {
      if (last_correlation && *last_correlation == r->correlation && k > 0) {
        add(static_cast<model::OpIndex>(device_calls_[k - 1]), *r);  // another piece of the same call
        continue;
      }
      if (k < device_calls_.size() && fits(*r, static_cast<model::OpIndex>(device_calls_[k]))) {
        add(static_cast<model::OpIndex>(device_calls_[k]), *r);
        last_correlation = r->correlation;
        ++k;
      } else {
        ++unjoined;
      }
    }
    if (timing_ == TimingMode::cupti) {
      trace.meta.extra["cupti_records"] = std::to_string(records.size());
      if (unjoined > 0) trace.meta.extra["cupti_records_unjoined"] = std::to_string(unjoined);
      if (k < device_calls_.size()) trace.meta.extra["ops_without_cupti_record"] = std::to_string(device_calls_.size() - k);
    }
    // Self-timed kernels: %globaltimer -> CUPTI's clock (gpu_timer: the host's steady clock), linear between
    // the two anchors.
    if (self_timed_ && anchor0_ && anchor1_) {
      const double slope = device_rate;
      std::vector<kernels::BlockRecord> blocks;
      for (std::size_t i = 0; i < n; ++i) {
        const OpResources& r = ops_[i];
        if (r.block_records.data() == nullptr || !r.stream || r.record_count == 0) continue;
        blocks.resize(r.record_count);
        STREAMLAB_CUDA_CHECK_OP(cudaMemcpy(blocks.data(), r.block_records.data(), blocks.size() * sizeof(kernels::BlockRecord),
                                           cudaMemcpyDeviceToHost),
                                describe_op(static_cast<model::OpIndex>(i)));
        std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
        for (const auto& b : blocks) {
          if (b.end_ns == 0) continue;  // a block (task) that never ran: nothing to say
          lo = std::min(lo, b.start_ns);
          hi = std::max(hi, b.end_ns);
        }
        if (hi == 0) continue;
        auto to_cupti = [&](std::uint64_t g) {
          return static_cast<std::uint64_t>(anchor0_->cupti_mid + (static_cast<double>(g) - anchor0_->device_mid) * slope + 0.5);
        };
        acc[i].start = to_cupti(lo);
        acc[i].end = to_cupti(hi);
        acc[i].found = true;
        if (options_.record_blocks && workload_->ops[i].kind == OpKind::kernel) {  // a task pool's records are tasks
          for (const auto& b : blocks) {
            if (b.end_ns == 0) continue;
            trace.blocks.push_back(model::BlockPlacement{static_cast<model::OpIndex>(i), b.block, b.sm,
                                                         static_cast<model::Nanos>(to_cupti(b.start_ns) - t0),
                                                         static_cast<model::Nanos>(to_cupti(b.end_ns) - t0)});
          }
        }
      }
      trace.meta.extra["device_clock_rate"] = std::to_string(slope);
    }
  }
  // Event time -> trace time, through one reference event of known trace time. Events mode: the origin
  // event, completed at origin_host_ (before time 0). CUPTI mode: the closing event, right behind the
  // closing anchor kernel (see run_anchor); event times tick on the GPU's timer, so the anchors' rate of
  // CUPTI's clock per %globaltimer ns converts their distance to it.
  cudaEvent_t reference = nullptr;
  std::int64_t reference_ns = 0;
  double scale = 1.0;
  if (timing_ == TimingMode::events && origin_ev_ != nullptr) {
    reference = origin_ev_;
    reference_ns = -std::chrono::duration_cast<std::chrono::nanoseconds>(t0_host_ - origin_host_).count();
  } else if (anchor0_ && anchor1_ && closing_ev_ != nullptr && !graph_nodes) {
    reference = closing_ev_;
    reference_ns = static_cast<std::int64_t>(anchor1_->cupti_end) - static_cast<std::int64_t>(t0);
    scale = device_rate;
    trace.meta.extra["event_clock_scale"] = std::to_string(scale);
  }
  auto event_time = [&](cudaEvent_t e, model::OpIndex op) {
    // Measured forward from the earlier of the two (the closing event comes after every op's events).
    const bool before = reference == closing_ev_;
    const auto t = before ? -executor::elapsed(event_ref{e}, event_ref{reference}, describe_op(op)).count()
                          : executor::elapsed(event_ref{reference}, event_ref{e}, describe_op(op)).count();
    return reference_ns + static_cast<std::int64_t>(std::llround(static_cast<double>(t) * scale));
  };
  const std::int64_t host_t0 = steady_ns(t0_host_);
  std::vector<std::size_t> barriers;  // positions in trace.spans of barrier spans still to place
  for (std::size_t i = 0; i < n; ++i) {
    const OpResources& r = ops_[i];
    if (!r.stream) continue;  // never issued
    const model::Op& o = workload_->ops[i];
    model::Span s;
    s.op = static_cast<model::OpIndex>(i);
    s.op_id = o.id;
    s.name = o.name.empty() ? o.id : o.name;
    s.kind = o.kind;
    s.device = static_cast<std::uint32_t>(options_.device);
    s.stream = r.stream->value();
    s.engine = model::engine_for(o.kind);
    if (o.kind == OpKind::host_func && r.host_state && r.host_state->end.load(std::memory_order_acquire) >= 0) {
      s.start_ns = r.host_state->start.load(std::memory_order_relaxed) - host_t0;
      s.end_ns = r.host_state->end.load(std::memory_order_relaxed) - host_t0;
    } else if (acc[i].found) {
      s.start_ns = static_cast<model::Nanos>(acc[i].start - t0);
      s.end_ns = static_cast<model::Nanos>(acc[i].end - t0);
    } else if (r.start_ev != nullptr && r.end_ev != nullptr && reference != nullptr && !graph_nodes) {
      s.start_ns = event_time(r.start_ev, s.op);
      s.end_ns = event_time(r.end_ev, s.op);
    } else if (o.kind == OpKind::barrier && !graph_nodes) {
      barriers.push_back(trace.spans.size());  // placed below, once every other span is known
    } else {
      continue;
    }
    trace.spans.push_back(std::move(s));
  }
  place_barriers(trace, barriers);
  std::sort(trace.spans.begin(), trace.spans.end(), [](const model::Span& a, const model::Span& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.op < b.op;
  });
}

void CudaBackend::place_barriers(model::Trace& trace, const std::vector<std::size_t>& positions) const {
  if (positions.empty()) return;
  constexpr std::size_t kNone = ~std::size_t{0};
  std::vector<std::size_t> span_of(workload_->ops.size(), kNone);
  for (std::size_t k = 0; k < trace.spans.size(); ++k) span_of[trace.spans[k].op] = k;
  std::vector<std::size_t> order(positions);
  // In issue order: whatever a barrier follows was issued before it, barriers included.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ops_[trace.spans[a].op].issue_seq < ops_[trace.spans[b].op].issue_seq;
  });
  for (std::size_t k : order) {
    const model::OpIndex op = trace.spans[k].op;
    model::Nanos at = 0;
    auto after = [&](model::OpIndex other) {
      if (span_of[other] != kNone) at = std::max(at, trace.spans[span_of[other]].end_ns);
    };
    for (model::OpIndex d : workload_->deps(op)) after(d);
    if (ops_[op].prev_in_stream) after(*ops_[op].prev_in_stream);
    trace.spans[k].start_ns = trace.spans[k].end_ns = at;
  }
}

GraphReplayStats CudaBackend::replay(std::size_t replays, std::size_t warmup) {
  if (!graph_.valid()) throw std::logic_error("CudaBackend::replay: no captured graph (run the Dispatcher after begin_capture)");
  stream_ref s = *origin_stream_;
  for (std::size_t i = 0; i < warmup; ++i) graph_.launch(s);
  s.sync("graph replay");
  timed_event a, b;
  std::vector<double> host, device;
  for (std::size_t i = 0; i < replays; ++i) {
    a.record(s, "graph replay");
    const auto h0 = Clock::now();
    graph_.launch(s);
    const auto h1 = Clock::now();
    b.record(s, "graph replay");
    b.sync("graph replay");
    host.push_back(static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(h1 - h0).count()));
    device.push_back(static_cast<double>((b - a).count()));
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  return GraphReplayStats{graph_.node_count(), replays, median(host), median(device)};
}

model::Trace CudaBackend::replay_trace() {
  if (!graph_.valid()) throw std::logic_error("CudaBackend::replay_trace: no captured graph");
  if (!tracer_) throw CuptiUnavailable("CudaBackend::replay_trace needs CUPTI (" + cupti_problem_ + ")");
  stream_ref s = *origin_stream_;
  s.sync("graph replay");
  (void)tracer_->take();
  const std::uint64_t t0 = CuptiTracer::timestamp();
  t0_host_ = Clock::now();
  graph_.launch(s);
  s.sync("graph replay");
  model::Trace trace;
  const DeviceInfo info = query_device(options_.device);
  trace.meta.backend = "cuda";
  trace.meta.device_name = info.name;
  trace.meta.version = STREAMLAB_VERSION;
  trace.meta.date = iso_date_utc();
  trace.meta.extra["driver"] = info.driver;
  trace.meta.extra["cuda_runtime"] = info.cuda_runtime;
  trace.meta.extra["timing"] = "cupti (CUDA graph replay; ops matched by graph node id)";
  trace.meta.extra["graph_nodes"] = std::to_string(graph_.node_count());
  const auto records = tracer_->take();
  build_spans(trace, records, t0, true);
  return trace;
}

}  // namespace streamlab::executor
