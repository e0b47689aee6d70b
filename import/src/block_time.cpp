#include "streamlab/import/block_time.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "streamlab/import/program_builder.hpp"
#include "streamlab/model/occupancy.hpp"

namespace streamlab::import {
namespace {

using model::Nanos;
using model::SmResources;

constexpr Nanos kNever = std::numeric_limits<Nanos>::max();

/// Grids of up to this many waves that meet earlier kernels' blocks are replayed; longer ones keep span /
/// waves (a kernel that long is rarely the one held up, and each probe of the search replays every wave).
constexpr std::int64_t kMaxReplayedWaves = 64;

/// `count` blocks of one kernel on each SM of [begin, end).
struct Share {
  std::uint32_t begin = 0, end = 0;
  std::int32_t count = 0;
};

/// A kernel's blocks placed at one instant, all ending together.
struct Grant {
  Nanos from = 0, to = 0;
  SmResources need;  ///< per block
  std::vector<Share> shares;
};

/// One SM's free room per resource. 32-bit, every value clamped to +-2^30: a real SM's room is far below,
/// and an overdrawn room only has to stay negative.
struct SmRoom {
  std::int32_t threads = 0, blocks = 0, registers = 0, shared_mem = 0;
  friend bool operator==(const SmRoom&, const SmRoom&) = default;
};

std::int32_t clamp_room(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, -(std::int64_t{1} << 30), std::int64_t{1} << 30));
}

/// The SMs' free room as runs of consecutive SMs with equal room. The scheduler spreads a grid evenly (a
/// common level per SM, one more on the first ones), so SMs stay in few runs: about 10 for 132 SMs on
/// bench_import's trace, where every kernel meets three or four others. Every step of a replay then costs
/// the runs it touches, not a pass over every SM, and SM order (which the spreading depends on) is kept.
/// A run also remembers how many blocks of the replayed grid fit its room, until the room changes.
class Room {
 public:
  struct Run {
    std::uint32_t end = 0;  ///< one past the run's last SM; a run begins where the previous one ends
    SmRoom room;
    std::int32_t fit = 0;    ///< blocks of the grid in hand that fit one SM of the run, if fit_known
    bool fit_known = false;
  };

  Room() = default;
  Room(std::uint32_t sms, const SmResources& capacity) {
    const Run all{sms, SmRoom{clamp_room(capacity.threads), clamp_room(capacity.blocks),
                              clamp_room(capacity.registers), clamp_room(capacity.shared_mem)}};
    assign({&all, 1});
  }

  [[nodiscard]] std::span<const Run> runs() const { return {buf_[cur_].data(), size_}; }
  [[nodiscard]] std::span<Run> runs() { return {buf_[cur_].data(), size_}; }
  /// Takes `runs` as the room (keeps this object's storage).
  void assign(std::span<const Run> runs) {
    std::vector<Run>& b = buf_[cur_];
    if (b.size() < runs.size()) b.resize(runs.size());
    std::copy(runs.begin(), runs.end(), b.begin());
    size_ = runs.size();
  }
  /// The grid in hand changed: no run's fit is known.
  void forget_fits() {
    for (Run& r : runs()) r.fit_known = false;
  }

