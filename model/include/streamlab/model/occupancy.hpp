#pragma once
/// \file occupancy.hpp
/// What one thread block holds on an SM while it runs, rounded the way the hardware allocates it, and what
/// an SM has to give: the resource arithmetic behind "how many blocks of this kernel fit on an SM", shared
/// by the duration estimate and the trace importer's contention-aware block times.

#include <cstdint>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/op.hpp"

namespace streamlab::model {

/// Threads are allocated in whole warps.
inline constexpr std::int64_t kWarpSize = 32;
/// Registers are allocated per warp in units of 256 (sm_50 through sm_90).
inline constexpr std::int64_t kRegisterAllocationUnit = 256;

/// Resources of one SM, or what one block of a kernel takes of them.
struct SmResources {
  std::int64_t threads = 0;
  std::int64_t blocks = 0;
  std::int64_t registers = 0;
  std::int64_t shared_mem = 0;

  /// True when `need` fits into what is left here.
  [[nodiscard]] constexpr bool fits(const SmResources& need) const noexcept {
    return blocks >= need.blocks && threads >= need.threads && registers >= need.registers &&
           shared_mem >= need.shared_mem;
  }
  friend constexpr bool operator==(const SmResources&, const SmResources&) noexcept = default;
  constexpr SmResources& operator-=(const SmResources& r) noexcept {
    threads -= r.threads, blocks -= r.blocks, registers -= r.registers, shared_mem -= r.shared_mem;
    return *this;
  }
  constexpr SmResources& operator+=(const SmResources& r) noexcept {
    threads += r.threads, blocks += r.blocks, registers += r.registers, shared_mem += r.shared_mem;
    return *this;
  }
};

/// One idle SM of the profile's device.
[[nodiscard]] SmResources sm_capacity(const DeviceProfile& p);

/// What one block of `shape` holds: its threads in whole warps, its registers in whole allocation units per
/// warp, and its shared memory (rounded up to the profile's shared_mem_alloc_unit_bytes where it has one)
/// plus the per-block reservation the driver keeps (the SM's shared memory minus the largest a block may
/// ask for, 1 KB on H100).
[[nodiscard]] SmResources block_footprint(const KernelShape& shape, const DeviceProfile& p);

/// Blocks of this footprint an idle SM holds at once (0 when one block does not fit).
[[nodiscard]] std::int64_t blocks_that_fit(const SmResources& footprint, const SmResources& sm) noexcept;

}  // namespace streamlab::model
