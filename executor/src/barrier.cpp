#include "streamlab/executor/barrier.hpp"

#include <string>
#include <thread>

#include "streamlab/executor/error.hpp"

namespace streamlab::executor {
namespace {

// Polls `ready` until true or the deadline: spin first (completions are often microseconds away), then
// yield, then sleep in short steps so a long wait does not burn a core.
template <class Ready>
bool poll_until(Ready&& ready, std::chrono::nanoseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout;
  for (;;) {
    if (ready()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    const auto waited = now - start;
    if (waited < std::chrono::microseconds(50)) continue;
    if (waited < std::chrono::milliseconds(2)) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace

bool wait_until_ready(event_ref e, std::chrono::nanoseconds timeout, std::string_view op) {
  return poll_until([&] { return e.ready(op); }, timeout);
}

bool wait_until_ready(stream_ref s, std::chrono::nanoseconds timeout, std::string_view op) {
  return poll_until([&] { return s.ready(op); }, timeout);
}

CrossStreamBarrier::CrossStreamBarrier(std::span<const stream_ref> streams, EventPool& pool)
    : streams_(streams.begin(), streams.end()), pool_(pool) {}

void CrossStreamBarrier::arrive() {
  std::vector<PooledEvent> events;
  events.reserve(streams_.size());
  for (stream_ref s : streams_) {
    events.push_back(pool_.acquire(EventTiming::untimed));
    events.back().ref().record(s, "cross-stream barrier");
  }
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    for (std::size_t j = 0; j < streams_.size(); ++j) {
      if (i != j) streams_[i].wait(events[j].ref(), "cross-stream barrier");
    }
  }
  // The waits captured the records already; keeping the events lets the host wait for this point.
  events_ = std::move(events);
  ++generation_;
}

bool CrossStreamBarrier::reached() {
  for (const auto& e : events_) {
    if (!e.ref().ready("cross-stream barrier")) return false;
  }
  return true;
}

std::chrono::nanoseconds CrossStreamBarrier::synchronize(std::chrono::nanoseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const auto left = timeout - (std::chrono::steady_clock::now() - start);
    if (!wait_until_ready(events_[i].ref(), left, "cross-stream barrier")) {
      const auto waited = std::chrono::steady_clock::now() - start;
      throw TimeoutError("cross-stream barrier", waited,
                         "timeout: cross-stream barrier (generation " + std::to_string(generation_) +
                             ") not reached on stream " + std::to_string(i) + " of " +
                             std::to_string(streams_.size()) + " after " +
                             std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(waited).count()) +
                             " us");
    }
  }
  return std::chrono::steady_clock::now() - start;
}

}  // namespace streamlab::executor
