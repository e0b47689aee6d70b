#include "streamlab/model/dag.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/strong_components.hpp>
#include <boost/property_map/property_map.hpp>

#include "cycle_walk.hpp"
#include "intervals.hpp"
#include "streamlab/model/csr.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::model {

namespace detail {

// Boost's CSR graph, for the strongly connected components of a cyclic graph (strongly_connected_cycles).
using CsrGraph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                    boost::no_property, OpIndex, std::uint32_t>;

/// The CSR arrays as raw pointers: the hot loops read them directly.
struct CsrView {
  std::uint32_t n = 0;
  const std::uint32_t* out_start = nullptr;  // n + 1 entries
  const OpIndex* out = nullptr;
  const std::uint32_t* in_start = nullptr;  // n + 1 entries
  const OpIndex* in = nullptr;
};

struct DagAccess {
  /// Both directions (a Dag built from a workload makes its successor rows here, once).
  static CsrView view(const Dag& g);
  /// The predecessor rows only (out_start and out null).
  static CsrView predecessors_view(const Dag& g);
};

}  // namespace detail

// Both directions in compressed sparse rows (32-bit edge indices: 4G dependency edges is far beyond any
// workload): successors in edge input order, predecessors by source (as Boost's bidirectional CSR graph
// ordered them, which this replaced: it needed the edges as one more array and a third per-edge array).
// A Dag built from a workload makes its successor rows only when an analysis first needs them: analyze
// of a workload numbered in a topological order reads predecessor rows alone (analyze_dag with
// TopologicalOrder::omit), and at ten million ops the successor rows (a counting sort of every edge, two
// passes of random writes) cost more than that whole analysis.
struct Dag::Impl {
  std::vector<std::uint32_t> out_start, in_start;  // n + 1 entries each
  std::vector<OpIndex> out, in;
  std::once_flag successors_made;
  /// The predecessor rows from the successor rows: a stable counting sort of the edges by target, taken
  /// in successor order (by source, then input order).
  void fill_predecessors(std::uint32_t n);
  /// The successor rows from the predecessor rows (each sorted): each row in ascending target order.
  void fill_successors(std::uint32_t n);
  const Impl& with_successors() {
    std::call_once(successors_made, [this] { fill_successors(static_cast<std::uint32_t>(in_start.size() - 1)); });
    return *this;
  }
};

namespace detail {
CsrView DagAccess::view(const Dag& g) {
  const Dag::Impl& d = g.impl_->with_successors();
  return CsrView{g.vertex_count(), d.out_start.data(), d.out.data(), d.in_start.data(), d.in.data()};
}
CsrView DagAccess::predecessors_view(const Dag& g) {
  const Dag::Impl& d = *g.impl_;
  return CsrView{g.vertex_count(), nullptr, nullptr, d.in_start.data(), d.in.data()};
}
}  // namespace detail

namespace {

using detail::CsrView;
using detail::DagAccess;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

/// The passes below visit vertices in an order and read or write a per-vertex entry of each successor.
/// On a random DAG of millions of ops those entries lie anywhere, one cache miss each, and the passes
/// cost several times more per op at 10M ops than at 1M. So each visit loads ahead what a later visit
/// will touch, in three steps that each wait for the one before: the row start of the vertex kFar
/// visits ahead, its successor list kMid ahead, its successors' entries (`touch`) kNear ahead.
constexpr std::size_t kFar = 24, kMid = 16, kNear = 8;

template <class Touch>
void load_ahead(const CsrView& g, OpIndex far, OpIndex mid, OpIndex near, Touch&& touch) {
  if (far != kNone) __builtin_prefetch(&g.out_start[far]);
  if (mid != kNone) __builtin_prefetch(&g.out[g.out_start[mid]]);
  if (near != kNone)
    for (std::uint32_t e = g.out_start[near], end = g.out_start[near + 1]; e < end; ++e) touch(g.out[e]);
}

/// Kahn's algorithm over the CSR; `order` doubles as the FIFO queue. `indegree(v)` is v's counter of
/// predecessors not yet done, kept by the caller next to what its pass writes of v (one cache line per
/// successor, not one per array). on_pop(u) runs when u is dequeued (all its predecessors done),
/// on_edge(u, s) for each of its out-edges before s's in-degree drops; touch(v) loads ahead what the
/// pass will use of v, popped or as a successor (load_ahead).
/// Returns true when every vertex was ordered (the graph is acyclic).
template <class InDegree, class OnPop, class OnEdge, class Touch>
bool kahn(const CsrView& g, std::vector<OpIndex>& order, InDegree&& indegree, OnPop&& on_pop, OnEdge&& on_edge,
          Touch&& touch) {
  const std::uint32_t n = g.n;
  order.resize(n);
  std::uint32_t tail = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    indegree(v) = g.in_start[v + 1] - g.in_start[v];
    if (indegree(v) == 0) order[tail++] = v;
  }
  const auto queued = [&](std::size_t i) { return i < tail ? order[i] : kNone; };
  for (std::uint32_t head = 0; head < tail; ++head) {
    const OpIndex near = queued(head + kNear);
    load_ahead(g, queued(head + kFar), queued(head + kMid), near, touch);
    if (near != kNone) touch(near);
    const OpIndex u = order[head];
    on_pop(u);
    for (std::uint32_t e = g.out_start[u], end = g.out_start[u + 1]; e < end; ++e) {
      const OpIndex s = g.out[e];
      on_edge(u, s);
      if (--indegree(s) == 0) order[tail++] = s;
    }
  }
  order.resize(tail);
  return tail == n;
}

