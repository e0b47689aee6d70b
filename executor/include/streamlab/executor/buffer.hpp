#pragma once
/// \file buffer.hpp
/// Owned memory: device (cudaMalloc), pinned host (cudaMallocHost), managed (cudaMallocManaged, small
/// sizes only) and pageable host. Untyped byte buffers with typed views; move-only; a failed allocation
/// throws CudaError naming the op it was for.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace streamlab::executor {

enum class MemoryKind : std::uint8_t { device, pinned_host, managed, pageable_host };

[[nodiscard]] std::string_view to_string(MemoryKind k) noexcept;

/// One allocation of `bytes` bytes of one kind. Zero bytes is allowed and allocates nothing.
class buffer {
 public:
  buffer() noexcept = default;
  /// Allocates; throws CudaError (status cudaErrorMemoryAllocation, naming `op`) when it cannot.
  /// Managed memory larger than the device's free memory is refused before asking CUDA (asking can hang
  /// the GPU), with a CudaError too.
  buffer(MemoryKind kind, std::size_t bytes, std::string_view op = {});
  ~buffer();
  buffer(buffer&& other) noexcept;
  buffer& operator=(buffer&& other) noexcept;
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  void swap(buffer& other) noexcept;

  [[nodiscard]] MemoryKind kind() const noexcept { return kind_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  [[nodiscard]] void* data() noexcept { return ptr_; }
  [[nodiscard]] const void* data() const noexcept { return ptr_; }
  template <class T>
  [[nodiscard]] T* as() noexcept {
    return static_cast<T*>(ptr_);
  }
  /// Host-visible kinds only (pinned, managed, pageable).
  template <class T>
  [[nodiscard]] std::span<T> host_span() noexcept {
    return {static_cast<T*>(ptr_), bytes_ / sizeof(T)};
  }

 private:
  MemoryKind kind_ = MemoryKind::device;
  std::size_t bytes_ = 0;
  void* ptr_ = nullptr;
};

inline buffer device_buffer(std::size_t bytes, std::string_view op = {}) {
  return buffer{MemoryKind::device, bytes, op};
}
inline buffer pinned_buffer(std::size_t bytes, std::string_view op = {}) {
  return buffer{MemoryKind::pinned_host, bytes, op};
}
inline buffer pageable_buffer(std::size_t bytes, std::string_view op = {}) {
  return buffer{MemoryKind::pageable_host, bytes, op};
}
inline buffer managed_buffer(std::size_t bytes, std::string_view op = {}) {
  return buffer{MemoryKind::managed, bytes, op};
}

/// Device memory free and total (cudaMemGetInfo).
struct MemoryInfo {
  std::size_t free = 0, total = 0;
};
[[nodiscard]] MemoryInfo device_memory_info();

}  // namespace streamlab::executor
