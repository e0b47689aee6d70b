// Synthetic kernels (see kernels.hpp). Durations come from %globaltimer, the GPU's nanosecond clock, so a
// block's run time does not depend on the SM clock or on what else runs.
#include <cstdint>

#include "streamlab/executor/kernels.hpp"

namespace streamlab::executor::kernels {
namespace {

__device__ __forceinline__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ std::uint32_t sm_id() {
  std::uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ __forceinline__ bool first_thread() { return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0; }

__device__ __forceinline__ std::uint32_t linear_block() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

__device__ __forceinline__ std::uint32_t block_count() { return gridDim.x * gridDim.y * gridDim.z; }

// Every thread spins until `ns` has passed since it read the clock, and the block stays resident until
// its last thread is done (as a real block would); the warps of a block start within nanoseconds of each
// other. No shared memory: a shape's shared memory decides which other kernels can share an SM (the
// carveout), so the kernel asks for exactly what the shape says (see dynamic_shared).
__device__ void spin_block(std::uint64_t ns, BlockRecord* records, std::uint32_t index) {
  const std::uint64_t start = globaltimer();
  const std::uint64_t until = start + ns;
  while (globaltimer() < until) {
  }
  __syncthreads();
  if (records != nullptr && first_thread()) {
    records[index] = BlockRecord{start, globaltimer(), sm_id(), index};
  }
}

__global__ void empty_kernel() {}

__global__ void spin_kernel(std::uint64_t ns, BlockRecord* records) { spin_block(ns, records, linear_block()); }

__global__ void spin_per_block_kernel(const std::int64_t* ns, BlockRecord* records) {
  const std::uint32_t b = linear_block();
  spin_block(static_cast<std::uint64_t>(ns[b]), records, b);
}

__global__ void memory_bound_kernel(const float4* __restrict__ src, float4* __restrict__ dst, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 v = src[i];
    v.x += 1.0f;
    dst[i] = v;
  }
}

__global__ void compute_bound_kernel(float* out, std::uint32_t iterations) {
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  float a[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) a[j] = static_cast<float>(tid + j) * 1e-7f;
  for (std::uint32_t it = 0; it < iterations; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], 0.999999f, 1e-7f);
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) sum += a[j];
  out[tid] = sum;
}

// Interleaves one float4 copy with a share of the FMA work so the two overlap (roofline: max, not sum).
__global__ void cost_model_kernel(float4* buf, std::size_t elems, std::uint64_t fma_groups_per_thread) {
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  const std::size_t my_elems = tid < elems ? (elems - tid + threads - 1) / threads : 0;
  const std::uint64_t per_elem = my_elems == 0 ? 0 : fma_groups_per_thread / my_elems;
  std::uint64_t remaining = fma_groups_per_thread;
  float a[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) a[j] = static_cast<float>(tid + j) * 1e-7f;
  for (std::size_t i = tid; i < elems; i += threads) {
    float4 v = buf[i];
    for (std::uint64_t k = 0; k < per_elem; ++k) {
#pragma unroll
      for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], 0.999999f, 1e-7f);
    }
    remaining -= per_elem;
    v.y += a[0];
    buf[elems + i] = v;
  }
  for (std::uint64_t k = 0; k < remaining; ++k) {
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], 0.999999f, 1e-7f);
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) sum += a[j];
  if (sum == 12345.678f && elems > 0) buf[0].z = sum;  // practically never; keeps the FMAs alive
}

__global__ void task_pool_kernel(const std::int64_t* task_ns, std::uint32_t tasks, bool dynamic,
                                 TaskPoolState* state, BlockRecord* records) {
  __shared__ unsigned long long task;
  const std::uint32_t blocks = block_count();
  const std::uint32_t b = linear_block();
  if (!dynamic) {
    for (std::uint32_t t = b; t < tasks; t += blocks) {
      spin_block(static_cast<std::uint64_t>(task_ns[t]), records, t);
    }
  } else {
    for (;;) {
      if (first_thread()) task = atomicAdd(&state->next_task, 1ull);
      __syncthreads();
      const unsigned long long t = task;
      if (t >= tasks) break;
      // spin_block's barriers keep every thread's read of `task` before thread 0's next write.
      spin_block(static_cast<std::uint64_t>(task_ns[t]), records, static_cast<std::uint32_t>(t));
    }
  }
  // The last block out resets the queue so the next launch (or graph replay) starts from task 0.
  __syncthreads();
  if (first_thread()) {
    __threadfence();
    const unsigned done = atomicAdd(&state->blocks_done, 1u);
    if (done == blocks - 1) {
      atomicExch(&state->next_task, 0ull);
      atomicExch(&state->blocks_done, 0u);
      __threadfence();
    }
  }
}

