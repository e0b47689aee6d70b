#include "program.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "streamlab/executor/kernels.hpp"

namespace streamlab::plain {
namespace kernels = executor::kernels;

namespace {
enum Kind { kH2d, kD2h, kKernel, kTaskPool, kRecord, kWait, kStreamSync, kDeviceSync };

void check(cudaError_t st, const char* call) {
  if (st == cudaSuccess) return;
  std::fprintf(stderr, "streamlab-plain: error: %s: %s\n", call, cudaGetErrorString(st));
  std::exit(1);
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

struct Program::Call {
  int kind = 0;
  int stream = 0;
  std::size_t bytes = 0;
  bool blocking = false;
  unsigned grid = 1, block = 1, shared = 0;
  std::int64_t ns = 0;
  std::string name, event, id;
  std::vector<std::int64_t> tasks;
  bool dynamic = false;
  std::int64_t host_gap = 0;
  // Run mode.
  std::int64_t at = 0;  ///< when the call started (steady clock), with set_call_times only
  void* device = nullptr;
  void* host = nullptr;
  cudaEvent_t ev = nullptr;
  kernels::TaskPoolState* state = nullptr;
  cudaEvent_t done = nullptr;  ///< completion record (set_completion_records)
  kernels::BlockRecord* records = nullptr;  ///< the kernel's block records (set_block_records)
};

void Program::completed(Call& c, int s) {
  if (completion_records_) check(cudaEventRecord(c.done, handle(s)), "cudaEventRecord");
}

Program::Program(std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {}

Program::~Program() {
  if (mode_ != Mode::run) return;
  (void)cudaDeviceSynchronize();
  for (auto& c : calls_) {
    if (c.done != nullptr) (void)cudaEventDestroy(c.done);
    if (c.device != nullptr) (void)cudaFree(c.device);
    if (c.host != nullptr) (void)cudaFreeHost(c.host);
    if (c.records != nullptr) (void)cudaFree(c.records);
  }
  for (auto& [name, e] : events_) (void)cudaEventDestroy(e);
  for (auto& s : streams_) (void)cudaStreamDestroy(s.handle);
  if (task_state_ != nullptr) (void)cudaFree(task_state_);
}

int Program::stream(int priority, const std::string& kind, const std::string& label) {
  if (mode_ == Mode::plan) {
    streams_.push_back({static_cast<int>(streams_.size()) + 1, priority, kind, label});
    return streams_.back().id;
  }
  return static_cast<int>(at_stream_++) + 1;
}

cudaStream_t Program::handle(int s) const { return s == 0 ? cudaStreamLegacy : streams_[static_cast<std::size_t>(s - 1)].handle; }

Program::Call& Program::next(int kind) {
  if (mode_ == Mode::plan) {
    calls_.emplace_back();
    Call& c = calls_.back();
    c.kind = kind;
    c.host_gap = pending_gap_;
    pending_gap_ = 0;
    return c;
  }
  Call& c = calls_[at_++];
  if (c.kind != kind) throw std::logic_error("plain program: run mode made a different call than planned");
  if (call_times_) c.at = now_ns();
  return c;
}

void Program::start() {
  if (!started_) {
    started_ = true;
    t0_ = now_ns();
  }
}

void Program::host(std::int64_t ns) {
  if (mode_ == Mode::plan) {
    pending_gap_ += ns;
    return;
  }
  start();
  const std::int64_t until = now_ns() + ns;
  while (now_ns() < until) {
  }
}

void Program::synced(const std::string& id) { sync_ns_[id] = now_ns() - t0_; }

std::vector<std::int64_t> Program::call_times() const {
  std::vector<std::int64_t> out;
  if (!call_times_) return out;
  out.reserve(at_);
  for (std::size_t i = 0; i < at_; ++i) out.push_back(std::max<std::int64_t>(0, calls_[i].at - t0_));
  return out;
}

void Program::h2d(int s, std::size_t bytes, bool blocking) {
  Call& c = next(kH2d);
  if (mode_ == Mode::plan) {
    c.stream = s, c.bytes = bytes, c.blocking = blocking;
    return;
  }
  start();
  if (blocking && s == 0) check(cudaMemcpy(c.device, c.host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  else check(cudaMemcpyAsync(c.device, c.host, bytes, cudaMemcpyHostToDevice, handle(s)), "cudaMemcpyAsync");
  completed(c, s);
  if (blocking && s != 0) check(cudaStreamSynchronize(handle(s)), "cudaStreamSynchronize");
}

void Program::d2h(int s, std::size_t bytes, bool blocking) {
  Call& c = next(kD2h);
  if (mode_ == Mode::plan) {
    c.stream = s, c.bytes = bytes, c.blocking = blocking;
    return;
  }
  start();
  if (blocking && s == 0) check(cudaMemcpy(c.host, c.device, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  else check(cudaMemcpyAsync(c.host, c.device, bytes, cudaMemcpyDeviceToHost, handle(s)), "cudaMemcpyAsync");
  completed(c, s);
  if (blocking && s != 0) check(cudaStreamSynchronize(handle(s)), "cudaStreamSynchronize");
}

void Program::kernel(int s, unsigned grid, unsigned block, std::int64_t ns_per_block, const std::string& name,
                     unsigned shared_bytes) {
  Call& c = next(kKernel);
  if (mode_ == Mode::plan) {
    c.stream = s, c.grid = grid, c.block = block, c.ns = ns_per_block, c.name = name, c.shared = shared_bytes;
    return;
  }
  start();
  check(kernels::launch_spin(dim3(grid), dim3(block), c.shared, handle(s), static_cast<std::uint64_t>(ns_per_block),
                            c.records),
        "kernel launch");
  completed(c, s);
}

void Program::task_pool(int s, unsigned grid, unsigned block, const std::vector<std::int64_t>& task_ns, bool dynamic) {
  Call& c = next(kTaskPool);
  if (mode_ == Mode::plan) {
    c.stream = s, c.grid = grid, c.block = block, c.tasks = task_ns, c.dynamic = dynamic;
    return;
  }
  start();
  check(kernels::launch_task_pool(dim3(grid), dim3(block), 0, handle(s), static_cast<const std::int64_t*>(c.device),
                                  static_cast<std::uint32_t>(c.tasks.size()), dynamic, c.state),
        "task pool launch");
  completed(c, s);
}

void Program::record(int s, const std::string& event) {
  Call& c = next(kRecord);
  if (mode_ == Mode::plan) {
    c.stream = s, c.event = event;
    return;
  }
  start();
  check(cudaEventRecord(c.ev, handle(s)), "cudaEventRecord");
}

void Program::wait(int s, const std::string& event) {
  Call& c = next(kWait);
  if (mode_ == Mode::plan) {
    c.stream = s, c.event = event;
    return;
  }
  start();
  check(cudaStreamWaitEvent(handle(s), c.ev, 0), "cudaStreamWaitEvent");
}

void Program::stream_sync(int s, const std::string& id) {
  Call& c = next(kStreamSync);
  if (mode_ == Mode::plan) {
    c.stream = s, c.id = id;
    return;
  }
  start();
  check(cudaStreamSynchronize(handle(s)), "cudaStreamSynchronize");
  synced(id);
}

void Program::device_sync(const std::string& id) {
  Call& c = next(kDeviceSync);
  if (mode_ == Mode::plan) {
    c.id = id;
    return;
  }
  start();
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  synced(id);
}

void Program::prepare_run() {
  const auto make_streams = [&] {
    for (auto& s : streams_) {
      const unsigned flags = s.kind == "blocking" ? cudaStreamDefault : cudaStreamNonBlocking;
      check(cudaStreamCreateWithPriority(&s.handle, flags, s.priority), "cudaStreamCreateWithPriority");
    }
  };
  if (!streams_after_sync_) make_streams();
  std::size_t pools = 0;
  for (const auto& c : calls_) pools += c.kind == kTaskPool ? 1 : 0;
  check(cudaMalloc(&task_state_, (pools + 1) * sizeof(kernels::TaskPoolState)), "cudaMalloc");
  check(cudaMemset(task_state_, 0, (pools + 1) * sizeof(kernels::TaskPoolState)), "cudaMemset");
  std::size_t pool = 0;
  for (auto& c : calls_) {
    if (completion_records_ && (c.kind == kH2d || c.kind == kD2h || c.kind == kKernel || c.kind == kTaskPool))
      check(cudaEventCreateWithFlags(&c.done, cudaEventDisableTiming), "cudaEventCreate");
    if (block_records_ && c.kind == kKernel) {
      const std::size_t bytes = std::size_t{c.grid} * sizeof(kernels::BlockRecord);
      check(cudaMalloc(reinterpret_cast<void**>(&c.records), bytes), "cudaMalloc");
      check(cudaMemset(c.records, 0, bytes), "cudaMemset");
    }
    switch (c.kind) {
      case kH2d:
      case kD2h:
        check(cudaMalloc(&c.device, c.bytes), "cudaMalloc");
        check(cudaMallocHost(&c.host, c.bytes), "cudaMallocHost");
        std::memset(c.host, 1, c.bytes);
        break;
      case kTaskPool:
        check(cudaMalloc(&c.device, c.tasks.size() * sizeof(std::int64_t)), "cudaMalloc");
        check(cudaMemcpy(c.device, c.tasks.data(), c.tasks.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice),
              "cudaMemcpy");
        c.state = static_cast<kernels::TaskPoolState*>(task_state_) + pool++;
        break;
      case kRecord:
      case kWait: {
        auto [it, fresh] = events_.try_emplace(c.event, nullptr);
        if (fresh) check(cudaEventCreateWithFlags(&it->second, cudaEventDisableTiming), "cudaEventCreate");
        c.ev = it->second;
        break;
      }
      default:
        break;
    }
  }
  if (carveout_ >= 0) check(kernels::set_spin_carveout(carveout_), "cudaFuncSetAttribute(carveout)");
  // Load the kernels before time 0 (lazy module loading would charge the first launch), as the executor's
  // prepare() does.
  check(kernels::launch_spin(dim3(1), dim3(1), 0, cudaStreamLegacy, 0), "warm-up launch");
  if (pools > 0) {
    auto* spare = static_cast<kernels::TaskPoolState*>(task_state_) + pools;
    check(kernels::launch_task_pool(dim3(1), dim3(1), 0, cudaStreamLegacy, nullptr, 0, true, spare), "warm-up launch");
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (streams_after_sync_) make_streams();
  mode_ = Mode::run;
  at_ = 0;
  at_stream_ = 0;
  pending_gap_ = 0;
}

std::string Program::workload_json() const {
  using nlohmann::ordered_json;
  ordered_json w;
  w["format_version"] = 2;
  w["name"] = name_;
  w["description"] = description_;
  w["program"] = true;
  ordered_json streams = ordered_json::array();
  for (const auto& s : streams_)
    streams.push_back({{"id", s.id}, {"priority", s.priority}, {"kind", s.kind}, {"label", s.label}});
  w["streams"] = streams;
  ordered_json ops = ordered_json::array();
  std::map<std::string, int> count;
  auto make_id = [&](const std::string& stem) { return stem + "_" + std::to_string(count[stem]++); };
  for (const auto& c : calls_) {
    ordered_json o;
    switch (c.kind) {
      case kH2d:
      case kD2h:
        o["id"] = make_id(c.kind == kH2d ? "h2d" : "d2h");
        o["kind"] = c.kind == kH2d ? "h2d" : "d2h";
        o["stream"] = c.stream;
        o["bytes"] = c.bytes;
        o["host_memory"] = "pinned";
        if (c.blocking) o["blocking"] = true;
        break;
      case kKernel:
        o["id"] = c.name.empty() ? make_id("kernel") : c.name;
        o["kind"] = "kernel";
        o["stream"] = c.stream;
        o["grid"] = c.grid;
        o["block"] = c.block;
        if (c.shared > 0) o["shared_mem"] = c.shared;
        o["duration"] = {{"per_block_ns", c.ns}};
        break;
      case kTaskPool:
        o["id"] = make_id("pool");
        o["kind"] = "task_pool";
        o["stream"] = c.stream;
        o["grid"] = c.grid;
        o["block"] = c.block;
        o["tasks"] = {{"ns", c.tasks}, {"assignment", c.dynamic ? "dynamic" : "static"}};
        break;
      case kRecord:
      case kWait:
        o["id"] = make_id(c.kind == kRecord ? "record" : "wait");
        o["kind"] = c.kind == kRecord ? "event_record" : "event_wait";
        o["stream"] = c.stream;
        o["event"] = c.event;
        break;
      case kStreamSync:
        o["id"] = c.id;
        o["kind"] = "stream_sync";
        o["stream"] = c.stream;
        break;
      case kDeviceSync:
        o["id"] = c.id;
        o["kind"] = "device_sync";
        break;
      default:
        break;
    }
    if (c.host_gap > 0) o["host_gap_ns"] = c.host_gap;
    ops.push_back(o);
  }
  w["ops"] = ops;
  return w.dump(1);
}

long Params::get(const std::string& key, long fallback) const {
  auto it = values.find(key);
  return it == values.end() ? fallback : std::stol(it->second);
}

std::string Params::text(const std::string& key, const std::string& fallback) const {
  auto it = values.find(key);
  return it == values.end() ? fallback : it->second;
}

}  // namespace streamlab::plain
