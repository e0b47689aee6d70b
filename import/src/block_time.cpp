#include "streamlab/import/block_time.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

/// Blocks of one kernel given to SMs at one instant: `count` blocks on SM `sm`, each entry.
struct Share {
  std::uint32_t sm = 0;
  std::int32_t count = 0;
};

/// A kernel's blocks placed at one instant, all ending together.
struct Grant {
  Nanos from = 0, to = 0;
  SmResources need;  ///< per block
  std::vector<Share> shares;
};

/// The SMs' free room, per resource, one array each (the placement loop runs over all SMs). 32-bit, so the
/// fit loop converts and vectorizes without AVX-512; every value is clamped to +-2^30 (a real SM's room is
/// far below, and an overdrawn room only has to stay negative).
struct Room {
  std::vector<std::int32_t> threads, blocks, registers, shared_mem;
  explicit Room(std::size_t sms = 0) : threads(sms), blocks(sms), registers(sms), shared_mem(sms) {}
  static std::int32_t clamp(std::int64_t v) {
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, -(std::int64_t{1} << 30), std::int64_t{1} << 30));
  }
  void fill(const SmResources& r) {
    std::fill(threads.begin(), threads.end(), clamp(r.threads));
    std::fill(blocks.begin(), blocks.end(), clamp(r.blocks));
    std::fill(registers.begin(), registers.end(), clamp(r.registers));
    std::fill(shared_mem.begin(), shared_mem.end(), clamp(r.shared_mem));
  }
  void add(const SmResources& need, std::span<const Share> shares, std::int64_t sign) {
    for (const Share& s : shares) {
      const std::int64_t k = sign * s.count;
      threads[s.sm] = clamp(threads[s.sm] + k * need.threads);
      blocks[s.sm] = clamp(blocks[s.sm] + k * need.blocks);
      registers[s.sm] = clamp(registers[s.sm] + k * need.registers);
      shared_mem[s.sm] = clamp(shared_mem[s.sm] + k * need.shared_mem);
    }
  }
  void add(const Grant& g, std::int64_t sign) { add(g.need, g.shares, sign); }
};

/// How many blocks of one footprint fit into each SM's room: reciprocals instead of four divisions per
/// SM and no branches, so the loop vectorizes (room and need are far below 2^31: the result is exact; a
/// small bias keeps exact multiples from rounding down). A resource the block does not use is not a limit:
/// the block count stands in for it.
class FitCounter {
 public:
  FitCounter(const SmResources& need, const Room& r) {
    auto pick = [&](std::int64_t n, const std::vector<std::int32_t>& room, int k) {
      if (n > 0) {
        inv_[k] = 1.0 / static_cast<double>(n);
        room_[k] = room.data();
      } else {
        inv_[k] = 1.0 / static_cast<double>(std::max<std::int64_t>(1, need.blocks));
        room_[k] = r.blocks.data();
      }
    };
    pick(need.threads, r.threads, 0);
    pick(need.blocks, r.blocks, 1);
    pick(need.registers, r.registers, 2);
    pick(need.shared_mem, r.shared_mem, 3);
  }
  void count(std::size_t n, std::vector<std::int32_t>& fit) const {
    const std::int32_t *a = room_[0], *b = room_[1], *c = room_[2], *d = room_[3];
    for (std::size_t i = 0; i < n; ++i) {
      const double f = std::min(std::min(static_cast<double>(a[i]) * inv_[0], static_cast<double>(b[i]) * inv_[1]),
                                std::min(static_cast<double>(c[i]) * inv_[2], static_cast<double>(d[i]) * inv_[3]));
      fit[i] = static_cast<std::int32_t>(std::min(std::max(0.0, f + 1e-7), 1073741824.0));
    }
  }

 private:
  double inv_[4];
  const std::int32_t* room_[4];
};

