#include "streamlab/executor/error.hpp"

#include <cstdio>
#include <utility>

namespace streamlab::executor {
namespace {

std::string describe(cudaError_t status, const std::string& call, const std::string& file, int line,
                     const std::string& op) {
  std::string msg = "CUDA error ";
  msg += cudaGetErrorName(status);
  msg += " (";
  msg += cudaGetErrorString(status);
  msg += ") in ";
  msg += call;
  if (!op.empty()) {
    msg += " for ";
    msg += op;
  }
  msg += " at ";
  msg += file;
  msg += ':';
  msg += std::to_string(line);
  return msg;
}

}  // namespace

CudaError::CudaError(cudaError_t status, std::string call, std::string file, int line, std::string op)
    : std::runtime_error(describe(status, call, file, line, op)),
      status_(status),
      call_(std::move(call)),
      file_(std::move(file)),
      line_(line),
      op_(std::move(op)) {}

bool CudaError::sticky() const noexcept {
  switch (status_) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

TimeoutError::TimeoutError(std::string op, std::chrono::nanoseconds waited, const std::string& what)
    : std::runtime_error(what), op_(std::move(op)), waited_(waited) {}

namespace detail {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line, std::string_view op) {
  // A failing call also sets the runtime's last error; clear it so a later unrelated check does not
  // report this one again (sticky errors stay regardless).
  (void)cudaGetLastError();
  throw CudaError(status, call, file, line, std::string(op));
}

void log_cuda_error(cudaError_t status, const char* call, const char* file, int line) noexcept {
  (void)cudaGetLastError();
  std::fprintf(stderr, "streamlab: CUDA error %s in %s at %s:%d (ignored during cleanup)\n", cudaGetErrorName(status),
               call, file, line);
}

}  // namespace detail
}  // namespace streamlab::executor