bool kahn(const CsrView& g, std::vector<OpIndex>& order) {
  std::vector<std::uint32_t> indegree(g.n);
  return kahn(
      g, order, [&](OpIndex v) -> std::uint32_t& { return indegree[v]; }, [](OpIndex) {}, [](OpIndex, OpIndex) {},
      [&](OpIndex v) { __builtin_prefetch(&indegree[v]); });
}

std::vector<OpIndex> order_or_throw(const Dag& g, const char* what) {
  std::vector<OpIndex> order;
  if (!kahn(DagAccess::view(g), order)) throw std::invalid_argument(std::string(what) + ": the graph has a cycle");
  return order;
}

/// Tarjan's SCC (Boost; iterative DFS) over the whole graph: only called once Kahn has found a cycle.
std::vector<Cycle> strongly_connected_cycles(const Dag& g) {
  const CsrView v = DagAccess::view(g);
  std::vector<std::pair<OpIndex, OpIndex>> edges;
  edges.reserve(g.edge_count());
  for (OpIndex u = 0; u < v.n; ++u)
    for (std::uint32_t e = v.out_start[u]; e < v.out_start[u + 1]; ++e) edges.emplace_back(u, v.out[e]);
  const detail::CsrGraph csr(boost::edges_are_sorted, edges.begin(), edges.end(), v.n);
  std::vector<std::uint32_t> component(v.n);
  const auto count = boost::strong_components(
      csr, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, csr)));
  std::vector<std::uint32_t> size(count, 0);
  for (std::uint32_t c : component) ++size[c];
  std::vector<std::uint32_t> cycle_of(count, kNone);
  std::vector<Cycle> cycles;
  // Ascending vertex order makes cycles come out ordered by their smallest op, ops ascending within.
  for (OpIndex u = 0; u < v.n; ++u) {
    const std::uint32_t c = component[u];
    bool cyclic = size[c] > 1;
    if (!cyclic) {
      for (std::uint32_t e = v.out_start[u]; e < v.out_start[u + 1] && !cyclic; ++e) cyclic = v.out[e] == u;
    }
    if (!cyclic) continue;
    if (cycle_of[c] == kNone) {
      cycle_of[c] = static_cast<std::uint32_t>(cycles.size());
      cycles.emplace_back();
    }
    cycles[cycle_of[c]].ops.push_back(u);
  }
  return cycles;
}

std::vector<Nanos> durations_of(std::uint32_t n, const DurationOf& duration) {
  std::vector<Nanos> d(n);
  for (OpIndex v = 0; v < n; ++v) d[v] = duration(v);
  return d;
}

/// Throws std::invalid_argument unless `d` has one duration per vertex, none negative.
void check_durations(std::uint32_t n, std::span<const Nanos> d) {
  if (d.size() != n)
    throw std::invalid_argument("critical_path: " + std::to_string(d.size()) + " durations for " + std::to_string(n) +
                                " ops");
  for (OpIndex v = 0; v < n; ++v)
    if (d[v] < 0) throw std::invalid_argument("critical_path: negative duration for op #" + std::to_string(v));
}

/// The op the reported longest path ends at: the first to finish last (kNone when there is none).
OpIndex path_end(const std::vector<Nanos>& earliest, std::span<const Nanos> d) {
  OpIndex last = kNone;
  Nanos length = 0;
  for (OpIndex v = 0; v < earliest.size(); ++v) {
    if (last == kNone || earliest[v] + d[v] > length) {
      length = earliest[v] + d[v];
      last = v;
    }
  }
  return last;
}

/// Slack and the path ending at `last`, once cp's latest starts are known.
void complete_critical_path(CriticalPath& cp, OpIndex last, std::vector<Nanos> earliest, const std::vector<OpIndex>& via) {
  cp.slack.resize(earliest.size());
  for (OpIndex v = 0; v < earliest.size(); ++v) cp.slack[v] = cp.latest_start[v] - earliest[v];
  for (OpIndex v = last; v != kNone; v = via[v]) cp.ops.push_back(v);
  std::reverse(cp.ops.begin(), cp.ops.end());
  cp.earliest_start = std::move(earliest);
}

