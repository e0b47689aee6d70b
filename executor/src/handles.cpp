// Stream, event and buffer handles, and the async memory operations.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>

#include "streamlab/executor/buffer.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/executor/event.hpp"
#include "streamlab/executor/memory_ops.hpp"
#include "streamlab/executor/stream.hpp"

namespace streamlab::executor {

// ---- streams -------------------------------------------------------------------------------------

bool stream_ref::ready(std::string_view op) const {
  const cudaError_t s = cudaStreamQuery(handle_);
  if (s == cudaSuccess) return true;
  if (s == cudaErrorNotReady) return false;
  detail::throw_cuda_error(s, "cudaStreamQuery(stream)", __FILE__, __LINE__, op);
}

void stream_ref::sync(std::string_view op) const { STREAMLAB_CUDA_CHECK_OP(cudaStreamSynchronize(handle_), op); }

void stream_ref::wait(event_ref e, std::string_view op) const {
  STREAMLAB_CUDA_CHECK_OP(cudaStreamWaitEvent(handle_, e.get(), 0), op);
}

int stream_ref::priority() const {
  int p = 0;
  STREAMLAB_CUDA_CHECK(cudaStreamGetPriority(handle_, &p));
  return p;
}

std::pair<int, int> stream_priority_range() {
  int least = 0, greatest = 0;
  STREAMLAB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  return {least, greatest};
}

cudaStream_t stream::invalid_handle() noexcept {
  // cudaStreamLegacy and cudaStreamPerThread are 0x1 and 0x2; an all-ones pointer is none of CUDA's.
  return reinterpret_cast<cudaStream_t>(~std::uintptr_t{0});
}

stream::stream(StreamFlags flags, int priority) : stream_ref(invalid_handle()), flags_(flags) {
  const auto [least, greatest] = stream_priority_range();
  const int p = std::clamp(priority, greatest, least);
  cudaStream_t s = nullptr;
  STREAMLAB_CUDA_CHECK(cudaStreamCreateWithPriority(&s, static_cast<unsigned>(flags), p));
  handle_ = s;
}

stream::~stream() {
  if (valid()) STREAMLAB_CUDA_LOG(cudaStreamDestroy(handle_));
}

stream::stream(stream&& other) noexcept : stream_ref(other.handle_), flags_(other.flags_) {
  other.handle_ = invalid_handle();
}

stream& stream::operator=(stream&& other) noexcept {
  stream tmp(std::move(other));
  swap(tmp);
  return *this;
}

void stream::swap(stream& other) noexcept {
  std::swap(handle_, other.handle_);
  std::swap(flags_, other.flags_);
}

// ---- events --------------------------------------------------------------------------------------

void event_ref::record(stream_ref s, std::string_view op) const {
  STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(handle_, s.get()), op);
}

bool event_ref::ready(std::string_view op) const {
  const cudaError_t s = cudaEventQuery(handle_);
  if (s == cudaSuccess) return true;
  if (s == cudaErrorNotReady) return false;
  detail::throw_cuda_error(s, "cudaEventQuery(event)", __FILE__, __LINE__, op);
}

void event_ref::sync(std::string_view op) const { STREAMLAB_CUDA_CHECK_OP(cudaEventSynchronize(handle_), op); }

event::event() : event_ref(cudaEvent_t{}) {
  cudaEvent_t e = nullptr;
  STREAMLAB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  handle_ = e;
}

event::event(timed_tag) : event_ref(cudaEvent_t{}) {
  cudaEvent_t e = nullptr;
  STREAMLAB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDefault));
  handle_ = e;
}

event::~event() {
  if (handle_ != nullptr) STREAMLAB_CUDA_LOG(cudaEventDestroy(handle_));
}

event::event(event&& other) noexcept : event_ref(other.handle_) { other.handle_ = nullptr; }

event& event::operator=(event&& other) noexcept {
  event tmp(std::move(other));
  swap(tmp);
  return *this;
}

void event::swap(event& other) noexcept { std::swap(handle_, other.handle_); }

timed_event::timed_event() : event(timed_tag{}) {}

std::chrono::nanoseconds elapsed(event_ref start, event_ref end, std::string_view op) {
  float ms = 0;
  STREAMLAB_CUDA_CHECK_OP(cudaEventElapsedTime(&ms, start.get(), end.get()), op);
  return std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(ms) * 1e6 + (ms >= 0 ? 0.5 : -0.5)));
}

// ---- buffers -------------------------------------------------------------------------------------

