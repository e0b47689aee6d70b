#pragma once
/// \file stream_allocator.hpp
/// Stream-ordered device memory on CUDA memory pools (cudaMallocFromPoolAsync / cudaFreeAsync): one pool
/// per stream, so a stream's allocations are reused in stream order without synchronizing, and size
/// classes with per-stream free lists, so a freed block of a class is handed back without a CUDA call.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <cuda_runtime_api.h>

#include "streamlab/executor/stream.hpp"

namespace streamlab::executor {

/// One allocation; valid until freed through the allocator.
struct StreamAllocation {
  void* ptr = nullptr;
  std::size_t bytes = 0;       ///< requested
  std::size_t class_bytes = 0; ///< rounded up to its size class
  cudaStream_t stream = nullptr;
};

struct StreamAllocatorStats {
  std::uint64_t allocations = 0;
  std::uint64_t class_hits = 0;    ///< served from a free list (no CUDA call)
  std::uint64_t pool_allocs = 0;   ///< cudaMallocFromPoolAsync calls
  std::uint64_t frees = 0;
  std::size_t bytes_in_use = 0;    ///< by class size
  std::size_t bytes_cached = 0;    ///< in free lists
  std::size_t peak_in_use = 0;
};

class StreamOrderedAllocator {
 public:
  struct Options {
    /// Bytes a pool keeps reserved when idle (cudaMemPoolAttrReleaseThreshold).
    std::uint64_t release_threshold = 64ull << 20;
    /// Largest request that goes through size classes; larger ones go straight to the pool.
    std::size_t max_class_bytes = 64ull << 20;
  };
  StreamOrderedAllocator();
  explicit StreamOrderedAllocator(Options options);
  /// Synchronizes the device, frees cached blocks and destroys the pools; never touches the streams
  /// (they may be gone already).
  ~StreamOrderedAllocator();
  StreamOrderedAllocator(const StreamOrderedAllocator&) = delete;
  StreamOrderedAllocator& operator=(const StreamOrderedAllocator&) = delete;

  /// Memory usable by work on `s` issued after this call. Throws CudaError naming `op` when the
  /// device cannot satisfy it.
  [[nodiscard]] StreamAllocation allocate(stream_ref s, std::size_t bytes, std::string_view op = {});
  /// Returns it in stream order on `s` (the allocation's own stream when `s` is omitted). Freed on its own
  /// stream, a class-sized block goes to that stream's free list; on another stream, to cudaFreeAsync.
  void free(const StreamAllocation& a);
  void free(const StreamAllocation& a, stream_ref s);
  /// Returns every cached block of `s` to CUDA.
  void trim(stream_ref s);

  [[nodiscard]] StreamAllocatorStats stats() const;
  /// Size class of a request: powers of two from 256 B to 1 MiB, then multiples of 1 MiB.
  [[nodiscard]] static std::size_t size_class(std::size_t bytes) noexcept;

 private:
  struct PerStream {
    cudaMemPool_t pool = nullptr;
    std::unordered_map<std::size_t, std::vector<void*>> free_lists;
  };
  PerStream& stream_state_locked(cudaStream_t s);
  Options options_;
  int device_ = 0;
  mutable std::mutex mutex_;
  std::unordered_map<cudaStream_t, PerStream> streams_;
  StreamAllocatorStats stats_;
};

}  // namespace streamlab::executor
