#pragma once
// Host-visible memory the GPU reads and writes directly (mapped pinned memory; with UVA the host pointer
// works on the device). Internal to the executor: calibrate's probes and the clock link.

#include <cstddef>
#include <cstring>

#include <cuda_runtime_api.h>

#include "streamlab/executor/error.hpp"

namespace streamlab::executor::detail {

class MappedHost {
 public:
  explicit MappedHost(std::size_t bytes) : bytes_(bytes) {
    STREAMLAB_CUDA_CHECK_OP(cudaHostAlloc(&ptr_, bytes, cudaHostAllocMapped), "mapped host memory");
    std::memset(ptr_, 0, bytes);
  }
  ~MappedHost() { STREAMLAB_CUDA_LOG(cudaFreeHost(ptr_)); }
  MappedHost(const MappedHost&) = delete;
  MappedHost& operator=(const MappedHost&) = delete;
  template <class T>
  T* as() {
    return static_cast<T*>(ptr_);
  }
  void clear() { std::memset(ptr_, 0, bytes_); }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

}  // namespace streamlab::executor::detail
