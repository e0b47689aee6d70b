#pragma once
/// \file op.hpp
/// One operation of a workload: what it is, what it needs, what it waits for.
/// A plain description: the simulator and the executor are two runtimes that consume it.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "streamlab/model/heap_optional.hpp"
#include "streamlab/model/text.hpp"

namespace streamlab::model {

/// Dense index of an op inside its Workload (position in Workload::ops).
using OpIndex = std::uint32_t;

/// Time in integer nanoseconds, everywhere in streamlab.
using Nanos = std::int64_t;

enum class OpKind : std::uint8_t {
  kernel,     ///< a grid of blocks on the SMs
  h2d,        ///< host-to-device copy (copy engine)
  d2h,        ///< device-to-host copy (copy engine)
  d2d,        ///< device-to-device copy
  memset,     ///< device memset
  prefetch,   ///< managed-memory prefetch to the device
  host_func,  ///< cudaLaunchHostFunc: runs on a host thread in stream order
  barrier,    ///< joins its deps across streams; does no work itself
  task_pool,  ///< persistent grid drawing variable-length tasks (static index or shared queue)
  // Program-only kinds (Workload::program): host-side calls with no device work of their own.
  event_record,  ///< cudaEventRecord(Op::event, stream)
  event_wait,    ///< cudaStreamWaitEvent(stream, Op::event): later work on the stream waits
  stream_sync,   ///< cudaStreamSynchronize(stream): the host blocks
  event_sync,    ///< cudaEventSynchronize(Op::event): the host blocks
  device_sync,   ///< cudaDeviceSynchronize(): the host blocks (no stream)
};

enum class Priority : std::uint8_t { critical, high, normal, low, cleanup };

/// What bounds the op; workload-aware policies map these onto stream classes.
enum class WorkloadType : std::uint8_t { compute, memory, mixed, coordination };

enum class HostMemory : std::uint8_t { pinned, pageable };

/// How task_pool blocks obtain tasks.
enum class TaskAssignment : std::uint8_t {
  static_index,  ///< block b takes tasks b, b+B, b+2B, ...
  dynamic_queue, ///< blocks take the next task from a shared atomic counter
};

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  [[nodiscard]] constexpr std::uint64_t count() const noexcept {
    return std::uint64_t{x} * y * z;
  }
  friend constexpr bool operator==(const Dim3&, const Dim3&) = default;
};

/// Launch shape of a kernel or task pool.
struct KernelShape {
  Dim3 grid;
  Dim3 block;
  std::uint32_t registers_per_thread = 32;
  std::uint32_t shared_mem_bytes = 0;  ///< dynamic + static shared memory per block
  [[nodiscard]] std::uint64_t blocks() const noexcept { return grid.count(); }
  [[nodiscard]] std::uint64_t threads_per_block() const noexcept { return block.count(); }
  friend bool operator==(const KernelShape&, const KernelShape&) = default;
};

/// Every block runs for the same time.
struct FixedPerBlock {
  Nanos ns = 0;
  friend bool operator==(const FixedPerBlock&, const FixedPerBlock&) = default;
};
/// Block i runs for ns[i]; the list has exactly one entry per block.
struct PerBlockList {
  std::vector<Nanos> ns;
  friend bool operator==(const PerBlockList&, const PerBlockList&) = default;
};
/// A cost the device profile turns into time (roofline: max(bytes / bandwidth, flops / rate)).
struct CostModel {
  double bytes = 0;
  double flops = 0;
  friend bool operator==(const CostModel&, const CostModel&) = default;
};
using DurationSpec = std::variant<FixedPerBlock, PerBlockList, CostModel>;

/// Variable-length tasks executed by a persistent grid.
struct TaskList {
  std::vector<Nanos> task_ns;
  TaskAssignment assignment = TaskAssignment::dynamic_queue;
  friend bool operator==(const TaskList&, const TaskList&) = default;
};

