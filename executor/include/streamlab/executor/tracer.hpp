#pragma once
/// \file tracer.hpp
/// Measured timelines from CUPTI activity records: kernels, memcpys and memsets with start/end on the GPU
/// (normalized by CUPTI to its own timestamp clock), tagged with our op through an external correlation
/// id pushed around each issue. Plus NVTX ranges named after ops, so Nsight shows our names.
///
/// CUPTI's activity API is process-wide (C callbacks, one set of enabled kinds): at most one CuptiTracer
/// may exist at a time; a second one throws CuptiUnavailable.

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace streamlab::executor {

class CuptiUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ActivityRecord {
  enum class Kind : std::uint8_t { kernel, memcpy, memset };
  Kind kind = Kind::kernel;
  std::uint64_t start_ns = 0;  ///< CUPTI timestamp clock
  std::uint64_t end_ns = 0;
  std::uint32_t correlation = 0;
  std::uint32_t cupti_stream = 0;
  std::uint64_t external_id = 0;  ///< 0 = none pushed for this call
  std::uint64_t graph_node = 0;   ///< CUPTI graph node id (graph launches), 0 otherwise
  std::uint64_t bytes = 0;
  std::uint8_t copy_kind = 0;     ///< CUpti_ActivityMemcpyKind for memcpys
  std::string name;               ///< kernel name
};

/// How device records are joined to the calls that made them.
enum class CuptiCorrelation : std::uint8_t {
  /// External ids pushed around each call (push/pop); needs CUPTI's runtime-API records, which cost the
  /// host about a microsecond per CUDA call while tracing.
  external_ids,
  /// Only device records (kernel, memcpy, memset) are collected; the caller joins them to its calls by
  /// CUPTI's correlation id, which grows with every runtime call in call order. No per-call host cost
  /// beyond CUPTI's device-record bookkeeping; push/pop tag nothing in this mode.
  issue_order,
};

/// True once this process has started CUPTI (a CuptiTracer made, or CUPTI's clock read). CUPTI stays in the
/// process after that: on the H100 (2026-11-24) a completed event's cudaEventQuery then cost about 1.8 us
/// against 0.39 us in a process that never started it, and a kernel launch about 1 us more.
[[nodiscard]] bool cupti_started_in_process() noexcept;

class CuptiTracer {
 public:
  /// Enables kernel, memcpy and memset activity (and, for external ids, runtime and external-correlation
  /// activity). Throws CuptiUnavailable when CUPTI cannot start (another tracer, a profiler or sanitizer
  /// holding it, no library).
  /// `kernel_records` false: kernel activity starts off (copies and memsets only) and is switched on only
  /// around what needs it (set_kernel_records): CUPTI's kernel records cost the host about 2 us per launch
  /// and slow the device's block dispatch, so a measured run leaves them off and its kernels time
  /// themselves (%globaltimer block records).
  /// `graph_callbacks` false: no subscription to CUPTI's callback API (graph node clone notices are needed
  /// only to match CUDA graph replays to ops).
  explicit CuptiTracer(CuptiCorrelation correlation = CuptiCorrelation::external_ids, bool kernel_records = true,
                       bool graph_callbacks = true);
  [[nodiscard]] CuptiCorrelation correlation() const noexcept { return correlation_; }
  [[nodiscard]] bool kernel_records() const noexcept { return kernel_records_; }
  /// Switches kernel activity records on or off (takes effect for launches made after the call).
  void set_kernel_records(bool on);
  /// Switches memcpy and memset activity records on or off. While no activity kind is on, CUPTI adds
  /// nothing to the host's CUDA calls: a run whose program has no copies leaves them off.
  void set_copy_records(bool on);
  [[nodiscard]] bool copy_records() const noexcept { return copy_records_; }
  ~CuptiTracer();
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  /// CUPTI's clock, the one activity records use (ns).
  [[nodiscard]] static std::uint64_t timestamp();
  /// CUPTI graph node id of a captured node (cuptiGetGraphNodeId), 0 when unknown.
  [[nodiscard]] static std::uint64_t graph_node_id(void* cu_graph_node);

  /// Tags the CUDA calls made until pop() with `id` (non-zero).
  static void push(std::uint64_t id);
  static void pop();

  /// Flushes CUPTI's buffers (forced) and returns every record since the last take(), with external ids
  /// joined in. Call after the device finished the work of interest.
  [[nodiscard]] std::vector<ActivityRecord> take();
  /// Records CUPTI reported as dropped (buffers full).
  [[nodiscard]] std::uint64_t dropped() const;
  /// Instantiating a graph clones its nodes, and records of a replay carry the clones' ids: the id of
  /// the node a clone was made from (followed back to the captured graph), or `id` itself.
  [[nodiscard]] std::uint64_t original_node(std::uint64_t id) const;
  /// False when CUPTI's callback API was taken (then graph replays cannot be matched to ops).
  [[nodiscard]] bool graph_callbacks() const noexcept { return subscriber_ != nullptr; }
  void on_node_cloned(std::uint64_t clone, std::uint64_t original);

  // CUPTI's C callbacks land here (public for the trampolines only).
  void on_buffer(std::uint8_t* buffer, std::size_t valid_size);

 private:
  mutable std::mutex mutex_;
  std::vector<ActivityRecord> records_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> external_;  ///< correlation -> external id
  std::uint64_t dropped_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> clones_;  ///< clone id -> original id
  void* subscriber_ = nullptr;                                  ///< CUpti_SubscriberHandle
  CuptiCorrelation correlation_ = CuptiCorrelation::external_ids;
  bool kernel_records_ = true;
  bool copy_records_ = true;
};

/// RAII NVTX range (push on construction, pop on destruction); free when no tool is attached.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) noexcept;
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

void nvtx_push(const char* name) noexcept;
void nvtx_pop() noexcept;

}  // namespace streamlab::executor
