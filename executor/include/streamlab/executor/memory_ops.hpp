#pragma once
/// \file memory_ops.hpp
/// Asynchronous memory operations on a stream, each checked and naming the op it serves. Pageable host
/// memory is allowed for H2D/D2H (CUDA stages it through a pinned buffer, so the call returns only after
/// the copy is staged: much slower and synchronous for the host).

#include <cstddef>
#include <string_view>

#include "streamlab/executor/buffer.hpp"
#include "streamlab/executor/stream.hpp"

namespace streamlab::executor {

void copy_h2d_async(void* device_dst, const void* host_src, std::size_t bytes, stream_ref s, std::string_view op = {});
void copy_d2h_async(void* host_dst, const void* device_src, std::size_t bytes, stream_ref s, std::string_view op = {});
void copy_d2d_async(void* device_dst, const void* device_src, std::size_t bytes, stream_ref s, std::string_view op = {});
void memset_async(void* device_dst, int value, std::size_t bytes, stream_ref s, std::string_view op = {});
/// Migrates managed memory to `device` (or to the host with device = cudaCpuDeviceId) in stream order.
void prefetch_async(const buffer& managed, std::size_t bytes, int device, stream_ref s, std::string_view op = {});

}  // namespace streamlab::executor
