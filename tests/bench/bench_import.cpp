// Import speed: a Kineto trace file with 1,000,000 GPU activities (kernels, copies and memsets on four
// streams, each with its cudaLaunchKernel / cudaMemcpyAsync / cudaMemsetAsync call, its ac2g flow pair and a
// cpu_op, as the PyTorch profiler writes them). The issue's target: importing it (read the file, build the
// program and the measured trace: `streamlab import` less writing its outputs) takes at most 2x a plain
// parse of the same file (simdjson's DOM parse, which reads every value, of the file loaded into padded
// memory), measured in this same run. Run single-threaded:
//   bench_import --benchmark_counters_tabular=true
// STREAMLAB_BENCH_IMPORT_ACTIVITIES overrides the size (e.g. 100000 for a quick look). The trace is written
// to a temporary file, removed at exit; STREAMLAB_BENCH_IMPORT_FILE=PATH writes it there and keeps it (to
// measure `streamlab import PATH` itself, e.g. its peak memory).
// ratio_to_parse is each benchmark's fastest iteration over BM_PlainParse's fastest in this process, in thread
// CPU time (the reported time); wall_ratio_to_parse the same in wall time.
#include <simdjson.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include "streamlab/import/import.hpp"
#include "streamlab/import/kineto.hpp"
#include "streamlab/model/device_profile.hpp"

namespace {

std::size_t activity_count() {
  const char* env = std::getenv("STREAMLAB_BENCH_IMPORT_ACTIVITIES");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 1'000'000;
}

/// Timestamps in Kineto's form: microseconds with three decimals.
void append_us(std::string& s, std::int64_t ns) {
  char buf[48];
  const int n = std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000),
                              static_cast<long long>(ns % 1000));
  s.append(buf, static_cast<std::size_t>(n));
}

std::string trace_text() {
  const std::size_t n = activity_count();
  static const char* kNames[] = {
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
      "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_"
      "kernel__5x_cublas",
      "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*)",
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, "
      "float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float>)"};
  std::string s;
  s.reserve(n * 900 + 1024);
  s += R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3","numSms":132}],)";
  s += R"("traceEvents":[)";
  std::int64_t host = 1'000'000'000'000;  // ns
  std::int64_t gpu = host + 50'000;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t corr = 1000 + i;
    const int stream = 7 + static_cast<int>(i % 4);
    const int kind = i % 20 == 0 ? 1 : i % 20 == 1 ? 2 : 0;  // 5% copies, 5% memsets, 90% kernels
    const std::int64_t call_dur = 4'000 + static_cast<std::int64_t>(i % 7) * 300;
    const std::int64_t dur = 3'000 + static_cast<std::int64_t>((i * 7919) % 40'000);
    if (i != 0) s += ',';
    s += R"({"ph":"X","cat":"cpu_op","name":"aten::add","pid":4242,"tid":4242,"ts":)";
    append_us(s, host - 500);
    s += R"(,"dur":)";
    append_us(s, call_dur + 1'000);
    s += R"(,"args":{"External id":)" + std::to_string(i) + R"(,"Record function id":0,"Ev Idx":)" +
         std::to_string(i) + "}},";
    s += R"({"ph":"X","cat":"cuda_runtime","name":")";
    s += kind == 0 ? "cudaLaunchKernel" : kind == 1 ? "cudaMemcpyAsync" : "cudaMemsetAsync";
    s += R"(","pid":4242,"tid":4242,"ts":)";
    append_us(s, host);
    s += R"(,"dur":)";
    append_us(s, call_dur);
    s += R"(,"args":{"External id":)" + std::to_string(i) + R"(,"cbid":211,"correlation":)" + std::to_string(corr) + "}},";
    s += R"({"ph":"s","id":)" + std::to_string(corr) + R"(,"pid":4242,"tid":4242,"ts":)";
    append_us(s, host);
    s += R"(,"cat":"ac2g","name":"ac2g"},)";
    if (kind == 0) {
      s += R"({"ph":"X","cat":"kernel","name":")";
      s += kNames[i % 4];
      s += R"(","pid":0,"tid":)" + std::to_string(stream) + R"(,"ts":)";
    } else if (kind == 1) {
      s += R"j({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":)j" +
           std::to_string(stream) + R"(,"ts":)";
    } else {
      s += R"j({"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":)j" + std::to_string(stream) +
           R"(,"ts":)";
    }
    append_us(s, gpu);
    s += R"(,"dur":)";
    append_us(s, dur);
    s += R"(,"args":{"External id":)" + std::to_string(i) + R"(,"device":0,"context":1,"stream":)" +
         std::to_string(stream) + R"(,"correlation":)" + std::to_string(corr);
    if (kind == 0)
      s += R"(,"queued":0,"registers per thread":)" + std::to_string(32 + (i % 5) * 16) +
           R"(,"shared memory":)" + std::to_string((i % 3) * 8192) +
           R"(,"blocks per SM":1.5,"warps per SM":12.0,"grid":[)" + std::to_string(66 + i % 1000) +
           R"(,1,1],"block":[256,1,1],"est. achieved occupancy %":50}},)";
    else
      s += R"(,"bytes":)" + std::to_string(4096 * (1 + i % 64)) + R"j(,"memory bandwidth (GB/s)":12.5}},)j";
    s += R"({"ph":"f","id":)" + std::to_string(corr) + R"(,"pid":0,"tid":)" + std::to_string(stream) + R"(,"ts":)";
    append_us(s, gpu);
    s += R"(,"cat":"ac2g","name":"ac2g","bp":"e"})";
    host += call_dur + 2'000;
    gpu = std::max(gpu + dur / 4, host + 20'000);
  }
  s += R"(],"traceName":"bench"})";
  return s;
}