/// One op. Its texts are interned in its Workload's table (Workload::add and the readers copy them
/// there), and its deps live in the Workload too (Workload::deps): an op is a fixed-size record.
/// The fields are laid out without padding between them and the task list (task pools only) is held
/// on the heap: 168 bytes where the order of the groups below took 208 (a ten-million-op workload is
/// an array of these: 400 MB less memory to fault in and to read in every pass over the ops).
struct Op {
  Text id;    ///< unique within the workload; deps refer to it
  Text name;  ///< human label (defaults to id)
  OpKind kind = OpKind::kernel;
  Priority priority = Priority::normal;
  WorkloadType type = WorkloadType::compute;
  HostMemory host_memory = HostMemory::pinned;  ///< copies, memset, prefetch
  std::optional<std::uint32_t> stream_hint;     ///< preferred logical stream, if any

  // Kernels and task pools.
  std::optional<KernelShape> shape;
  DurationSpec duration = FixedPerBlock{};
  HeapOptional<TaskList> tasks;  ///< task_pool only

  // Copies, memset, prefetch.
  std::uint64_t bytes = 0;

  // host_func: how long the host function runs.
  Nanos host_ns = 0;

  // Programs (Workload::program) only.
  /// Host time the program spends before this call (its own work since the previous call returned).
  Nanos host_gap_ns = 0;
  /// The event an event_record / event_wait / event_sync names (a program-wide name).
  Text event;
  /// Copies and memsets: the call is synchronous for the host (cudaMemcpy rather than cudaMemcpyAsync).
  bool blocking = false;

  friend bool operator==(const Op&, const Op&) = default;
};

[[nodiscard]] std::string_view to_string(OpKind) noexcept;
[[nodiscard]] std::string_view to_string(Priority) noexcept;
[[nodiscard]] std::string_view to_string(WorkloadType) noexcept;
[[nodiscard]] std::string_view to_string(HostMemory) noexcept;
[[nodiscard]] std::string_view to_string(TaskAssignment) noexcept;
[[nodiscard]] std::optional<OpKind> parse_op_kind(std::string_view) noexcept;
[[nodiscard]] std::optional<Priority> parse_priority(std::string_view) noexcept;
[[nodiscard]] std::optional<WorkloadType> parse_workload_type(std::string_view) noexcept;
[[nodiscard]] std::optional<HostMemory> parse_host_memory(std::string_view) noexcept;
[[nodiscard]] std::optional<TaskAssignment> parse_task_assignment(std::string_view) noexcept;

/// True for the kinds a copy engine executes (h2d, d2h, d2d).
[[nodiscard]] constexpr bool is_copy(OpKind k) noexcept {
  return k == OpKind::h2d || k == OpKind::d2h || k == OpKind::d2d;
}
/// True for the kinds whose work is blocks on the SMs.
[[nodiscard]] constexpr bool runs_on_sms(OpKind k) noexcept {
  return k == OpKind::kernel || k == OpKind::task_pool;
}
/// True for the program-only host calls (event record/wait, the three synchronizes).
[[nodiscard]] constexpr bool is_program_call(OpKind k) noexcept {
  return k == OpKind::event_record || k == OpKind::event_wait || k == OpKind::stream_sync ||
         k == OpKind::event_sync || k == OpKind::device_sync;
}
/// The CUDA runtime call a program makes for this op ("cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemcpy"
/// for a blocking copy, "cudaEventRecord", "cudaStreamSynchronize", ...): host API spans are named after it.
/// A literal: it lives as long as the program.
[[nodiscard]] std::string_view cuda_call_name(const Op& op) noexcept;
/// True for the kinds whose call blocks the host until device work completes.
[[nodiscard]] constexpr bool is_host_sync(OpKind k) noexcept {
  return k == OpKind::stream_sync || k == OpKind::event_sync || k == OpKind::device_sync;
}

}  // namespace streamlab::model
