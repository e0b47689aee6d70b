#pragma once
/// \file pipeline.hpp
/// Overlapped upload / compute / download: a GPU triple buffer whose buffers cycle
/// Free -> Uploading -> Processing -> Downloading -> Free, an async coordinator with one stream per
/// direction plus a compute stream (event edges between them), and a pipeline stage manager that runs
/// stages over the triple buffer and reports iterations, average iteration time, throughput and GPU
/// utilization.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "streamlab/executor/buffer.hpp"
#include "streamlab/executor/event_pool.hpp"
#include "streamlab/executor/stream.hpp"

namespace streamlab::executor {

enum class BufferState : std::uint8_t { free, uploading, processing, downloading };
[[nodiscard]] std::string_view to_string(BufferState s) noexcept;

/// N (default 3) device buffers with an atomic state each. Transitions succeed only from the expected
/// state (false otherwise), so concurrent users cannot both take one buffer.
class TripleBuffer {
 public:
  explicit TripleBuffer(std::size_t bytes_per_buffer, std::size_t count = 3);

  /// A free buffer, now Uploading (the next one in rotation order); nullopt when none is free.
  [[nodiscard]] std::optional<std::size_t> begin_upload();
  bool begin_processing(std::size_t i);  ///< Uploading -> Processing
  bool begin_download(std::size_t i);    ///< Processing -> Downloading
  bool finish(std::size_t i);            ///< Downloading -> Free

  [[nodiscard]] BufferState state(std::size_t i) const noexcept { return states_[i].load(std::memory_order_acquire); }
  [[nodiscard]] std::vector<BufferState> states() const;
  [[nodiscard]] std::size_t count() const noexcept { return buffers_.size(); }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  [[nodiscard]] void* device(std::size_t i) noexcept { return buffers_[i].data(); }

 private:
  bool transition(std::size_t i, BufferState from, BufferState to);
  std::size_t bytes_;
  std::vector<buffer> buffers_;
  std::unique_ptr<std::atomic<BufferState>[]> states_;
  std::atomic<std::size_t> next_{0};
};

using OpTicket = std::uint64_t;

enum class PipelineOpKind : std::uint8_t { upload, compute, download };

struct CompletedPipelineOp {
  OpTicket id = 0;
  PipelineOpKind kind = PipelineOpKind::compute;
  std::string name;
  std::chrono::nanoseconds device_time{0};
};

/// Queues uploads (H2D on the upload stream), compute (on the compute stream, higher priority) and
/// downloads (D2H on the download stream); a dependency on an op of another stream becomes an event wait.
/// Not thread-safe: one host thread drives it (like a CUDA host thread).
class AsyncCoordinator {
 public:
  explicit AsyncCoordinator(EventPool& pool);
  ~AsyncCoordinator();
  AsyncCoordinator(const AsyncCoordinator&) = delete;
  AsyncCoordinator& operator=(const AsyncCoordinator&) = delete;

  /// Throws std::invalid_argument for a dependency that was never queued.
  OpTicket queue_upload(void* device_dst, const void* host_src, std::size_t bytes, std::span<const OpTicket> deps = {});
  /// `launch` issues the kernel(s) on the stream it is given.
  OpTicket queue_compute(std::string name, const std::function<void(cudaStream_t)>& launch,
                         std::span<const OpTicket> deps = {});
  OpTicket queue_download(void* host_dst, const void* device_src, std::size_t bytes, std::span<const OpTicket> deps = {});

  /// Non-blocking: ops that completed since the last poll, in completion-check order.
  [[nodiscard]] std::vector<CompletedPipelineOp> poll();
  /// Blocks until `id` completed; TimeoutError naming it on timeout.
  void wait(OpTicket id, std::chrono::nanoseconds timeout);
  /// Waits for every queued op; TimeoutError on timeout.
  void synchronize_all(std::chrono::nanoseconds timeout);
  [[nodiscard]] bool done(OpTicket id) const;
  /// Device time between the starts/ends of two completed-or-pending ops (their timed events).
  [[nodiscard]] std::chrono::nanoseconds span_between(OpTicket first, OpTicket last);

  [[nodiscard]] stream_ref upload_stream() const noexcept { return upload_; }
  [[nodiscard]] stream_ref compute_stream() const noexcept { return compute_; }
  [[nodiscard]] stream_ref download_stream() const noexcept { return download_; }

 private:
  struct Op {
    PipelineOpKind kind;
    std::string name;
    cudaStream_t stream;
    PooledEvent start, end;
    bool complete = false;
  };
  OpTicket begin(PipelineOpKind kind, std::string name, stream_ref s, std::span<const OpTicket> deps);
  void retire(OpTicket id, Op& op, std::vector<CompletedPipelineOp>* out);
  EventPool& pool_;
  stream upload_, compute_, download_;
  std::unordered_map<OpTicket, Op> ops_;
  std::deque<OpTicket> pending_;
  OpTicket next_ = 1;
  /// Device times of retired ops (span_between uses them after their events went back to the pool).
  std::unordered_map<OpTicket, std::pair<std::int64_t, std::int64_t>> retired_times_;
  timed_event origin_;
};

struct PipelineStage {
  std::string name;
  /// Issues the stage's work on `s`, reading/writing triple-buffer slot `buffer` (device pointer `data`).
  std::function<void(cudaStream_t s, std::size_t buffer, void* data)> launch;
};

struct PipelineStats {
  std::size_t iterations = 0;
  double avg_iteration_ms = 0;  ///< device time from the first upload's start to the last download's end / iterations
  double throughput = 0;        ///< iterations per second (device time)
  double gpu_utilization = 0;   ///< compute busy time / that device span (0..1)
};

/// Runs `host_in[i]` -> upload -> stages (in order) -> download -> `host_out[i]` per iteration over a
/// triple buffer, so iteration i+1 uploads while i computes and i-1 downloads.
class PipelineStageManager {
 public:
  /// `host_in` / `host_out`: pinned host memory of at least buffer.bytes() each.
  PipelineStageManager(AsyncCoordinator& coordinator, TripleBuffer& buffers, const void* host_in, void* host_out);

  std::size_t add_stage(PipelineStage stage);
  /// Execution order of the stages (indices from add_stage); default: insertion order.
  void set_order(std::vector<std::size_t> order);
  /// Queues one iteration; waits (up to `timeout`) for a free buffer first.
  void execute_iteration(std::chrono::nanoseconds timeout = std::chrono::seconds(10));
  /// Waits for every queued iteration and updates the statistics.
  void finish(std::chrono::nanoseconds timeout = std::chrono::seconds(30));
  [[nodiscard]] PipelineStats stats() const noexcept { return stats_; }
  void reset_stats();
  [[nodiscard]] AsyncCoordinator& coordinator() noexcept { return coord_; }

 private:
  struct InFlight {
    std::size_t buffer;
    OpTicket upload, last_compute, download;
    std::vector<OpTicket> computes;
  };
  void retire_completed();
  AsyncCoordinator& coord_;
  TripleBuffer& buffers_;
  const void* host_in_;
  void* host_out_;
  std::vector<PipelineStage> stages_;
  std::vector<std::size_t> order_;
  std::deque<InFlight> in_flight_;
  std::optional<OpTicket> first_upload_;
  OpTicket last_download_ = 0;
  std::int64_t compute_busy_ns_ = 0;
  std::size_t iterations_ = 0;
  std::unordered_map<OpTicket, std::int64_t> compute_time_;
  PipelineStats stats_;
};

}  // namespace streamlab::executor