std::string_view to_string(MemoryKind k) noexcept {
  switch (k) {
    case MemoryKind::device: return "device";
    case MemoryKind::pinned_host: return "pinned host";
    case MemoryKind::managed: return "managed";
    case MemoryKind::pageable_host: return "pageable host";
  }
  return "?";
}

MemoryInfo device_memory_info() {
  MemoryInfo m;
  STREAMLAB_CUDA_CHECK(cudaMemGetInfo(&m.free, &m.total));
  return m;
}

buffer::buffer(MemoryKind kind, std::size_t bytes, std::string_view op) : kind_(kind), bytes_(bytes) {
  if (bytes == 0) return;
  switch (kind) {
    case MemoryKind::device:
      STREAMLAB_CUDA_CHECK_OP(cudaMalloc(&ptr_, bytes), op);
      break;
    case MemoryKind::pinned_host:
      STREAMLAB_CUDA_CHECK_OP(cudaMallocHost(&ptr_, bytes), op);
      break;
    case MemoryKind::managed: {
      // Asking for more managed memory than the device has free can hang the GPU: refuse first.
      const MemoryInfo info = device_memory_info();
      if (bytes > info.free / 2) {
        detail::throw_cuda_error(cudaErrorMemoryAllocation,
                                 "cudaMallocManaged (refused: more than half the device's free memory)", __FILE__,
                                 __LINE__, op);
      }
      STREAMLAB_CUDA_CHECK_OP(cudaMallocManaged(&ptr_, bytes, cudaMemAttachGlobal), op);
      break;
    }
    case MemoryKind::pageable_host:
      ptr_ = std::malloc(bytes);  // NOLINT: plain pageable memory is the point
      if (ptr_ == nullptr) {
        detail::throw_cuda_error(cudaErrorMemoryAllocation, "malloc (pageable host buffer)", __FILE__, __LINE__, op);
      }
      break;
  }
}

buffer::~buffer() {
  if (ptr_ == nullptr) return;
  switch (kind_) {
    case MemoryKind::device:
    case MemoryKind::managed:
      STREAMLAB_CUDA_LOG(cudaFree(ptr_));
      break;
    case MemoryKind::pinned_host:
      STREAMLAB_CUDA_LOG(cudaFreeHost(ptr_));
      break;
    case MemoryKind::pageable_host:
      std::free(ptr_);  // NOLINT
      break;
  }
}

buffer::buffer(buffer&& other) noexcept : kind_(other.kind_), bytes_(other.bytes_), ptr_(other.ptr_) {
  other.ptr_ = nullptr;
  other.bytes_ = 0;
}

buffer& buffer::operator=(buffer&& other) noexcept {
  buffer tmp(std::move(other));
  swap(tmp);
  return *this;
}

void buffer::swap(buffer& other) noexcept {
  std::swap(kind_, other.kind_);
  std::swap(bytes_, other.bytes_);
  std::swap(ptr_, other.ptr_);
}

// ---- async memory operations ----------------------------------------------------------------------

void copy_h2d_async(void* device_dst, const void* host_src, std::size_t bytes, stream_ref s, std::string_view op) {
  STREAMLAB_CUDA_CHECK_OP(cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, s.get()), op);
}

void copy_d2h_async(void* host_dst, const void* device_src, std::size_t bytes, stream_ref s, std::string_view op) {
  STREAMLAB_CUDA_CHECK_OP(cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, s.get()), op);
}

void copy_d2d_async(void* device_dst, const void* device_src, std::size_t bytes, stream_ref s, std::string_view op) {
  STREAMLAB_CUDA_CHECK_OP(cudaMemcpyAsync(device_dst, device_src, bytes, cudaMemcpyDeviceToDevice, s.get()), op);
}

void memset_async(void* device_dst, int value, std::size_t bytes, stream_ref s, std::string_view op) {
  STREAMLAB_CUDA_CHECK_OP(cudaMemsetAsync(device_dst, value, bytes, s.get()), op);
}

void prefetch_async(const buffer& managed, std::size_t bytes, int device, stream_ref s, std::string_view op) {
  if (managed.kind() != MemoryKind::managed) {
    detail::throw_cuda_error(cudaErrorInvalidValue, "prefetch_async (buffer is not managed memory)", __FILE__,
                             __LINE__, op);
  }
  cudaMemLocation loc{};
  if (device == cudaCpuDeviceId) {
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0;
  } else {
    loc.type = cudaMemLocationTypeDevice;
    loc.id = device;
  }
  STREAMLAB_CUDA_CHECK_OP(cudaMemPrefetchAsync(managed.data(), std::min(bytes, managed.size()), loc, 0, s.get()), op);
}

}  // namespace streamlab::executor
