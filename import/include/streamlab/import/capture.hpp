#pragma once
/// \file capture.hpp
/// What a profiler recorded, in one neutral shape both readers produce (Kineto JSON, Nsight Systems
/// SQLite): host API calls, the GPU activities they caused (linked by correlation id) and CUDA's
/// synchronization records. Times are integer nanoseconds on the profiler's clock.

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "streamlab/model/op.hpp"

namespace streamlab::import {

using model::Nanos;

/// What a host API call does, as far as a program is concerned; classified from the call's name.
enum class CallKind : std::uint8_t {
  launch,        ///< cudaLaunchKernel*, cuLaunchKernel*, cudaGraphLaunch: GPU work on a stream
  memcpy_async,  ///< cudaMemcpyAsync and friends: a copy on a stream, asynchronous for the host
  memcpy_sync,   ///< cudaMemcpy and friends: the host blocks until the copy is done
  memset_async,
  memset_sync,
  event_record,       ///< cudaEventRecord*
  stream_wait_event,  ///< cudaStreamWaitEvent
  stream_sync,        ///< cudaStreamSynchronize
  event_sync,         ///< cudaEventSynchronize
  device_sync,        ///< cudaDeviceSynchronize / cuCtxSynchronize
  other,              ///< anything else (queries, attribute calls, ...): host time only
};

/// Classifies a runtime or driver API name (a trailing "_v7000"-style version suffix is ignored).
[[nodiscard]] CallKind classify_call(std::string_view api_name) noexcept;
/// True for the kinds that must have GPU work of their own (launches, copies, memsets).
[[nodiscard]] constexpr bool makes_gpu_work(CallKind k) noexcept {
  return k == CallKind::launch || k == CallKind::memcpy_async || k == CallKind::memcpy_sync ||
         k == CallKind::memset_async || k == CallKind::memset_sync;
}

/// The names of a capture's calls and activities, each distinct one kept once: a trace repeats a few
/// hundred kernel and API names over a million records, and a copy per record would be most of the
/// capture's memory. Views handed out stay valid as long as the table lives.
class NameTable {
 public:
  [[nodiscard]] std::string_view intern(std::string_view s);

 private:
  std::deque<std::string> kept_;  ///< never moves an element: views into them stay valid
  std::unordered_set<std::string_view> index_;
  /// The last name seen for a few cheap fingerprints: consecutive records mostly repeat recent names.
  std::array<std::string_view, 64> recent_{};
};

/// One host API call (CUDA runtime or driver).
struct ApiCall {
  Nanos start = 0;
  Nanos end = 0;
  std::uint64_t correlation = 0;
  std::uint32_t process = 0;
  std::uint32_t thread = 0;
  CallKind kind = CallKind::other;
  std::string_view name;  ///< in the capture's NameTable
};

enum class ActivityKind : std::uint8_t { kernel, memcpy, memset };

/// One piece of GPU work: a kernel, a copy or a memset.
struct GpuActivity {
  ActivityKind kind = ActivityKind::kernel;
  Nanos start = 0;
  Nanos end = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::uint64_t correlation = 0;
  std::string_view name;                   ///< in the capture's NameTable
  model::KernelShape shape;                ///< kernels
  std::uint64_t bytes = 0;                 ///< copies and memsets
  model::OpKind copy_kind = model::OpKind::d2d;  ///< copies: h2d, d2h or d2d
  model::HostMemory host_memory = model::HostMemory::pinned;  ///< copies touching the host
  std::optional<int> priority;             ///< the stream's priority, where the record carries it
};

/// CUPTI's synchronization record kinds.
enum class SyncKind : std::uint8_t { event_sync, stream_wait_event, stream_sync, context_sync };

/// One CUDA synchronization record, linked to its API call by correlation id.
struct SyncRecord {
  SyncKind kind = SyncKind::context_sync;
  std::uint64_t correlation = 0;
  std::uint32_t device = 0;
  std::int64_t stream = -1;              ///< the waiting / synchronized stream; -1 where none
  std::int64_t event_id = -1;            ///< CUPTI's id of the event waited on
  std::int64_t record_correlation = -1;  ///< correlation id of the cudaEventRecord it waits on, if known
  std::int64_t record_stream = -1;       ///< stream that event was recorded on, if known
};

/// An event record's device-side facts (Kineto "cuda_event", CUPTI CUDA_EVENT): which event, which stream.
struct EventRecordInfo {
  std::uint64_t correlation = 0;
  std::int64_t event_id = -1;
  std::uint32_t stream = 0;
  std::uint32_t device = 0;
};

/// Everything a reader took from one trace file.
struct Capture {
  /// The records' names (shared by copies of the capture, so their views stay valid in each).
  std::shared_ptr<NameTable> names = std::make_shared<NameTable>();
  [[nodiscard]] std::string_view intern(std::string_view s) { return names->intern(s); }

  std::string source;  ///< the file, for messages
  std::string format;  ///< "kineto" or "nsys"
  std::string device_name;
  std::vector<ApiCall> calls;
  std::vector<GpuActivity> activities;
  std::vector<SyncRecord> syncs;
  std::vector<EventRecordInfo> event_records;
  /// Stream priorities the trace declares outside kernel records (nsys TARGET_INFO_CUDA_STREAM).
  std::vector<std::pair<std::uint32_t, int>> stream_priorities;
};

}  // namespace streamlab::import
