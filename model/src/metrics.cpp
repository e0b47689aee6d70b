#include "streamlab/model/metrics.hpp"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdlib>
#include <functional>
#include <limits>
#include <queue>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "intervals.hpp"
#include "streamlab/model/prefetch.hpp"
#include "streamlab/model/radix_sort.hpp"

namespace streamlab::model {
namespace {

using intervals::Interval;
using intervals::fraction;
using intervals::intersection;
using intervals::merge;
using intervals::total;

// A difference clamped to Nanos (intervals.hpp: traces read from files never clamp).
Nanos minus(Nanos a, Nanos b) { return intervals::clamp_ns(static_cast<intervals::Wide>(a) - b); }

// A span of one stream as compute_metrics reads it.
struct StreamSpan {
  Nanos start, end;
  Engine engine;
};

// Counted in the concurrency: device work (not the host's) of a positive length.
bool counts_as_device_work(const StreamSpan& x) { return x.engine != Engine::host && x.end > x.start; }

// Length of the union of spans sorted by start (total(merge(...)) without an array of the union).
Nanos union_length(const std::vector<StreamSpan>& sorted) {
  intervals::Wide sum = 0;
  bool open = false;
  Nanos lo = 0, hi = 0;
  for (const StreamSpan& x : sorted) {
    if (x.end <= x.start) continue;
    if (open && x.start <= hi) {
      hi = std::max(hi, x.end);
      continue;
    }
    if (open) sum += static_cast<intervals::Wide>(hi) - lo;
    lo = x.start, hi = x.end, open = true;
  }
  if (open) sum += static_cast<intervals::Wide>(hi) - lo;
  return intervals::clamp_ns(sum);
}

// Whether the device work among a stream's spans (in their order) ends in order.
bool device_ends_in_order(const std::vector<StreamSpan>& spans) {
  Nanos previous = std::numeric_limits<Nanos>::min();
  for (const StreamSpan& x : spans) {
    if (!counts_as_device_work(x)) continue;
    if (x.end < previous) return false;
    previous = x.end;
  }
  return true;
}

// One stream's spans as compute_metrics gathers them, and what a look at each span as it comes tells:
// whether they come sorted by start, the length of their union (while they do: union_length's walk, one
// span at a time) and whether the device work among them ends in order. Passes of their own over every
// stream's array (sortedness, union, ends) read 240 MB each at ten million spans.
class StreamList {
 public:
  std::vector<StreamSpan> spans;

  void add(const StreamSpan& x) {
    if (!spans.empty() && x.start < spans.back().start) sorted_ = false;
    spans.push_back(x);
    if (counts_as_device_work(x)) {
      ends_in_order_ = ends_in_order_ && x.end >= previous_end_;
      previous_end_ = x.end;
    }
    if (!sorted_ || x.end <= x.start) return;
    if (open_ && x.start <= hi_) {
      hi_ = std::max(hi_, x.end);
      return;
    }
    if (open_) sum_ += static_cast<intervals::Wide>(hi_) - lo_;
    lo_ = x.start, hi_ = x.end, open_ = true;
  }
  /// Sorts the spans by start if they did not come so (stable).
  void sort() {
    if (sorted_) return;
    sort_by_key(spans, [](const StreamSpan& x) { return x.start; });
    ends_in_order_ = device_ends_in_order(spans);
  }
  /// The union's length (after sort()).
  [[nodiscard]] Nanos union_length() const {
    if (!sorted_) return streamlab::model::union_length(spans);
    return intervals::clamp_ns(sum_ + (open_ ? static_cast<intervals::Wide>(hi_) - lo_ : 0));
  }
  [[nodiscard]] bool ends_in_order() const noexcept { return ends_in_order_; }

 private:
  bool sorted_ = true;
  bool ends_in_order_ = true;
  Nanos previous_end_ = std::numeric_limits<Nanos>::min();
  bool open_ = false;
  Nanos lo_ = 0, hi_ = 0;
  intervals::Wide sum_ = 0;
};

// The elements of `lists` that `take` accepts, one at a time in the order of key (each list's accepted
// elements sorted by it): a merge that hands them over as asked, so that two of them (by start and by
// end) can feed one sweep without arrays of every start and end. The heads' keys sit in one small array:
// the smallest of a few lists is found by looking at each, of many by a heap. Equal keys: the list
// that comes first first.
template <class T, class Key, class Take>
class SortedListsMerge {
 public:
  SortedListsMerge(std::vector<const std::vector<T>*> lists, Key key, Take take)
      : lists_(std::move(lists)), key_(key), take_(take), at_(lists_.size(), 0), head_(lists_.size(), 0) {
    for (std::size_t l = 0; l < lists_.size(); ++l) advance(l);
    if (lists_.size() > kFewLists) {
      for (std::size_t l = 0; l < lists_.size(); ++l)
        if (!exhausted(l)) heads_.emplace(head_[l], l);
    }
    find_best();
  }
  [[nodiscard]] bool done() const noexcept { return best_ == kNone; }
  /// The next element and its key (not done()).
  [[nodiscard]] const T& top() const noexcept { return (*lists_[best_])[at_[best_]]; }
  [[nodiscard]] Nanos peek() const noexcept { return head_[best_]; }
  void pop() {
    const std::size_t l = best_;
    ++at_[l];
    advance(l);
    if (lists_.size() > kFewLists) {
      heads_.pop();
      if (!exhausted(l)) heads_.emplace(head_[l], l);
    }
    find_best();
  }

