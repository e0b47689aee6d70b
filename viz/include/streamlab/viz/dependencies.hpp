#pragma once
/// \file dependencies.hpp
/// The workload overlay (--workload): which ops the selected op waits for, which wait for it, and the
/// workload's critical path, all expressed as TraceSet op keys so the timeline can outline them.

#include <cstdint>
#include <vector>

#include "streamlab/model/workload.hpp"
#include "streamlab/viz/trace_set.hpp"

namespace streamlab::viz {

class DependencyOverlay {
 public:
  /// The critical path is model::critical_path over the workload DAG with each op's duration taken from
  /// trace 0 (the next trace that has the op where trace 0 lacks it; 0 for ops in none), i.e. the
  /// longest chain with unlimited streams and engines.
  DependencyOverlay(const model::Workload& workload, const TraceSet& set);

  /// Keys of the spans of the ops that `key`'s op depends on (direct deps only).
  [[nodiscard]] std::vector<std::uint32_t> dependencies_of(std::uint32_t key) const;
  /// Keys of the spans of the ops that depend directly on `key`'s op.
  [[nodiscard]] std::vector<std::uint32_t> dependents_of(std::uint32_t key) const;
  [[nodiscard]] bool on_critical_path(std::uint32_t key) const noexcept {
    return key < critical_.size() && critical_[key];
  }
  [[nodiscard]] model::Nanos critical_path_ns() const noexcept { return critical_ns_; }
  [[nodiscard]] std::size_t critical_path_ops() const noexcept { return critical_ops_; }
  /// Workload ops with no span in either trace (e.g. a trace of another workload revision).
  [[nodiscard]] std::size_t unmatched_ops() const noexcept { return unmatched_; }

 private:
  [[nodiscard]] std::vector<std::uint32_t> keys_of(const std::vector<model::OpIndex>& ops) const;

  std::vector<model::OpIndex> op_of_key_;                ///< key -> workload op, or kNone
  std::vector<std::vector<std::uint32_t>> keys_of_op_;   ///< workload op -> its keys
  std::vector<std::vector<model::OpIndex>> deps_, dependents_;
  std::vector<bool> critical_;                           ///< per key
  model::Nanos critical_ns_ = 0;
  std::size_t critical_ops_ = 0, unmatched_ = 0;
};

}  // namespace streamlab::viz
