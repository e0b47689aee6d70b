#pragma once
/// \file clock_link.hpp
/// The GPU's %globaltimer and the host's steady clock, related without CUPTI: a one-block service kernel
/// answers the host's requests through mapped host memory with its %globaltimer, and the round with the
/// shortest round trip ties the two clocks (its midpoint on the host is the kernel's answer on the GPU).

#include <chrono>
#include <cstdint>
#include <memory>

#include <cuda_runtime_api.h>

namespace streamlab::executor {

/// One instant on both clocks.
struct ClockLink {
  std::int64_t host_ns = 0;    ///< steady clock (ns since its epoch): the best round's midpoint
  std::int64_t device_ns = 0;  ///< %globaltimer at that instant
  double uncertainty_ns = 0;   ///< half the best round trip: how far off the pairing can be
  std::int64_t last_reply_host_ns = 0;  ///< steady clock when the last answer was seen (the kernel ends just after)
  [[nodiscard]] std::int64_t offset_ns() const noexcept { return device_ns - host_ns; }
};

/// The mapped host memory the service kernel answers through, made once and kept: freeing mapped memory
/// right before a measured run made the run's first launch several microseconds dearer (H100,
/// 2026-11-24, executor/validation/h100-2026-11-24 runs 54-55: a median 13.2-15.3 us against 9.1-13.2
/// with the memory kept), so a backend links its clocks before and after a run through one ClockLinker
/// made before its set-up ends.
class ClockLinker {
 public:
  /// Allocates room for `rounds` requests (at least 1). Throws CudaError.
  explicit ClockLinker(std::uint32_t rounds);
  ~ClockLinker();
  ClockLinker(const ClockLinker&) = delete;
  ClockLinker& operator=(const ClockLinker&) = delete;
  /// Runs the service kernel on `s` for the rounds (the device should be idle, or the kernel waits for SM
  /// room) and returns the best round. Throws TimeoutError when the kernel does not answer within
  /// `timeout`, CudaError when a CUDA call fails. Blocks until the kernel has finished.
  [[nodiscard]] ClockLink link(cudaStream_t s, std::chrono::nanoseconds timeout);

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
  std::uint32_t rounds_;
};

/// One link through a ClockLinker made for it (its memory is freed on return).
[[nodiscard]] ClockLink link_clocks(cudaStream_t s, std::uint32_t rounds, std::chrono::nanoseconds timeout);

}  // namespace streamlab::executor