__global__ void fault_kernel(int* bad) { *bad = 1; }

__global__ void read_globaltimer_kernel(std::uint64_t* out) { *out = globaltimer(); }

__global__ void wait_flag_kernel(volatile std::uint32_t* flag, std::uint64_t timeout_ns) {
  const std::uint64_t deadline = globaltimer() + timeout_ns;
  while (*flag == 0) {
    if (globaltimer() > deadline) {
      *flag = 2;
      break;
    }
  }
}

__global__ void clock_service_kernel(volatile std::uint32_t* request, volatile std::uint64_t* response,
                                     std::uint32_t rounds, std::uint64_t timeout_ns) {
  for (std::uint32_t r = 0; r < rounds; ++r) {
    const std::uint64_t deadline = globaltimer() + timeout_ns;
    while (*request != r + 1) {
      if (globaltimer() > deadline) return;
    }
    response[r] = globaltimer();
    __threadfence_system();
  }
}

__global__ void spin_then_signal_kernel(std::uint64_t ns, std::uint64_t* end_out, volatile std::uint32_t* flag) {
  const std::uint64_t until = globaltimer() + ns;
  while (globaltimer() < until) {
  }
  if (end_out != nullptr) *end_out = globaltimer();
  __threadfence_system();
  if (flag != nullptr) *flag = 1;
  __threadfence_system();
}

__global__ void timer_resolution_kernel(std::uint64_t* out, std::uint32_t samples) {
  std::uint64_t best = ~0ull;
  std::uint64_t prev = globaltimer();
  for (std::uint32_t i = 0; i < samples; ++i) {
    const std::uint64_t now = globaltimer();
    if (now != prev && now - prev < best) best = now - prev;
    prev = now;
  }
  *out = best;
}

// Static shared memory of the task-pool kernel (its shared task index); the spin kernels have none.
// Subtracted from a shape's request so the block's total is what the shape asks for.
constexpr unsigned kTaskPoolStaticShared = sizeof(unsigned long long);

unsigned dynamic_shared(unsigned requested, unsigned static_bytes = 0) {
  return requested > static_bytes ? requested - static_bytes : 0;
}

template <class Kernel>
cudaError_t allow_shared(Kernel kernel, unsigned dynamic) {
  // Above 48 KB a kernel must opt in to a larger dynamic shared memory limit.
  if (dynamic <= 48u * 1024u) return cudaSuccess;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic));
}

template <class Kernel, class... Args>
cudaError_t launch(Kernel kernel, dim3 grid, dim3 block, unsigned shared, cudaStream_t s, Args... args) {
  void* argv[] = {static_cast<void*>(&args)...};
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, argv, shared, s);
}

}  // namespace

cudaError_t launch_empty(dim3 grid, dim3 block, cudaStream_t s) {
  return cudaLaunchKernel(reinterpret_cast<const void*>(&empty_kernel), grid, block, nullptr, 0, s);
}

cudaError_t set_spin_carveout(int percent) {
  return cudaFuncSetAttribute(spin_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent);
}

cudaError_t spin_occupancy(int block_threads, std::size_t shared_bytes, cudaFuncAttributes* attributes,
                           int* blocks_per_sm) {
  if (const cudaError_t e = cudaFuncGetAttributes(attributes, spin_kernel); e != cudaSuccess) return e;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, spin_kernel, block_threads,
                                                       dynamic_shared(static_cast<unsigned>(shared_bytes)));
}

