// streamlab-plain: the validation suite's scenarios as plain CUDA programs (see program.hpp).
//   streamlab-plain SCENARIO [key=value ...] --emit FILE   write the equivalent program workload
//   streamlab-plain SCENARIO [key=value ...]               run it once; print when each synchronize returned
//   ... --completion-records   also record an event after every work call (the Dispatcher's completion
//                              tracking for non-replay policies), to measure whether that changes the run
//   ... --block-records        kernels write their blocks' start and end, as `streamlab run`'s self-timed
//                              kernels do, to measure what that costs the run
//   ... --call-times           also print when each call started (a clock read per call; diagnostic)
//   ... --carveout PCT         set the spin kernel's preferred shared-memory carveout first (diagnostic)
//   ... --streams-after-sync   make the streams after the set-up's synchronize, not before (diagnostic)
//   streamlab-plain occupancy  print the spin kernel's attributes and resident blocks per SM by block size
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "program.hpp"
#include "streamlab/executor/kernels.hpp"

using namespace streamlab::plain;

namespace {

// What the driver reports for the spin kernel: registers, static shared memory, and how many blocks of
// each size fit on an SM with no dynamic shared memory and with `shared=` bytes.
int occupancy(const Params& params) {
  const auto shared = static_cast<std::size_t>(params.get("shared", 0));
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, 0); e != cudaSuccess) {
    std::fprintf(stderr, "streamlab-plain: error: cudaGetDeviceProperties: %s\n", cudaGetErrorString(e));
    return 3;
  }
  std::printf("{\"device\":\"%s\",\"shared_per_sm\":%zu,\"reserved_shared_per_block\":%zu,"
              "\"max_blocks_per_sm\":%d,\"max_threads_per_sm\":%d,\"regs_per_sm\":%d,\"blocks_per_sm\":{",
              prop.name, prop.sharedMemPerMultiprocessor, prop.reservedSharedMemPerBlock,
              prop.maxBlocksPerMultiProcessor, prop.maxThreadsPerMultiProcessor, prop.regsPerMultiprocessor);
  cudaFuncAttributes attr{};
  for (int threads = 32; threads <= 1024; threads *= 2) {
    int blocks = 0;
    if (const cudaError_t e = streamlab::executor::kernels::spin_occupancy(threads, shared, &attr, &blocks);
        e != cudaSuccess) {
      std::fprintf(stderr, "streamlab-plain: error: occupancy at %d threads: %s\n", threads, cudaGetErrorString(e));
      return 3;
    }
    std::printf("%s\"%d\":%d", threads == 32 ? "" : ",", threads, blocks);
  }
  std::printf("},\"shared\":%zu,\"registers\":%d,\"static_shared\":%zu,\"preferred_carveout\":%d}\n", shared,
              attr.numRegs, attr.sharedSizeBytes, attr.preferredShmemCarveout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, std::function<void(Program&, const Params&)>> scenarios{
      {"chunked", chunked}, {"chains", chains},     {"triple-buffer", triple_buffer},
      {"legacy-null", legacy_null}, {"priority", priority}, {"task-pool", task_pool},
      {"beside", beside}};
  if (argc >= 2 && std::string(argv[1]) == "occupancy") {
    Params params;
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      if (auto eq = a.find('='); eq != std::string::npos) params.values[a.substr(0, eq)] = a.substr(eq + 1);
    }
    return occupancy(params);
  }
  if (argc < 2 || scenarios.count(argv[1]) == 0) {
    std::fprintf(stderr, "usage: streamlab-plain {chunked|chains|triple-buffer|legacy-null|priority|task-pool|beside} "
                         "[key=value ...] [--emit FILE] [--name NAME] [--completion-records] [--block-records] [--call-times] [--carveout PCT] [--streams-after-sync]\n"
                         "       streamlab-plain occupancy [shared=BYTES]\n");
    return 2;
  }
  const std::string scenario = argv[1];
  Params params;
  std::string emit, name = scenario;
  bool records = false, call_times = false, streams_after_sync = false, block_records = false;
  int carveout = -1;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--emit" && i + 1 < argc) emit = argv[++i];
    else if (a == "--completion-records") records = true;
    else if (a == "--block-records") block_records = true;
    else if (a == "--call-times") call_times = true;
    else if (a == "--streams-after-sync") streams_after_sync = true;
    else if (a == "--carveout" && i + 1 < argc) carveout = std::stoi(argv[++i]);
    else if (a == "--name" && i + 1 < argc) name = argv[++i];
    else if (auto eq = a.find('='); eq != std::string::npos) params.values[a.substr(0, eq)] = a.substr(eq + 1);
    else {
      std::fprintf(stderr, "streamlab-plain: error: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  std::string desc = "plain program '" + scenario + "'";
  for (const auto& [k, v] : params.values) desc += " " + k + "=" + v;
  Program p(name, desc);
  const auto& run = scenarios.at(scenario);
  run(p, params);
  if (!emit.empty()) {
    std::ofstream(emit) << p.workload_json() << '\n';
    return 0;
  }
  p.set_completion_records(records);
  p.set_block_records(block_records);
  p.set_call_times(call_times);
  p.set_streams_after_sync(streams_after_sync);
  p.set_carveout(carveout);
  p.prepare_run();
  run(p, params);
  std::printf("{\"scenario\":\"%s\",\"sync_ns\":{", name.c_str());
  bool first = true;
  for (const auto& [id, ns] : p.sync_times()) {
    std::printf("%s\"%s\":%lld", first ? "" : ",", id.c_str(), static_cast<long long>(ns));
    first = false;
  }
  std::printf("}");
  if (call_times) {
    std::printf(",\"call_start_ns\":[");
    const auto times = p.call_times();
    for (std::size_t i = 0; i < times.size(); ++i) std::printf("%s%lld", i == 0 ? "" : ",", static_cast<long long>(times[i]));
    std::printf("]");
  }
  std::printf("}\n");
  return 0;
}
