#include "streamlab/executor/clock_link.hpp"

#include <limits>
#include <string>

#include "streamlab/executor/error.hpp"
#include "streamlab/executor/kernels.hpp"
#include "mapped_host.hpp"

namespace streamlab::executor {
namespace {

using Clock = std::chrono::steady_clock;

std::int64_t steady_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

}  // namespace

ClockLink link_clocks(cudaStream_t s, std::uint32_t rounds, std::chrono::nanoseconds timeout) {
  if (rounds == 0) rounds = 1;
  detail::MappedHost req(64), resp(rounds * sizeof(std::uint64_t));
  volatile std::uint32_t* request = req.as<std::uint32_t>();
  volatile std::uint64_t* response = resp.as<std::uint64_t>();
  const auto t = static_cast<std::uint64_t>(timeout.count());
  STREAMLAB_CUDA_CHECK_OP(kernels::launch_clock_service(s, request, response, rounds, t),
                          "clock link (service kernel)");
  ClockLink best;
  double best_trip = std::numeric_limits<double>::infinity();
  for (std::uint32_t r = 0; r < rounds; ++r) {
    const std::int64_t h0 = steady_now();
    const std::int64_t deadline = h0 + timeout.count();
    request[0] = r + 1;
    std::int64_t h1 = h0;
    while (response[r] == 0) {
      h1 = steady_now();
      if (h1 > deadline) {
        // The kernel gives up on its own after `timeout` without a request; wait for that, then report.
        (void)cudaStreamSynchronize(s);
        throw TimeoutError("clock link", timeout,
                           "timeout: the GPU clock service kernel did not answer round " + std::to_string(r + 1) +
                               " within " + std::to_string(timeout.count() / 1'000'000) + " ms");
      }
    }
    h1 = steady_now();
    const auto trip = static_cast<double>(h1 - h0);
    if (trip < best_trip) {
      best_trip = trip;
      best.host_ns = h0 + (h1 - h0) / 2;
      best.device_ns = static_cast<std::int64_t>(response[r]);
    }
    best.last_reply_host_ns = h1;
  }
  STREAMLAB_CUDA_CHECK_OP(cudaStreamSynchronize(s), "clock link (service kernel)");
  best.uncertainty_ns = best_trip / 2;
  return best;
}

}  // namespace streamlab::executor
