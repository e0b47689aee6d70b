#pragma once
/// \file coordinator.hpp
/// The operation coordinator: a facade for C++ users who build GPU work incrementally instead of writing
/// a workload file. Register operations one by one (kind, priority, an explicit stream or a workload
/// type, deps, a description), attach completion callbacks, ask for deadlocks at any time, then run the
/// batch through the same Dispatcher every other path uses. Metrics follow what users of such
/// coordinators look at: total / completed ops, average coordination time, deadlock detections.
///
/// Streams: an op registered with an explicit stream keeps registration order on that stream (a stream
/// program, exactly as hand-written CUDA code issues it); an op registered without one is placed by the
/// policy (workload-aware by default: by its WorkloadType). Deps normally point at earlier ops, which
/// cannot deadlock; add_dependency() may add an edge to a later op, which can create a dependency cycle
/// or a stream-program cycle — detect_deadlocks() lists both, and run() refuses them.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "streamlab/model/dag.hpp"
#include "streamlab/model/op.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/policy.hpp"

namespace streamlab::policies {

/// A registered operation; its value is its index in workload().
using OperationId = Id<struct OperationTag>;

struct OperationDesc {
  /// What to run: kind, priority, workload type, bytes / shape / duration. id, deps and stream_hint are
  /// set by the coordinator (id "op<N>" unless given, name = description when given). Its texts need
  /// live only for the call (a literal, or model::Text::borrow of a caller's string): the coordinator's
  /// workload keeps copies.
  model::Op op;
  /// A stream hint: 1-based stream of the policy's layout ((s - 1) % streams), 0 = the legacy NULL
  /// stream; unset = the policy decides (by op.type for workload-aware).
  std::optional<std::uint32_t> stream;
  std::vector<OperationId> deps;
  std::string description;
};

struct CoordinatorMetrics {
  std::uint64_t total_operations = 0;
  std::uint64_t completed_operations = 0;
  double average_coordination_ns = 0;  ///< host time per op spent deciding + inserting waits + issuing
  std::uint64_t deadlock_detections = 0;  ///< detect_deadlocks() / run() calls that found a cycle
  std::uint64_t waits_inserted = 0;
  std::uint64_t waits_implied = 0;
};

/// A deadlock the coordinator found, with ops named for a person.
struct Deadlock {
  std::vector<OperationId> ops;
  std::string description;  ///< "op 'a' (load) -> op 'b' (gemm) -> ..."
  bool stream_order = false;  ///< true: needs stream order to close (a stream-program cycle)
};

class OperationCoordinator {
 public:
  /// `policy_name` / `config` as for make_policy.
  explicit OperationCoordinator(std::string policy_name = "workload-aware", PolicyConfig config = {});
  ~OperationCoordinator();
  OperationCoordinator(const OperationCoordinator&) = delete;
  OperationCoordinator& operator=(const OperationCoordinator&) = delete;

  /// Throws model::InputError on a dep that is not registered, or a duplicate id.
  OperationId register_operation(OperationDesc desc);
  /// Shorthand: register_operation({op with kind/priority/type, stream, deps, description}).
  OperationId register_operation(model::OpKind kind, model::Priority priority, model::WorkloadType type,
                                 std::optional<std::uint32_t> stream, std::vector<OperationId> deps,
                                 std::string description);
  /// `op` waits for `dep` (which may be registered after it).
  void add_dependency(OperationId op, OperationId dep);
  /// Runs on the host thread when the run observes that `op` completed. Several per op are kept.
  void add_completion_callback(OperationId op, std::function<void()> fn);

  /// Every dependency cycle and every stream-program cycle among the registered ops.
  [[nodiscard]] std::vector<Deadlock> detect_deadlocks();

  /// Issues every registered op through the Dispatcher on `backend` (one Backend session: prepare()
  /// is called on it) and waits for all of them. Throws model::InputError listing the cycles, before
  /// anything is issued, when there is a deadlock.
  DispatchResult run(Backend& backend, DispatchOptions options = {});

  [[nodiscard]] CoordinatorMetrics metrics() const noexcept;
  /// The workload built so far (deps resolved).
  [[nodiscard]] const model::Workload& workload() const noexcept;
  [[nodiscard]] bool completed(OperationId op) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace streamlab::policies
