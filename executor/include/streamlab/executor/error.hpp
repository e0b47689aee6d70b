#pragma once
/// \file error.hpp
/// One error type for CUDA failures (status, call, file:line, the op it served) and one checking macro.
/// User errors (bad workload, bad flag) stay model::InputError.

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

namespace streamlab::executor {

/// A CUDA runtime call failed. `op()` names what the call served ("op 'gemm3' (GEMM 3)", "event pool",
/// ...), so a failure deep inside a run still says which piece of the workload it belonged to.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t status, std::string call, std::string file, int line, std::string op);
  [[nodiscard]] cudaError_t status() const noexcept { return status_; }
  [[nodiscard]] const std::string& call() const noexcept { return call_; }
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] int line() const noexcept { return line_; }
  [[nodiscard]] const std::string& op() const noexcept { return op_; }
  /// Sticky errors (illegal address, launch failure, ...) leave the context unusable; the process must
  /// end before CUDA can be used again.
  [[nodiscard]] bool sticky() const noexcept;

 private:
  cudaError_t status_;
  std::string call_, file_;
  int line_;
  std::string op_;
};

/// A host wait ran past its timeout. Names what was waited for.
class TimeoutError : public std::runtime_error {
 public:
  TimeoutError(std::string op, std::chrono::nanoseconds waited, const std::string& what);
  [[nodiscard]] const std::string& op() const noexcept { return op_; }
  [[nodiscard]] std::chrono::nanoseconds waited() const noexcept { return waited_; }

 private:
  std::string op_;
  std::chrono::nanoseconds waited_;
};

/// A pool reached its configured cap.
class PoolExhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
/// Builds and throws the CudaError; only reached on failure, so the message costs nothing otherwise.
/// Clears the runtime's last-error slot so a non-sticky failure does not resurface at a later check.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line,
                                   std::string_view op);
/// For destructors: reports a failure on stderr and never throws.
void log_cuda_error(cudaError_t status, const char* call, const char* file, int line) noexcept;
}  // namespace detail

}  // namespace streamlab::executor

/// Evaluates `call` exactly once; throws CudaError naming `op` (anything convertible to string_view) on
/// failure.
#define STREAMLAB_CUDA_CHECK_OP(call, op)                                                         \
  do {                                                                                            \
    const cudaError_t streamlab_cuda_status_ = (call);                                            \
    if (streamlab_cuda_status_ != cudaSuccess) [[unlikely]] {                                     \
      ::streamlab::executor::detail::throw_cuda_error(streamlab_cuda_status_, #call, __FILE__,     \
                                                      __LINE__, (op));                            \
    }                                                                                             \
  } while (false)

/// Evaluates `call` exactly once; throws CudaError on failure.
#define STREAMLAB_CUDA_CHECK(call) STREAMLAB_CUDA_CHECK_OP(call, ::std::string_view{})

/// Evaluates `call` exactly once; logs a failure without throwing (destructors, cleanup paths).
#define STREAMLAB_CUDA_LOG(call)                                                                  \
  do {                                                                                            \
    const cudaError_t streamlab_cuda_status_ = (call);                                            \
    if (streamlab_cuda_status_ != cudaSuccess) [[unlikely]] {                                     \
      ::streamlab::executor::detail::log_cuda_error(streamlab_cuda_status_, #call, __FILE__,       \
                                                    __LINE__);                                    \
    }                                                                                             \
  } while (false)
