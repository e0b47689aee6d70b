#pragma once
/// \file async_waiter.hpp
/// Waits for events on a background thread and runs a callback when each completes, times out, is
/// cancelled or fails; the host thread that registered the wait never blocks.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "streamlab/executor/event.hpp"

namespace streamlab::executor {

enum class WaitOutcome : std::uint8_t { completed, timed_out, cancelled, failed };

/// What a callback learns. `error` holds the CUDA error's message for `failed`.
struct WaitResult {
  std::uint64_t id = 0;
  WaitOutcome outcome = WaitOutcome::completed;
  std::chrono::nanoseconds waited{0};
  std::string label;
  std::string error;
};

class AsyncEventWaiter {
 public:
  using Callback = std::function<void(const WaitResult&)>;
  /// `poll_interval`: how long the worker sleeps between sweeps when nothing completed.
  explicit AsyncEventWaiter(std::chrono::nanoseconds poll_interval = std::chrono::microseconds(20));
  /// Stops the worker; waits still pending get their callback with `cancelled`.
  ~AsyncEventWaiter();
  AsyncEventWaiter(const AsyncEventWaiter&) = delete;
  AsyncEventWaiter& operator=(const AsyncEventWaiter&) = delete;

  /// Registers a wait; `callback` runs exactly once, on the worker thread. The event must stay alive
  /// until then. Returns the wait's id.
  std::uint64_t wait_async(event_ref e, Callback callback, std::chrono::nanoseconds timeout,
                           std::string label = {});
  /// Cancels a pending wait (its callback runs with `cancelled`). False when it already finished.
  bool cancel(std::uint64_t id);
  /// Waits registered and not yet finished.
  [[nodiscard]] std::size_t pending() const;
  /// Blocks until no wait is pending or `timeout` passes; true when drained.
  bool drain(std::chrono::nanoseconds timeout);

 private:
  struct Pending {
    cudaEvent_t event;
    Callback callback;
    std::chrono::steady_clock::time_point start, deadline;
    std::string label;
  };
  void run();
  std::chrono::nanoseconds poll_interval_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;       ///< wakes the worker (new wait, stop)
  std::condition_variable idle_cv_;  ///< wakes drain()
  std::map<std::uint64_t, Pending> pending_;
  std::uint64_t next_id_ = 1;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace streamlab::executor
