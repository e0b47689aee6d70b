#pragma once
/// \file event.hpp
/// CUDA event handles. Untimed (`event`) and timed (`timed_event`) events are different types: only timed
/// ones can be subtracted, and `end - start` gives std::chrono::nanoseconds. A non-owning `event_ref`
/// is what pools and waiters pass around.

#include <chrono>
#include <string_view>

#include <cuda_runtime_api.h>

#include "streamlab/executor/stream.hpp"

namespace streamlab::executor {

/// An event we do not own.
class event_ref {
 public:
  constexpr explicit event_ref(cudaEvent_t e) noexcept : handle_(e) {}
  event_ref(int) = delete;
  event_ref(std::nullptr_t) = delete;

  [[nodiscard]] constexpr cudaEvent_t get() const noexcept { return handle_; }
  /// Captures the work issued to `s` so far; a later record replaces it.
  void record(stream_ref s, std::string_view op = {}) const;
  /// cudaEventQuery: true when the captured work completed (a never-recorded event is complete).
  [[nodiscard]] bool ready(std::string_view op = {}) const;
  /// cudaEventSynchronize (blocking, no timeout).
  void sync(std::string_view op = {}) const;

  friend constexpr bool operator==(event_ref a, event_ref b) noexcept { return a.handle_ == b.handle_; }

 protected:
  cudaEvent_t handle_;
};

/// An owned event without timing (cudaEventDisableTiming): cheaper to record, cannot be timed.
class event : public event_ref {
 public:
  event();
  ~event();
  event(event&& other) noexcept;
  event& operator=(event&& other) noexcept;
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  void swap(event& other) noexcept;
  [[nodiscard]] bool valid() const noexcept { return handle_ != nullptr; }

 protected:
  struct timed_tag {};
  explicit event(timed_tag);
};

/// An owned event with timing enabled. `end - start` (both completed) is the device time between them.
class timed_event : public event {
 public:
  timed_event();
  timed_event(timed_event&&) noexcept = default;
  timed_event& operator=(timed_event&&) noexcept = default;
};

/// cudaEventElapsedTime between two completed timed events (resolution about 0.5 us).
[[nodiscard]] std::chrono::nanoseconds elapsed(event_ref start, event_ref end, std::string_view op = {});

[[nodiscard]] inline std::chrono::nanoseconds operator-(const timed_event& end, const timed_event& start) {
  return elapsed(start, end);
}

}  // namespace streamlab::executor