cudaError_t launch_spin(dim3 grid, dim3 block, unsigned shared_bytes, cudaStream_t s, std::uint64_t ns_per_block,
                        BlockRecord* records) {
  const unsigned dyn = dynamic_shared(shared_bytes);
  if (const cudaError_t e = allow_shared(spin_kernel, dyn); e != cudaSuccess) return e;
  return launch(spin_kernel, grid, block, dyn, s, ns_per_block, records);
}

cudaError_t launch_spin_per_block(dim3 grid, dim3 block, unsigned shared_bytes, cudaStream_t s,
                                  const std::int64_t* ns_per_block, BlockRecord* records) {
  const unsigned dyn = dynamic_shared(shared_bytes);
  if (const cudaError_t e = allow_shared(spin_per_block_kernel, dyn); e != cudaSuccess) return e;
  return launch(spin_per_block_kernel, grid, block, dyn, s, ns_per_block, records);
}

cudaError_t launch_memory_bound(dim3 grid, dim3 block, cudaStream_t s, const void* src, void* dst, std::size_t bytes) {
  return launch(memory_bound_kernel, grid, block, 0, s, static_cast<const float4*>(src), static_cast<float4*>(dst),
                bytes / sizeof(float4));
}

cudaError_t launch_compute_bound(dim3 grid, dim3 block, cudaStream_t s, float* out, std::uint32_t iterations) {
  return launch(compute_bound_kernel, grid, block, 0, s, out, iterations);
}

cudaError_t launch_cost_model(dim3 grid, dim3 block, cudaStream_t s, void* buf, std::size_t bytes, double flops) {
  const std::size_t elems = bytes / 2 / sizeof(float4);  // read half, write half
  const double threads = static_cast<double>(grid.x) * grid.y * grid.z * block.x * block.y * block.z;
  const auto groups = static_cast<std::uint64_t>(flops / 16.0 / (threads > 0 ? threads : 1.0));
  return launch(cost_model_kernel, grid, block, 0, s, static_cast<float4*>(buf), elems, groups);
}

cudaError_t launch_task_pool(dim3 grid, dim3 block, unsigned shared_bytes, cudaStream_t s, const std::int64_t* task_ns,
                             std::uint32_t tasks, bool dynamic_queue, TaskPoolState* state,
                             BlockRecord* records) {
  const unsigned dyn = dynamic_shared(shared_bytes, kTaskPoolStaticShared);
  if (const cudaError_t e = allow_shared(task_pool_kernel, dyn); e != cudaSuccess) return e;
  return launch(task_pool_kernel, grid, block, dyn, s, task_ns, tasks, dynamic_queue, state, records);
}

cudaError_t launch_fault(cudaStream_t s) {
  // An address no allocation can have: the first page is never mapped.
  int* bad = reinterpret_cast<int*>(std::uintptr_t{64});
  return launch(fault_kernel, dim3(1), dim3(1), 0, s, bad);
}

cudaError_t launch_read_globaltimer(cudaStream_t s, std::uint64_t* out) {
  return launch(read_globaltimer_kernel, dim3(1), dim3(1), 0, s, out);
}

cudaError_t launch_wait_flag(cudaStream_t s, volatile std::uint32_t* flag, std::uint64_t timeout_ns) {
  return launch(wait_flag_kernel, dim3(1), dim3(1), 0, s, flag, timeout_ns);
}

cudaError_t launch_clock_service(cudaStream_t s, volatile std::uint32_t* request, volatile std::uint64_t* response,
                                 std::uint32_t rounds, std::uint64_t timeout_ns) {
  return launch(clock_service_kernel, dim3(1), dim3(1), 0, s, request, response, rounds, timeout_ns);
}

cudaError_t launch_spin_then_signal(cudaStream_t s, std::uint64_t ns, std::uint64_t* end_out,
                                    volatile std::uint32_t* flag) {
  return launch(spin_then_signal_kernel, dim3(1), dim3(1), 0, s, ns, end_out, flag);
}

cudaError_t launch_timer_resolution(cudaStream_t s, std::uint64_t* out, std::uint32_t samples) {
  return launch(timer_resolution_kernel, dim3(1), dim3(1), 0, s, out, samples);
}

}  // namespace streamlab::executor::kernels
