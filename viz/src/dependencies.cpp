#include "streamlab/viz/dependencies.hpp"

#include <algorithm>

#include "streamlab/model/dag.hpp"

namespace streamlab::viz {

DependencyOverlay::DependencyOverlay(const model::Workload& w, const TraceSet& pair)
    : op_of_key_(pair.op_key_count(), kNone),
      keys_of_op_(w.ops.size()),
      deps_(w.ops.size()),
      dependents_(w.ops.size()),
      critical_(pair.op_key_count(), false) {
  std::vector<model::Nanos> duration(w.ops.size(), 0);
  for (model::OpIndex v = 0; v < w.ops.size(); ++v) {
    keys_of_op_[v] = pair.keys_of_op_id(w.ops[v].id);
    if (keys_of_op_[v].empty()) ++unmatched_;
    for (const auto k : keys_of_op_[v]) op_of_key_[k] = v;
    // An op's duration: its longest span in trace 0, else in the next trace that has it.
    for (TraceIndex s = 0; s < pair.size(); ++s) {
      if (duration[v] > 0) continue;
      for (const auto k : keys_of_op_[v]) {
        const auto span = pair.span_of_key(s, k);
        if (span != kNone) duration[v] = std::max(duration[v], pair.trace(s).spans[span].duration());
      }
    }
    for (const auto u : w.deps(v)) {
      deps_[v].push_back(u);
      dependents_[u].push_back(v);
    }
  }
  const model::Dag dag(w);
  const auto cp = model::critical_path(dag, [&](model::OpIndex v) { return duration[v]; });
  critical_ns_ = cp.length;
  critical_ops_ = cp.ops.size();
  for (const auto v : cp.ops)
    for (const auto k : keys_of_op_[v]) critical_[k] = true;
}

std::vector<std::uint32_t> DependencyOverlay::keys_of(const std::vector<model::OpIndex>& ops) const {
  std::vector<std::uint32_t> out;
  for (const auto v : ops) out.insert(out.end(), keys_of_op_[v].begin(), keys_of_op_[v].end());
  return out;
}

std::vector<std::uint32_t> DependencyOverlay::dependencies_of(std::uint32_t key) const {
  if (key >= op_of_key_.size() || op_of_key_[key] == kNone) return {};
  return keys_of(deps_[op_of_key_[key]]);
}

std::vector<std::uint32_t> DependencyOverlay::dependents_of(std::uint32_t key) const {
  if (key >= op_of_key_.size() || op_of_key_[key] == kNone) return {};
  return keys_of(dependents_[op_of_key_[key]]);
}

}  // namespace streamlab::viz
