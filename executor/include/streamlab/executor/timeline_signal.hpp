#pragma once
/// \file timeline_signal.hpp
/// Monotonic timeline signals: a 64-bit value that only grows; waiters block until it reaches a target.
/// One interface, two implementations: on the CPU (atomic + condition variable) and on a CUDA stream (a
/// ring of events keyed by the value they complete). Every wait takes a timeout.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "streamlab/executor/stream.hpp"
#include "streamlab/policies/backend.hpp"

namespace streamlab::executor {

using policies::WaitStatus;

class TimelineSignal {
 public:
  virtual ~TimelineSignal() = default;
  TimelineSignal() = default;
  TimelineSignal(const TimelineSignal&) = delete;
  TimelineSignal& operator=(const TimelineSignal&) = delete;

  /// The highest value reached so far.
  [[nodiscard]] virtual std::uint64_t value() const = 0;
  /// Host-side signal: raise the value to `v` (a lower value is ignored: the timeline never goes back).
  virtual void set(std::uint64_t v) = 0;
  /// Blocks until value() >= target or `timeout` passes.
  [[nodiscard]] virtual WaitStatus wait(std::uint64_t target, std::chrono::nanoseconds timeout) const = 0;
  [[nodiscard]] bool reached(std::uint64_t target) const { return value() >= target; }
  /// wait(), but a timeout throws TimeoutError naming `what` and the values.
  void wait_or_throw(std::uint64_t target, std::chrono::nanoseconds timeout, const std::string& what) const;
};

/// Host threads only.
class CpuTimelineSignal final : public TimelineSignal {
 public:
  explicit CpuTimelineSignal(std::uint64_t initial = 0) : value_(initial) {}
  [[nodiscard]] std::uint64_t value() const override { return value_.load(std::memory_order_acquire); }
  void set(std::uint64_t v) override;
  [[nodiscard]] WaitStatus wait(std::uint64_t target, std::chrono::nanoseconds timeout) const override;

 private:
  std::atomic<std::uint64_t> value_;
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
};

/// Device-side signal on one stream. signal(v) records an event after the work issued so far: the value
/// reaches v when the device gets there (not when the host calls). value() is the highest recorded value
/// whose event has completed. Events live in a fixed ring; a slot is overwritten only after its value is
/// reached, or, if the ring is full of pending values, it is kept alive by the waiters holding it.
class CudaTimelineSignal final : public TimelineSignal {
 public:
  explicit CudaTimelineSignal(stream_ref s, std::size_t ring_size = 64);
  ~CudaTimelineSignal() override;

  /// Records the event for `v` (must exceed every previously signalled value) on the signal's stream.
  void signal(std::uint64_t v);
  /// Device-side wait: future work on `waiter` starts only after the value reaches `target`. The target
  /// must already have been signalled (throws std::logic_error otherwise).
  void enqueue_wait(stream_ref waiter, std::uint64_t target) const;

  [[nodiscard]] std::uint64_t value() const override;
  /// Host-side set, for values not tied to device work (wakes waiters).
  void set(std::uint64_t v) override;
  [[nodiscard]] WaitStatus wait(std::uint64_t target, std::chrono::nanoseconds timeout) const override;
  [[nodiscard]] stream_ref stream() const noexcept { return stream_; }
  [[nodiscard]] std::uint64_t last_signalled() const;

 private:
  struct Slot {
    std::uint64_t value = 0;
    std::shared_ptr<void> event;  ///< cudaEvent_t owner (destroyed when the last holder lets go)
  };
  [[nodiscard]] std::shared_ptr<void> find_locked(std::uint64_t target, std::uint64_t& slot_value) const;
  stream_ref stream_;
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;  ///< a new record or host set
  std::vector<Slot> ring_;
  std::size_t next_ = 0;
  std::uint64_t last_signalled_ = 0;
  mutable std::atomic<std::uint64_t> completed_{0};  ///< highest value observed complete or set
};

}  // namespace streamlab::executor
