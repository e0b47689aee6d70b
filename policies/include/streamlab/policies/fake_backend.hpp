#pragma once
/// \file fake_backend.hpp
/// A Backend with no timing, for tests of every layer: it records every call as one line of text and
/// completes ops when told to (immediately, when the host blocks, or in a scripted order). It models
/// just enough of CUDA's ordering to be an oracle: a stream runs its items (ops, event waits, host
/// funcs) in FIFO order, a wait holds its stream until the recorded work completes, and an op that
/// completes before one of its workload deps is reported in violations(). The legacy NULL stream is an
/// ordinary stream here (no implicit barrier).
///
/// Time: now() is a logical clock that ticks once per backend call, so "host time" in decisions counts
/// API calls. Trace spans use the same clock (start = tick the op started, end = tick it completed).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "streamlab/policies/backend.hpp"

namespace streamlab::policies {

enum class FakeCompletion : std::uint8_t {
  immediate,  ///< work runs as soon as it is issued and its waits are satisfied
  on_block,   ///< nothing runs until the host blocks; then ops complete one at a time in issue order
              ///< (the oldest runnable first) until the awaited condition holds
  scripted,   ///< like on_block, but ops complete exactly in FakeOptions::script order
};

struct FakeOptions {
  FakeCompletion completion = FakeCompletion::immediate;
  /// Completion order for FakeCompletion::scripted. When the host blocks, the next scripted op must be
  /// able to run (issued, at its stream's head, its waits satisfied); otherwise the fake throws
  /// std::logic_error. synchronize_device() and finish() run the rest of the script, then everything
  /// else in issue order.
  std::vector<model::OpIndex> script;
  /// Record calls as text (off for benchmarks: then every call is a few instructions).
  bool record = true;
  /// Queries and blocking waits are calls too; off keeps call_log() to what the device would see.
  bool record_queries = true;
  std::pair<int, int> priority_range{0, -5};
  std::string device_name = "fake device";
};

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(FakeOptions options = {});
  ~FakeBackend() override;

  [[nodiscard]] std::string_view name() const noexcept override { return "fake"; }
  void prepare(const model::Workload& workload) override;
  [[nodiscard]] std::pair<int, int> priority_range() const override { return options_.priority_range; }
  StreamId create_stream(const StreamDesc& desc) override;
  [[nodiscard]] StreamId legacy_default_stream() override;
  void enqueue(StreamId stream, OpIndex op) override;
  void launch_host_func(StreamId stream, std::function<void()> fn) override;
  EventId create_event(EventTiming timing) override;
  void destroy_event(EventId event) override;
  void record_event(EventId event, StreamId stream) override;
  void stream_wait_event(StreamId stream, EventId event) override;
  [[nodiscard]] bool query_event(EventId event) override;
  [[nodiscard]] bool query_stream(StreamId stream) override;
  [[nodiscard]] Nanos elapsed(EventId start, EventId end) override;
  WaitStatus synchronize_event(EventId event, Nanos timeout) override;
  WaitStatus synchronize_stream(StreamId stream, Nanos timeout) override;
  WaitStatus synchronize_device(Nanos timeout) override;
  std::optional<std::size_t> wait_any_event(std::span<const EventId> events, Nanos timeout) override;
  [[nodiscard]] Nanos now() override { return clock_; }
  /// Host work is no call: the logical clock moves on by `ns` ticks (logged as "host_work N").
  void host_work(Nanos ns) override;
  [[nodiscard]] model::Trace finish() override;

  // Inspection, for tests ---------------------------------------------------------------------------
  /// Every call, one line each, e.g. "enqueue s2 op 'gemm'", "wait s2 e0", "record e0 s1".
  [[nodiscard]] const std::vector<std::string>& call_log() const noexcept { return calls_; }
  [[nodiscard]] std::string call_log_text() const;
  /// Calls of each kind.
  [[nodiscard]] std::uint64_t enqueue_count() const noexcept { return enqueues_; }
  [[nodiscard]] std::uint64_t wait_count() const noexcept { return waits_; }
  [[nodiscard]] std::uint64_t record_count() const noexcept { return records_; }
  [[nodiscard]] std::uint64_t events_created() const noexcept { return events_created_; }
  /// The stream each op was enqueued on (invalid id if never).
  [[nodiscard]] StreamId stream_of(model::OpIndex op) const;
  /// Ops in completion order.
  [[nodiscard]] const std::vector<model::OpIndex>& completion_order() const noexcept { return completed_; }
  /// "op 'b' completed before its dep 'a'" for every ordering the issued program failed to enforce.
  [[nodiscard]] const std::vector<std::string>& violations() const noexcept { return violations_; }
  /// Completes ops (in this order, each must be runnable) now, as if the device progressed.
  void complete(std::span<const model::OpIndex> ops);

  struct Device;  ///< the ordering model (opaque; defined in fake_backend.cpp)

 private:
  void note(std::string line);
  void wait_blocking(OpIndex op);  /// a blocking enqueue: run until `op` is done
  FakeOptions options_;
  std::unique_ptr<Device> dev_;
  std::vector<std::string> calls_;
  std::vector<std::string> violations_;
  std::vector<model::OpIndex> completed_;
  std::uint64_t enqueues_ = 0, waits_ = 0, records_ = 0, events_created_ = 0;
  Nanos clock_ = 0;
};

}  // namespace streamlab::policies
