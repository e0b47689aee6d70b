#include "streamlab/model/program.hpp"

#include <algorithm>
#include <unordered_map>

namespace streamlab::model {
namespace {

using OpSet = std::vector<OpIndex>;  // ops of the DAG view, small (a stream's frontier)

void add_all(OpSet& to, const OpSet& from) { to.insert(to.end(), from.begin(), from.end()); }

void normalize(OpSet& s) {
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
}

/// Walks the program in issue order, keeping what each stream, each event record and the host are
/// ordered after (as ops of the DAG view).
class DagBuilder {
 public:
  explicit DagBuilder(const Workload& p) : program_(p), events_(program_events(p)) {
    for (const auto& d : p.streams)
      if (d.kind == StreamKind::blocking) blocking_.push_back(d.id);
    records_.resize(events_.names.size());
  }

  Workload build(const std::string& source) {
    Workload view;
    view.share_strings(program_);
    view.name = program_.name;
    view.description = program_.description;
    for (OpIndex i = 0; i < program_.ops.size(); ++i) step(i, view);
    resolve_and_check(view, source);
    return view;
  }

 private:
  /// What the next op on stream s is ordered after: its frontier, plus (stream 0 only) every blocking
  /// stream's, the legacy NULL stream's implicit barrier.
  OpSet ordered_after(std::uint32_t s) {
    OpSet deps = frontier_[s];
    if (s == 0)
      for (std::uint32_t b : blocking_) add_all(deps, frontier_[b]);
    return deps;
  }

  void host_waits_for(OpSet done) {
    add_all(host_, done);
    normalize(host_);
    ++host_epoch_;
  }

  void step(OpIndex i, Workload& view) {
    const Op& op = program_.ops[i];
    const std::uint32_t s = op.stream_hint.value_or(0);
    switch (op.kind) {
      case OpKind::event_record: records_[events_.of_op[i]] = ordered_after(s); return;
      case OpKind::event_wait: add_all(frontier_[s], records_[events_.of_op[i]]); return;
      case OpKind::stream_sync: host_waits_for(ordered_after(s)); return;
      case OpKind::event_sync: host_waits_for(records_[events_.of_op[i]]); return;
      case OpKind::device_sync: {
        // Everything issued so far is on some stream and ordered before that stream's frontier.
        host_.clear();
        for (const auto& [stream, f] : frontier_) add_all(host_, f);
        host_waits_for({});
        return;
      }
      default: break;
    }
    if (!does_device_work(op.kind)) return;

    OpSet deps = ordered_after(s);
    if (seen_epoch_[s] < host_epoch_) {
      add_all(deps, host_);
      seen_epoch_[s] = host_epoch_;
    }
    normalize(deps);
    const auto me = static_cast<OpIndex>(view.ops.size());
    Op copy = op;
    copy.host_gap_ns = 0;
    copy.blocking = false;
    view.add_resolved(copy, deps);

    frontier_[s] = {me};
    if (s == 0)
      for (std::uint32_t b : blocking_) frontier_[b].push_back(me);
    if (op.blocking) host_waits_for({me});
  }

  const Workload& program_;
  ProgramEvents events_;
  std::vector<std::uint32_t> blocking_;            ///< ids of blocking streams
  std::unordered_map<std::uint32_t, OpSet> frontier_;
  std::vector<OpSet> records_;                     ///< per event: what its latest record captured
  OpSet host_;                                     ///< what the host has waited for
  std::uint64_t host_epoch_ = 0;                   ///< host syncs so far
  std::unordered_map<std::uint32_t, std::uint64_t> seen_epoch_;  ///< per stream: host_ already added
};

}  // namespace

ProgramEvents program_events(const Workload& program) {
  ProgramEvents e;
  e.of_op.assign(program.ops.size(), ProgramEvents::kNone);
  std::unordered_map<std::string_view, std::uint32_t> index;
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const Op& op = program.ops[i];
    if (op.kind != OpKind::event_record && op.kind != OpKind::event_wait && op.kind != OpKind::event_sync) continue;
    const auto [it, fresh] = index.emplace(op.event, static_cast<std::uint32_t>(e.names.size()));
    if (fresh) e.names.push_back(op.event);
    e.of_op[i] = it->second;
  }
  return e;
}

Workload program_dag(const Workload& program, const std::string& source) {
  if (!program.program) return program;
  return DagBuilder(program).build(source);
}

}  // namespace streamlab::model
