#include "streamlab/executor/device_info.hpp"

#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>

#include "streamlab/executor/error.hpp"

namespace streamlab::executor {
namespace {

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

// The kernel module's version line: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ...".
std::string driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return {};
  static const std::regex re(R"((\d+\.\d+(\.\d+)?))");
  const auto pos = line.find("Kernel Module");
  std::smatch m;
  const std::string tail = pos == std::string::npos ? line : line.substr(pos);
  return std::regex_search(tail, m, re) ? m.str(1) : std::string{};
}

}  // namespace

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

DeviceInfo query_device(int ordinal) {
  int n = 0;
  const cudaError_t s = cudaGetDeviceCount(&n);
  if (s != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    throw CudaError(s == cudaSuccess ? cudaErrorNoDevice : s, "cudaGetDeviceCount", __FILE__, __LINE__,
                    "no CUDA device: " + std::string(s == cudaSuccess ? "the driver reports 0 devices"
                                                                      : cudaGetErrorString(s)));
  }
  if (ordinal < 0 || ordinal >= n) {
    throw CudaError(cudaErrorInvalidDevice, "cudaSetDevice", __FILE__, __LINE__,
                    "no CUDA device: ordinal " + std::to_string(ordinal) + " (" + std::to_string(n) + " present)");
  }
  DeviceInfo d;
  d.ordinal = ordinal;
  STREAMLAB_CUDA_CHECK(cudaGetDeviceProperties(&d.props, ordinal));
  d.name = d.props.name;
  d.compute_capability = std::to_string(d.props.major) + "." + std::to_string(d.props.minor);
  int rt = 0, drv = 0;
  STREAMLAB_CUDA_CHECK(cudaRuntimeGetVersion(&rt));
  STREAMLAB_CUDA_CHECK(cudaDriverGetVersion(&drv));
  d.cuda_runtime = version_string(rt);
  d.cuda_driver_api = version_string(drv);
  d.driver = driver_version();
  return d;
}

std::string iso_date_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace streamlab::executor