  /// Adds `sign` x `need` for each block of `shares` (sorted by SM, disjoint). Runs the shares leave alone
  /// are copied as they are: only a piece next to a changed one can merge with it.
  void add(const SmResources& need, std::span<const Share> shares, std::int64_t sign) {
    if (shares.empty()) return;
    // The two buffers only grow (to the most pieces the shares can cut the runs into), so a replay step
    // allocates nothing.
    std::vector<Run>& next = buf_[cur_ ^ 1];
    if (next.size() < size_ + 2 * shares.size() + 1) next.resize(size_ + 2 * shares.size() + 1);
    Run* const out = next.data();
    std::size_t w = 0;
    auto emit = [&](std::uint32_t end, const SmRoom& room, std::int32_t fit, bool fit_known) {
      if (w > 0 && out[w - 1].room == room) {
        Run& b = out[w - 1];
        b.end = end;
        if (!b.fit_known && fit_known) b.fit = fit, b.fit_known = true;  // equal room: equal fit
      } else {
        out[w++] = Run{end, room, fit, fit_known};
      }
    };
    const Run* r = buf_[cur_].data();
    const Run* const last = r + size_;
    std::uint32_t at = 0;  // out covers [0, at)
    auto copy_until = [&](std::uint32_t to) {
      if (at >= to) return;
      at = std::min(r->end, to);  // the first piece may merge with a changed one before it
      emit(at, r->room, r->fit, r->fit_known);
      if (at == r->end) ++r;
      const Run* q = r;
      while (q < last && q->end <= to) ++q;
      if (q > r) {  // whole runs: they differ from their neighbours already
        std::memcpy(out + w, r, static_cast<std::size_t>(q - r) * sizeof(Run));
        w += static_cast<std::size_t>(q - r);
        at = (q - 1)->end;
        r = q;
      }
      if (at < to) {  // the start of a run the next share cuts
        out[w] = *r;
        out[w++].end = to;
        at = to;
      }
    };
    for (const Share& s : shares) {
      copy_until(s.begin);
      const std::int64_t k = sign * s.count;
      for (; at < s.end; r += at == r->end ? 1 : 0) {
        at = std::min(r->end, s.end);
        const SmRoom& a = r->room;
        emit(at,
             SmRoom{clamp_room(a.threads + k * need.threads), clamp_room(a.blocks + k * need.blocks),
                    clamp_room(a.registers + k * need.registers), clamp_room(a.shared_mem + k * need.shared_mem)},
             0, false);
      }
    }
    copy_until((last - 1)->end);
    cur_ ^= 1;
    size_ = w;
  }
  void add(const Grant& g, std::int64_t sign) { add(g.need, g.shares, sign); }

 private:
  std::vector<Run> buf_[2];  ///< the runs are buf_[cur_][0, size_); the other buffer is scratch
  std::size_t cur_ = 0, size_ = 0;
};

/// How many blocks of one footprint fit into an SM's room: the least over resources of room / need,
/// computed as room x (1 / need) in double with a small bias so exact multiples do not round down (room and
/// need are far below 2^31: the result is exact). A resource the block does not use is not a limit: the
/// block count stands in for it.
class FitCounter {
 public:
  FitCounter() = default;
  explicit FitCounter(const SmResources& need) {
    auto pick = [&](std::int64_t n, std::int32_t SmRoom::*field, int k) {
      const bool used = n > 0;
      inv_[k] = 1.0 / static_cast<double>(used ? n : std::max<std::int64_t>(1, need.blocks));
      field_[k] = used ? field : &SmRoom::blocks;
    };
    pick(need.threads, &SmRoom::threads, 0);
    pick(need.blocks, &SmRoom::blocks, 1);
    pick(need.registers, &SmRoom::registers, 2);
    pick(need.shared_mem, &SmRoom::shared_mem, 3);
  }
  [[nodiscard]] std::int32_t operator()(const SmRoom& r) const {
    auto q = [&](int k) { return static_cast<double>(r.*field_[k]) * inv_[k]; };
    const double f = std::min(std::min(q(0), q(1)), std::min(q(2), q(3)));
    return static_cast<std::int32_t>(std::min(std::max(0.0, f + 1e-7), 1073741824.0));
  }

 private:
  double inv_[4] = {};
  std::int32_t SmRoom::*field_[4] = {};
};

/// SMs [begin, end) that each take `fit` more blocks.
struct FitRun {
  std::uint32_t begin = 0, end = 0;
  std::int32_t fit = 0;
  [[nodiscard]] std::int64_t sms() const { return end - begin; }
};

