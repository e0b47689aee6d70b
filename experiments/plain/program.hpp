#pragma once
/// \file program.hpp
/// The thin layer the plain CUDA programs are written in: one method per CUDA call a program makes
/// (cudaMemcpyAsync, a kernel launch, cudaEventRecord, cudaStreamWaitEvent, the synchronizes, host time
/// between calls). A scenario is written once against it and run twice: in *plan* mode the calls are
/// only written down (and can be saved as the equivalent format-2 program workload, so `streamlab run` and
/// `streamlab sim` get exactly these calls); in *run* mode each method is that one CUDA call on
/// resources made before the clock starts, with no tracing, no extra events and no per-call bookkeeping
/// but a counter. Time 0 is the program's first call (or host work); each synchronize records when it
/// returned.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace streamlab::plain {

enum class Mode { plan, run };

class Program {
 public:
  explicit Program(std::string name, std::string description);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // Streams (before the first call). kind: "blocking", "non-blocking"; id 0 is the legacy NULL stream.
  int stream(int priority, const std::string& kind, const std::string& label);

  // Calls, in the program's issue order.
  void h2d(int s, std::size_t bytes, bool blocking = false);
  void d2h(int s, std::size_t bytes, bool blocking = false);
  /// `shared_bytes`: shared memory a block asks for (dynamic; 0: none).
  void kernel(int s, unsigned grid, unsigned block, std::int64_t ns_per_block, const std::string& name = {},
              unsigned shared_bytes = 0);
  void task_pool(int s, unsigned grid, unsigned block, const std::vector<std::int64_t>& task_ns, bool dynamic);
  void record(int s, const std::string& event);
  void wait(int s, const std::string& event);
  void stream_sync(int s, const std::string& id);
  void device_sync(const std::string& id);
  /// Host time the program spends before its next call.
  void host(std::int64_t ns);

  /// Plan mode -> run mode: allocates every buffer, event and task list the calls need, creates the
  /// streams, loads the kernels (one empty launch of each) and waits for the device to be idle.
  void prepare_run();
  /// The format-2 program workload of the planned calls.
  [[nodiscard]] std::string workload_json() const;
  /// Run mode, after the scenario ran: when each synchronize returned (ns since time 0), by op id.
  [[nodiscard]] const std::map<std::string, std::int64_t>& sync_times() const { return sync_ns_; }
  [[nodiscard]] Mode mode() const { return mode_; }
  /// Experiment switch: after every work call, record a completion event on its stream, as the
  /// Dispatcher does for its non-replay policies (one event per op, made before time 0). Measures whether
  /// those records change what the GPU does; off for the plain baseline.
  void set_completion_records(bool on) { completion_records_ = on; }
  /// Diagnostic switch: the spin kernel's preferred shared-memory carveout in percent (set in
  /// prepare_run; -1, the default, leaves the driver's choice). Not part of the emitted workload.
  void set_carveout(int percent) { carveout_ = percent; }
  /// Diagnostic switch: read the steady clock as each call starts (one clock read per call, ~20-30 ns on a
  /// TSC host), to see where a program's host time goes. Off for the baseline.
  void set_call_times(bool on) { call_times_ = on; }
  /// Diagnostic switch: make the streams after the set-up's warm-up launch and synchronize instead of before
  /// them (the order a backend that is prepared before its streams are made has), with no synchronize
  /// after. Off for the baseline.
  void set_streams_after_sync(bool on) { streams_after_sync_ = on; }
  /// Experiment switch: every kernel's blocks write their start and end (%globaltimer) into a device
  /// buffer of the call's own, as `streamlab run`'s self-timed kernels do (one cudaMalloc'd, zeroed record
  /// per block, made before time 0). Measures what that self-timing costs a program; off for the baseline.
  void set_block_records(bool on) { block_records_ = on; }
  /// With set_call_times: when each call started, ns since time 0, in call order.
  [[nodiscard]] std::vector<std::int64_t> call_times() const;

 private:
  struct Call;
  struct StreamDecl {
    int id, priority;
    std::string kind, label;
    cudaStream_t handle = nullptr;
  };
  Call& next(int kind);
  cudaStream_t handle(int s) const;
  void start();
  void synced(const std::string& id);

  std::string name_, description_;
  Mode mode_ = Mode::plan;
  std::vector<StreamDecl> streams_;
  std::vector<Call> calls_;
  std::size_t at_ = 0;         ///< run mode: index of the next call
  std::size_t at_stream_ = 0;  ///< run mode: streams handed out again
  std::int64_t pending_gap_ = 0;
  bool started_ = false;
  bool call_times_ = false;
  std::int64_t t0_ = 0;
  std::map<std::string, std::int64_t> sync_ns_;
  std::map<std::string, cudaEvent_t> events_;
  void* task_state_ = nullptr;
  bool completion_records_ = false;
  bool block_records_ = false;
  int carveout_ = -1;
  bool streams_after_sync_ = false;
  void completed(Call& c, int s);
};

/// Scenario parameters from the command line (name=value), with defaults.
struct Params {
  std::map<std::string, std::string> values;
  [[nodiscard]] long get(const std::string& key, long fallback) const;
  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback) const;
};

// One hand-written program per suite scenario (one file each). Each writes its calls against `p`.
void chunked(Program& p, const Params& params);
void chains(Program& p, const Params& params);
void triple_buffer(Program& p, const Params& params);
void legacy_null(Program& p, const Params& params);
void priority(Program& p, const Params& params);
void beside(Program& p, const Params& params);
void task_pool(Program& p, const Params& params);

}  // namespace streamlab::plain
