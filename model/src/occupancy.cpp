#include "streamlab/model/occupancy.hpp"

#include <algorithm>
#include <limits>

namespace streamlab::model {
namespace {

// Profile counts are checked on reading (input_limits.hpp); the clamp keeps profiles built in code safe.
std::int64_t count(const Param& p) {
  if (!(p.value > 0)) return 0;
  return p.value >= 4.0e18 ? std::int64_t{4'000'000'000'000'000'000} : static_cast<std::int64_t>(p.value);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

SmResources sm_capacity(const DeviceProfile& p) {
  return SmResources{count(p.max_threads_per_sm), count(p.max_blocks_per_sm), count(p.registers_per_sm),
                     count(p.shared_mem_per_sm_bytes)};
}

SmResources block_footprint(const KernelShape& shape, const DeviceProfile& p) {
  const auto threads = static_cast<std::int64_t>(std::min<std::uint64_t>(shape.threads_per_block(), 1u << 30));
  const std::int64_t warps = ceil_div(std::max<std::int64_t>(threads, 1), kWarpSize);
  const std::int64_t regs_per_warp =
      ceil_div(std::int64_t{shape.registers_per_thread} * kWarpSize, kRegisterAllocationUnit) * kRegisterAllocationUnit;
  // A profile without a per-block maximum (built in code) reserves nothing.
  const std::int64_t per_block_max = count(p.max_shared_mem_per_block_bytes);
  const std::int64_t reserved =
      per_block_max > 0 ? std::max<std::int64_t>(0, count(p.shared_mem_per_sm_bytes) - per_block_max) : 0;
  // Shared memory is allocated in the profile's unit where it was measured (128 bytes on H100).
  const std::int64_t unit = p.shared_mem_alloc_unit_bytes.present() ? std::max<std::int64_t>(1, count(p.shared_mem_alloc_unit_bytes)) : 1;
  return SmResources{warps * kWarpSize, 1, warps * regs_per_warp,
                     ceil_div(std::int64_t{shape.shared_mem_bytes}, unit) * unit + reserved};
}

std::int64_t blocks_that_fit(const SmResources& need, const SmResources& sm) noexcept {
  std::int64_t fit = need.blocks > 0 ? sm.blocks / need.blocks : sm.blocks;
  if (need.threads > 0) fit = std::min(fit, sm.threads / need.threads);
  if (need.registers > 0) fit = std::min(fit, sm.registers / need.registers);
  if (need.shared_mem > 0) fit = std::min(fit, sm.shared_mem / need.shared_mem);
  return std::max<std::int64_t>(fit, 0);
}

}  // namespace streamlab::model