 private:
  static constexpr std::size_t kFewLists = 16;
  static constexpr std::size_t kNone = ~std::size_t{0};
  [[nodiscard]] bool exhausted(std::size_t l) const noexcept { return at_[l] == lists_[l]->size(); }
  void advance(std::size_t l) {
    const std::vector<T>& v = *lists_[l];
    while (at_[l] < v.size() && !take_(v[at_[l]])) ++at_[l];
    if (at_[l] < v.size()) head_[l] = key_(v[at_[l]]);
  }
  void find_best() {
    if (lists_.size() > kFewLists) {
      best_ = heads_.empty() ? kNone : heads_.top().second;
      return;
    }
    best_ = kNone;
    for (std::size_t l = 0; l < lists_.size(); ++l)
      if (!exhausted(l) && (best_ == kNone || head_[l] < head_[best_])) best_ = l;
  }

  std::vector<const std::vector<T>*> lists_;
  Key key_;
  Take take_;
  std::vector<std::size_t> at_;
  std::vector<Nanos> head_;
  using Head = std::pair<Nanos, std::size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads_;  // many lists
  std::size_t best_ = kNone;
};

using OpIdHash = std::uint64_t (*)(std::string_view);
std::uint64_t std_hash(std::string_view id) { return std::hash<std::string_view>{}(id); }

// Matching spans of two traces by (op id, engine), without reading spans or op ids at random, when the
// traces do not list their device spans in one order (see pair_in_order for those that do).
//
// Each trace's device spans are sorted by key, then start, then trace order, and the two lists walked
// together; repeated keys pair up k-th with k-th. The key order is any order both lists share: by a
// 64-bit hash of the op id (a radix sort by its upper half, linear; then each run of equal upper halves,
// nearly always one op's spans), then engine. Sorting by the id's text compared strings along pointers,
// n log n times; a walk that read each pair's spans and ids (in hash order: at random in the traces, and
// in their string tables) missed the cache and the TLB several times per pair, at ten million spans more
// than reading both traces cost. So the sorted lists carry what the walk compares, the walk trusts equal
// hashes, and the pairs it makes get their times, and their ids checked, in the order of trace a (and of
// trace b too, near enough, for two traces of one workload). Two different ids with one hash (in one
// trace, seen while sorting; or paired across the traces, seen by the check) send the whole matching to
// the exact order instead: hash, op id, engine. Either way the result is the same.
struct Keyed {
  std::uint32_t hash;  ///< upper half of the id's hash: the radix sort's key
  std::uint32_t low;   ///< lower half
  std::uint32_t span;
  Engine engine;
};
enum class KeyOrder : bool { hashes, ids };

// The trace's device spans in key order. With KeyOrder::hashes, false when two different ids share a
// hash (the caller then asks again with KeyOrder::ids).
bool keyed_spans(const Trace& t, KeyOrder order, OpIdHash hash, std::vector<Keyed>& v) {
  v.clear();
  v.reserve(t.spans.size());
  for (std::size_t i = 0; i < t.spans.size(); ++i)
    if (const Span& s = t.spans[i]; !s.host_call) {
      const std::uint64_t h = hash(s.op_id);
      v.push_back(Keyed{static_cast<std::uint32_t>(h >> 32), static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(i),
                        s.engine});
    }
  intervals::sort_by_time(v, [](const Keyed& k) { return static_cast<Nanos>(k.hash); });
  for (std::size_t i = 0; i < v.size();) {
    std::size_t end = i + 1;
    while (end < v.size() && v[end].hash == v[i].hash) ++end;
    const auto at = [&](std::size_t k) { return v.begin() + static_cast<std::ptrdiff_t>(k); };
    if (end - i > 1) {
      if (order == KeyOrder::hashes) {
        std::sort(at(i), at(end), [&](const Keyed& x, const Keyed& y) {
          return std::tie(x.low, x.engine, t.spans[x.span].start_ns, x.span) <
                 std::tie(y.low, y.engine, t.spans[y.span].start_ns, y.span);
        });
        // Entries of one full hash now sit together: each must name the id of the first of them.
        for (std::size_t x = i + 1, first = i; x < end; ++x) {
          if (v[x].low != v[first].low)
            first = x;
          else if (t.spans[v[x].span].op_id != t.spans[v[first].span].op_id)
            return false;
        }
      } else {
        std::sort(at(i), at(end), [&](const Keyed& x, const Keyed& y) {
          const Span& sx = t.spans[x.span];
          const Span& sy = t.spans[y.span];
          if (const int c = sx.op_id.view().compare(sy.op_id); c != 0) return c < 0;
          return std::tie(x.engine, sx.start_ns, x.span) < std::tie(y.engine, sy.start_ns, y.span);
        });
      }
    }
    i = end;
  }
  return true;
}

// The pairs of spans (a's index << 32 | b's) in key order, and the op ids found in only one trace
// (unsorted, repeated).
std::vector<std::uint64_t> walk_keys(const Trace& a, const Trace& b, const std::vector<Keyed>& in_a,
                                     const std::vector<Keyed>& in_b, KeyOrder order, TraceComparison& c) {
  // -1, 0, 1 as span x (of trace tx) comes before, with, after span y (of ty).
  const auto key_order = [order](const Trace& tx, const Keyed& x, const Trace& ty, const Keyed& y) {
    if (x.hash != y.hash) return x.hash < y.hash ? -1 : 1;
    if (order == KeyOrder::hashes) {
      if (x.low != y.low) return x.low < y.low ? -1 : 1;
    } else if (const int ids = tx.spans[x.span].op_id.view().compare(ty.spans[y.span].op_id); ids != 0) {
      return ids < 0 ? -1 : 1;
    }
    return x.engine == y.engine ? 0 : (x.engine < y.engine ? -1 : 1);
  };
  // [i, end) of the spans sharing in[i]'s key.
  const auto group_end = [&](const Trace& t, const std::vector<Keyed>& in, std::size_t i) {
    std::size_t end = i + 1;
    while (end < in.size() && key_order(t, in[i], t, in[end]) == 0) ++end;
    return end;
  };
  std::vector<std::uint64_t> pairs;
  pairs.reserve(std::min(in_a.size(), in_b.size()));
  c.only_in_a.clear();
  c.only_in_b.clear();
  for (std::size_t i = 0, j = 0; i < in_a.size() || j < in_b.size();) {
    const int ab = i == in_a.size() ? 1 : j == in_b.size() ? -1 : key_order(a, in_a[i], b, in_b[j]);
    const std::size_t a_end = ab <= 0 ? group_end(a, in_a, i) : i, b_end = ab >= 0 ? group_end(b, in_b, j) : j;
    const std::size_t both = std::min(a_end - i, b_end - j);
    for (std::size_t k = 0; k < both; ++k) pairs.push_back(std::uint64_t{in_a[i + k].span} << 32 | in_b[j + k].span);
    for (std::size_t k = i + both; k < a_end; ++k) c.only_in_a.push_back(a.spans[in_a[k].span].op_id.str());
    for (std::size_t k = j + both; k < b_end; ++k) c.only_in_b.push_back(b.spans[in_b[k].span].op_id.str());
    i = a_end;
    j = b_end;
  }
  return pairs;
}

// The matched ops of `pairs`, in trace a's order, with their times relative to each trace's start; and
// whether every pair joins one op id (checked only with KeyOrder::hashes, true otherwise). Read in a's
// order, with b's spans and both ids a few pairs ahead loading meanwhile.
// The sums of the matched ops' |start error| and |duration error|, exact (integers), so that the means
// do not depend on the order of the ops; kept as the ops are matched (a pass of its own over ten million
// matched ops read 400 MB once more).
struct ErrorSums {
  intervals::Wide start = 0, duration = 0;
  void add(const SpanDelta& d) {
    start += magnitude(static_cast<intervals::Wide>(d.a_start) - d.b_start);
    duration += magnitude((static_cast<intervals::Wide>(d.a_end) - d.a_start) -
                          (static_cast<intervals::Wide>(d.b_end) - d.b_start));
  }
  void remove(const SpanDelta& d) {
    start -= magnitude(static_cast<intervals::Wide>(d.a_start) - d.b_start);
    duration -= magnitude((static_cast<intervals::Wide>(d.a_end) - d.a_start) -
                          (static_cast<intervals::Wide>(d.b_end) - d.b_start));
  }

