#include "streamlab/model/op.hpp"

#include <array>
#include <utility>

namespace streamlab::model {
namespace {
// One table per enum keeps to_string and parse in step.
template <class E, std::size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;

constexpr Names<OpKind, 14> kOpKinds{{{OpKind::kernel, "kernel"},
                                     {OpKind::h2d, "h2d"},
                                     {OpKind::d2h, "d2h"},
                                     {OpKind::d2d, "d2d"},
                                     {OpKind::memset, "memset"},
                                     {OpKind::prefetch, "prefetch"},
                                     {OpKind::host_func, "host_func"},
                                     {OpKind::barrier, "barrier"},
                                     {OpKind::task_pool, "task_pool"},
                                     {OpKind::event_record, "event_record"},
                                     {OpKind::event_wait, "event_wait"},
                                     {OpKind::stream_sync, "stream_sync"},
                                     {OpKind::event_sync, "event_sync"},
                                     {OpKind::device_sync, "device_sync"}}};
constexpr Names<Priority, 5> kPriorities{{{Priority::critical, "critical"},
                                          {Priority::high, "high"},
                                          {Priority::normal, "normal"},
                                          {Priority::low, "low"},
                                          {Priority::cleanup, "cleanup"}}};
constexpr Names<WorkloadType, 4> kTypes{{{WorkloadType::compute, "compute"},
                                         {WorkloadType::memory, "memory"},
                                         {WorkloadType::mixed, "mixed"},
                                         {WorkloadType::coordination, "coordination"}}};
constexpr Names<HostMemory, 2> kHostMemory{{{HostMemory::pinned, "pinned"}, {HostMemory::pageable, "pageable"}}};
constexpr Names<TaskAssignment, 2> kAssignments{
    {{TaskAssignment::static_index, "static"}, {TaskAssignment::dynamic_queue, "dynamic"}}};

template <class E, std::size_t N>
std::string_view name_of(const Names<E, N>& table, E e) noexcept {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}
template <class E, std::size_t N>
std::optional<E> value_of(const Names<E, N>& table, std::string_view s) noexcept {
  for (const auto& [value, name] : table)
    if (name == s) return value;
  return std::nullopt;
}
}  // namespace

std::string_view cuda_call_name(const Op& op) noexcept {
  switch (op.kind) {
    case OpKind::kernel:
    case OpKind::task_pool: return "cudaLaunchKernel";
    case OpKind::h2d:
    case OpKind::d2h:
    case OpKind::d2d: return op.blocking ? "cudaMemcpy" : "cudaMemcpyAsync";
    case OpKind::memset: return op.blocking ? "cudaMemset" : "cudaMemsetAsync";
    case OpKind::prefetch: return "cudaMemPrefetchAsync";
    case OpKind::host_func: return "cudaLaunchHostFunc";
    case OpKind::barrier: return "cudaStreamWaitEvent";  // a barrier is the waits that join it
    case OpKind::event_record: return "cudaEventRecord";
    case OpKind::event_wait: return "cudaStreamWaitEvent";
    case OpKind::stream_sync: return "cudaStreamSynchronize";
    case OpKind::event_sync: return "cudaEventSynchronize";
    case OpKind::device_sync: return "cudaDeviceSynchronize";
  }
  return "?";
}

std::string_view to_string(OpKind v) noexcept { return name_of(kOpKinds, v); }
std::string_view to_string(Priority v) noexcept { return name_of(kPriorities, v); }
std::string_view to_string(WorkloadType v) noexcept { return name_of(kTypes, v); }
std::string_view to_string(HostMemory v) noexcept { return name_of(kHostMemory, v); }
std::string_view to_string(TaskAssignment v) noexcept { return name_of(kAssignments, v); }
std::optional<OpKind> parse_op_kind(std::string_view s) noexcept { return value_of(kOpKinds, s); }
std::optional<Priority> parse_priority(std::string_view s) noexcept { return value_of(kPriorities, s); }
std::optional<WorkloadType> parse_workload_type(std::string_view s) noexcept { return value_of(kTypes, s); }
std::optional<HostMemory> parse_host_memory(std::string_view s) noexcept { return value_of(kHostMemory, s); }
std::optional<TaskAssignment> parse_task_assignment(std::string_view s) noexcept {
  return value_of(kAssignments, s);
}
}  // namespace streamlab::model
