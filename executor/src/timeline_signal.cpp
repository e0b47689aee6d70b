#include "streamlab/executor/timeline_signal.hpp"

#include <stdexcept>
#include <string>
#include <thread>

#include "streamlab/executor/barrier.hpp"
#include "streamlab/executor/error.hpp"

namespace streamlab::executor {

void TimelineSignal::wait_or_throw(std::uint64_t target, std::chrono::nanoseconds timeout,
                                   const std::string& what) const {
  if (wait(target, timeout) == WaitStatus::ready) return;
  throw TimeoutError(what, timeout,
                     "timeout: " + what + " waited " +
                         std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(timeout).count()) +
                         " us for timeline value " + std::to_string(target) + ", current " +
                         std::to_string(value()));
}

// ---- CPU ------------------------------------------------------------------------------------------

void CpuTimelineSignal::set(std::uint64_t v) {
  std::uint64_t prev = value_.load(std::memory_order_relaxed);
  while (prev < v && !value_.compare_exchange_weak(prev, v, std::memory_order_acq_rel)) {
  }
  if (prev < v) {
    // Taking the mutex orders this notify after any waiter's check-then-sleep: no lost wake-up.
    { std::lock_guard lock(mutex_); }
    cv_.notify_all();
  }
}

WaitStatus CpuTimelineSignal::wait(std::uint64_t target, std::chrono::nanoseconds timeout) const {
  if (value_.load(std::memory_order_acquire) >= target) return WaitStatus::ready;
  std::unique_lock lock(mutex_);
  const bool ok = cv_.wait_for(lock, timeout, [&] { return value_.load(std::memory_order_acquire) >= target; });
  return ok ? WaitStatus::ready : WaitStatus::timed_out;
}

// ---- CUDA -----------------------------------------------------------------------------------------

namespace {
std::shared_ptr<void> make_event() {
  cudaEvent_t e = nullptr;
  STREAMLAB_CUDA_CHECK_OP(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "CUDA timeline signal");
  return std::shared_ptr<void>(static_cast<void*>(e),
                               [](void* p) { STREAMLAB_CUDA_LOG(cudaEventDestroy(static_cast<cudaEvent_t>(p))); });
}
cudaEvent_t as_event(const std::shared_ptr<void>& p) { return static_cast<cudaEvent_t>(p.get()); }
}  // namespace

CudaTimelineSignal::CudaTimelineSignal(stream_ref s, std::size_t ring_size) : stream_(s), ring_(ring_size) {
  if (ring_size == 0) throw std::invalid_argument("CudaTimelineSignal: ring size must be positive");
}

CudaTimelineSignal::~CudaTimelineSignal() = default;

void CudaTimelineSignal::signal(std::uint64_t v) {
  std::unique_lock lock(mutex_);
  if (v <= last_signalled_) {
    throw std::logic_error("CudaTimelineSignal::signal(" + std::to_string(v) + "): values must grow (last " +
                           std::to_string(last_signalled_) + ")");
  }
  Slot& slot = ring_[next_];
  // Reuse the slot's event only when nobody else holds it (a waiter may still be polling it).
  if (!slot.event || slot.event.use_count() > 1) slot.event = make_event();
  STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(as_event(slot.event), stream_.get()), "CUDA timeline signal");
  slot.value = v;
  next_ = (next_ + 1) % ring_.size();
  last_signalled_ = v;
  lock.unlock();
  cv_.notify_all();
}

std::shared_ptr<void> CudaTimelineSignal::find_locked(std::uint64_t target, std::uint64_t& slot_value) const {
  const Slot* best = nullptr;
  for (const Slot& s : ring_) {
    if (s.event && s.value >= target && (best == nullptr || s.value < best->value)) best = &s;
  }
  if (best == nullptr) return {};
  slot_value = best->value;
  return best->event;
}

std::uint64_t CudaTimelineSignal::value() const {
  std::uint64_t done = completed_.load(std::memory_order_acquire);
  std::lock_guard lock(mutex_);
  for (const Slot& s : ring_) {
    if (s.event && s.value > done && cudaEventQuery(as_event(s.event)) == cudaSuccess) done = s.value;
  }
  (void)cudaGetLastError();  // a not-ready query leaves no error, but be safe
  std::uint64_t prev = completed_.load(std::memory_order_relaxed);
  while (prev < done && !completed_.compare_exchange_weak(prev, done, std::memory_order_acq_rel)) {
  }
  return std::max(prev, done);
}

void CudaTimelineSignal::set(std::uint64_t v) {
  std::uint64_t prev = completed_.load(std::memory_order_relaxed);
  while (prev < v && !completed_.compare_exchange_weak(prev, v, std::memory_order_acq_rel)) {
  }
  { std::lock_guard lock(mutex_); }
  cv_.notify_all();
}

std::uint64_t CudaTimelineSignal::last_signalled() const {
  std::lock_guard lock(mutex_);
  return last_signalled_;
}

void CudaTimelineSignal::enqueue_wait(stream_ref waiter, std::uint64_t target) const {
  std::uint64_t slot_value = 0;
  std::shared_ptr<void> ev;
  {
    std::lock_guard lock(mutex_);
    ev = find_locked(target, slot_value);
    if (!ev) {
      if (completed_.load(std::memory_order_acquire) >= target) return;  // reached already: nothing to wait for
      throw std::logic_error("CudaTimelineSignal::enqueue_wait: value " + std::to_string(target) +
                             " was never signalled (a device-side wait needs its record first)");
    }
  }
  STREAMLAB_CUDA_CHECK_OP(cudaStreamWaitEvent(waiter.get(), as_event(ev), 0), "CUDA timeline signal wait");
}

WaitStatus CudaTimelineSignal::wait(std::uint64_t target, std::chrono::nanoseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (completed_.load(std::memory_order_acquire) >= target) return WaitStatus::ready;
    std::uint64_t slot_value = 0;
    std::shared_ptr<void> ev;
    {
      std::unique_lock lock(mutex_);
      ev = find_locked(target, slot_value);
      if (!ev) {
        // Not recorded yet: sleep until a record or a host set, or the deadline.
        if (cv_.wait_until(lock, deadline) == std::cv_status::timeout &&
            completed_.load(std::memory_order_acquire) < target) {
          return WaitStatus::timed_out;
        }
        continue;
      }
    }
    // Holding `ev` keeps the event alive even if the ring slot is reused meanwhile.
    const auto left = deadline - std::chrono::steady_clock::now();
    if (!wait_until_ready(event_ref{as_event(ev)}, left, "CUDA timeline signal")) {
      return completed_.load(std::memory_order_acquire) >= target ? WaitStatus::ready : WaitStatus::timed_out;
    }
    std::uint64_t prev = completed_.load(std::memory_order_relaxed);
    while (prev < slot_value && !completed_.compare_exchange_weak(prev, slot_value, std::memory_order_acq_rel)) {
    }
    return WaitStatus::ready;
  }
}

}  // namespace streamlab::executor