 private:
  static intervals::Wide magnitude(intervals::Wide v) { return v < 0 ? -v : v; }
};

bool pair_times(const Trace& a, const Trace& b, std::vector<std::uint64_t>& pairs, KeyOrder order, Nanos a_start,
                Nanos b_start, std::vector<SpanDelta>& matched, ErrorSums& sums) {
  sort_by_key(pairs, [](std::uint64_t p) { return static_cast<std::int64_t>(p >> 32); });
  matched.clear();
  matched.reserve(pairs.size());
  constexpr std::size_t kAhead = 16;
  bool equal = true;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (k + 2 * kAhead < pairs.size()) __builtin_prefetch(&b.spans[static_cast<std::uint32_t>(pairs[k + 2 * kAhead])]);
    if (order == KeyOrder::hashes && k + kAhead < pairs.size()) {
      __builtin_prefetch(a.spans[pairs[k + kAhead] >> 32].op_id.data());
      __builtin_prefetch(b.spans[static_cast<std::uint32_t>(pairs[k + kAhead])].op_id.data());
    }
    const auto ia = static_cast<std::uint32_t>(pairs[k] >> 32), ib = static_cast<std::uint32_t>(pairs[k]);
    const Span& x = a.spans[ia];
    const Span& y = b.spans[ib];
    if (order == KeyOrder::hashes) equal &= x.op_id == y.op_id;
    matched.push_back(SpanDelta{ia, ib, x.start_ns - a_start, x.end_ns - a_start, y.start_ns - b_start, y.end_ns - b_start});
    sums.add(matched.back());
  }
  std::vector<std::uint64_t>().swap(pairs);
  return equal;
}

// Two traces of one workload usually list their device spans in the same order of (op id, engine): the
// simulator writes them in op order whatever the policy, and so do the importers. Then the k-th device
// span of one pairs with the k-th of the other, read in order with no sort, provided that every key the
// traces repeat has its spans in the same start order in both (the rule pairs a key's spans k-th with
// k-th by start): those keys are found by sorting the ids' hashes (8 bytes a span, not the 16 of a
// Keyed, and one trace, not two) and checking the few whose hashes repeat by their text; a repeated key
// whose spans start in another order in the two traces gets its pairs re-made by the rule. Fills
// `matched` in a's order and returns true, or returns false (matched cleared) when the traces are not
// listed in one order.
bool pair_in_order(const Trace& a, const Trace& b, OpIdHash hash, Nanos a_start, Nanos b_start,
                   std::vector<SpanDelta>& matched, ErrorSums& sums) {
  matched.clear();
  const auto next_device = [](const Trace& t, std::size_t& i) {
    while (i < t.spans.size() && t.spans[i].host_call) ++i;
    prefetch_ahead(t.spans, i);
    return i < t.spans.size();
  };
  std::vector<std::uint64_t> hashed;  // (upper half of the id's hash << 32) | position in `matched`
  for (std::size_t i = 0, j = 0;; ++i, ++j) {
    const bool in_a = next_device(a, i), in_b = next_device(b, j);
    if (in_a != in_b) return matched.clear(), false;
    if (!in_a) break;
    const Span& x = a.spans[i];
    const Span& y = b.spans[j];
    if (x.engine != y.engine || x.op_id != y.op_id) return matched.clear(), false;
    if (matched.empty()) {
      // Sized once (capacity only: a trace found out of order early has touched none of it).
      matched.reserve(std::min(a.spans.size() - i, b.spans.size() - j));
      hashed.reserve(matched.capacity());
    }
    hashed.push_back((hash(x.op_id) >> 32 << 32) | matched.size());
    matched.push_back(SpanDelta{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), x.start_ns - a_start,
                                x.end_ns - a_start, y.start_ns - b_start, y.end_ns - b_start});
    sums.add(matched.back());
  }
  // Stable: within one hash, positions ascend.
  sort_by_key(hashed, [](std::uint64_t h) { return static_cast<std::int64_t>(h >> 32); });
  const auto id_at = [&](std::uint32_t k) { return a.spans[matched[k].a].op_id.view(); };
  const auto engine_at = [&](std::uint32_t k) { return a.spans[matched[k].a].engine; };
  std::vector<std::uint32_t> run, by_a, by_b;
  std::vector<SpanDelta> b_sides;
  for (std::size_t r = 0; r < hashed.size();) {
    std::size_t end = r + 1;
    while (end < hashed.size() && hashed[end] >> 32 == hashed[r] >> 32) ++end;
    if (end - r > 1) {
      run.clear();
      for (std::size_t k = r; k < end; ++k) run.push_back(static_cast<std::uint32_t>(hashed[k]));
      // The run's keys together, each key's positions ascending.
      std::sort(run.begin(), run.end(), [&](std::uint32_t x, std::uint32_t y) {
        if (const int c = id_at(x).compare(id_at(y)); c != 0) return c < 0;
        return std::pair(engine_at(x), x) < std::pair(engine_at(y), y);
      });
      for (std::size_t g = 0; g < run.size();) {
        std::size_t g_end = g + 1;
        while (g_end < run.size() && engine_at(run[g_end]) == engine_at(run[g]) && id_at(run[g_end]) == id_at(run[g]))
          ++g_end;
        if (g_end - g > 1) {
          // One key repeated: its spans by (start, trace order) in each trace, paired rank by rank.
          by_a.assign(run.begin() + static_cast<std::ptrdiff_t>(g), run.begin() + static_cast<std::ptrdiff_t>(g_end));
          by_b = by_a;
          std::stable_sort(by_a.begin(), by_a.end(),
                           [&](std::uint32_t x, std::uint32_t y) { return matched[x].a_start < matched[y].a_start; });
          std::stable_sort(by_b.begin(), by_b.end(),
                           [&](std::uint32_t x, std::uint32_t y) { return matched[x].b_start < matched[y].b_start; });
          if (by_a != by_b) {
            b_sides.clear();
            for (const std::uint32_t k : by_b) b_sides.push_back(matched[k]);
            for (std::size_t rank = 0; rank < by_a.size(); ++rank) {
              SpanDelta& d = matched[by_a[rank]];
              sums.remove(d);
              d.b = b_sides[rank].b;
              d.b_start = b_sides[rank].b_start;
              d.b_end = b_sides[rank].b_end;
              sums.add(d);
            }
          }
        }
        g = g_end;
      }
    }
    r = end;
  }
  return true;
}

