#include "streamlab/executor/stream_allocator.hpp"

#include <algorithm>
#include <bit>

#include "streamlab/executor/error.hpp"

namespace streamlab::executor {

std::size_t StreamOrderedAllocator::size_class(std::size_t bytes) noexcept {
  constexpr std::size_t kMin = 256, kMiB = std::size_t{1} << 20;
  if (bytes <= kMin) return kMin;
  if (bytes <= kMiB) return std::bit_ceil(bytes);
  return (bytes + kMiB - 1) / kMiB * kMiB;
}

StreamOrderedAllocator::StreamOrderedAllocator() : StreamOrderedAllocator(Options{}) {}

StreamOrderedAllocator::StreamOrderedAllocator(Options options) : options_(options) {
  STREAMLAB_CUDA_CHECK(cudaGetDevice(&device_));
}

StreamOrderedAllocator::~StreamOrderedAllocator() {
  // The streams may already be destroyed (they are the user's): never touch them here. After a device
  // synchronize every cached block is idle, so it can go back on the legacy stream.
  std::lock_guard lock(mutex_);
  STREAMLAB_CUDA_LOG(cudaDeviceSynchronize());
  for (auto& [s, st] : streams_) {
    for (auto& [cls, list] : st.free_lists) {
      for (void* p : list) STREAMLAB_CUDA_LOG(cudaFreeAsync(p, cudaStreamLegacy));
    }
  }
  STREAMLAB_CUDA_LOG(cudaStreamSynchronize(cudaStreamLegacy));
  // A pool with allocations still out is released by CUDA once they are freed.
  for (auto& [s, st] : streams_) STREAMLAB_CUDA_LOG(cudaMemPoolDestroy(st.pool));
}

StreamOrderedAllocator::PerStream& StreamOrderedAllocator::stream_state_locked(cudaStream_t s) {
  auto it = streams_.find(s);
  if (it != streams_.end()) return it->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device_;
  PerStream st;
  STREAMLAB_CUDA_CHECK_OP(cudaMemPoolCreate(&st.pool, &props), "stream-ordered allocator (pool)");
  std::uint64_t threshold = options_.release_threshold;
  STREAMLAB_CUDA_CHECK_OP(cudaMemPoolSetAttribute(st.pool, cudaMemPoolAttrReleaseThreshold, &threshold),
                          "stream-ordered allocator (pool)");
  return streams_.emplace(s, std::move(st)).first->second;
}

StreamAllocation StreamOrderedAllocator::allocate(stream_ref s, std::size_t bytes, std::string_view op) {
  std::lock_guard lock(mutex_);
  PerStream& st = stream_state_locked(s.get());
  const bool classed = bytes <= options_.max_class_bytes;
  const std::size_t cls = classed ? size_class(bytes) : bytes;
  StreamAllocation a{nullptr, bytes, cls, s.get()};
  ++stats_.allocations;
  if (classed) {
    auto& list = st.free_lists[cls];
    if (!list.empty()) {
      // Freed earlier on this same stream: stream order already separates the old use from the new.
      a.ptr = list.back();
      list.pop_back();
      ++stats_.class_hits;
      stats_.bytes_cached -= cls;
    }
  }
  if (a.ptr == nullptr) {
    STREAMLAB_CUDA_CHECK_OP(cudaMallocFromPoolAsync(&a.ptr, cls, st.pool, s.get()), op);
    ++stats_.pool_allocs;
  }
  stats_.bytes_in_use += cls;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.bytes_in_use);
  return a;
}

void StreamOrderedAllocator::free(const StreamAllocation& a) { free(a, stream_ref{a.stream}); }

void StreamOrderedAllocator::free(const StreamAllocation& a, stream_ref s) {
  if (a.ptr == nullptr) return;
  std::lock_guard lock(mutex_);
  ++stats_.frees;
  stats_.bytes_in_use -= a.class_bytes;
  if (s.get() == a.stream && a.bytes <= options_.max_class_bytes) {
    streams_[a.stream].free_lists[a.class_bytes].push_back(a.ptr);
    stats_.bytes_cached += a.class_bytes;
    return;
  }
  STREAMLAB_CUDA_CHECK_OP(cudaFreeAsync(a.ptr, s.get()), "stream-ordered allocator (free)");
}

void StreamOrderedAllocator::trim(stream_ref s) {
  std::lock_guard lock(mutex_);
  auto it = streams_.find(s.get());
  if (it == streams_.end()) return;
  for (auto& [cls, list] : it->second.free_lists) {
    for (void* p : list) {
      STREAMLAB_CUDA_CHECK_OP(cudaFreeAsync(p, s.get()), "stream-ordered allocator (trim)");
      stats_.bytes_cached -= cls;
    }
    list.clear();
  }
}

StreamAllocatorStats StreamOrderedAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace streamlab::executor