/// Latest starts, slack and one longest path, given a topological order and earliest starts (with
/// `via[v]` = the predecessor that set v's earliest start, kNone when none did).
CriticalPath finish_critical_path(const CsrView& g, const std::vector<OpIndex>& order, std::span<const Nanos> d,
                                  std::vector<Nanos> earliest, const std::vector<OpIndex>& via) {
  const std::uint32_t n = g.n;
  CriticalPath cp;
  const OpIndex last = path_end(earliest, d);
  if (last != kNone) cp.length = earliest[last] + d[last];
  cp.latest_start.resize(n);
  const auto visit = [&](std::size_t k, std::size_t ahead) { return k >= ahead ? order[k - ahead] : kNone; };
  for (std::size_t k = order.size(); k-- > 0;) {
    const OpIndex near = visit(k, kNear);
    load_ahead(g, visit(k, kFar), visit(k, kMid), near, [&](OpIndex s) { __builtin_prefetch(&cp.latest_start[s]); });
    if (near != kNone) {
      __builtin_prefetch(&d[near]);
      __builtin_prefetch(&cp.latest_start[near]);
    }
    const OpIndex u = order[k];
    Nanos latest_finish = cp.length;
    for (std::uint32_t e = g.out_start[u], end = g.out_start[u + 1]; e < end; ++e)
      latest_finish = std::min(latest_finish, cp.latest_start[g.out[e]]);
    cp.latest_start[u] = latest_finish - d[u];
  }
  complete_critical_path(cp, last, std::move(earliest), via);
  return cp;
}

/// One Kahn pass that also relaxes earliest starts (and levels, into `level` when given). Returns false
/// (cyclic) with `order` partial.
bool forward_pass(const CsrView& g, std::span<const Nanos> d, std::vector<OpIndex>& order,
                  std::vector<Nanos>& earliest, std::vector<OpIndex>& via,
                  std::vector<std::uint32_t>* level = nullptr) {
  struct Vertex {
    Nanos earliest = 0;
    Nanos duration = 0;
    OpIndex via = kNone;
    std::uint32_t indegree = 0;
    std::uint32_t level = 0;
  };
  std::vector<Vertex> at(g.n);
  for (OpIndex v = 0; v < g.n; ++v) at[v].duration = d[v];
  Nanos finish = 0;
  std::uint32_t next_level = 0;
  const bool acyclic = kahn(
      g, order, [&](OpIndex v) -> std::uint32_t& { return at[v].indegree; },
      [&](OpIndex u) {
        finish = at[u].earliest + at[u].duration;
        next_level = at[u].level + 1;
      },
      [&](OpIndex u, OpIndex s) {
        if (finish > at[s].earliest) {
          at[s].earliest = finish;
          at[s].via = u;
        }
        at[s].level = std::max(at[s].level, next_level);
      },
      [&](OpIndex v) { __builtin_prefetch(&at[v]); });
  earliest.resize(g.n);
  via.resize(g.n);
  for (OpIndex v = 0; v < g.n; ++v) {
    earliest[v] = at[v].earliest;
    via[v] = at[v].via;
  }
  if (level != nullptr && acyclic) {
    level->resize(g.n);
    for (OpIndex v = 0; v < g.n; ++v) (*level)[v] = at[v].level;
  }
  return acyclic;
}

/// Whether every edge goes from a lower to a higher index: the vertices' own order is topological (a
/// generated or saved workload lists each op after its deps). Predecessor rows are sorted.
bool numbered_in_topological_order(const CsrView& g) {
  for (OpIndex v = 0; v < g.n; ++v)
    if (g.in_start[v + 1] > g.in_start[v] && g.in[g.in_start[v + 1] - 1] >= v) return false;
  return true;
}

/// The passes in index order (forward_in_index_order, finish_in_index_order) start loading the records of
/// the predecessors of the vertex this many vertices ahead. At ten million ops of a random DAG those
/// records lie anywhere in 160 MB, each a cache and TLB miss: 8 ahead left the pass waiting on them (its
/// user time grew 18x from 1M to 10M ops); 32 cut it by a third at 10M (16: a sixth; 64: no better).
constexpr OpIndex kRowsAhead = 32;

/// `via` of a vertex two of whose predecessors finish last together (forward_in_index_order).
constexpr OpIndex kTie = kNone - 1;

/// forward_pass for vertices numbered in a topological order: each vertex pulls its earliest start and
/// level from its predecessors, visited in index order, so the rows are read front to back and only each
/// predecessor's record (one cache line) lies anywhere; Kahn's pass reads every row and record in its
/// own queue order, several misses per vertex at ten million ops. The values are the same in any order;
/// `via` is too unless two predecessors of a vertex finish last together, where Kahn's pass keeps the one
/// it visits first: such a vertex gets kTie (the caller runs Kahn's pass if the reported path needs it).
void forward_in_index_order(const CsrView& g, std::span<const Nanos> d, std::vector<Nanos>& earliest,
                            std::vector<OpIndex>& via, std::vector<std::uint32_t>& level) {
  struct Done {
    Nanos finish = 0;
    std::uint32_t level = 0;
  };
  std::vector<Done> done(g.n);
  earliest.resize(g.n);
  via.resize(g.n);
  level.resize(g.n);
  for (OpIndex v = 0; v < g.n; ++v) {
    if (v + kRowsAhead < g.n)
      for (std::uint32_t e = g.in_start[v + kRowsAhead], end = g.in_start[v + kRowsAhead + 1]; e < end; ++e)
        __builtin_prefetch(&done[g.in[e]]);
    Nanos start = 0;
    OpIndex from = kNone;
    std::uint32_t ties = 0, depth = 0;
    for (std::uint32_t e = g.in_start[v], end = g.in_start[v + 1]; e < end; ++e) {
      const Done& u = done[g.in[e]];
      if (u.finish > start) {
        start = u.finish;
        from = g.in[e];
        ties = 0;
      } else if (u.finish == start && from != kNone) {
        ++ties;
      }
      depth = std::max(depth, u.level + 1);
    }
    earliest[v] = start;
    via[v] = ties != 0 ? kTie : from;
    level[v] = depth;
    done[v] = Done{start + d[v], depth};
  }
}

