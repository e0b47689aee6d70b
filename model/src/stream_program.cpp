#include "streamlab/model/stream_program.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "cycle_walk.hpp"
#include "streamlab/model/errors.hpp"

namespace streamlab::model {
namespace {

constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

/// Where each op sits in the program: its stream and position, kAbsent when not issued.
struct Placement {
  std::vector<std::uint32_t> stream, position;
};

Placement place(const Workload& w, const StreamProgram& p, const std::string& source) {
  Placement at{std::vector<std::uint32_t>(w.ops.size(), kAbsent), std::vector<std::uint32_t>(w.ops.size(), kAbsent)};
  for (std::uint32_t s = 0; s < p.streams.size(); ++s) {
    for (std::uint32_t i = 0; i < p.streams[s].size(); ++i) {
      const OpIndex v = p.streams[s][i];
      const std::string place = "/streams/" + std::to_string(s) + "/" + std::to_string(i);
      if (v >= w.ops.size())
        throw InputError(source, place, "", "op index " + std::to_string(v) + " is not in the workload");
      if (at.stream[v] != kAbsent)
        throw InputError(source, place, w.ops[v].id,
                         "issued twice (already at /streams/" + std::to_string(at.stream[v]) + "/" +
                             std::to_string(at.position[v]) + ")");
      at.stream[v] = s;
      at.position[v] = i;
    }
  }
  return at;
}

/// Dependency edges between issued ops, then stream order edges (previous op on the stream -> next).
std::vector<Edge> program_edges(const Workload& w, const StreamProgram& p, const Placement& at) {
  std::vector<Edge> edges;
  for (OpIndex v = 0; v < w.ops.size(); ++v) {
    if (at.stream[v] == kAbsent) continue;
    for (OpIndex d : w.deps(v))
      if (d < w.ops.size() && at.stream[d] != kAbsent) edges.emplace_back(d, v);
  }
  for (const auto& stream : p.streams)
    for (std::size_t i = 1; i < stream.size(); ++i) edges.emplace_back(stream[i - 1], stream[i]);
  return edges;
}

std::vector<Cycle> cycles_of(const Workload& w, const StreamProgram& p, const Placement& at) {
  const std::vector<Edge> edges = program_edges(w, p, at);
  return find_cycles(Dag(static_cast<std::uint32_t>(w.ops.size()), edges));
}

/// One closed walk through the cycle, each step labelled with why it is an edge: "waits on" (a
/// dependency carried by an event wait, or met by stream order) or "after it on stream s".
std::string describe_program_cycle(const Workload& w, const StreamProgram& p, const Placement& at, const Cycle& c) {
  const std::vector<OpIndex>& members = c.ops;  // ascending (find_cycles)
  auto local = [&](OpIndex v) {
    return static_cast<std::size_t>(std::lower_bound(members.begin(), members.end(), v) - members.begin());
  };
  std::vector<std::vector<OpIndex>> dependents(members.size());
  for (OpIndex m : members)
    for (OpIndex d : w.deps(m))
      if (std::binary_search(members.begin(), members.end(), d)) dependents[local(d)].push_back(m);
  const std::vector<OpIndex> walk = detail::closed_walk(members, [&](OpIndex u, auto&& f) {
    const std::uint32_t s = at.stream[u];
    if (at.position[u] + 1 < p.streams[s].size()) f(p.streams[s][at.position[u] + 1]);
    for (OpIndex m : dependents[local(u)]) f(m);
  });
  std::string text;
  for (std::size_t i = 0; i + 1 < walk.size(); ++i) {
    const OpIndex u = walk[i], v = walk[i + 1];
    if (i == 0) text += detail::op_label(w, u) + " [stream " + std::to_string(at.stream[u]) + "]";
    const bool stream_next = at.stream[u] == at.stream[v] && at.position[u] + 1 == at.position[v];
    text += stream_next ? " -> next on its stream: " : " -> waited on by ";
    text += detail::op_label(w, v) + " [stream " + std::to_string(at.stream[v]) + "]";
  }
  return text + detail::off_walk_note(w, members, walk);
}

}  // namespace

std::vector<Cycle> find_stream_program_cycles(const Workload& w, const StreamProgram& p) {
  const Placement at = place(w, p, "<stream program>");
  return cycles_of(w, p, at);
}

void check_stream_program(const Workload& w, const StreamProgram& p, const std::string& source) {
  const Placement at = place(w, p, source);
  const std::vector<Cycle> cycles = cycles_of(w, p, at);
  if (cycles.empty()) return;
  std::string what = "deadlock: the stream program has " + std::to_string(cycles.size()) +
                     (cycles.size() == 1 ? " cycle" : " cycles") +
                     " of dependencies and stream order (each op waits, directly or through its stream, on "
                     "itself)";
  for (std::size_t i = 0; i < cycles.size(); ++i)
    what += "; cycle " + std::to_string(i + 1) + ": " + describe_program_cycle(w, p, at, cycles[i]);
  throw InputError(source, "", "", what);
}

}  // namespace streamlab::model
