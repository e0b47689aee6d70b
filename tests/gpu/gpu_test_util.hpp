#pragma once
// Helpers shared by the GPU tests.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "streamlab/executor/error.hpp"

namespace streamlab::test {

/// True under compute-sanitizer (it injects itself through CUDA_INJECTION64_PATH): timing assertions are
/// meaningless there.
/// executor/scripts/device_run.sh also sets STREAMLAB_UNDER_SANITIZER=1 for its sanitizer runs.
inline bool under_sanitizer() {
  if (const char* s = std::getenv("STREAMLAB_UNDER_SANITIZER"); s != nullptr && s[0] == '1') return true;
  const char* p = std::getenv("CUDA_INJECTION64_PATH");
  return p != nullptr && std::strstr(p, "anitizer") != nullptr;
}

/// Mapped pinned memory (host pointer usable on the device), zeroed.
class Mapped {
 public:
  explicit Mapped(std::size_t bytes) : bytes_(bytes) {
    STREAMLAB_CUDA_CHECK(cudaHostAlloc(&p_, bytes, cudaHostAllocMapped));
    std::memset(p_, 0, bytes);
  }
  ~Mapped() { (void)cudaFreeHost(p_); }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  template <class T>
  T* as() {
    return static_cast<T*>(p_);
  }
  std::uint32_t* flag() { return as<std::uint32_t>(); }
  void release_flag() { reinterpret_cast<volatile std::uint32_t*>(p_)[0] = 1; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_;
};

}  // namespace streamlab::test