// compute_metrics, with the concurrency's change points in `keep` (when set) or handed to `step`.
TraceMetrics metrics_of(const Trace& t, std::vector<std::pair<Nanos, std::uint32_t>>* keep, const ConcurrencyStep& step) {
  TraceMetrics m;
  if (t.spans.empty()) return m;
  Nanos first = std::numeric_limits<Nanos>::max(), last = std::numeric_limits<Nanos>::min();
  // Each stream's spans, sorted by start (a stream's spans nearly always come so; the others are
  // sorted). The engines' unions and the sorted starts and ends are then merges of the streams' lists:
  // sorting every engine's intervals and all starts and ends of ten million spans (arrays of hundreds of
  // megabytes, radix passes scattering across them) cost more than the rest of the metrics together.
  std::map<std::uint32_t, StreamList> by_stream;
  {
    // Each stream's array sized once (growing arrays of ten million spans copied them again and again):
    // for its share of the first kSample spans, and an eighth more (what is never filled is never
    // touched). Counting every span first read every span once more; a stream that outgrows its share,
    // or that the first spans lack, grows as any vector does.
    constexpr std::size_t kSample = std::size_t{1} << 16;
    const std::size_t sample = std::min(t.spans.size(), kSample);
    std::map<std::uint32_t, std::size_t> per_stream;
    std::uint32_t counted_stream = 0;
    std::size_t* counted = nullptr;  // consecutive spans are often of one stream
    for (std::size_t i = 0; i < sample; ++i) {
      const Span& s = t.spans[i];
      if (s.host_call) continue;
      if (counted == nullptr || s.stream != counted_stream) {
        counted = &per_stream[s.stream];
        counted_stream = s.stream;
      }
      ++*counted;
    }
    for (const auto& [stream, n] : per_stream) {
      const auto share = static_cast<double>(n) / static_cast<double>(sample);
      by_stream[stream].spans.reserve(sample == t.spans.size()
                                    ? n
                                    : static_cast<std::size_t>(share * static_cast<double>(t.spans.size()) * 1.125) + 64);
    }
  }
  std::uint32_t cached_stream = 0;
  StreamList* cached = nullptr;               // consecutive spans are often of one stream
  std::size_t device_spans = 0;               // with a positive duration, not on the host
  std::bitset<256> engines;                    // of any span, even one of no length (busy 0)
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    prefetch_ahead(t.spans, i);
    const Span& s = t.spans[i];
    if (s.host_call) continue;  // the host thread's API calls: not work of the device
    engines.set(static_cast<std::size_t>(s.engine));
    first = std::min(first, s.start_ns);
    last = std::max(last, s.end_ns);
    if (cached == nullptr || s.stream != cached_stream) {
      cached = &by_stream[s.stream];  // std::map nodes do not move
      cached_stream = s.stream;
    }
    const StreamSpan x{s.start_ns, s.end_ns, s.engine};
    cached->add(x);
    device_spans += counts_as_device_work(x) ? 1 : 0;
  }
  if (first > last) return m;  // host API calls only
  m.start_ns = first;
  m.makespan_ns = std::max<Nanos>(0, minus(last, first));

  std::vector<const std::vector<StreamSpan>*> lists;
  bool ends_sorted = true;
  for (auto& [stream, list] : by_stream) {
    list.sort();
    m.stream_busy[stream] = fraction(list.union_length(), m.makespan_ns);
    ends_sorted = ends_sorted && list.ends_in_order();
    lists.push_back(&list.spans);
  }
  // One sweep in time order: the streams' spans merged by start (every engine's union grows at its end;
  // a device span's start is +1 to the concurrency) and the device spans' ends (-1), ends and starts at
  // one instant applying together. A stream's device spans run one after another, so its ends come
  // sorted too: a second merge, by end; else one sorted array of the ends. Neither the starts nor (most
  // often) the ends are copied into arrays of their own.
  std::array<std::vector<Interval>, 256> by_engine;  // unions
  const auto add_to_union = [&](const StreamSpan& x) {
    auto& u = by_engine[static_cast<std::size_t>(x.engine)];
    if (!u.empty() && x.start <= u.back().second)
      u.back().second = std::max(u.back().second, x.end);
    else
      u.emplace_back(x.start, x.end);
  };
  SortedListsMerge by_start(lists, [](const StreamSpan& x) { return x.start; },
                            [](const StreamSpan& x) { return x.end > x.start; });
  SortedListsMerge by_end(ends_sorted ? lists : std::vector<const std::vector<StreamSpan>*>{},
                          [](const StreamSpan& x) { return x.end; }, counts_as_device_work);
  std::vector<Nanos> ends;  // sorted, when the streams' ends are not
  if (!ends_sorted) {
    ends.reserve(device_spans);
    for (const auto* l : lists)
      for (const StreamSpan& x : *l)
        if (counts_as_device_work(x)) ends.push_back(x.end);
    intervals::sort_by_time(ends, [](Nanos at) { return at; });
  }
  std::size_t end_at = 0;
  const auto ends_done = [&] { return ends_sorted ? by_end.done() : end_at == ends.size(); };
  const auto next_end = [&] { return ends_sorted ? by_end.peek() : ends[end_at]; };
  const auto pop_end = [&] { ends_sorted ? by_end.pop() : static_cast<void>(++end_at); };
  // Spans on the host engine that are not API calls (host functions) join their engine's union only.
  const auto skip_host_starts = [&] {
    while (!by_start.done() && by_start.top().engine == Engine::host) {
      add_to_union(by_start.top());
      by_start.pop();
    }
  };

  // Each change point is handed on once the next one is known (the first, at `first`, may still change).
  // Kept: at most one per start and per end, and the first, sized once (growing a list of twenty million
  // points copied it again and again, into fresh memory each time).
  if (keep != nullptr) keep->reserve(2 * device_spans + 1);
  const bool keep_steps = keep != nullptr || static_cast<bool>(step);
  const auto emit = [&](const std::pair<Nanos, std::uint32_t>& point) {
    if (keep != nullptr)
      keep->push_back(point);
    else
      step(point.first, point.second);
  };
  std::pair<Nanos, std::uint32_t> pending{first, 0};
  std::int64_t running = 0;
  Nanos previous = first;
  double area = 0;  // integral of the count over time
  for (skip_host_starts(); !by_start.done() || !ends_done(); skip_host_starts()) {
    const Nanos time = (ends_done() || (!by_start.done() && by_start.peek() < next_end())) ? by_start.peek() : next_end();
    area += static_cast<double>(running) * (static_cast<double>(time) - static_cast<double>(previous));
    previous = time;
    for (; !by_start.done() && by_start.peek() == time; by_start.pop()) {
      add_to_union(by_start.top());
      if (by_start.top().engine != Engine::host) ++running;
    }
    for (; !ends_done() && next_end() == time; pop_end()) --running;
    const auto count = static_cast<std::uint32_t>(running);
    m.max_concurrency = std::max(m.max_concurrency, count);
    if (!keep_steps) continue;
    if (time == pending.first) {
      pending.second = count;
    } else if (count != pending.second) {
      emit(pending);
      pending = {time, count};
    }
  }
  if (keep_steps) emit(pending);

  std::vector<Interval> copies, kernels;
  for (std::size_t e = 0; e < by_engine.size(); ++e) {
    if (by_engine[e].empty()) continue;
    const auto engine = static_cast<Engine>(e);
    m.engine_busy[engine] = fraction(total(by_engine[e]), m.makespan_ns);
    if (is_copy_engine(engine)) copies.insert(copies.end(), by_engine[e].begin(), by_engine[e].end());
    if (engine == Engine::sm) kernels = std::move(by_engine[e]);
    std::vector<Interval>().swap(by_engine[e]);
  }
  for (std::size_t e = 0; e < engines.size(); ++e)  // an engine whose spans have no length: busy 0
    if (engines[e]) m.engine_busy.try_emplace(static_cast<Engine>(e), 0.0);
  copies = merge(std::move(copies));
  const Nanos copy_time = total(copies), kernel_time = total(kernels);
  if (copy_time > 0 && kernel_time > 0)
    m.copy_compute_overlap = fraction(intersection(copies, kernels), std::min(copy_time, kernel_time));
  m.mean_concurrency = m.makespan_ns > 0 ? area / static_cast<double>(m.makespan_ns) : 0.0;
  return m;
}

}  // namespace