/// The block scheduler replayed over measured kernel starts: the SMs' room now, and the grants of earlier
/// kernels still to start or end.
class BlockScheduler {
 public:
  BlockScheduler(std::size_t sms, const SmResources& capacity)
      : room_(sms), scratch_(sms), fit_(sms) {
    room_.fill(capacity);
  }

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
  }

  /// Places `blocks` blocks of footprint `need` from now on as room comes, each running `block_ns` (by
  /// default none ends while the grid still waits); returns when the last one starts (kNever when room
  /// never comes for all of them).
  Nanos last_start(std::int64_t blocks, const SmResources& need, Nanos block_ns = kOpen) {
    need_ = need;
    own_.clear();
    own_shares_.clear();
    std::int64_t pending = blocks;
    // Most grids find their room at once: count on the room itself before copying it.
    FitCounter(need, room_).count(fit_.size(), fit_);
    place(pending, fit_);
    if (pending == 0) {
      own_.push_back(OwnGrant{now_, 0, 0});
      for (std::size_t i = 0; i < fit_.size(); ++i)
        if (fit_[i] > 0) own_shares_.push_back(Share{static_cast<std::uint32_t>(i), static_cast<std::int32_t>(fit_[i])});
      own_.back().end = own_shares_.size();
      return now_;
    }
    pending = blocks;
    Room& free = scratch_;
    free = room_;
    const FitCounter counter(need, free);
    std::size_t next_event = 0, own_next = 0;
    Nanos t = now_;
    while (true) {
      counter.count(fit_.size(), fit_);
      place(pending, fit_);
      OwnGrant g{t, own_shares_.size(), own_shares_.size()};
      for (std::size_t i = 0; i < fit_.size(); ++i)
        if (fit_[i] > 0) own_shares_.push_back(Share{static_cast<std::uint32_t>(i), static_cast<std::int32_t>(fit_[i])});
      g.end = own_shares_.size();
      if (g.end > g.begin) {
        free.add(need, shares(g), -1);
        own_.push_back(g);
      }
      if (pending == 0) return t;
      const Nanos own_end = own_next < own_.size() ? own_[own_next].from + block_ns : kNever;
      const Nanos other = next_event < events_.size() ? events_[next_event].at : kNever;
      t = std::min(own_end, other);
      if (t >= kOpen) return kNever;
      for (; own_next < own_.size() && own_[own_next].from + block_ns == t; ++own_next)
        free.add(need, shares(own_[own_next]), +1);
      for (; next_event < events_.size() && events_[next_event].at == t; ++next_event)
        free.add(grants_[events_[next_event].grant], events_[next_event].release ? +1 : -1);
    }
  }

  /// Keeps the blocks of the last last_start() on their SMs for later kernels, each running `block_ns`, none
  /// past `limit`, the kernel's measured end: where the trace and the occupancy rules disagree, the replay
  /// must not carry a backlog the device never had into later kernels.
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
  }

  /// When the first block of the last last_start() started.
  [[nodiscard]] Nanos first_start() const { return own_.empty() ? now_ : own_.front().from; }

  /// No block of an earlier kernel holds an SM now or will take one later.
  [[nodiscard]] bool idle() const { return events_.empty(); }

 private:
  /// A block time no replay reaches: blocks placed with it never end while their grid is placed.
  static constexpr Nanos kOpen = Nanos{1} << 60;

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

  /// Spreads `pending` blocks as the hardware does: each SM up to a common level L, the first SMs with room
  /// one more, so fit[] ends holding what each SM gets.
  static void place(std::int64_t& pending, std::vector<std::int32_t>& fit) {
    std::int64_t total = 0, most = 0;
    for (std::int32_t f : fit) total += f, most = std::max<std::int64_t>(most, f);
    if (total <= pending) {
      pending -= total;
      return;
    }
    std::int64_t lo = 1, hi = most;  // the least L with sum(min(fit, L)) >= pending
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      std::int64_t s = 0;
      for (std::int32_t f : fit) s += std::min<std::int64_t>(f, mid);
      if (s >= pending) hi = mid; else lo = mid + 1;
    }
    std::int64_t extra = pending;
    for (std::int32_t& f : fit) {
      const auto below = static_cast<std::int32_t>(std::min<std::int64_t>(f, lo - 1));
      const bool more = f >= lo;
      f = below;
      extra -= below;
      if (more) f = -1 - f;  // marked: may take one more
    }
    for (std::int32_t& f : fit)
      if (f < 0) {
        f = -1 - f;
        if (extra > 0) ++f, --extra;
      }
    pending = 0;
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

  SmResources need_;
  Room room_, scratch_;
  std::vector<std::int32_t> fit_;
  std::vector<Grant> grants_;
  std::vector<OwnGrant> own_;
  std::vector<Share> own_shares_;
  std::vector<std::uint32_t> free_grants_;
  std::vector<Event> events_;
  Nanos now_ = 0;
};

}  // namespace