/// finish_critical_path for vertices numbered in a topological order, from the predecessor rows alone:
/// in reverse index order each vertex's latest start is final (its successors, all later, have pushed
/// theirs to it as its latest finish) and is pushed to its predecessors. The same values.
CriticalPath finish_in_index_order(const CsrView& g, std::span<const Nanos> d, std::vector<Nanos> earliest,
                                   const std::vector<OpIndex>& via) {
  CriticalPath cp;
  const OpIndex last = path_end(earliest, d);
  if (last != kNone) cp.length = earliest[last] + d[last];
  cp.latest_start.assign(g.n, cp.length);  // a vertex's latest finish until its turn
  for (OpIndex v = g.n; v-- > 0;) {
    if (v >= kRowsAhead)
      for (std::uint32_t e = g.in_start[v - kRowsAhead], end = g.in_start[v - kRowsAhead + 1]; e < end; ++e)
        __builtin_prefetch(&cp.latest_start[g.in[e]]);
    const Nanos latest = cp.latest_start[v] - d[v];
    cp.latest_start[v] = latest;
    for (std::uint32_t e = g.in_start[v], end = g.in_start[v + 1]; e < end; ++e)
      cp.latest_start[g.in[e]] = std::min(cp.latest_start[g.in[e]], latest);
  }
  complete_critical_path(cp, last, std::move(earliest), via);
  return cp;
}

/// Whether the longest path finish_critical_path reports passes no kTie.
bool path_is_unambiguous(const std::vector<Nanos>& earliest, std::span<const Nanos> d,
                         const std::vector<OpIndex>& via) {
  for (OpIndex v = path_end(earliest, d); v != kNone; v = via[v])
    if (v == kTie) return false;
  return true;
}

