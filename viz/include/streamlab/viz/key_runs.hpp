#pragma once
/// \file key_runs.hpp
/// Op keys found by arithmetic on their ids: when op ids number the ops (op_0, op_1, ...; or c0_k0 ..
/// c0_k999, c1_k0, ...: every generator's ids) and a trace lists them in that order, the keys made from
/// a run of such ids are consecutive too, and a key follows from the id's prefix (one small table) and
/// number. At ten million keys a hash table over the ids is a random read of hundreds of megabytes per
/// span, and the TraceSet's key making grew 15x from 1M to 10M spans; this grows with the spans. Keys
/// that do not fit (ids without a number, out of order, a prefix on two engines) are the caller's to
/// look up otherwise (TraceSet's table).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "streamlab/model/trace.hpp"

namespace streamlab::viz {

class KeyRuns {
 public:
  /// Runs of at most `max_runs` (past some fraction of the keys they are no smaller than a table).
  explicit KeyRuns(std::size_t max_runs = 0) : max_runs_(max_runs) {}

  /// The key of any engine whose op id is `id` (runs hold one engine per prefix), or 0xffffffff.
  [[nodiscard]] std::uint32_t find_any(std::string_view id) const noexcept;

  /// The key of (id, engine): the one found, or else `next` (one more than the last key made; the
  /// first: 0), which the runs then hold. 0xffffffff when (id, engine) is not found and the runs cannot
  /// hold it (its id has no number, its prefix has a run that it does not continue, or the runs are as
  /// many as allowed); they still answer for the keys made before, but the caller looks keys up
  /// otherwise from there on.
  [[nodiscard]] std::uint32_t find_or_add(std::string_view id, model::Engine engine, std::uint32_t next);

  /// (prefix, number) of an id that ends in a decimal number written without leading zeros: one id
  /// has one split and one split one id.
  struct Split {
    std::string_view prefix;
    std::uint64_t number = 0;
  };
  [[nodiscard]] static bool split(std::string_view id, Split& out) noexcept;

 private:
  struct Run {
    std::string_view prefix;  ///< a view of the op id of the run's first key (kept by its trace)
    std::uint64_t first_number;
    std::uint32_t first_key, count;
    model::Engine engine;
  };
  /// The run of this prefix (then also runs_[last_]), or nullptr.
  [[nodiscard]] const Run* run_of(std::string_view prefix) const noexcept;

  std::size_t max_runs_;
  std::vector<Run> runs_;  ///< in key order
  std::unordered_map<std::string_view, std::uint32_t> by_prefix_;
  mutable std::size_t last_ = 0;  ///< the run the last look-up found (ids come in runs)
};

}  // namespace streamlab::viz
