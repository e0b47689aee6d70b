#pragma once
/// \file clock_link.hpp
/// The GPU's %globaltimer and the host's steady clock, related without CUPTI: a one-block service kernel
/// answers the host's requests through mapped host memory with its %globaltimer, and the round with the
/// shortest round trip ties the two clocks (its midpoint on the host is the kernel's answer on the GPU).

#include <chrono>
#include <cstdint>

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

/// Runs the service kernel on `s` for `rounds` requests (the device should be idle, or the kernel waits
/// for SM room) and returns the best round. Throws TimeoutError when the kernel does not answer within
/// `timeout`, CudaError when a CUDA call fails. Blocks until the kernel has finished.
[[nodiscard]] ClockLink link_clocks(cudaStream_t s, std::uint32_t rounds, std::chrono::nanoseconds timeout);

}  // namespace streamlab::executor
