// The sweep's GPU count on a build with the CUDA executor (sweep_unit.cpp has the one without).
#include "streamlab/executor/device_info.hpp"
#include "streamlab/experiments/sweep_unit.hpp"

namespace streamlab::experiments {

std::uint32_t sweep_gpu_count() {
  const int n = executor::device_count();
  return n > 0 ? static_cast<std::uint32_t>(n) : 0;
}

}  // namespace streamlab::experiments
