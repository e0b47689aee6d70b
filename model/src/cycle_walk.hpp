#pragma once
// Private to streamlab::model: turning a strongly connected component into a readable closed walk, shared
// by describe_cycle (workload deps) and the stream-program deadlock report (deps + stream order).

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "streamlab/model/op.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::model::detail {

/// A shortest closed walk start -> ... -> start that stays inside `members` (ascending op indices),
/// following `for_each_successor(v, f)` (f(OpIndex) per successor). Returns [start, ..., start], or empty
/// when there is none (the ops are not a cycle of this graph). BFS, so O(component size + its edges).
template <class ForEachSuccessor>
std::vector<OpIndex> closed_walk(const std::vector<OpIndex>& members, ForEachSuccessor&& for_each_successor) {
  if (members.empty()) return {};
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  auto local = [&](OpIndex v) -> std::uint32_t {
    auto it = std::lower_bound(members.begin(), members.end(), v);
    return (it != members.end() && *it == v) ? static_cast<std::uint32_t>(it - members.begin()) : kNone;
  };
  const OpIndex start = members.front();
  std::vector<std::uint32_t> parent(members.size(), kNone);
  if (parent.empty()) return {};  // not so (members is not empty), but GCC 12 sees a null parent[0] otherwise
  std::vector<std::uint32_t> queue{0};
  parent[0] = 0;
  std::uint32_t closing = kNone;  // local index of the op whose edge returns to start
  for (std::size_t head = 0; head < queue.size() && closing == kNone; ++head) {
    const std::uint32_t u = queue[head];
    for_each_successor(members[u], [&](OpIndex s) {
      if (closing != kNone) return;
      const std::uint32_t ls = local(s);
      if (ls == kNone) return;
      if (s == start) {
        closing = u;
      } else if (parent[ls] == kNone) {
        parent[ls] = u;
        queue.push_back(ls);
      }
    });
  }
  if (closing == kNone) return {};
  std::vector<OpIndex> walk{start};
  for (std::uint32_t v = closing; v != 0; v = parent[v]) walk.push_back(members[v]);
  walk.push_back(start);
  std::reverse(walk.begin() + 1, walk.end() - 1);
  return walk;
}

/// "op 'id' (name)", or "op 'id'" when the name adds nothing.
inline std::string op_label(const Workload& w, OpIndex v) {
  if (v >= w.ops.size()) return "op #" + std::to_string(v);
  const Op& op = w.ops[v];
  std::string s = "op '" + op.id + "'";
  if (!op.name.empty() && op.name != op.id) s += " (" + op.name + ")";
  return s;
}

/// "; the same component also holds op 'x', ..." for members off the walk (at most 20 named).
inline std::string off_walk_note(const Workload& w, const std::vector<OpIndex>& members,
                                 const std::vector<OpIndex>& walk) {
  std::vector<OpIndex> on(walk.begin(), walk.end());
  std::sort(on.begin(), on.end());
  std::vector<OpIndex> off;
  std::set_difference(members.begin(), members.end(), on.begin(), on.end(), std::back_inserter(off));
  if (off.empty()) return {};
  std::string s = "; the same strongly connected component also holds ";
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < off.size() && i < kShown; ++i) s += (i ? ", " : "") + op_label(w, off[i]);
  if (off.size() > kShown) s += " and " + std::to_string(off.size() - kShown) + " more";
  return s;
}

}  // namespace streamlab::model::detail
