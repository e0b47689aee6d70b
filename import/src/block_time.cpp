#include "streamlab/import/block_time.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>

#include "streamlab/import/program_builder.hpp"
#include "streamlab/model/occupancy.hpp"

namespace streamlab::import {
namespace {

using model::Nanos;
using model::SmResources;

constexpr Nanos kNever = std::numeric_limits<Nanos>::max();
/// Kernels with more waves than this keep (span - pad) / waves: replaying their blocks would cost more
/// than the correction is worth (a kernel that long is rarely held up by another one's blocks).
constexpr std::uint64_t kMaxReplayedWaves = 100'000;

SmResources times(const SmResources& r, std::int64_t k) {
  return SmResources{r.threads * k, r.blocks * k, r.registers * k, r.shared_mem * k};
}

/// Blocks of one kernel on one SM over [from, to).
struct Held {
  Nanos from = 0, to = 0;
  std::uint32_t sm = 0;
  std::int64_t blocks = 0;
  SmResources need;  ///< per block
};

/// Replays one kernel's blocks over the SM room that earlier kernels' blocks leave.
class BlockReplay {
 public:
  BlockReplay(std::size_t sms, const SmResources& capacity) : capacity_(capacity), base_(sms), room_(sms) {}

  /// The room at `start` and every later change of it caused by `held`.
  void prepare(const std::vector<Held>& held, Nanos start) {
    start_ = start;
    std::fill(base_.begin(), base_.end(), capacity_);
    changes_.clear();
    for (const Held& h : held) {
      const SmResources r = times(h.need, h.blocks);
      if (h.to <= start) continue;
      if (h.from <= start) {
        base_[h.sm] -= r;
      } else {
        changes_.push_back(Change{h.from, h.sm, r, false});
      }
      changes_.push_back(Change{h.to, h.sm, r, true});
    }
    // Releases before acquisitions at one instant, so a block that ends makes room for one that starts.
    std::sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) {
      return a.at != b.at ? a.at < b.at : a.release > b.release;
    });
  }

  [[nodiscard]] bool contended() const {
    return !changes_.empty() ||
           std::any_of(base_.begin(), base_.end(), [&](const SmResources& r) { return r != capacity_; });
  }

  /// The kernel's last block end if each block runs `block_ns`; its placements go to `placed` when given.
  Nanos finish(Nanos block_ns, std::int64_t blocks, const SmResources& need, std::vector<Held>* placed) {
    std::vector<SmResources>& free = room_;
    free = base_;
    std::deque<Held> running;  // this kernel's blocks, in end order (one block time for all)
    std::size_t next_change = 0;
    Nanos t = start_, last_end = start_;
    std::int64_t pending = blocks;
    std::vector<std::int64_t> fit(free.size());
    while (true) {
      std::int64_t total = 0, most = 0;
      for (std::size_t i = 0; i < free.size(); ++i) {
        fit[i] = model::blocks_that_fit(need, free[i]);
        total += fit[i];
        most = std::max(most, fit[i]);
      }
      if (total > pending) {
        // Spread as the hardware does: a level L with sum(min(fit, L)) >= pending, then trim.
        std::int64_t lo = 1, hi = most;
        while (lo < hi) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          std::int64_t s = 0;
          for (std::int64_t f : fit) s += std::min(f, mid);
          if (s >= pending) hi = mid; else lo = mid + 1;
        }
        std::int64_t extra = pending;
        for (std::int64_t& f : fit) extra -= (f = std::min(f, lo - 1));
        for (std::size_t i = 0; i < fit.size() && extra > 0; ++i)
          if (model::blocks_that_fit(need, free[i]) >= lo) ++fit[i], --extra;
      }
      for (std::size_t i = 0; i < free.size(); ++i) {
        if (fit[i] == 0) continue;
        free[i] -= times(need, fit[i]);
        pending -= fit[i];
        const Held h{t, t + block_ns, static_cast<std::uint32_t>(i), fit[i], need};
        running.push_back(h);
        if (placed != nullptr) placed->push_back(h);
        last_end = t + block_ns;
      }
      if (pending == 0) return last_end;
      const Nanos next_own = running.empty() ? kNever : running.front().to;
      const Nanos next_other = next_change < changes_.size() ? changes_[next_change].at : kNever;
      t = std::min(next_own, next_other);
      if (t == kNever) return kNever;  // room never comes (the measured placement says otherwise)
      while (!running.empty() && running.front().to == t) {
        free[running.front().sm] += times(need, running.front().blocks);
        running.pop_front();
      }
      for (; next_change < changes_.size() && changes_[next_change].at == t; ++next_change) {
        const Change& c = changes_[next_change];
        if (c.release) free[c.sm] += c.room; else free[c.sm] -= c.room;
      }
    }
  }

 private:
  struct Change {
    Nanos at = 0;
    std::uint32_t sm = 0;
    SmResources room;
    bool release = false;
  };
  SmResources capacity_;
  Nanos start_ = 0;
  std::vector<SmResources> base_, room_;
  std::vector<Change> changes_;
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

  BlockReplay replay(sms, capacity);
  std::vector<Held> held;  // blocks of earlier kernels that a later kernel may still meet
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

    std::erase_if(held, [&](const Held& h) { return h.to <= k.start; });
    const bool replayable = static_cast<std::uint64_t>(waves) <= kMaxReplayedWaves;
    const bool met_later = pos + 1 < order.size() && kernels[order[pos + 1]].start < k.end;
    if (!replayable || (held.empty() && !met_later)) continue;
    replay.prepare(held, k.start);
    if (replay.contended() && replay.finish(alone, blocks, need, nullptr) > end) {
      if (replay.finish(1, blocks, need, nullptr) > end) {
        ++out.inconsistent;
      } else {
        Nanos lo = 1, hi = alone;  // finish(lo) <= end < finish(hi)
        while (hi - lo > 1) {
          const Nanos mid = lo + (hi - lo) / 2;
          if (replay.finish(mid, blocks, need, nullptr) <= end) lo = mid; else hi = mid;
        }
        result = lo;
        ++out.contended;
      }
    }
    if (met_later) (void)replay.finish(result, blocks, need, &held);
  }
  return out;
}

}  // namespace streamlab::import
