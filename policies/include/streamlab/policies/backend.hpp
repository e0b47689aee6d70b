#pragma once
/// \file backend.hpp
/// The one contract: a CUDA-shaped interface the Dispatcher drives. CudaBackend maps it 1:1 onto the CUDA
/// runtime; SimBackend charges each call its host cost from the device profile and advances its
/// discrete-event model lazily when the host queries or blocks. The Dispatcher never knows which one it
/// drives, and observes completion only through query / synchronize / wait_any_event.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "streamlab/model/op.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/ids.hpp"

namespace streamlab::policies {

using model::Nanos;
using model::OpIndex;

/// CUDA's stream flavours (model::StreamKind: workloads declare them too).
using model::StreamKind;

struct StreamDesc {
  int priority = 0;  ///< CUDA convention: lower number = higher priority, within priority_range()
  StreamKind kind = StreamKind::non_blocking;
  std::string label;  ///< shows up in traces and logs
};

enum class EventTiming : std::uint8_t { timed, untimed };

enum class WaitStatus : std::uint8_t { ready, timed_out };

class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  /// "sim", "cuda" or "fake".
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;

  /// Takes the workload whose ops enqueue() refers to by index; allocates what the ops need (buffers,
  /// kernels' arguments) before anything is timed. Called once, before any other call but the stream
  /// and priority queries.
  virtual void prepare(const model::Workload& workload) = 0;

  // Streams ---------------------------------------------------------------------------------------
  /// {least, greatest} priority, CUDA convention (H100: {0, -5}).
  [[nodiscard]] virtual std::pair<int, int> priority_range() const = 0;
  virtual StreamId create_stream(const StreamDesc& desc) = 0;
  /// The legacy NULL stream: always StreamId{0}, exists from the start (implicit barrier with blocking
  /// streams). create_stream hands out 1, 2, 3, ... in call order.
  [[nodiscard]] virtual StreamId legacy_default_stream() = 0;

  // Work ------------------------------------------------------------------------------------------
  /// Issues op `op` of the prepared workload on `stream` (kernel launch, memcpyAsync, host func, ...).
  /// The Dispatcher enqueues OpKind::barrier ops too, after the waits that make them a join: they carry
  /// no work (a backend may give them a zero-length span). An op with Op::blocking (a program's
  /// cudaMemcpy / cudaMemset) returns only once it, and so its stream's earlier work, has completed.
  virtual void enqueue(StreamId stream, OpIndex op) = 0;
  /// A hint that changes nothing: the host is about to enqueue `op` and to record or wait on `events`
  /// (invalid ids allowed). A backend whose bookkeeping for them lies in cold memory may ask for it now
  /// (the simulator does: ops are issued in no index order and events are reused in any order); the
  /// default does nothing.
  virtual void prefetch_issue(OpIndex /*op*/, std::span<const EventId> /*events*/) noexcept {}
  /// cudaLaunchHostFunc: `fn` runs on a backend thread when the stream reaches this point. It must not
  /// call back into the Backend.
  virtual void launch_host_func(StreamId stream, std::function<void()> fn) = 0;

  // Events ----------------------------------------------------------------------------------------
  virtual EventId create_event(EventTiming timing) = 0;
  virtual void destroy_event(EventId event) = 0;
  /// Captures the work issued to `stream` so far; a later record replaces it.
  virtual void record_event(EventId event, StreamId stream) = 0;
  /// Future work on `stream` waits for the event's most recent record at the time of this call.
  virtual void stream_wait_event(StreamId stream, EventId event) = 0;
  /// Non-blocking: has the captured work completed? (A never-recorded event is complete.)
  [[nodiscard]] virtual bool query_event(EventId event) = 0;
  [[nodiscard]] virtual bool query_stream(StreamId stream) = 0;
  /// Elapsed device time between two completed timed events.
  [[nodiscard]] virtual Nanos elapsed(EventId start, EventId end) = 0;

  // Host synchronization; every wait has a timeout (backend time: simulated or wall) ---------------
  virtual WaitStatus synchronize_event(EventId event, Nanos timeout) = 0;
  virtual WaitStatus synchronize_stream(StreamId stream, Nanos timeout) = 0;
  virtual WaitStatus synchronize_device(Nanos timeout) = 0;
  /// Blocks until any of `events` is complete; returns its position in `events`, or nullopt on timeout.
  /// (CUDA has no native wait-any: the CUDA backend polls; the simulator advances to the first.)
  virtual std::optional<std::size_t> wait_any_event(std::span<const EventId> events, Nanos timeout) = 0;

  /// Host clock in ns since prepare() (simulated host time for the simulator).
  [[nodiscard]] virtual Nanos now() = 0;
  /// The program's own host work between two API calls (Op::host_gap_ns): the host is busy for `ns`
  /// and makes no CUDA call. The simulator advances its host clock; the CUDA backend spins on the host
  /// clock (a sleep would hand the core away and wake late).
  virtual void host_work(Nanos ns) = 0;

  /// Waits for all work, then returns the trace of everything enqueued; Span::stream is the StreamId
  /// value. Metadata: backend, device name, date, driver/CUDA where known; the caller adds policy and
  /// workload. The trace shares the prepared workload's string table (Trace::share_strings): its spans'
  /// ids and names are the ops' own texts, and callers may add spans naming ops' texts too.
  [[nodiscard]] virtual model::Trace finish() = 0;
};

}  // namespace streamlab::policies