/// The trace file, written at first use; a temporary one is removed when the process ends.
struct TraceFile {
  std::filesystem::path path;
  bool keep = false;
  std::uintmax_t bytes = 0;
  TraceFile() {
    const char* env = std::getenv("STREAMLAB_BENCH_IMPORT_FILE");
    keep = env != nullptr && *env != '\0';
    path = keep ? std::filesystem::path(env)
                : std::filesystem::temp_directory_path() / ("bench_import-" + std::to_string(getpid()) + ".json");
    {
      const std::string text = trace_text();
      std::ofstream out(path, std::ios::binary);
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      if (!out) {
        std::fprintf(stderr, "bench_import: cannot write %s\n", path.c_str());
        std::exit(1);
      }
    }
    bytes = std::filesystem::file_size(path);
  }
  ~TraceFile() {
    std::error_code ec;
    if (!keep) std::filesystem::remove(path, ec);
  }
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;
};
const TraceFile& trace_file() {
  static const TraceFile file;
  return file;
}

/// Fastest wall and thread-CPU seconds over a benchmark's iterations. The CPU time (page faults of fresh
/// buffers included) is the reported time: the machine these run on is shared, and wall time there mostly
/// measures the neighbours.
struct Best {
  double wall = 1e30, cpu = 1e30;
};
Best g_parse;

double thread_cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

template <class F>
void timed(benchmark::State& state, Best& best, F&& f) {
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = thread_cpu_now();
  f();
  const double cpu = thread_cpu_now() - c0;
  best.wall = std::min(best.wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
  best.cpu = std::min(best.cpu, cpu);
  state.SetIterationTime(cpu);
}

void report(benchmark::State& state, const Best& best) {
  state.counters["activities"] = static_cast<double>(activity_count());
  state.counters["MB"] = static_cast<double>(trace_file().bytes) / 1e6;
  state.counters["ratio_to_parse"] = best.cpu / g_parse.cpu;
  state.counters["wall_ratio_to_parse"] = best.wall / g_parse.wall;
}

/// The baseline: the file loaded into padded memory and simdjson's DOM parse of it (every value read into
/// its tape) by a fresh parser, as a program parsing one file does.
void BM_PlainParse(benchmark::State& state) {
  const std::string path = trace_file().path.string();
  for (auto _ : state)
    timed(state, g_parse, [&] {
      simdjson::dom::parser parser;
      simdjson::padded_string text;
      simdjson::dom::element doc;
      if (simdjson::padded_string::load(path).get(text) || parser.parse(text).get(doc))
        state.SkipWithError("load or parse failed");
      benchmark::DoNotOptimize(doc);
    });
  report(state, g_parse);
}

/// The Kineto reader alone: file -> Capture.
void BM_ReadKineto(benchmark::State& state) {
  const std::filesystem::path& path = trace_file().path;
  Best best;
  for (auto _ : state)
    timed(state, best, [&] {
      auto cap = streamlab::import::read_kineto(path);
      benchmark::DoNotOptimize(cap.activities.data());
    });
  report(state, best);
}

/// The whole import as `streamlab import` runs it: file -> Capture -> checked program + measured trace. Arg 0: kernel block times with
/// the wait for SMs taken out (the default; every kernel of this trace overlaps others, the worst case for
/// it); arg 1: `--kernel-time span`.
void BM_Import(benchmark::State& state) {
  const std::filesystem::path& path = trace_file().path;
  const auto profile = streamlab::model::bundled_h100_profile();
  streamlab::import::BuildOptions options;
  options.profile = &profile;
  options.kernel_time = state.range(0) == 0 ? streamlab::import::KernelTime::replay : streamlab::import::KernelTime::span;
  Best best;
  for (auto _ : state)
    timed(state, best, [&] {
      auto imported = streamlab::import::import_trace(path, options);
      if (imported.workload.ops.size() != activity_count()) state.SkipWithError("wrong op count");
      benchmark::DoNotOptimize(imported.workload.ops.data());
    });
  report(state, best);
}

// Baseline first so the ratios have their denominator.
BENCHMARK(BM_PlainParse)->Unit(benchmark::kMillisecond)->Iterations(3)->UseManualTime();
BENCHMARK(BM_ReadKineto)->Unit(benchmark::kMillisecond)->Iterations(3)->UseManualTime();
BENCHMARK(BM_Import)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3)->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
