#include "streamlab/executor/event_pool.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "streamlab/executor/error.hpp"

namespace streamlab::executor {

PooledEvent::~PooledEvent() { release(); }

PooledEvent::PooledEvent(PooledEvent&& other) noexcept
    : pool_(other.pool_), handle_(other.handle_), timing_(other.timing_) {
  other.pool_ = nullptr;
  other.handle_ = nullptr;
}

PooledEvent& PooledEvent::operator=(PooledEvent&& other) noexcept {
  if (this != &other) {
    release();
    pool_ = other.pool_;
    handle_ = other.handle_;
    timing_ = other.timing_;
    other.pool_ = nullptr;
    other.handle_ = nullptr;
  }
  return *this;
}

void PooledEvent::release() noexcept {
  if (pool_ != nullptr) {
    pool_->release_raw(handle_, timing_);
    pool_ = nullptr;
    handle_ = nullptr;
  }
}

namespace {
cudaEvent_t create_event(EventTiming timing) {
  cudaEvent_t e = nullptr;
  STREAMLAB_CUDA_CHECK_OP(
      cudaEventCreateWithFlags(&e, timing == EventTiming::timed ? cudaEventDefault : cudaEventDisableTiming),
      "event pool");
  return e;
}
}  // namespace

EventPool::EventPool() : EventPool(Options{}) {}

EventPool::EventPool(Options options) : options_(options) {
  idle_untimed_.reserve(options_.initial_untimed);
  idle_timed_.reserve(options_.initial_timed);
  for (std::size_t i = 0; i < options_.initial_untimed && i < options_.max_untimed; ++i) {
    idle_untimed_.push_back(create_event(EventTiming::untimed));
    ++stats_.created_untimed;
  }
  for (std::size_t i = 0; i < options_.initial_timed && i < options_.max_timed; ++i) {
    idle_timed_.push_back(create_event(EventTiming::timed));
    ++stats_.created_timed;
  }
}

EventPool::~EventPool() {
  const std::size_t lent = stats_.in_use_untimed + stats_.in_use_timed;
  if (lent != 0) {
    std::fprintf(stderr, "streamlab: event pool destroyed with %zu events still lent out (leaked)\n", lent);
  }
  for (cudaEvent_t e : idle_untimed_) STREAMLAB_CUDA_LOG(cudaEventDestroy(e));
  for (cudaEvent_t e : idle_timed_) STREAMLAB_CUDA_LOG(cudaEventDestroy(e));
}

cudaEvent_t EventPool::take_locked(EventTiming timing, bool throw_at_cap) {
  const bool timed = timing == EventTiming::timed;
  auto& idle = timed ? idle_timed_ : idle_untimed_;
  auto& in_use = timed ? stats_.in_use_timed : stats_.in_use_untimed;
  auto& created = timed ? stats_.created_timed : stats_.created_untimed;
  const std::size_t cap = timed ? options_.max_timed : options_.max_untimed;
  cudaEvent_t e = nullptr;
  if (!idle.empty()) {
    e = idle.back();
    idle.pop_back();
    ++stats_.reuses;
  } else {
    if (created >= cap) {
      if (!throw_at_cap) return nullptr;
      throw PoolExhausted("event pool: all " + std::to_string(cap) + (timed ? " timed" : " untimed") +
                          " events are in use (raise EventPool::Options::max_" + (timed ? "timed" : "untimed") +
                          ")");
    }
    e = create_event(timing);
    ++created;
  }
  ++in_use;
  ++stats_.acquisitions;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use_timed + stats_.in_use_untimed);
  return e;
}

PooledEvent EventPool::acquire(EventTiming timing) {
  std::lock_guard lock(mutex_);
  return PooledEvent(this, take_locked(timing, true), timing);
}

std::optional<PooledEvent> EventPool::try_acquire(EventTiming timing) {
  std::lock_guard lock(mutex_);
  cudaEvent_t e = take_locked(timing, false);
  if (e == nullptr) return std::nullopt;
  return PooledEvent(this, e, timing);
}

cudaEvent_t EventPool::acquire_raw(EventTiming timing) {
  std::lock_guard lock(mutex_);
  return take_locked(timing, true);
}

void EventPool::release_raw(cudaEvent_t e, EventTiming timing) noexcept {
  std::lock_guard lock(mutex_);
  if (timing == EventTiming::timed) {
    idle_timed_.push_back(e);
    --stats_.in_use_timed;
  } else {
    idle_untimed_.push_back(e);
    --stats_.in_use_untimed;
  }
}

EventPoolUtilization EventPool::utilization() const {
  std::lock_guard lock(mutex_);
  EventPoolUtilization u = stats_;
  u.available_untimed = idle_untimed_.size();
  u.available_timed = idle_timed_.size();
  return u;
}

}  // namespace streamlab::executor