// Row-major bitsets: row r occupies words [r * words, (r + 1) * words).
struct BitRows {
  std::size_t words = 0;
  std::vector<std::uint64_t> bits;
  BitRows(std::size_t rows, std::size_t words_per_row) : words(words_per_row), bits(rows * words_per_row, 0) {}
  std::uint64_t* row(std::size_t r) { return bits.data() + r * words; }
  const std::uint64_t* row(std::size_t r) const { return bits.data() + r * words; }
};
inline void set_bit(std::uint64_t* row, std::uint32_t i) { row[i >> 6] |= std::uint64_t{1} << (i & 63); }
inline void clear_bit(std::uint64_t* row, std::uint32_t i) { row[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
inline bool test_bit(const std::uint64_t* row, std::uint32_t i) { return (row[i >> 6] >> (i & 63)) & 1u; }

/// Maximum bipartite matching (Hopcroft-Karp) on left = right = {0..n-1}, u -> v when bit v of reach(u)
/// is set. Both BFS and DFS mask each row with the right vertices not yet visited in the phase, so a
/// phase costs O(n^2/64) word operations however dense the reachability relation is.
class BitsetMatching {
 public:
  explicit BitsetMatching(const BitRows& reach, std::uint32_t n)
      : reach_(reach), n_(n), match_left_(n, kNone), match_right_(n, kNone), dist_(n), avail_(reach.words) {}

  std::uint32_t run() {
    std::uint32_t matched = greedy();
    while (layer()) {
      reset_avail();
      for (OpIndex u = 0; u < n_; ++u)
        if (match_left_[u] == kNone && augment(u)) ++matched;
    }
    return matched;
  }

  /// Koenig: the antichain {v : v_left reached, v_right not reached} by alternating paths from unmatched
  /// left vertices. Call after run().
  std::vector<OpIndex> antichain() {
    std::vector<char> left_seen(n_, 0);
    reset_avail();  // avail_ = right vertices not yet reached
    std::vector<OpIndex> queue;
    for (OpIndex u = 0; u < n_; ++u)
      if (match_left_[u] == kNone) {
        left_seen[u] = 1;
        queue.push_back(u);
      }
    for (std::size_t head = 0; head < queue.size(); ++head) {
      for_each_avail(queue[head], [&](std::uint32_t v) {
        clear_bit(avail_.data(), v);
        const OpIndex w = match_right_[v];  // never kNone: that would be an augmenting path
        if (w != kNone && !left_seen[w]) {
          left_seen[w] = 1;
          queue.push_back(w);
        }
        return false;
      });
    }
    std::vector<OpIndex> result;
    for (OpIndex v = 0; v < n_; ++v)
      if (left_seen[v] && test_bit(avail_.data(), v)) result.push_back(v);
    return result;
  }

 private:
  /// Calls f(v) for each set bit v of reach(u) & avail_; f must clear v from avail_ (it consumes it).
  /// Stops early when f returns true.
  template <class F>
  void for_each_avail(OpIndex u, F&& f) {
    const std::uint64_t* row = reach_.row(u);
    for (std::size_t w = 0; w < reach_.words; ++w) {
      std::uint64_t bits;
      while ((bits = row[w] & avail_[w]) != 0) {
        const auto v = static_cast<std::uint32_t>(w * 64 + static_cast<unsigned>(std::countr_zero(bits)));
        if (f(v)) return;
      }
    }
  }

  void reset_avail() {
    std::fill(avail_.begin(), avail_.end(), ~std::uint64_t{0});
    if (n_ % 64 != 0) avail_.back() = (std::uint64_t{1} << (n_ % 64)) - 1;
    if (n_ == 0) avail_.clear();
  }

  std::uint32_t greedy() {
    std::uint32_t matched = 0;
    reset_avail();  // avail_ = unmatched right vertices
    for (OpIndex u = 0; u < n_; ++u) {
      for_each_avail(u, [&](std::uint32_t v) {
        clear_bit(avail_.data(), v);
        match_left_[u] = v;
        match_right_[v] = u;
        ++matched;
        return true;
      });
    }
    return matched;
  }

  /// BFS layering from the unmatched left vertices; true when some unmatched right vertex is reachable.
  bool layer() {
    std::vector<OpIndex> queue;
    for (OpIndex u = 0; u < n_; ++u) {
      dist_[u] = match_left_[u] == kNone ? 0 : kNone;
      if (dist_[u] == 0) queue.push_back(u);
    }
    reset_avail();
    bool found = false;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const OpIndex u = queue[head];
      for_each_avail(u, [&](std::uint32_t v) {
        clear_bit(avail_.data(), v);
        const OpIndex w = match_right_[v];
        if (w == kNone) {
          found = true;
        } else if (dist_[w] == kNone) {
          dist_[w] = dist_[u] + 1;
          queue.push_back(w);
        }
        return false;
      });
    }
    return found;
  }

  /// Iterative DFS along the layering for one vertex-disjoint augmenting path from `root`. A right vertex
  /// is consumed (for the phase) only when the DFS goes through it: one whose partner is not on the next
  /// layer may still serve a later path.
  bool augment(OpIndex root) {
    struct Frame {
      OpIndex u;
      std::size_t word = 0;
      std::uint64_t pending = 0;  // bits of reach(u) in `word` not yet looked at
      bool loaded = false;
    };
    std::vector<Frame> stack{{root}};
    std::vector<std::uint32_t> rights;  // rights[i] = right vertex taken out of stack[i]
    while (!stack.empty()) {
      Frame& f = stack.back();
      std::uint32_t next = kNone;
      bool free_found = false;
      while (f.word < reach_.words) {
        if (!f.loaded) {
          f.pending = reach_.row(f.u)[f.word];
          f.loaded = true;
        }
        const std::uint64_t candidates = f.pending & avail_[f.word];
        if (candidates == 0) {
          ++f.word;
          f.loaded = false;
          continue;
        }
        const auto bit = static_cast<unsigned>(std::countr_zero(candidates));
        f.pending &= ~(std::uint64_t{1} << bit);
        const auto v = static_cast<std::uint32_t>(f.word * 64 + bit);
        const OpIndex w = match_right_[v];
        if (w == kNone || dist_[w] == dist_[f.u] + 1) {
          clear_bit(avail_.data(), v);
          next = v;
          free_found = w == kNone;
          break;
        }
      }
      if (next == kNone) {  // dead end: nothing through u for the rest of the phase
        dist_[f.u] = kNone;
        stack.pop_back();
        if (!rights.empty()) rights.pop_back();
        continue;
      }
      rights.push_back(next);
      if (free_found) {
        for (std::size_t i = 0; i < stack.size(); ++i) {
          match_left_[stack[i].u] = rights[i];
          match_right_[rights[i]] = stack[i].u;
        }
        return true;
      }
      stack.push_back({match_right_[next]});
    }
    return false;
  }

  const BitRows& reach_;
  std::uint32_t n_;
  std::vector<OpIndex> match_left_, match_right_;
  std::vector<std::uint32_t> dist_;
  std::vector<std::uint64_t> avail_;
};

}  // namespace

namespace {
/// Row starts from per-row counts (counts[v + 1] = row v's size).
void prefix_sums(std::vector<std::uint32_t>& start) {
  for (std::size_t v = 1; v < start.size(); ++v) start[v] += start[v - 1];
}

}  // namespace

void Dag::Impl::fill_successors(std::uint32_t n) {
  if (!out_start.empty()) return;  // made with the graph (Dag(vertex_count, edges))
  transpose_rows(n, in_start, in, out_start, out);
}

void Dag::Impl::fill_predecessors(std::uint32_t n) { transpose_rows(n, out_start, out, in_start, in); }

