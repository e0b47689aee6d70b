// Host cost of CUPTI activity tracing per issued op, by what is enabled: the baseline is the same ops
// with CUPTI off, measured in the same run, interleaved round by round so drift hits every variant alike.
// One op = what CudaBackend issues for a kernel: a launch of a one-block kernel plus a DisableTiming
// cudaEventRecord (the op's completion event). Prints a table: per-op host time (median, p10, p90 over
// batches), the ratio to the baseline, and how many activity records of each kind a batch produced (to
// show which variants still tie records to ops); and, per variant, the host cost of one cudaEventQuery of a
// completed event (E4's and calibrate's event query). A second table: the host cost of one 8 MiB pinned
// cudaMemcpyAsync (H2D and D2H alternating), CUPTI off against copy records on, the same way; after each
// switch of variant one untimed copy goes first, so a switch's own set-up is not charged to the copies. A third
// table: the GPU's time per copy, CUPTI off against copy records on: copies of one size queued behind a 2 ms
// kernel on one stream (so the host's issue cost is hidden), timed on the GPU by two events around the batch,
// the same two events in every variant: whether CUPTI's copy records (or an event record after each copy,
// timed or not) change what the copy engine does.
// `--pinned-records` asks CUPTI, before CUDA starts, to keep its profiling buffers in pinned host memory
// instead of device memory (CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED): run once with it and once
// without to see whether that changes the copies' cost. Without a CUDA device it says so and exits 0.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <cupti.h>

#include "streamlab/executor/device_info.hpp"
#include "streamlab/executor/kernels.hpp"

namespace ex = streamlab::executor;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kOps = 256;
constexpr int kRounds = 41;
constexpr int kCopies = 32;
constexpr std::size_t kCopyBytes = 8u << 20;
constexpr std::size_t kBufferBytes = 8u << 20;

struct Counts {
  std::uint64_t kernel = 0, runtime = 0, external = 0, other = 0;
};
Counts g_counts;

void CUPTIAPI on_request(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI on_complete(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: ++g_counts.kernel; break;
      case CUPTI_ACTIVITY_KIND_RUNTIME: ++g_counts.runtime; break;
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: ++g_counts.external; break;
      default: ++g_counts.other; break;
    }
  }
  std::free(buffer);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_tracer: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
void check(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    std::fprintf(stderr, "bench_tracer: %s: %s\n", what, s != nullptr ? s : "?");
    std::exit(1);
  }
}

struct Variant {
  const char* name;
  bool kernel;    // kernel activity records
  bool copies;    // memcpy/memset activity records
  bool runtime;   // runtime API records
  bool external;  // external correlation records + push/pop around each op
};

const Variant kVariants[] = {
    {"CUPTI off (baseline)", false, false, false, false},
    {"copy + memset records only (CudaBackend now)", false, true, false, false},
    {"kernel + copy records", true, true, false, false},
    {"kernel + copy + external-id push/pop", true, true, false, true},
    {"kernel + copy + runtime API records", true, true, true, false},
    {"kernel + copy + runtime + external (before)", true, true, true, true},
};

