#pragma once
/// \file block_time.hpp
/// A kernel's own block run time, recovered from a measured timeline where kernels shared the SMs.
///
/// A profiler records each kernel's span, first block start to last block end. Alone on the device that
/// span is waves x block time. When the kernel started while earlier kernels still held SMs (a kernel on
/// another stream, a grid that fills the device), part of its span was spent waiting for room: dividing
/// the span by its waves then gives blocks that are too long, and a replay, which models that wait
/// itself, counts it twice. On an H100 (2026-11-23, the PyTorch multi-stream capture) two GEMMs of 128
/// one-block-per-SM blocks overlapped this way: the second one's 175 us span held about 88 us of its own
/// block time.
///
/// The recovery replays the block scheduler over the measured starts: kernels in order of their measured
/// start; each block goes to an SM with room (threads, blocks, registers, shared memory, rounded as
/// allocated; blocks spread over SMs as the hardware does); blocks of earlier kernels keep the SMs they
/// were given. The block time is the largest for which the kernel's last block ends by its measured end,
/// found by bisection. A kernel that no earlier kernel overlaps keeps (span - pad) / waves.

#include <cstddef>
#include <span>
#include <vector>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/op.hpp"

namespace streamlab::import {

/// One kernel of one device's measured timeline.
struct MeasuredKernel {
  model::Nanos start = 0;  ///< first block start
  model::Nanos end = 0;    ///< last block end
  model::KernelShape shape;
};

struct BlockTimes {
  std::vector<model::Nanos> ns;  ///< per kernel, in the order given: its own block run time, >= 1
  std::size_t contended = 0;     ///< kernels whose span included waiting for SM room held by earlier kernels
  /// Kernels whose measured end came before even instant blocks could have finished under the assumed
  /// placement (the trace and the occupancy rules disagree): these keep (span - pad) / waves.
  std::size_t inconsistent = 0;
  /// Kernels that met earlier kernels' blocks but ran more waves than the recovery replays (64): they
  /// keep (span - pad) / waves.
  std::size_t uncorrected = 0;
};

/// Block times of every kernel of one device's timeline (any order; kernels of other devices must not be
/// mixed in). Uses the profile's SM count, SM resources and CUPTI kernel-record pad (model::cupti_kernel_pad_ns).
[[nodiscard]] BlockTimes kernel_block_times(std::span<const MeasuredKernel> kernels,
                                            const model::DeviceProfile& profile);

}  // namespace streamlab::import