/// Places up to `pending` blocks as the hardware spreads them: each SM up to a common level L, the first
/// SMs (by index) with room for L one more. Appends the blocks each SM gets to `out` and takes them from
/// `pending`.
void place(std::int64_t& pending, std::span<const FitRun> fits, std::vector<Share>& out) {
  const std::size_t first = out.size();  // `out` may hold earlier grants' shares: never extend those
  auto emit = [&](std::uint32_t begin, std::uint32_t end, std::int64_t count) {
    if (count <= 0 || begin == end) return;
    if (out.size() > first && out.back().end == begin && out.back().count == count) out.back().end = end;
    else out.push_back(Share{begin, end, static_cast<std::int32_t>(count)});
  };
  std::int64_t total = 0, most = 0;
  for (const FitRun& f : fits) total += f.sms() * f.fit, most = std::max<std::int64_t>(most, f.fit);
  if (total <= pending) {
    pending -= total;
    for (const FitRun& f : fits) emit(f.begin, f.end, f.fit);
    return;
  }
  std::int64_t lo = 1, hi = most;  // the least L with sum(min(fit, L)) >= pending
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    std::int64_t s = 0;
    for (const FitRun& f : fits) s += f.sms() * std::min<std::int64_t>(f.fit, mid);
    if (s >= pending) hi = mid; else lo = mid + 1;
  }
  std::int64_t extra = pending;  // blocks left for one more on SMs that take L
  for (const FitRun& f : fits) extra -= f.sms() * std::min<std::int64_t>(f.fit, lo - 1);
  for (const FitRun& f : fits) {
    const std::int64_t below = std::min<std::int64_t>(f.fit, lo - 1);
    const std::int64_t more = f.fit >= lo ? std::min(extra, f.sms()) : 0;
    emit(f.begin, f.begin + static_cast<std::uint32_t>(more), below + 1);
    emit(f.begin + static_cast<std::uint32_t>(more), f.end, below);
    extra -= more;
  }
  pending = 0;
}

/// The block scheduler replayed over measured kernel starts: the SMs' room now, the grants of earlier
/// kernels still to start or end, and the replay of the kernel in hand.
///
/// A kernel's block time is found by bisection, each probe a replay of its grid with another block time.
/// Until the grid's first block ends, every probe follows the same steps as a replay in which no block
/// ends at all; that open replay is recorded step by step, and a probe resumes from its last step before
/// its own first block ends (about half of all replay steps on bench_import's trace). A probe that only
/// has to tell whether the grid starts by a deadline stops once it is past it, and a probe repeated with
/// the same block time is answered from memory.
class BlockScheduler {
 public:
  /// A block time no replay reaches: blocks placed with it never end while their grid is placed.
  static constexpr Nanos kOpen = Nanos{1} << 60;

  BlockScheduler(std::uint32_t sms, const SmResources& capacity) : room_(sms, capacity) {}

  /// Applies every grant start and end up to `t`.
  void advance(Nanos t) {
    now_ = t;
    std::size_t k = 0;
    for (; k < events_.size() && events_[k].at <= t; ++k) {
      Grant& g = grants_[events_[k].grant];
      room_.add(g, events_[k].release ? +1 : -1);
      if (events_[k].release) release_grant(events_[k].grant);
    }
    events_.erase(events_.begin(), events_.begin() + static_cast<std::ptrdiff_t>(k));
    forget_grid();
  }

  /// Places `blocks` blocks of footprint `need` from now on as room comes, none ending while the grid
  /// still waits; returns when the last one starts (kNever when room never comes for all of them).
  /// last_start() then replays the same grid with blocks of a given time.
  Nanos open_grid(std::int64_t blocks, const SmResources& need) {
    need_ = need;
    blocks_ = blocks;
    fit_ = FitCounter(need);
    forget_grid();
    // A replay is recorded for resuming where every time is >= 0, so that an open block's end (its start +
    // kOpen) is never reached.
    open_last_ = replay_from_now(kOpen, now_ >= 0);
    open_own_ = own_;
    open_shares_ = own_shares_;
    own_for_ = kOpen;
    return open_last_;
  }

  /// When the last block of the grid of the last open_grid() (with no advance() or keep() since) starts
  /// if each block runs `block_ns` (kOpen: none ends while the grid waits). A replay that gets past
  /// `give_up_after` stops there and returns kNever: the last block would start later still.
  Nanos last_start(Nanos block_ns, Nanos give_up_after = kNever) {
    if (block_ns >= kOpen) return open_last_;
    for (const auto& [ns, last] : probes_)
      if (ns == block_ns) return last;
    const Nanos last = replay(block_ns, give_up_after);
    if (own_for_ == block_ns) probes_.emplace_back(block_ns, last);
    return last;
  }

  /// Makes the grid's blocks those of its replay with blocks of `block_ns`, for keep().
  void settle(Nanos block_ns) {
    if (block_ns >= kOpen) block_ns = kOpen;
    if (own_for_ == block_ns) return;
    if (block_ns == kOpen) {
      own_ = open_own_;
      own_shares_ = open_shares_;
      own_for_ = kOpen;
      return;
    }
    (void)replay(block_ns, kNever);
  }