TraceMetrics compute_metrics(const Trace& t, ConcurrencySteps steps) {
  if (steps == ConcurrencySteps::drop) return compute_metrics(t, ConcurrencyStep{});
  std::vector<std::pair<Nanos, std::uint32_t>> concurrency;
  TraceMetrics m = metrics_of(t, &concurrency, ConcurrencyStep{});
  m.concurrency = std::move(concurrency);
  return m;
}

TraceMetrics compute_metrics(const Trace& t, const ConcurrencyStep& step) { return metrics_of(t, nullptr, step); }

namespace {
// The positions `of` (ascending positions in `matched`) in the order of ops_order.
std::vector<std::uint32_t> ops_order_of(const Trace& a, const std::vector<SpanDelta>& matched,
                                        const std::vector<std::uint32_t>* of) {
  // Matched ops come in trace a's order: sorted by start, then op id and engine, then that order.
  const auto at = [&](std::uint32_t k) { return of == nullptr ? k : (*of)[k]; };
  std::vector<std::uint32_t> order = sorted_positions(
      of == nullptr ? matched.size() : of->size(), [&](std::uint32_t k) { return matched[at(k)].a_start; },
      [&](std::uint32_t x, std::uint32_t y) {
        const Span& sx = a.spans[matched[at(x)].a];
        const Span& sy = a.spans[matched[at(y)].a];
        return std::tie(sx.op_id, sx.engine) < std::tie(sy.op_id, sy.engine);
      });
  if (of != nullptr)
    for (std::uint32_t& k : order) k = (*of)[k];
  return order;
}
}  // namespace

