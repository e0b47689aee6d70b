// The measured side on a real GPU: CudaBackend per run, and the raw CUDA runtime calls the probes time.
// Compiled only when the executor is built (experiments/CMakeLists.txt).
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "streamlab/executor/cuda_backend.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/executor/tracer.hpp"
#include "streamlab/experiments/runner.hpp"

namespace streamlab::experiments {

namespace {

// The probes' HostApi on a GPU: the runtime calls themselves, on the CudaBackend's stream handles, so E4 and
// E8 time cudaEventCreate / cudaStreamSynchronize ..., not the backend's pooled events and polling waits.
class CudaHostApi final : public HostApi {
 public:
  explicit CudaHostApi(executor::CudaBackend& be) : be_(be) {}
  ~CudaHostApi() override {
    for (cudaEvent_t e : events_)
      if (e) STREAMLAB_CUDA_LOG(cudaEventDestroy(e));
  }
  Nanos now() override { return be_.now(); }
  std::uint32_t create_event(policies::EventTiming timing) override {
    cudaEvent_t e = nullptr;
    STREAMLAB_CUDA_CHECK_OP(cudaEventCreateWithFlags(&e, timing == policies::EventTiming::timed ? cudaEventDefault
                                                                                                : cudaEventDisableTiming),
                            "experiment probe");
    events_.push_back(e);
    return static_cast<std::uint32_t>(events_.size() - 1);
  }
  void destroy_event(std::uint32_t i) override {
    STREAMLAB_CUDA_CHECK_OP(cudaEventDestroy(events_.at(i)), "experiment probe");
    events_[i] = nullptr;
  }
  void record_event(std::uint32_t i, policies::StreamId s) override {
    STREAMLAB_CUDA_CHECK_OP(cudaEventRecord(events_.at(i), be_.handle(s)), "experiment probe");
  }
  void stream_wait_event(policies::StreamId s, std::uint32_t i) override {
    STREAMLAB_CUDA_CHECK_OP(cudaStreamWaitEvent(be_.handle(s), events_.at(i), 0), "experiment probe");
  }
  bool query_event(std::uint32_t i) override { return ready(cudaEventQuery(events_.at(i))); }
  bool query_stream(policies::StreamId s) override { return ready(cudaStreamQuery(be_.handle(s))); }
  void synchronize_event(std::uint32_t i) override {
    STREAMLAB_CUDA_CHECK_OP(cudaEventSynchronize(events_.at(i)), "experiment probe");
  }
  void synchronize_stream(policies::StreamId s) override {
    STREAMLAB_CUDA_CHECK_OP(cudaStreamSynchronize(be_.handle(s)), "experiment probe");
  }
  void synchronize_device() override { STREAMLAB_CUDA_CHECK_OP(cudaDeviceSynchronize(), "experiment probe"); }

 private:
  static bool ready(cudaError_t st) {
    if (st == cudaSuccess) return true;
    if (st == cudaErrorNotReady) return false;
    STREAMLAB_CUDA_CHECK_OP(st, "experiment probe");
    return false;
  }
  executor::CudaBackend& be_;
  std::vector<cudaEvent_t> events_;
};

class CudaDevice final : public MeasuredDevice {
 public:
  explicit CudaDevice(executor::DeviceInfo info) : info_(std::move(info)) {
    if (const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS")) {
      try {
        connections_ = static_cast<std::uint32_t>(std::stoul(v));
      } catch (const std::exception&) {
        connections_ = kDriverDefault;
      }
    }
  }
  [[nodiscard]] DeviceMeta meta() const override {
    DeviceMeta m;
    m.name = info_.name;
    m.driver = info_.driver;
    m.cuda_version = info_.cuda_runtime;
    if (!info_.cuda_driver_api.empty() && info_.cuda_driver_api != info_.cuda_runtime)
      m.cuda_version += " (driver supports " + info_.cuda_driver_api + ")";
    m.timing = timing_;
    return m;
  }
  std::unique_ptr<policies::Backend> make_backend(std::optional<std::uint32_t>) override {
    executor::CudaBackendOptions o;
    o.nvtx = false;  // NVTX ranges cost host time per op that the simulator does not model
    // CUPTI (else events) as the experiments' results say: their predictions charge the traced launch cost.
    o.auto_gpu_timer = false;
    auto be = std::make_unique<executor::CudaBackend>(o);
    return be;
  }
  std::unique_ptr<policies::Backend> make_probe_backend(std::optional<std::uint32_t>) override {
    // The probes time API calls themselves, and E8 reads its kernels' spans: kernels that time themselves
    // (gpu_timer, chosen for a workload of kernels alone) start no CUPTI, which would make every query
    // about 1.4 us dearer for the rest of the process (H100, 2026-11-24, validation run 67).
    executor::CudaBackendOptions o;
    o.nvtx = false;
    o.auto_gpu_timer = true;
    return std::make_unique<executor::CudaBackend>(o);
  }
  [[nodiscard]] bool probes_perturbed() const override { return executor::cupti_started_in_process(); }
  std::unique_ptr<HostApi> make_host_api(policies::Backend& backend) override {
    return std::make_unique<CudaHostApi>(dynamic_cast<executor::CudaBackend&>(backend));
  }
  [[nodiscard]] bool connections_fixed_per_process() const noexcept override { return true; }
  [[nodiscard]] std::optional<std::uint32_t> process_connections() const override { return connections_; }

 private:
  static constexpr std::uint32_t kDriverDefault = 8;  // CUDA_DEVICE_MAX_CONNECTIONS when unset
  executor::DeviceInfo info_;
  std::uint32_t connections_ = kDriverDefault;
  std::string timing_ = "CUPTI activity records (events where CUPTI cannot start)";
};

}  // namespace

std::unique_ptr<MeasuredDevice> open_cuda_device(std::string& why) {
  if (executor::device_count() == 0) {
    why = "no CUDA device (cudaGetDeviceCount found none)";
    return nullptr;
  }
  try {
    return std::make_unique<CudaDevice>(executor::query_device(0));
  } catch (const std::exception& e) {
    why = std::string("no usable CUDA device: ") + e.what();
    return nullptr;
  }
}

}  // namespace streamlab::experiments
