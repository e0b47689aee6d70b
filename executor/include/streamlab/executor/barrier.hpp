#pragma once
/// \file barrier.hpp
/// A cross-stream barrier: work issued on any of the streams after the barrier starts only once the work
/// issued on all of them before it has completed. Device-side (event records + stream waits, the host
/// does not block); the host can also wait for the barrier point with a timeout.

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "streamlab/executor/event_pool.hpp"
#include "streamlab/executor/stream.hpp"

namespace streamlab::executor {

class CrossStreamBarrier {
 public:
  CrossStreamBarrier(std::span<const stream_ref> streams, EventPool& pool);

  /// Inserts the barrier: records one event per stream, then makes every stream wait for every other
  /// stream's event. Costs n records + n(n-1) waits on the host, nothing on an idle device.
  void arrive();
  /// Host-side: waits until every stream has reached the latest barrier point; returns how long it
  /// waited. Throws TimeoutError on timeout.
  std::chrono::nanoseconds synchronize(std::chrono::nanoseconds timeout);
  /// Non-blocking: has the latest barrier point been reached on every stream?
  [[nodiscard]] bool reached();

  [[nodiscard]] std::uint64_t generation() const noexcept { return generation_; }
  [[nodiscard]] std::size_t size() const noexcept { return streams_.size(); }

 private:
  std::vector<stream_ref> streams_;
  EventPool& pool_;
  std::vector<PooledEvent> events_;
  std::uint64_t generation_ = 0;
};

/// Polls `e` until it completes or `timeout` passes: spins briefly, then yields, then sleeps in short
/// steps. True when complete. Throws CudaError (naming `op`) on a device error.
[[nodiscard]] bool wait_until_ready(event_ref e, std::chrono::nanoseconds timeout, std::string_view op = {});
/// Same for a stream.
[[nodiscard]] bool wait_until_ready(stream_ref s, std::chrono::nanoseconds timeout, std::string_view op = {});

}  // namespace streamlab::executor
