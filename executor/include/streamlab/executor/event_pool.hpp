#pragma once
/// \file event_pool.hpp
/// Reusable CUDA events, so a run creates events once instead of per dependency. Separate pools for
/// untimed events (cheap to record; all the Dispatcher needs) and timed ones; thread-safe; grows on
/// demand up to a cap, and reports its utilization.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include <cuda_runtime_api.h>

#include "streamlab/executor/event.hpp"
#include "streamlab/policies/backend.hpp"

namespace streamlab::executor {

using policies::EventTiming;

class EventPool;

/// An event borrowed from a pool; goes back on destruction (or release()). Move-only.
class PooledEvent {
 public:
  PooledEvent() noexcept = default;
  ~PooledEvent();
  PooledEvent(PooledEvent&& other) noexcept;
  PooledEvent& operator=(PooledEvent&& other) noexcept;
  PooledEvent(const PooledEvent&) = delete;
  PooledEvent& operator=(const PooledEvent&) = delete;

  [[nodiscard]] event_ref ref() const noexcept { return event_ref{handle_}; }
  [[nodiscard]] cudaEvent_t get() const noexcept { return handle_; }
  [[nodiscard]] EventTiming timing() const noexcept { return timing_; }
  [[nodiscard]] bool valid() const noexcept { return pool_ != nullptr; }
  /// Returns the event to its pool now.
  void release() noexcept;

 private:
  friend class EventPool;
  PooledEvent(EventPool* pool, cudaEvent_t e, EventTiming t) noexcept : pool_(pool), handle_(e), timing_(t) {}
  EventPool* pool_ = nullptr;
  cudaEvent_t handle_ = nullptr;
  EventTiming timing_ = EventTiming::untimed;
};

struct EventPoolUtilization {
  std::size_t available_untimed = 0, available_timed = 0;
  std::size_t in_use_untimed = 0, in_use_timed = 0;
  std::size_t created_untimed = 0, created_timed = 0;
  std::size_t peak_in_use = 0;
  std::uint64_t acquisitions = 0;
  std::uint64_t reuses = 0;  ///< acquisitions served without creating an event
  /// In use over created, both kinds (0 when nothing was created).
  [[nodiscard]] double fraction_in_use() const noexcept {
    const auto created = created_untimed + created_timed;
    return created == 0 ? 0.0 : static_cast<double>(in_use_untimed + in_use_timed) / static_cast<double>(created);
  }
};

class EventPool {
 public:
  struct Options {
    std::size_t initial_untimed = 16;
    std::size_t initial_timed = 4;
    std::size_t max_untimed = 1 << 16;
    std::size_t max_timed = 1 << 14;
  };
  EventPool();
  explicit EventPool(Options options);
  /// Destroys the pooled events. Every PooledEvent must be returned first (a leftover is reported on
  /// stderr and leaked rather than destroyed under its user).
  ~EventPool();
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  /// Takes an idle event or creates one; throws PoolExhausted at the cap.
  [[nodiscard]] PooledEvent acquire(EventTiming timing);
  /// Like acquire, but nullopt at the cap.
  [[nodiscard]] std::optional<PooledEvent> try_acquire(EventTiming timing);

  /// Raw interface for owners that keep events in their own tables (the CUDA backend).
  [[nodiscard]] cudaEvent_t acquire_raw(EventTiming timing);
  void release_raw(cudaEvent_t e, EventTiming timing) noexcept;

  [[nodiscard]] EventPoolUtilization utilization() const;

 private:
  friend class PooledEvent;
  [[nodiscard]] cudaEvent_t take_locked(EventTiming timing, bool throw_at_cap);
  mutable std::mutex mutex_;
  Options options_;
  std::vector<cudaEvent_t> idle_untimed_, idle_timed_;
  EventPoolUtilization stats_;
};

}  // namespace streamlab::executor
