#pragma once
/// \file workload_order_policy.hpp
/// The policy behind "issue order = workload order" (E2's breadth-first vs depth-first): every op goes to
/// logical stream `(stream_hint - 1) % streams` (hints are 1-based; unhinted ops and hint 0 to stream 0), and the host issues the ready op
/// that comes first in the workload. Because an op is ready as soon as its deps are *issued*, a workload
/// written chain by chain is issued chain by chain (depth-first), and one written level by level is
/// issued level by level (breadth-first) — exactly the order a hand-written host loop would use.
///
/// Why not the Dispatcher's own hint handling: HintMode::honor issues hinted ops in the order they
/// become ready (a FIFO), which interleaves independent chains whatever order the workload lists them
/// in; E2 needs the order the workload states. Static, so the Dispatcher plans and deadlock-checks it.

#include <memory>

#include "streamlab/policies/policy.hpp"

namespace streamlab::experiments {

/// A fresh workload-order policy (config.hints is ignored: the policy reads the hints itself).
[[nodiscard]] std::unique_ptr<policies::Policy> make_workload_order_policy(const policies::PolicyConfig& config);

/// policies::make_policy, plus kWorkloadOrderPolicy.
[[nodiscard]] std::unique_ptr<policies::Policy> make_experiment_policy(std::string_view name,
                                                                       const policies::PolicyConfig& config);

}  // namespace streamlab::experiments