  /// Keeps the blocks of the last settle() (or open_grid()) on their SMs for later kernels, each running
  /// `block_ns`, none past `limit`, the kernel's measured end: where the trace and the occupancy rules
  /// disagree, the replay must not carry a backlog the device never had into later kernels.
  void keep(Nanos block_ns, Nanos limit) {
    for (const OwnGrant& o : own_) {
      if (o.from >= limit) break;
      const std::span<const Share> sh = shares(o);
      const Nanos to = std::min(o.from + block_ns, limit);
      if (o.from == now_) room_.add(need_, sh, -1);
      const std::uint32_t id = store(o.from, to, sh);
      if (o.from != now_) insert(Event{o.from, id, false});
      insert(Event{to, id, true});
    }
    forget_grid();
  }

  /// When the first block of the open replay started.
  [[nodiscard]] Nanos first_start() const { return open_own_.empty() ? now_ : open_own_.front().from; }

  /// No block of an earlier kernel holds an SM now or will take one later.
  [[nodiscard]] bool idle() const { return events_.empty(); }

 private:
  /// One of the replayed kernel's grants; its shares are own_shares_[begin, end).
  struct OwnGrant {
    Nanos from = 0;
    std::size_t begin = 0, end = 0;
  };
  [[nodiscard]] std::span<const Share> shares(const OwnGrant& g) const {
    return {own_shares_.data() + g.begin, g.end - g.begin};
  }
  struct Event {
    Nanos at = 0;
    std::uint32_t grant = 0;
    bool release = false;
  };
  /// The open replay after placing at `t`: its grants so far, blocks still to place, the next event of
  /// earlier kernels, and the free room (saved_room_[room_begin, room_end)).
  struct Step {
    Nanos t = 0;
    std::size_t own = 0, shares = 0;
    std::int64_t pending = 0;
    std::size_t next_event = 0;
    std::size_t room_begin = 0, room_end = 0;
  };

  void forget_grid() {
    steps_.clear();
    saved_room_.clear();
    probes_.clear();
    own_for_ = -1;
  }

  /// The grid with blocks of `block_ns` (< kOpen), from the open replay's last step before its first block
  /// ends. own_ holds its grants unless it gave up.
  Nanos replay(Nanos block_ns, Nanos give_up_after) {
    own_for_ = -1;
    const Nanos first_end = open_own_.empty() ? kNever : open_own_.front().from + block_ns;
    const auto after = std::partition_point(steps_.begin(), steps_.end(),
                                            [&](const Step& s) { return s.t < first_end; });
    Nanos last;
    if (after == steps_.begin()) {
      last = replay_from_now(block_ns, false, give_up_after);
    } else {
      const Step& s = *(after - 1);
      own_.assign(open_own_.begin(), open_own_.begin() + static_cast<std::ptrdiff_t>(s.own));
      own_shares_.assign(open_shares_.begin(), open_shares_.begin() + static_cast<std::ptrdiff_t>(s.shares));
      free_.assign(std::span<const Room::Run>(saved_room_).subspan(s.room_begin, s.room_end - s.room_begin));
      last = follow(s.t, s.pending, s.next_event, block_ns, false, give_up_after);
    }
    if (last != kNever || !gave_up_) own_for_ = block_ns;
    return last;
  }

  Nanos replay_from_now(Nanos block_ns, bool record, Nanos give_up_after = kNever) {
    own_.clear();
    own_shares_.clear();
    free_.assign(room_.runs());
    free_.forget_fits();
    std::int64_t pending = blocks_;
    place_at(now_, pending);
    if (record) save(now_, pending, 0);
    return follow(now_, pending, 0, block_ns, record, give_up_after);
  }

