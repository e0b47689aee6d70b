#pragma once
/// \file program.hpp
/// A program workload (Workload::program) seen from the two sides that consume it: the replay, which
/// issues its calls as written and needs its events as dense indices, and the five policies, which see
/// its DAG view and place the ops themselves (a what-if).
///
/// The DAG view keeps the ops that do device work (kernels, copies, memsets, prefetches, host functions,
/// task pools), with their ids, attributes and stream (as Op::stream_hint), and turns the program's
/// ordering into deps:
///   - stream order: an op follows everything its stream was ordered after when it was issued: the
///     stream's previous work op, and what the stream waited for since (event_wait adds the ops the
///     waited record captured);
///   - event_record captures its stream's frontier at the call; event_wait on a never-recorded event
///     adds nothing (a CUDA no-op), a later record does not change an earlier wait;
///   - the legacy NULL stream (id 0) with blocking streams: an op on stream 0 follows the work issued
///     before it on every blocking stream, and later work on a blocking stream follows it;
///   - host synchronization: stream_sync / event_sync / device_sync and blocking copies make the host
///     wait, so every op issued after one follows the work the host waited for (added to the first op
///     each stream issues after it).
/// Program calls and host gaps disappear: a DAG has no host thread.
///
/// Why a program cannot deadlock: every wait names the most recent record *at the time of the call*,
/// which was issued earlier, and every host sync waits for work issued earlier; so issue order is a
/// topological order of the DAG view. program_dag() still checks the view's acyclicity (it runs the
/// workload checks), which guards this reasoning.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "streamlab/model/workload.hpp"

namespace streamlab::model {

/// The program's event names as dense indices, in order of first appearance.
struct ProgramEvents {
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::string> names;
  /// Per op: index into names for event_record / event_wait / event_sync, kNone otherwise.
  std::vector<std::uint32_t> of_op;
};
[[nodiscard]] ProgramEvents program_events(const Workload& program);

/// True for the kinds of a program that do device work and so become ops of its DAG view.
[[nodiscard]] constexpr bool does_device_work(OpKind k) noexcept {
  return !is_program_call(k) && k != OpKind::barrier;
}

/// The DAG view of a validated program (see the file comment). Ids, names and attributes are kept; the
/// result passes resolve_and_check. `source` names the program in errors. A DAG workload is returned
/// unchanged.
[[nodiscard]] Workload program_dag(const Workload& program, const std::string& source = "<program>");

}  // namespace streamlab::model