void set_variant(const Variant& v) {
  const CUpti_ActivityKind all[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  for (auto k : all) cuptiActivityDisable(k);
  if (v.kernel) check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable kernel");
  if (v.copies) {
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "enable memcpy");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "enable memset");
  }
  if (v.runtime) check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "enable runtime");
  if (v.external) check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), "enable external");
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  bool pinned_records = false;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--pinned-records") {
      pinned_records = true;
    } else {
      std::fprintf(stderr, "bench_tracer: unknown argument '%s' (only --pinned-records)\n", argv[a]);
      return 2;
    }
  }
  if (ex::device_count() == 0) {
    std::printf("bench_tracer: no CUDA device; nothing measured\n");
    return 0;
  }
  if (pinned_records) {
    std::uint8_t on = 1;
    std::size_t size = sizeof on;
    check(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size, &on),
          "cuptiActivitySetAttribute(MEM_ALLOCATION_TYPE_HOST_PINNED)");
  }
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  cudaEvent_t ev = nullptr;
  check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  check(cuptiActivityRegisterCallbacks(on_request, on_complete), "cuptiActivityRegisterCallbacks");

  constexpr std::size_t n = sizeof kVariants / sizeof kVariants[0];
  std::vector<std::vector<double>> per_op(n), per_query(n);
  std::vector<Counts> counts(n);
  for (int round = -3; round < kRounds; ++round) {  // 3 warm-up rounds
    for (std::size_t i = 0; i < n; ++i) {
      const Variant& v = kVariants[i];
      set_variant(v);
      g_counts = {};
      const auto t0 = Clock::now();
      for (int k = 0; k < kOps; ++k) {
        if (v.external) cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, k + 1u);
        check(ex::kernels::launch_empty(dim3(1), dim3(32), s), "launch");
        check(cudaEventRecord(ev, s), "cudaEventRecord");
        if (v.external) {
          std::uint64_t last = 0;
          cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
        }
      }
      const auto t1 = Clock::now();
      check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
      cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      // cudaEventQuery of a completed event under the same variant (E4's and calibrate's event query).
      const auto q0 = Clock::now();
      for (int k = 0; k < kOps; ++k) check(cudaEventQuery(ev), "cudaEventQuery");
      const auto q1 = Clock::now();
      if (round >= 0) {
        per_op[i].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kOps);
        per_query[i].push_back(std::chrono::duration<double, std::nano>(q1 - q0).count() / kOps);
        counts[i] = g_counts;
      }
    }
  }
  // Copies: CUPTI off against copy records on (kVariants[0] and [1]), interleaved per round.
  void* dev = nullptr;
  void* pin = nullptr;
  check(cudaMalloc(&dev, kCopyBytes), "cudaMalloc");
  check(cudaMallocHost(&pin, kCopyBytes), "cudaMallocHost");
  std::vector<std::vector<double>> per_copy(2);
  for (int round = -3; round < kRounds; ++round) {
    for (std::size_t i = 0; i < 2; ++i) {
      set_variant(kVariants[i]);
      check(cudaMemcpyAsync(dev, pin, kCopyBytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (warm-up)");
      check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
      const auto t0 = Clock::now();
      for (int k = 0; k < kCopies; ++k) {
        if (k % 2 == 0) {
          check(cudaMemcpyAsync(dev, pin, kCopyBytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
        } else {
          check(cudaMemcpyAsync(pin, dev, kCopyBytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
        }
      }
      const auto t1 = Clock::now();
      check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
      cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      if (round >= 0) per_copy[i].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kCopies);
    }
  }
  // GPU time per copy, queued behind a kernel so the host is never what the copies wait for. Four ways to
  // observe the copies: none, CUPTI's copy records, a timed event after each copy, an untimed one.
  constexpr std::size_t kGpuSizes[] = {64u << 10, 1u << 20, 8u << 20};
  constexpr int kGpuCopies = 64;
  constexpr const char* kGpuWays[] = {"nothing (baseline)", "CUPTI copy records (CudaBackend now)",
                                      "a timed event after each copy", "an untimed event after each copy"};
  constexpr std::size_t kWays = std::size(kGpuWays);
  cudaEvent_t g0 = nullptr, g1 = nullptr;
  check(cudaEventCreate(&g0), "cudaEventCreate");
  check(cudaEventCreate(&g1), "cudaEventCreate");
  std::vector<cudaEvent_t> timed(kGpuCopies), untimed(kGpuCopies);
  for (int k = 0; k < kGpuCopies; ++k) {
    check(cudaEventCreate(&timed[k]), "cudaEventCreate");
    check(cudaEventCreateWithFlags(&untimed[k], cudaEventDisableTiming), "cudaEventCreateWithFlags");
  }
  std::vector<std::vector<double>> gpu_per_copy(kWays * std::size(kGpuSizes));
  for (int round = -3; round < kRounds; ++round) {
    for (std::size_t z = 0; z < std::size(kGpuSizes); ++z) {
      for (std::size_t i = 0; i < kWays; ++i) {
        set_variant(kVariants[i == 1 ? 1 : 0]);
        check(cudaMemcpyAsync(dev, pin, kGpuSizes[z], cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (warm-up)");
        check(ex::kernels::launch_spin(dim3(1), dim3(32), 0, s, 2'000'000), "launch_spin");
        check(cudaEventRecord(g0, s), "cudaEventRecord");
        for (int k = 0; k < kGpuCopies; ++k) {
          check(cudaMemcpyAsync(dev, pin, kGpuSizes[z], cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
          if (i == 2) check(cudaEventRecord(timed[k], s), "cudaEventRecord");
          if (i == 3) check(cudaEventRecord(untimed[k], s), "cudaEventRecord");
        }
        check(cudaEventRecord(g1, s), "cudaEventRecord");
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        float ms = 0;
        check(cudaEventElapsedTime(&ms, g0, g1), "cudaEventElapsedTime");
        if (round >= 0) gpu_per_copy[kWays * z + i].push_back(static_cast<double>(ms) * 1e6 / kGpuCopies);
      }
    }
  }
  for (int k = 0; k < kGpuCopies; ++k) {
    cudaEventDestroy(timed[k]);
    cudaEventDestroy(untimed[k]);
  }
  cudaEventDestroy(g0);
  cudaEventDestroy(g1);
  set_variant(kVariants[0]);
  check(cudaFree(dev), "cudaFree");
  check(cudaFreeHost(pin), "cudaFreeHost");

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("bench_tracer on %s: host ns per op (one-block kernel launch + untimed event record), %d rounds "
              "of %d ops, variants interleaved per round\n", prop.name, kRounds, kOps);
  std::printf("%-48s %9s %9s %9s %7s %11s  %s\n", "variant", "median", "p10", "p90", "ratio", "query (ns)",
              "records per batch");
  const double base = percentile(per_op[0], 0.5);
  for (std::size_t i = 0; i < n; ++i) {
    const double med = percentile(per_op[i], 0.5);
    std::printf("%-48s %9.0f %9.0f %9.0f %7.2f %11.0f  kernel %llu, runtime %llu, external %llu, other %llu\n",
                kVariants[i].name, med, percentile(per_op[i], 0.1), percentile(per_op[i], 0.9), med / base,
                percentile(per_query[i], 0.5),
                static_cast<unsigned long long>(counts[i].kernel), static_cast<unsigned long long>(counts[i].runtime),
                static_cast<unsigned long long>(counts[i].external), static_cast<unsigned long long>(counts[i].other));
  }
  std::printf("\nhost ns per 8 MiB pinned cudaMemcpyAsync (H2D and D2H alternating, %d per batch), %d rounds, "
              "variants interleaved per round; CUPTI profiling buffers in %s memory\n", kCopies, kRounds,
              pinned_records ? "pinned host" : "device (CUPTI's default)");
  std::printf("%-48s %9s %9s %9s %7s\n", "variant", "median", "p10", "p90", "ratio");
  const double copy_base = percentile(per_copy[0], 0.5);
  for (std::size_t i = 0; i < 2; ++i) {
    const double med = percentile(per_copy[i], 0.5);
    std::printf("%-48s %9.0f %9.0f %9.0f %7.2f\n", kVariants[i].name, med, percentile(per_copy[i], 0.1),
                percentile(per_copy[i], 0.9), med / copy_base);
  }
  std::printf("\nGPU ns per pinned H2D copy, %d back to back queued behind a 2 ms kernel on one stream, timed by two "
              "events around them; %d rounds, the ways interleaved per round\n", kGpuCopies, kRounds);
  std::printf("%-10s %-48s %9s %9s %9s %7s\n", "size", "variant", "median", "p10", "p90", "ratio");
  for (std::size_t z = 0; z < std::size(kGpuSizes); ++z) {
    const double gbase = percentile(gpu_per_copy[kWays * z], 0.5);
    for (std::size_t i = 0; i < kWays; ++i) {
      const auto& v = gpu_per_copy[kWays * z + i];
      const double med = percentile(v, 0.5);
      std::printf("%-10s %-48s %9.0f %9.0f %9.0f %7.3f\n",
                  (std::to_string(kGpuSizes[z] >> 10) + " KiB").c_str(), kGpuWays[i], med, percentile(v, 0.1),
                  percentile(v, 0.9), med / gbase);
    }
  }
  cudaEventDestroy(ev);
  cudaStreamDestroy(s);
  return 0;
}