  /// From a placement at `t` on: room comes as the grid's own blocks end (each `block_ns` after it
  /// started) and earlier kernels' grants start and end; places as it comes until no block is pending.
  Nanos follow(Nanos t, std::int64_t pending, std::size_t next_event, Nanos block_ns, bool record,
               Nanos give_up_after) {
    gave_up_ = false;
    std::size_t own_next = 0;  // no own block ended before `t`
    while (pending > 0) {
      const Nanos own_end = own_next < own_.size() ? own_[own_next].from + block_ns : kNever;
      const Nanos other = next_event < events_.size() ? events_[next_event].at : kNever;
      t = std::min(own_end, other);
      if (t >= kOpen) return kNever;
      if (t > give_up_after) {  // the last block starts at t or later
        gave_up_ = true;
        return kNever;
      }
      for (; own_next < own_.size() && own_[own_next].from + block_ns == t; ++own_next)
        free_.add(need_, shares(own_[own_next]), +1);
      for (; next_event < events_.size() && events_[next_event].at == t; ++next_event)
        free_.add(grants_[events_[next_event].grant], events_[next_event].release ? +1 : -1);
      place_at(t, pending);
      if (record) save(t, pending, next_event);
    }
    return t;
  }

  /// Places what fits of the `pending` blocks into the free room at `t`.
  void place_at(Nanos t, std::int64_t& pending) {
    fits_.clear();
    std::uint32_t begin = 0;
    for (Room::Run& r : free_.runs()) {
      if (!r.fit_known) r.fit = fit_(r.room), r.fit_known = true;
      const std::int32_t f = r.fit;
      if (f > 0) {
        if (!fits_.empty() && fits_.back().end == begin && fits_.back().fit == f) fits_.back().end = r.end;
        else fits_.push_back(FitRun{begin, r.end, f});
      }
      begin = r.end;
    }
    const std::size_t first = own_shares_.size();
    place(pending, fits_, own_shares_);
    if (own_shares_.size() == first) return;
    own_.push_back(OwnGrant{t, first, own_shares_.size()});
    if (pending > 0) free_.add(need_, shares(own_.back()), -1);  // the grid's last placement needs no room after it
  }

  void save(Nanos t, std::int64_t pending, std::size_t next_event) {
    const std::span<const Room::Run> r = free_.runs();
    steps_.push_back(Step{t, own_.size(), own_shares_.size(), pending, next_event, saved_room_.size(),
                          saved_room_.size() + r.size()});
    saved_room_.insert(saved_room_.end(), r.begin(), r.end());
  }

  std::uint32_t store(Nanos from, Nanos to, std::span<const Share> shares) {
    std::uint32_t id;
    if (!free_grants_.empty()) {
      id = free_grants_.back();
      free_grants_.pop_back();
    } else {
      id = static_cast<std::uint32_t>(grants_.size());
      grants_.emplace_back();
    }
    Grant& g = grants_[id];
    g.from = from;
    g.to = to;
    g.need = need_;
    g.shares.assign(shares.begin(), shares.end());  // reuses the storage of a released grant
    return id;
  }
  void release_grant(std::uint32_t id) {
    grants_[id].shares.clear();
    free_grants_.push_back(id);
  }
  /// Events stay sorted by time; at one instant ends come before starts, so a block that ends makes room
  /// for one that starts.
  void insert(const Event& e) {
    const auto at = std::upper_bound(events_.begin(), events_.end(), e, [](const Event& a, const Event& b) {
      return a.at != b.at ? a.at < b.at : a.release > b.release;
    });
    events_.insert(at, e);
  }

  Room room_;              ///< now, earlier kernels' blocks only
  std::vector<Grant> grants_;
  std::vector<std::uint32_t> free_grants_;
  std::vector<Event> events_;
  Nanos now_ = 0;

  // The kernel in hand.
  SmResources need_;
  std::int64_t blocks_ = 0;
  FitCounter fit_;
  Room free_;              ///< during a replay
  std::vector<FitRun> fits_;
  std::vector<OwnGrant> own_, open_own_;
  std::vector<Share> own_shares_, open_shares_;
  Nanos open_last_ = kNever;
  Nanos own_for_ = -1;     ///< the block time of the replay own_ holds (kOpen: the open one; -1: none)
  bool gave_up_ = false;   ///< the last follow() stopped at its deadline
  std::vector<std::pair<Nanos, Nanos>> probes_;  ///< block time -> last start, this grid's finished probes
  std::vector<Step> steps_;
  std::vector<Room::Run> saved_room_;
};

}  // namespace

