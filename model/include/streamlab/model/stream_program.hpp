#pragma once
/// \file stream_program.hpp
/// A stream program: ops assigned to streams in issue order, plus the event waits that carry each
/// cross-stream dependency. Stream order adds edges the DAG does not have, so an acyclic workload can
/// still deadlock: stream A waits on an op that stream B issues only after an op that waits on A.

#include <cstdint>
#include <vector>

#include "streamlab/model/dag.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::model {

struct StreamProgram {
  /// streams[s] = the ops issued to stream s, in issue order.
  std::vector<std::vector<OpIndex>> streams;
};

/// Every cycle of (dependency edges + consecutive same-stream edges). Empty: the program cannot deadlock.
/// Ops of the workload absent from the program are ignored; an op listed twice is an InputError.
[[nodiscard]] std::vector<Cycle> find_stream_program_cycles(const Workload& w, const StreamProgram& p);

/// Throws InputError("deadlock: ...") listing every cycle with op ids and names, naming `source`.
void check_stream_program(const Workload& w, const StreamProgram& p, const std::string& source);

}  // namespace streamlab::model
