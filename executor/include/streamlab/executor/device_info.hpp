#pragma once
/// \file device_info.hpp
/// What a measured trace or profile records about where it was measured.

#include <string>

#include <cuda_runtime_api.h>

namespace streamlab::executor {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;             ///< "NVIDIA H100 80GB HBM3"
  std::string driver;           ///< kernel module version, e.g. "580.159.04" ("" when unreadable)
  std::string cuda_runtime;     ///< e.g. "13.0"
  std::string cuda_driver_api;  ///< highest CUDA version the driver supports, e.g. "13.0"
  std::string compute_capability;
  cudaDeviceProp props{};
};

/// Throws CudaError("no CUDA device: ...") when there is none or `ordinal` does not exist.
[[nodiscard]] DeviceInfo query_device(int ordinal = 0);
/// Number of CUDA devices, 0 when none (never throws).
[[nodiscard]] int device_count() noexcept;
/// UTC now as ISO 8601 ("2026-11-21T17:03:12Z").
[[nodiscard]] std::string iso_date_utc();

}  // namespace streamlab::executor
