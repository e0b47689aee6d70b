#pragma once
// Sorting an array that is a few sorted sequences interleaved: the spans of a lane or the ops of the
// op table, listed in the trace's order (op order), where each stream's spans come in time order. A
// merge of the streams' sequences is linear and reads the array in a few sequential streams; a radix
// sort of ten million records (a scattering pass to 2048 places, then passes per part) cost several
// times more per record than at a million (tests/bench/scale_table.md: the viewer's lanes and op table).

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace streamlab::viz::detail {

/// Runs merge_sorted_runs can tell apart; an element whose run is this or more sends the caller to a sort.
inline constexpr std::uint32_t kMaxRuns = 16;

/// When every element's run (`run(x)`, below kMaxRuns) holds its elements in `less` order (a strict
/// total order: no two elements equal), replaces `v` by the merge of the runs, which is `v` sorted by
/// `less`, and returns true. Otherwise returns false and leaves `v` as it was. One pass links each run's
/// elements, a second merges them by looking at each run's next element.
/// Streams numbered 0, 1, ... in the order they are met (the runs of merge_sorted_runs); streams past
/// the kMaxRuns first, and stream ids from kDirect on, get a number that makes merge_sorted_runs
/// decline. A look-up is one array read (consecutive spans of a random DAG are of different streams).
class StreamRuns {
 public:
  StreamRuns() { run_.fill(kUnset); }
  [[nodiscard]] std::uint16_t of(std::uint32_t stream) noexcept {
    if (stream >= kDirect) return kMany;
    std::uint16_t& r = run_[stream];
    if (r == kUnset) r = count_ < kMaxRuns ? count_++ : kMany;
    return r;
  }

 private:
  static constexpr std::uint32_t kDirect = 1024;  ///< stream ids looked up directly
  static constexpr std::uint16_t kMany = 0xffff, kUnset = 0xfffe;
  std::array<std::uint16_t, kDirect> run_;
  std::uint16_t count_ = 0;
};

template <class T, class Run, class Less>
[[nodiscard]] bool merge_sorted_runs(std::vector<T>& v, Run run, Less less) {
  constexpr std::uint32_t kEnd = ~std::uint32_t{0};
  std::array<std::uint32_t, kMaxRuns> head, last;
  head.fill(kEnd);
  last.fill(kEnd);
  const auto next = std::make_unique_for_overwrite<std::uint32_t[]>(v.size());  // each written before read
  std::uint32_t runs = 0;  // highest run seen + 1
  for (std::uint32_t i = 0; i < v.size(); ++i) {
    const std::uint32_t r = run(v[i]);
    if (r >= kMaxRuns) return false;
    if (last[r] == kEnd) {
      head[r] = i;
    } else {
      if (!less(v[last[r]], v[i])) return false;
      next[last[r]] = i;
    }
    last[r] = i;
    runs = r + 1 > runs ? r + 1 : runs;
  }
  for (std::uint32_t r = 0; r < runs; ++r)
    if (last[r] != kEnd) next[last[r]] = kEnd;
  std::vector<T> out;
  out.reserve(v.size());
  for (;;) {
    std::uint32_t best = kEnd;
    for (std::uint32_t r = 0; r < runs; ++r)
      if (head[r] != kEnd && (best == kEnd || less(v[head[r]], v[head[best]]))) best = r;
    if (best == kEnd) break;
    out.push_back(v[head[best]]);
    head[best] = next[head[best]];
  }
  v.swap(out);
  return true;
}

}  // namespace streamlab::viz::detail
