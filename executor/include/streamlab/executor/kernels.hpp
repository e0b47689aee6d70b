#pragma once
/// \file kernels.hpp
/// Synthetic kernels whose device time is known by construction. Durations are exact per block: every
/// thread of a block spins on the GPU's %globaltimer (ns) until the block's duration has passed since the
/// block started. Plus a memory-bound kernel, a compute-bound kernel, the task-pool kernel (persistent
/// blocks taking tasks by static index or from a shared atomic counter), and kernels the calibration and
/// the tests need. Launchers return the launch status; callers check it. (C++17: nvcc compiles it.)

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>


namespace streamlab::executor::kernels {

/// Where and when one block (or one task) ran, read on the device.
struct BlockRecord {
  std::uint64_t start_ns = 0;  ///< %globaltimer when the block (task) started
  std::uint64_t end_ns = 0;
  std::uint32_t sm = 0;        ///< %smid
  std::uint32_t block = 0;     ///< block index (task index for task records)
};

/// Empty kernel: launch cost and start latency baselines.
cudaError_t launch_empty(dim3 grid, dim3 block, cudaStream_t s);

/// Every block spins for `ns_per_block`; `records` (one per block) may be null.
cudaError_t launch_spin(dim3 grid, dim3 block, unsigned shared_bytes, cudaStream_t s, std::uint64_t ns_per_block,
                        BlockRecord* records = nullptr);
/// Sets the spin kernel's preferred shared-memory carveout (percent of the SM's L1/shared storage,
/// cudaFuncAttributePreferredSharedMemoryCarveout; -1: the driver chooses, the default). Diagnostic: the
/// carveout decides which kernels can share an SM.
cudaError_t set_spin_carveout(int percent);
/// The spin kernel's attributes and its resident blocks per SM at `block_threads` threads and
/// `shared_bytes` dynamic shared memory a block.
cudaError_t spin_occupancy(int block_threads, std::size_t shared_bytes, cudaFuncAttributes* attributes,
                           int* blocks_per_sm);
/// Block i spins for `ns_per_block[i]` (device memory, one entry per block).
cudaError_t launch_spin_per_block(dim3 grid, dim3 block, unsigned shared_bytes, cudaStream_t s,
                                  const std::int64_t* ns_per_block, BlockRecord* records = nullptr);

/// Streams `bytes` (multiple of 16) from `src` to `dst`: half read, half written per pass.
cudaError_t launch_memory_bound(dim3 grid, dim3 block, cudaStream_t s, const void* src, void* dst, std::size_t bytes);
/// Each thread runs `iterations` x 8 independent FMA chains (16 flops per iteration per chain) and writes
/// one float to `out` (one per thread) so nothing is optimized away.
cudaError_t launch_compute_bound(dim3 grid, dim3 block, cudaStream_t s, float* out, std::uint32_t iterations);
/// A roofline-shaped kernel for model::CostModel: moves `bytes` through `buf` (at least bytes/2 large)
/// and does `flops` FMA flops, spread over the grid.
cudaError_t launch_cost_model(dim3 grid, dim3 block, cudaStream_t s, void* buf, std::size_t bytes, double flops);

/// Device state of one task pool: the shared queue head and a finished-block count. Zero it once; the
/// kernel's last block resets it, so the same state serves the next launch (and graph replays).
struct TaskPoolState {
  unsigned long long next_task = 0;
  unsigned int blocks_done = 0;
  unsigned int pad = 0;
};
/// Persistent grid: blocks take tasks (task i spins `task_ns[i]`) by static index (block b: b, b+B, ...)
/// (`dynamic_queue` false) or from `state->next_task` (true). `records` (one per task) may be null.
cudaError_t launch_task_pool(dim3 grid, dim3 block, unsigned shared_bytes, cudaStream_t s, const std::int64_t* task_ns,
                             std::uint32_t tasks, bool dynamic_queue, TaskPoolState* state,
                             BlockRecord* records = nullptr);

/// Writes through an invalid address: an illegal-address fault (tests only; the context is lost).
cudaError_t launch_fault(cudaStream_t s);

/// One thread writes %globaltimer into *out (mapped or device memory).
cudaError_t launch_read_globaltimer(cudaStream_t s, std::uint64_t* out);
/// One thread spins until *flag becomes non-zero, or `timeout_ns` passes (then writes 2 to *flag).
cudaError_t launch_wait_flag(cudaStream_t s, volatile std::uint32_t* flag, std::uint64_t timeout_ns);
/// Clock service for host/device clock correlation: one thread loops `rounds` times; round r waits for
/// request[0] == r + 1 (host-written, mapped memory) and answers response[r] = %globaltimer.
cudaError_t launch_clock_service(cudaStream_t s, volatile std::uint32_t* request, volatile std::uint64_t* response,
                                 std::uint32_t rounds, std::uint64_t timeout_ns);
/// Spins `ns`, then writes %globaltimer to *end_out (if non-null) and sets *flag = 1 (if non-null), as the
/// last thing it does.
cudaError_t launch_spin_then_signal(cudaStream_t s, std::uint64_t ns, std::uint64_t* end_out,
                                    volatile std::uint32_t* flag);
/// Smallest non-zero step of %globaltimer seen over `samples` consecutive reads (ns), into *out.
cudaError_t launch_timer_resolution(cudaStream_t s, std::uint64_t* out, std::uint32_t samples);

}  // namespace streamlab::executor::kernels