std::vector<std::uint32_t> ops_order(const Trace& a, const std::vector<SpanDelta>& matched) {
  return ops_order_of(a, matched, nullptr);
}

std::vector<std::size_t> worst_positions(std::size_t n, const std::function<Nanos(std::size_t)>& error_at,
                                         std::size_t count) {
  std::vector<std::pair<Nanos, std::size_t>> taken;  // (error, position)
  std::priority_queue<Nanos, std::vector<Nanos>, std::greater<>> largest;  // the `count` largest so far
  for (std::size_t i = 0; i < n; ++i) {
    const Nanos e = error_at(i);
    if (largest.size() < count) {
      largest.push(e);
    } else if (!largest.empty() && e > largest.top()) {
      largest.pop();
      largest.push(e);
    } else {
      continue;
    }
    taken.emplace_back(e, i);
  }
  const std::size_t k = std::min(count, taken.size());
  std::partial_sort(taken.begin(), taken.begin() + static_cast<std::ptrdiff_t>(k), taken.end(),
                    [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<std::size_t> out;
  out.reserve(k);
  for (std::size_t j = 0; j < k; ++j) out.push_back(taken[j].second);
  return out;
}

std::vector<std::uint32_t> worst_matched(const Trace& a, const std::vector<SpanDelta>& matched, std::size_t count) {
  std::vector<std::uint32_t> out;
  if (count == 0 || matched.empty()) return out;
  using Ranked = std::pair<Nanos, std::uint32_t>;  // (error, position)
  const auto larger = [](const Ranked& x, const Ranked& y) { return x.first > y.first; };  // a heap: smallest on top
  // Buckets of ops by start, in the order of starts: a bucket of the start's offset from the smallest of a
  // sample (about 1024 ops a bucket where starts spread evenly), starts outside the sample's range in
  // the first or the last. Each bucket keeps its `kept` largest errors.
  const std::size_t n = matched.size();
  const std::size_t stride = std::max<std::size_t>(1, n / 1024);
  Nanos lo = matched.front().a_start, hi = lo;
  for (std::size_t k = 0; k < n; k += stride) {
    lo = std::min(lo, matched[k].a_start);
    hi = std::max(hi, matched[k].a_start);
  }
  const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  unsigned shift = 0;
  while (shift < 63 && (range >> shift) > n / 1024) ++shift;
  const std::size_t buckets = static_cast<std::size_t>(range >> shift) + 1;
  const auto bucket_of = [&](Nanos start) {
    if (start <= lo) return std::size_t{0};
    return std::min(buckets - 1,
                    static_cast<std::size_t>((static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(lo)) >> shift));
  };
  const std::size_t kept = 4 * count;
  std::vector<Ranked> largest(buckets * kept);  // bucket b's: a heap of its first held[b]
  std::vector<std::uint32_t> held(buckets, 0);
  // What an error must be above to be kept in bucket b (its smallest kept once it keeps `kept`): checked
  // in a small array before the bucket's heap is read.
  std::vector<Nanos> floor(buckets, std::numeric_limits<Nanos>::min());
  // The count + 1 largest errors of all: when they all differ, a visit in any order takes each of the
  // count largest into worst_positions' heap (count errors at least as large would have to come before
  // it), and sorts them the one way that distinct values allow.
  std::vector<Ranked> top;
  top.reserve(count + 1);
  for (std::size_t k = 0; k < n; ++k) {
    prefetch_ahead(matched, k);
    const Ranked r{max_abs_error(matched[k]), static_cast<std::uint32_t>(k)};
    if (top.size() <= count) {
      top.push_back(r);
      std::push_heap(top.begin(), top.end(), larger);
    } else if (r.first > top.front().first) {  // an equal one leaves the values kept the same
      std::pop_heap(top.begin(), top.end(), larger);
      top.back() = r;
      std::push_heap(top.begin(), top.end(), larger);
    }
    const std::size_t b = bucket_of(matched[k].a_start);
    if (r.first <= floor[b]) continue;
    Ranked* const h = largest.data() + b * kept;
    if (held[b] < kept) {
      h[held[b]++] = r;
      std::push_heap(h, h + held[b], larger);
    } else {
      std::pop_heap(h, h + kept, larger);
      h[kept - 1] = r;
      std::push_heap(h, h + kept, larger);
    }
    if (held[b] == kept) floor[b] = h[0].first;
  }
  std::sort(top.begin(), top.end(), larger);
  if (std::adjacent_find(top.begin(), top.end(), [](const Ranked& x, const Ranked& y) { return x.first == y.first; }) ==
      top.end()) {
    for (std::size_t j = 0; j < std::min(count, top.size()); ++j) out.push_back(top[j].second);
    return out;
  }
  // Equal errors among them: worst_positions must visit the ops in ops_order, but only those its heap may
  // take in. An op is left out when its error is not above the count-th largest error of the buckets
  // before its own (the heap's smallest when it reaches the bucket is at least that, and only grows); the
  // buckets' kept errors give that cut exactly. The ops above their bucket's cut are among the bucket's
  // kept ones, unless the bucket kept only errors above the cut: then one more pass finds its others.
  std::vector<std::uint32_t> visited;
  std::vector<bool> overflowing(buckets, false);
  bool any_overflowing = false;
  std::priority_queue<Nanos, std::vector<Nanos>, std::greater<>> before;  // the count largest so far
  std::vector<Nanos> cut(buckets, std::numeric_limits<Nanos>::min());      // min: no cut (fewer before)
  for (std::size_t b = 0; b < buckets; ++b) {
    const bool has_cut = before.size() == count;
    if (has_cut) cut[b] = before.top();
    const Ranked* const h = largest.data() + b * kept;
    if (held[b] == kept && (!has_cut || h[0].first > cut[b])) {
      overflowing[b] = any_overflowing = true;
    } else {
      for (std::uint32_t j = 0; j < held[b]; ++j)
        if (!has_cut || h[j].first > cut[b]) visited.push_back(h[j].second);
    }
    for (std::uint32_t j = 0; j < held[b]; ++j) {
      before.push(h[j].first);
      if (before.size() > count) before.pop();
    }
  }
  if (any_overflowing)
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t b = bucket_of(matched[k].a_start);
      if (overflowing[b] && (cut[b] == std::numeric_limits<Nanos>::min() || max_abs_error(matched[k]) > cut[b]))
        visited.push_back(static_cast<std::uint32_t>(k));
    }
  std::sort(visited.begin(), visited.end());
  const std::vector<std::uint32_t> order = ops_order_of(a, matched, &visited);
  for (const std::size_t i :
       worst_positions(order.size(), [&](std::size_t i) { return max_abs_error(matched[order[i]]); }, count))
    out.push_back(order[i]);
  return out;
}

TraceComparison compare_traces(const Trace& a, const Trace& b) {
  std::vector<SpanDelta> matched;
  TraceComparison c = compare_traces(a, b, matched);
  c.ops.reserve(matched.size());
  for (const SpanDelta& d : matched) c.ops.push_back(op_delta(a, d));
  return c;
}

OpDelta op_delta(const Trace& a, const SpanDelta& d) {
  const Span& x = a.spans[d.a];
  return OpDelta{x.op_id, x.name, x.engine, d.a_start, d.a_end, d.b_start, d.b_end};
}

TraceComparison compare_traces(const Trace& a, const Trace& b, std::vector<SpanDelta>& matched,
                               const CompareOptions& options) {
  const OpIdHash hash = options.op_id_hash != nullptr ? options.op_id_hash : std_hash;
  TraceComparison c;
  // No report of a comparison shows the step functions: at ten million spans each is hundreds of MB.
  c.a = compute_metrics(a, ConcurrencySteps::drop);
  c.b = compute_metrics(b, ConcurrencySteps::drop);
  if (c.b.makespan_ns > 0)
    c.makespan_rel_error = static_cast<double>(c.a.makespan_ns - c.b.makespan_ns) / static_cast<double>(c.b.makespan_ns);
  else
    c.makespan_rel_error = c.a.makespan_ns == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  c.overlap_error = c.a.copy_compute_overlap - c.b.copy_compute_overlap;
  c.workload_hash_mismatch =
      !a.meta.workload_hash.empty() && !b.meta.workload_hash.empty() && a.meta.workload_hash != b.meta.workload_hash;

  // Spans keyed by (op id, engine); repeated keys pair up in start order (k-th with k-th). Matched by
  // hashes, checked, and matched by ids only where two ids share a hash (see keyed_spans).
  ErrorSums sums;
  if (!pair_in_order(a, b, hash, c.a.start_ns, c.b.start_ns, matched, sums)) {
    std::vector<Keyed> in_a, in_b;
    KeyOrder order = KeyOrder::hashes;
    if (!keyed_spans(a, order, hash, in_a) || !keyed_spans(b, order, hash, in_b)) order = KeyOrder::ids;
    for (;;) {
      if (order == KeyOrder::ids) {
        (void)keyed_spans(a, order, hash, in_a);
        (void)keyed_spans(b, order, hash, in_b);
      }
      std::vector<std::uint64_t> pairs = walk_keys(a, b, in_a, in_b, order, c);
      sums = ErrorSums{};
      if (pair_times(a, b, pairs, order, c.a.start_ns, c.b.start_ns, matched, sums)) break;
      order = KeyOrder::ids;
    }
  }
  if (options.sort_matched) {
    const std::vector<std::uint32_t> order = ops_order(a, matched);
    std::vector<SpanDelta> sorted;
    sorted.reserve(matched.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (k + 16 < order.size()) __builtin_prefetch(&matched[order[k + 16]]);
      sorted.push_back(matched[order[k]]);
    }
    matched.swap(sorted);
  }
  for (auto* ids : {&c.only_in_a, &c.only_in_b}) {
    std::sort(ids->begin(), ids->end());
    ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  }
  if (!matched.empty()) {
    c.mean_abs_start_error_ns = static_cast<double>(sums.start) / static_cast<double>(matched.size());
    c.mean_abs_duration_error_ns = static_cast<double>(sums.duration) / static_cast<double>(matched.size());
  }
  return c;
}

}  // namespace streamlab::model