BlockTimes kernel_block_times(std::span<const MeasuredKernel> kernels, const model::DeviceProfile& profile) {
  BlockTimes out;
  out.ns.assign(kernels.size(), 1);
  const auto sms = static_cast<std::size_t>(std::clamp(profile.sm_count.value, 1.0, 1e6));
  const SmResources capacity = model::sm_capacity(profile);
  const auto pad = static_cast<Nanos>(std::llround(std::max(0.0, profile.traced_span_pad_ns.value)));

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
    // Grids of several waves are not replayed: their blocks cycle through their own slots, which costs a
    // replay step per wave, and a kernel that long is rarely the one held up (counted when they meet
    // earlier blocks; they hold no SMs for later kernels).
    if (waves > 1) {
      if (!scheduler.idle()) ++out.uncorrected;
      continue;
    }
    if (scheduler.idle()) {
      if (met_later) {
        (void)scheduler.last_start(blocks, need);  // one wave on idle SMs: all at once
        scheduler.keep(alone, k.end);
      }
      continue;
    }
    // One wave: its blocks started as room came. Where no block ended before the last one started, the
    // block time is the end minus that last start. Where some did (blocks shorter than the wait), the
    // room they gave back may have let the last start earlier: the block time T is then the largest with
    // end - last_start(T) >= T, found by bisection.
    Nanos last = scheduler.last_start(blocks, need);
    const bool exact = last != kNever && end - last >= 1 &&
                       (end - last >= last - scheduler.first_start() ||
                        scheduler.last_start(blocks, need, end - last) == last);
    if (!exact) {
      auto fits = [&](Nanos t) {  // blocks of t ns end the grid by its measured end
        const Nanos l = scheduler.last_start(blocks, need, t);
        return l != kNever && end - l >= t;
      };
      // Room only grows when blocks end sooner, so T0 = end - last (no block ending early) fits, and
      // end - last_start(T0) is at least the answer: search between the two, to a thousandth of the block
      // time (finer than any trace's jitter). With no room at all for T0, search from 1 ns.
      const Nanos open_last = last;
      last = kNever;
      Nanos lo = open_last != kNever && end - open_last >= 1 ? end - open_last : 1;
      if (lo > 1 || fits(1)) {
        const Nanos l = scheduler.last_start(blocks, need, lo);
        Nanos hi = std::clamp(end - l, lo, alone);
        if (fits(hi)) lo = hi;
        while (hi - lo > std::max<Nanos>(1, lo / 1000)) {
          const Nanos mid = lo + (hi - lo) / 2;
          if (fits(mid)) lo = mid; else hi = mid;
        }
        (void)scheduler.last_start(blocks, need, lo);  // the placement to keep
        last = end - lo;
      }
    }
    if (last == kNever || end - last < 1) {
      ++out.inconsistent;
      if (met_later) {
        (void)scheduler.last_start(blocks, need);
        scheduler.keep(alone, k.end);
      }
      continue;
    }
    result = std::min(alone, end - last);
    if (result < alone) ++out.contended;
    if (met_later) scheduler.keep(result, k.end);
  }
  return out;
}

}  // namespace streamlab::import
