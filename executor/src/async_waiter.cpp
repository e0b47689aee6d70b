#include "streamlab/executor/async_waiter.hpp"

#include <vector>

#include "streamlab/executor/error.hpp"

namespace streamlab::executor {

AsyncEventWaiter::AsyncEventWaiter(std::chrono::nanoseconds poll_interval)
    : poll_interval_(poll_interval), worker_([this] { run(); }) {}

AsyncEventWaiter::~AsyncEventWaiter() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

std::uint64_t AsyncEventWaiter::wait_async(event_ref e, Callback callback, std::chrono::nanoseconds timeout,
                                           std::string label) {
  const auto now = std::chrono::steady_clock::now();
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    pending_.emplace(id, Pending{e.get(), std::move(callback), now, now + timeout, std::move(label)});
  }
  cv_.notify_all();
  return id;
}

bool AsyncEventWaiter::cancel(std::uint64_t id) {
  Pending p;
  {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return false;
    p = std::move(it->second);
    pending_.erase(it);
  }
  // The canceller runs the callback (the worker never sees this wait again), outside the lock.
  p.callback(WaitResult{id, WaitOutcome::cancelled, std::chrono::steady_clock::now() - p.start, p.label, {}});
  idle_cv_.notify_all();
  return true;
}

std::size_t AsyncEventWaiter::pending() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

bool AsyncEventWaiter::drain(std::chrono::nanoseconds timeout) {
  std::unique_lock lock(mutex_);
  return idle_cv_.wait_for(lock, timeout, [this] { return pending_.empty(); });
}

void AsyncEventWaiter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !pending_.empty(); });
    if (stop_) break;
    // Sweep: collect finished waits under the lock, run their callbacks outside it.
    std::vector<std::pair<std::uint64_t, Pending>> done;
    std::vector<WaitResult> results;
    const auto now = std::chrono::steady_clock::now();
    for (auto it = pending_.begin(); it != pending_.end();) {
      const cudaError_t s = cudaEventQuery(it->second.event);
      WaitResult r{it->first, WaitOutcome::completed, now - it->second.start, it->second.label, {}};
      bool finished = true;
      if (s == cudaSuccess) {
        r.outcome = WaitOutcome::completed;
      } else if (s == cudaErrorNotReady) {
        if (now >= it->second.deadline) r.outcome = WaitOutcome::timed_out;
        else finished = false;
      } else {
        (void)cudaGetLastError();
        r.outcome = WaitOutcome::failed;
        r.error = std::string(cudaGetErrorName(s)) + ": " + cudaGetErrorString(s) + " (waiting for " +
                  (it->second.label.empty() ? std::string("event") : it->second.label) + ")";
      }
      if (finished) {
        results.push_back(std::move(r));
        done.emplace_back(it->first, std::move(it->second));
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
    if (!done.empty()) {
      lock.unlock();
      for (std::size_t i = 0; i < done.size(); ++i) done[i].second.callback(results[i]);
      lock.lock();
      idle_cv_.notify_all();
      continue;
    }
    cv_.wait_for(lock, poll_interval_, [this] { return stop_; });
    if (stop_) break;
  }
  // Stopping: whatever is still pending is cancelled.
  auto left = std::move(pending_);
  pending_.clear();
  lock.unlock();
  for (auto& [id, p] : left) {
    p.callback(WaitResult{id, WaitOutcome::cancelled, std::chrono::steady_clock::now() - p.start, p.label, {}});
  }
  idle_cv_.notify_all();
}

}  // namespace streamlab::executor