BlockTimes kernel_block_times(std::span<const MeasuredKernel> kernels, const model::DeviceProfile& profile) {
  BlockTimes out;
  out.ns.assign(kernels.size(), 1);
  const auto sms = static_cast<std::uint32_t>(std::clamp(profile.sm_count.value, 1.0, 1e6));
  const SmResources capacity = model::sm_capacity(profile);
  const auto pad = static_cast<Nanos>(std::llround(std::max(0.0, model::cupti_kernel_pad_ns(profile))));

  std::vector<std::size_t> order(kernels.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return kernels[a].start < kernels[b].start; });

  BlockScheduler scheduler(sms, capacity);
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const MeasuredKernel& k = kernels[order[pos]];
    const SmResources need = model::block_footprint(k.shape, profile);
    const std::int64_t per_sm = std::max<std::int64_t>(1, model::blocks_that_fit(need, capacity));
    const auto blocks = static_cast<std::int64_t>(std::min<std::uint64_t>(k.shape.blocks(), std::uint64_t{1} << 40));
    const std::int64_t slots = per_sm * static_cast<std::int64_t>(sms);
    const std::int64_t waves = std::max<std::int64_t>(1, (blocks + slots - 1) / slots);
    const Nanos end = std::max(k.start + 1, k.end - pad);
    const Nanos alone = per_block_ns_for_span(k.shape, k.end - k.start, profile);
    Nanos& result = out.ns[order[pos]];
    result = alone;

    scheduler.advance(k.start);
    const bool met_later = pos + 1 < order.size() && kernels[order[pos + 1]].start < k.end;
    // Grids of more than kMaxReplayedWaves waves are not replayed (a replay step per wave, for each probe
    // of the search): they keep (span - pad) / waves and hold no SMs for later kernels.
    if (waves > kMaxReplayedWaves) {
      if (!scheduler.idle()) ++out.uncorrected;
      continue;
    }
    if (scheduler.idle()) {
      if (met_later) {  // on idle SMs its blocks cycle through their own slots: span / waves each
        (void)scheduler.open_grid(blocks, need);
        if (waves > 1) scheduler.settle(alone);
        scheduler.keep(alone, k.end);
      }
      continue;
    }
    // Its blocks started as room came (from earlier kernels' blocks and its own earlier waves). Where no
    // block ended before the last one started, the block time is the end minus that last start. Where some did (blocks shorter than the wait), the
    // room they gave back may have let the last start earlier: the block time T is then the largest with
    // end - last_start(T) >= T, found by bisection. The placement kept for later kernels is that of the
    // last replay the search needed.
    Nanos last = scheduler.open_grid(blocks, need);
    Nanos placed = BlockScheduler::kOpen;
    bool exact = last != kNever && end - last >= 1 && end - last >= last - scheduler.first_start();
    if (!exact && last != kNever && end - last >= 1) {
      placed = end - last;
      exact = scheduler.last_start(placed, last) == last;
    }
    if (!exact) {
      auto fits = [&](Nanos t) {  // blocks of t ns end the grid by its measured end
        const Nanos l = scheduler.last_start(t, end - t);
        return l != kNever && end - l >= t;
      };
      // Room only grows when blocks end sooner, so T0 = end - last (no block ending early) fits, and
      // end - last_start(T0) is at least the answer: search between the two, to a thousandth of the block
      // time (finer than any trace's jitter). With no room at all for T0, search from 1 ns.
      const Nanos open_last = last;
      last = kNever;
      Nanos lo = open_last != kNever && end - open_last >= 1 ? end - open_last : 1;
      if (lo > 1 || fits(1)) {
        const Nanos l = scheduler.last_start(lo);
        Nanos hi = std::clamp(end - l, lo, alone);
        if (fits(hi)) lo = hi;
        while (hi - lo > std::max<Nanos>(1, lo / 1000)) {
          const Nanos mid = lo + (hi - lo) / 2;
          if (fits(mid)) lo = mid; else hi = mid;
        }
        placed = lo;
        last = end - lo;
      }
    }
    if (last == kNever || end - last < 1) {
      ++out.inconsistent;
      if (met_later) {
        scheduler.settle(BlockScheduler::kOpen);
        scheduler.keep(alone, k.end);
      }
      continue;
    }
    result = std::min(alone, end - last);
    if (result < alone) ++out.contended;
    if (met_later) {
      scheduler.settle(placed);
      scheduler.keep(result, k.end);
    }
  }
  return out;
}

}  // namespace streamlab::import
