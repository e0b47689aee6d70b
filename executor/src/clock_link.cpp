#include "streamlab/executor/clock_link.hpp"

#include <algorithm>
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

struct ClockLinker::Buffers {
  explicit Buffers(std::uint32_t rounds) : request(64), response(rounds * sizeof(std::uint64_t)) {}
  detail::MappedHost request, response;
};

ClockLinker::ClockLinker(std::uint32_t rounds)
    : buffers_(std::make_unique<Buffers>(std::max<std::uint32_t>(rounds, 1))), rounds_(std::max<std::uint32_t>(rounds, 1)) {}

ClockLinker::~ClockLinker() = default;

ClockLink ClockLinker::link(cudaStream_t s, std::chrono::nanoseconds timeout) {
  const std::uint32_t rounds = rounds_;
  buffers_->request.clear();
  buffers_->response.clear();
  volatile std::uint32_t* request = buffers_->request.as<std::uint32_t>();
  volatile std::uint64_t* response = buffers_->response.as<std::uint64_t>();
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

ClockLink link_clocks(cudaStream_t s, std::uint32_t rounds, std::chrono::nanoseconds timeout) {
  ClockLinker linker(rounds);
  return linker.link(s, timeout);
}

}  // namespace streamlab::executor