Dag::Dag(std::uint32_t vertex_count, std::span<const Edge> edges) : impl_(std::make_unique<Impl>()) {
  if (edges.size() >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("Dag: more than 2^32 - 1 edges");
  for (const auto& [u, v] : edges)
    if (u >= vertex_count || v >= vertex_count)
      throw std::out_of_range("Dag: edge " + std::to_string(u) + " -> " + std::to_string(v) + " names a vertex >= " +
                              std::to_string(vertex_count));
  Impl& d = *impl_;
  d.out_start.assign(std::size_t{vertex_count} + 1, 0);
  for (const auto& [u, v] : edges) ++d.out_start[u + 1];
  prefix_sums(d.out_start);
  d.out.resize(edges.size());
  std::vector<std::uint32_t> fill(d.out_start.begin(), d.out_start.end() - 1);
  for (const auto& [u, v] : edges) d.out[fill[u]++] = v;
  d.fill_predecessors(vertex_count);
}

// Straight from the workload's deps (no array of edges in between). The predecessor rows are its dep
// rows, each sorted by source; the successor rows (made when first needed) a counting sort of those by
// source, in op order.
Dag::Dag(const Workload& w) : impl_(std::make_unique<Impl>()) {
  if (w.ops.size() >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("Dag: more than 2^32 - 1 ops");
  if (!w.resolved()) throw std::invalid_argument("Dag: the workload's deps are not resolved (validate it first)");
  if (w.edge_count() >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("Dag: more than 2^32 - 1 edges");
  const auto n = static_cast<std::uint32_t>(w.ops.size());
  Impl& d = *impl_;
  d.in_start.assign(std::size_t{n} + 1, 0);
  d.in.reserve(w.edge_count());
  for (OpIndex v = 0; v < n; ++v) {
    const auto deps = w.deps(v);
    for (const OpIndex u : deps)
      if (u >= n)
        throw std::out_of_range("Dag: edge " + std::to_string(u) + " -> " + std::to_string(v) +
                                " names a vertex >= " + std::to_string(n));
    d.in.insert(d.in.end(), deps.begin(), deps.end());
    std::sort(d.in.end() - static_cast<std::ptrdiff_t>(deps.size()), d.in.end());
    d.in_start[v + 1] = static_cast<std::uint32_t>(d.in.size());
  }
}

Dag::~Dag() = default;
Dag::Dag(Dag&&) noexcept = default;
Dag& Dag::operator=(Dag&&) noexcept = default;

std::uint32_t Dag::vertex_count() const noexcept { return static_cast<std::uint32_t>(impl_->in_start.size() - 1); }
std::size_t Dag::edge_count() const noexcept { return impl_->in.size(); }

std::span<const OpIndex> Dag::successors(OpIndex v) const {
  if (v >= vertex_count()) throw std::out_of_range("Dag::successors: no vertex " + std::to_string(v));
  const Impl& d = impl_->with_successors();
  return {d.out.data() + d.out_start[v], d.out.data() + d.out_start[v + 1]};
}
std::span<const OpIndex> Dag::predecessors(OpIndex v) const {
  if (v >= vertex_count()) throw std::out_of_range("Dag::predecessors: no vertex " + std::to_string(v));
  return {impl_->in.data() + impl_->in_start[v], impl_->in.data() + impl_->in_start[v + 1]};
}

std::vector<Cycle> find_cycles(const Dag& g) {
  std::vector<OpIndex> order;
  if (kahn(DagAccess::view(g), order)) return {};
  return strongly_connected_cycles(g);
}

std::optional<std::vector<OpIndex>> topological_order(const Dag& g) {
  std::vector<OpIndex> order;
  if (!kahn(DagAccess::view(g), order)) return std::nullopt;
  return order;
}

CriticalPath critical_path(const Dag& g, const DurationOf& duration) {
  const CsrView v = DagAccess::view(g);
  const std::vector<Nanos> d = durations_of(v.n, duration);
  check_durations(v.n, d);
  std::vector<OpIndex> order, via;
  std::vector<Nanos> earliest;
  if (!forward_pass(v, d, order, earliest, via)) throw std::invalid_argument("critical_path: the graph has a cycle");
  return finish_critical_path(v, order, d, std::move(earliest), via);
}

DagAnalysis analyze_dag(const Dag& g, const DurationOf& duration, TopologicalOrder order) {
  const std::vector<Nanos> d = durations_of(g.vertex_count(), duration);
  return analyze_dag(g, std::span<const Nanos>(d), order);
}

DagAnalysis analyze_dag(const Dag& g, std::span<const Nanos> d, TopologicalOrder order) {
  check_durations(g.vertex_count(), d);
  DagAnalysis result;
  std::vector<OpIndex> via;
  std::vector<Nanos> earliest;
  if (const CsrView p = DagAccess::predecessors_view(g);
      order == TopologicalOrder::omit && numbered_in_topological_order(p)) {
    forward_in_index_order(p, d, earliest, via, result.level);
    if (path_is_unambiguous(earliest, d, via)) {
      result.critical = finish_in_index_order(p, d, std::move(earliest), via);
      return result;
    }
    result.level.clear();
  }
  const CsrView v = DagAccess::view(g);
  if (!forward_pass(v, d, result.order, earliest, via, &result.level)) {
    result.order.clear();
    result.cycles = strongly_connected_cycles(g);
    return result;
  }
  result.critical = finish_critical_path(v, result.order, d, std::move(earliest), via);
  if (order == TopologicalOrder::omit) std::vector<OpIndex>().swap(result.order);
  return result;
}

std::vector<std::uint32_t> levels(const Dag& g) {
  const CsrView v = DagAccess::view(g);
  struct Vertex {
    std::uint32_t level = 0;
    std::uint32_t indegree = 0;
  };
  std::vector<Vertex> at(v.n);
  std::vector<OpIndex> order;
  std::uint32_t next = 0;
  if (!kahn(
          v, order, [&](OpIndex u) -> std::uint32_t& { return at[u].indegree; },
          [&](OpIndex u) { next = at[u].level + 1; },
          [&](OpIndex, OpIndex s) { at[s].level = std::max(at[s].level, next); },
          [&](OpIndex u) { __builtin_prefetch(&at[u]); }))
    throw std::invalid_argument("levels: the graph has a cycle");
  std::vector<std::uint32_t> level(v.n);
  for (OpIndex u = 0; u < v.n; ++u) level[u] = at[u].level;
  return level;
}

Width widest_level(const Dag& g) { return widest_level(levels(g)); }

Width widest_level(const std::vector<std::uint32_t>& level) {
  if (level.empty()) return {};
  const std::uint32_t depth = *std::max_element(level.begin(), level.end()) + 1;
  std::vector<std::size_t> count(depth, 0);
  for (std::uint32_t l : level) ++count[l];
  const auto widest = static_cast<std::uint32_t>(std::max_element(count.begin(), count.end()) - count.begin());
  Width w;
  for (OpIndex v = 0; v < level.size(); ++v)
    if (level[v] == widest) w.antichain.push_back(v);
  w.width = w.antichain.size();
  return w;
}

Width max_width(const Dag& g) {
  const std::uint32_t n = g.vertex_count();
  if (n > kMaxWidthOps)
    throw std::length_error("max_width: " + std::to_string(n) + " ops is over the limit of " +
                            std::to_string(kMaxWidthOps) + " (use widest_level for a lower bound)");
  const std::vector<OpIndex> order = order_or_throw(g, "max_width");
  const CsrView v = DagAccess::view(g);
  // reach(u) = strict descendants of u, filled in reverse topological order.
  BitRows reach(n, (n + 63) / 64);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    std::uint64_t* row = reach.row(*it);
    for (std::uint32_t e = v.out_start[*it]; e < v.out_start[*it + 1]; ++e) {
      const OpIndex s = v.out[e];
      const std::uint64_t* child = reach.row(s);
      for (std::size_t k = 0; k < reach.words; ++k) row[k] |= child[k];
      set_bit(row, s);
    }
  }
  BitsetMatching matching(reach, n);
  const std::uint32_t matched = matching.run();
  Width w;
  w.antichain = matching.antichain();
  w.width = w.antichain.size();
  assert(w.width == n - matched);  // Dilworth + Koenig
  (void)matched;
  return w;
}

namespace {
/// parallelism_profile with op v's duration from duration_of(v).
template <class DurationOfOp>
std::vector<std::pair<Nanos, std::uint32_t>> profile_of(const CriticalPath& cp, const DurationOfOp& duration_of) {
  const auto n = static_cast<OpIndex>(cp.earliest_start.size());
  if (n == 0) return {};
  // Starts (+1) and ends (-1) as two sorted arrays of times, all changes at one instant applied
  // together (as metrics.cpp's concurrency): half the data of (time, +-1) pairs, radix-sorted.
  std::vector<Nanos> starts, ends;
  starts.reserve(n);
  ends.reserve(n);
  for (OpIndex v = 0; v < n; ++v) {
    const Nanos d = duration_of(v);
    if (d <= 0) continue;
    starts.push_back(cp.earliest_start[v]);
    ends.push_back(cp.earliest_start[v] + d);
  }
  const auto itself = [](Nanos at) { return at; };
  if (!std::is_sorted(starts.begin(), starts.end())) intervals::sort_by_time(starts, itself);
  if (!std::is_sorted(ends.begin(), ends.end())) intervals::sort_by_time(ends, itself);
  std::vector<std::pair<Nanos, std::uint32_t>> profile{{0, 0}};
  std::int64_t running = 0;
  for (std::size_t i = 0, j = 0; i < starts.size() || j < ends.size();) {
    const Nanos t = (j >= ends.size() || (i < starts.size() && starts[i] < ends[j])) ? starts[i] : ends[j];
    for (; i < starts.size() && starts[i] == t; ++i) ++running;
    for (; j < ends.size() && ends[j] == t; ++j) --running;
    const auto count = static_cast<std::uint32_t>(running);
    if (t == profile.back().first)
      profile.back().second = count;
    else if (count != profile.back().second)
      profile.emplace_back(t, count);
  }
  if (profile.back().first != cp.length || profile.back().second != 0) profile.emplace_back(cp.length, 0);
  return profile;
}
}  // namespace

std::vector<std::pair<Nanos, std::uint32_t>> parallelism_profile(const CriticalPath& cp, const DurationOf& duration) {
  return profile_of(cp, duration);
}

std::vector<std::pair<Nanos, std::uint32_t>> parallelism_profile(const CriticalPath& cp,
                                                                std::span<const Nanos> durations) {
  if (durations.size() != cp.earliest_start.size())
    throw std::invalid_argument("parallelism_profile: " + std::to_string(durations.size()) + " durations for " +
                                std::to_string(cp.earliest_start.size()) + " ops");
  return profile_of(cp, [durations](OpIndex v) { return durations[v]; });
}

std::vector<Edge> transitive_reduction(const Dag& g) {
  const std::vector<OpIndex> order = order_or_throw(g, "transitive_reduction");
  const CsrView v = DagAccess::view(g);
  const std::uint32_t n = v.n;
  const std::size_t m = g.edge_count();
  // Everything below is indexed by topological position, not op index: descendants of position p lie
  // right of p, so a column block [c0, c1) only concerns positions < c1, and the reverse sweep walks the
  // bitset rows in memory order.
  std::vector<std::uint32_t> pos(n);
  for (std::uint32_t p = 0; p < n; ++p) pos[order[p]] = p;
  std::vector<std::uint32_t> succ_start(std::size_t{n} + 1, 0);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> succ;  // (successor position, edge index), by position
  succ.reserve(m);
  for (std::uint32_t p = 0; p < n; ++p) {
    const OpIndex u = order[p];
    for (std::uint32_t e = v.out_start[u]; e < v.out_start[u + 1]; ++e) succ.emplace_back(pos[v.out[e]], e);
    succ_start[p + 1] = static_cast<std::uint32_t>(succ.size());
  }
  std::vector<char> redundant(m, 0);
  // Column blocks of `words` 64-bit words per position keep n * words * 8 bytes under 64 MiB.
  constexpr std::size_t kBudgetWords = (std::size_t{64} << 20) / 8;
  const std::size_t all_words = (std::size_t{n} + 63) / 64;
  const std::size_t words = std::max<std::size_t>(1, std::min(all_words, kBudgetWords / std::max<std::size_t>(n, 1)));
  BitRows below(n, words);  // below(p) = strict descendants of position p inside the current column block
  std::vector<std::uint64_t> others(words);
  for (std::size_t c0 = 0; c0 < n; c0 += words * 64) {
    const auto c1 = static_cast<std::uint32_t>(std::min<std::size_t>(n, c0 + words * 64));
    std::fill(below.bits.begin(), below.bits.begin() + static_cast<std::ptrdiff_t>(std::size_t{c1} * words), 0);
    for (std::uint32_t p = c1; p-- > 0;) {
      const std::uint32_t first = succ_start[p], last = succ_start[p + 1];
      // others = everything below some successor; a successor found there is reached another way.
      // Successors at positions >= c1 have nothing in this block below them.
      std::fill(others.begin(), others.end(), 0);
      bool any = false;
      for (std::uint32_t k = first; k < last; ++k) {
        if (succ[k].first >= c1) continue;
        const std::uint64_t* child = below.row(succ[k].first);
        for (std::size_t w = 0; w < words; ++w) others[w] |= child[w];
        any = true;
      }
      if (!any) continue;  // row p stays empty
      std::uint64_t* row = below.row(p);
      std::copy(others.begin(), others.end(), row);
      for (std::uint32_t k = first; k < last; ++k) {
        const std::uint32_t q = succ[k].first;
        if (q < c0 || q >= c1) continue;
        const auto bit = static_cast<std::uint32_t>(q - c0);
        if (test_bit(others.data(), bit)) redundant[succ[k].second] = 1;
        set_bit(row, bit);
      }
    }
  }
  std::vector<Edge> kept;
  for (OpIndex u = 0; u < n; ++u)
    for (std::uint32_t e = v.out_start[u]; e < v.out_start[u + 1]; ++e)
      if (!redundant[e]) kept.emplace_back(u, v.out[e]);
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

std::string describe_cycle(const Workload& w, const Cycle& c) {
  std::vector<OpIndex> members = c.ops;
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  if (members.empty()) return "(empty cycle)";
  // The workload stores deps (predecessors); the walk goes dep -> dependent, so build successor lists.
  std::vector<std::vector<OpIndex>> successors(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] >= w.ops.size()) continue;
    for (OpIndex d : w.deps(members[i])) {
      auto it = std::lower_bound(members.begin(), members.end(), d);
      if (it != members.end() && *it == d) successors[static_cast<std::size_t>(it - members.begin())].push_back(members[i]);
    }
  }
  const std::vector<OpIndex> walk = detail::closed_walk(members, [&](OpIndex u, auto&& f) {
    const auto i = static_cast<std::size_t>(std::lower_bound(members.begin(), members.end(), u) - members.begin());
    for (OpIndex s : successors[i]) f(s);
  });
  std::string s;
  if (walk.empty()) {  // not a dependency cycle of this workload: still name the ops
    for (std::size_t i = 0; i < members.size(); ++i) s += (i ? ", " : "") + detail::op_label(w, members[i]);
    return s + " (no dependency cycle among them)";
  }
  for (std::size_t i = 0; i < walk.size(); ++i) s += (i ? " -> " : "") + detail::op_label(w, walk[i]);
  return s + detail::off_walk_note(w, members, walk);
}

}  // namespace streamlab::model
