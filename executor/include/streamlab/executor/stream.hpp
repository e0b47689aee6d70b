#pragma once
/// \file stream.hpp
/// CUDA stream handles: a non-owning, cheap-to-copy `stream_ref` and an owning, move-only `stream` that
/// is-a `stream_ref`. Pools and the backend hand out refs; traces carry StreamIds, never handles.

#include <cstddef>
#include <string_view>
#include <utility>

#include <cuda_runtime_api.h>

namespace streamlab::executor {

class event_ref;

/// CUDA's stream creation flags.
enum class StreamFlags : unsigned {
  blocking = cudaStreamDefault,          ///< synchronizes with the legacy NULL stream
  non_blocking = cudaStreamNonBlocking,  ///< exempt from the legacy NULL stream's implicit barrier
};

/// A stream we do not own. Never null: the legacy NULL stream is `stream_ref::legacy()`
/// (cudaStreamLegacy), so an accidental 0 or nullptr cannot sneak in.
class stream_ref {
 public:
  constexpr stream_ref(cudaStream_t s) noexcept : handle_(s) {}  // NOLINT: implicit by design (CCCL)
  stream_ref(int) = delete;
  stream_ref(std::nullptr_t) = delete;

  /// The legacy NULL stream: an implicit barrier with every blocking stream.
  [[nodiscard]] static stream_ref legacy() noexcept { return stream_ref{cudaStreamLegacy}; }
  /// The calling thread's default stream under per-thread semantics: an ordinary stream.
  [[nodiscard]] static stream_ref per_thread() noexcept { return stream_ref{cudaStreamPerThread}; }

  [[nodiscard]] constexpr cudaStream_t get() const noexcept { return handle_; }

  /// cudaStreamQuery: true when all work issued so far has completed. Throws on a real error.
  [[nodiscard]] bool ready(std::string_view op = {}) const;
  /// cudaStreamSynchronize (blocking, no timeout: use the backend or wait_until_ready for one).
  void sync(std::string_view op = {}) const;
  /// Future work on this stream waits for `e`'s most recent record.
  void wait(event_ref e, std::string_view op = {}) const;
  /// CUDA priority (lower = higher priority).
  [[nodiscard]] int priority() const;

  friend constexpr bool operator==(stream_ref a, stream_ref b) noexcept { return a.handle_ == b.handle_; }

 protected:
  cudaStream_t handle_;
};

/// An owned stream, destroyed with the object. Move-only; a moved-from stream holds an invalid handle.
class stream : public stream_ref {
 public:
  /// cudaStreamCreateWithPriority; `priority` is clamped into the device's range.
  explicit stream(StreamFlags flags = StreamFlags::non_blocking, int priority = 0);
  ~stream();
  stream(stream&& other) noexcept;
  stream& operator=(stream&& other) noexcept;
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  [[nodiscard]] StreamFlags flags() const noexcept { return flags_; }
  [[nodiscard]] bool valid() const noexcept { return handle_ != invalid_handle(); }
  void swap(stream& other) noexcept;

  /// The moved-from sentinel (never a real stream, never one of CUDA's special handles).
  [[nodiscard]] static cudaStream_t invalid_handle() noexcept;

 private:
  StreamFlags flags_;
};

/// The device's {least, greatest} stream priority (cudaDeviceGetStreamPriorityRange), e.g. {0, -5}.
[[nodiscard]] std::pair<int, int> stream_priority_range();

}  // namespace streamlab::executor
