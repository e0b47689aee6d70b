#pragma once
/// \file stream_pool.hpp
/// A pool of streams spread over the device's priority range and over workload classes, with four
/// allocation strategies (round-robin, load-balanced, priority, workload) and ready-stream detection.
/// This is the C++-user facing pool; the Dispatcher creates its streams through the Backend instead.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "streamlab/executor/stream.hpp"
#include "streamlab/model/op.hpp"

namespace streamlab::executor {

enum class AllocationStrategy : std::uint8_t {
  round_robin,    ///< next stream in turn
  load_balanced,  ///< fewest ops issued and not yet observed complete
  priority,       ///< a stream of the op's priority class
  workload,       ///< a stream of the op's workload class (compute, memory, mixed, coordination)
};

/// The three CUDA priority levels the pool spreads over the device range.
enum class PriorityLevel : std::uint8_t { high, normal, low };

struct PooledStreamInfo {
  std::size_t index = 0;
  PriorityLevel level = PriorityLevel::normal;
  int cuda_priority = 0;
  model::WorkloadType workload = model::WorkloadType::compute;
  std::uint64_t issued = 0;      ///< ops handed out on this stream
  std::uint64_t outstanding = 0; ///< issued minus observed complete (reset when the stream is seen idle)
};

class StreamPool {
 public:
  struct Options {
    /// Streams per workload class; classes are compute, memory, mixed, coordination. Coordination
    /// streams get the lowest priority, compute streams cycle over high/normal, memory and mixed
    /// streams are normal.
    std::size_t streams_per_class = 2;
    AllocationStrategy strategy = AllocationStrategy::workload;
    StreamFlags flags = StreamFlags::non_blocking;
  };
  StreamPool();
  explicit StreamPool(Options options);

  /// A stream for an op with these attributes, by the pool's strategy; counts it as issued.
  [[nodiscard]] stream_ref acquire(model::WorkloadType type, model::Priority priority);
  /// The next stream of a workload class (round-robin within the class).
  [[nodiscard]] stream_ref for_workload(model::WorkloadType type);
  /// The next stream of a priority level: critical/high -> high, normal -> normal, low/cleanup -> low.
  [[nodiscard]] stream_ref for_priority(model::Priority priority);

  /// Non-blocking: is any stream idle (cudaStreamQuery)? Resets outstanding counts of idle streams.
  [[nodiscard]] bool has_ready_stream();
  /// Indices of idle streams, non-blocking.
  [[nodiscard]] std::vector<std::size_t> ready_streams();
  /// Blocks until some stream is idle; nullopt on timeout. Polls (CUDA has no wait-any).
  [[nodiscard]] std::optional<stream_ref> wait_any_ready(std::chrono::nanoseconds timeout);

  /// Feedback for the workload statistics (average completion time per class).
  void record_completion(model::WorkloadType type, std::chrono::nanoseconds duration);
  [[nodiscard]] std::chrono::nanoseconds average_time(model::WorkloadType type) const;

  [[nodiscard]] std::size_t size() const noexcept { return streams_.size(); }
  [[nodiscard]] stream_ref at(std::size_t i) const noexcept { return streams_[i]; }
  [[nodiscard]] PooledStreamInfo info(std::size_t i) const;
  [[nodiscard]] AllocationStrategy strategy() const noexcept { return options_.strategy; }
  /// {least, greatest} as the device reported it.
  [[nodiscard]] std::pair<int, int> priority_range() const noexcept { return range_; }
  /// Waits for every stream (blocking).
  void synchronize_all();

 private:
  [[nodiscard]] std::size_t pick_locked(model::WorkloadType type, model::Priority priority);
  [[nodiscard]] std::size_t next_in(std::span<const std::size_t> members, std::size_t& cursor) const;
  Options options_;
  std::pair<int, int> range_{0, 0};
  std::vector<stream> streams_;
  std::vector<PooledStreamInfo> info_;
  std::vector<std::size_t> by_class_[4];
  std::vector<std::size_t> by_level_[3];
  std::size_t class_cursor_[4] = {};
  std::size_t level_cursor_[3] = {};
  std::size_t rr_cursor_ = 0;
  struct ClassStats {
    std::uint64_t count = 0;
    std::int64_t total_ns = 0;
  } class_stats_[4];
  mutable std::mutex mutex_;
};

}  // namespace streamlab::executor
