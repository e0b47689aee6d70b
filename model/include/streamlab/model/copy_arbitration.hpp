#pragma once
// Which hardware copy queue a copy engine serves next: the models the simulator offers and calibrate's
// diagnostic tells apart. A stream's copies go to one of `queues` copy queues of their engine (stream k, counted from 0 in
// the order the streams were made: queue (k + offset) % queues); the engine runs a queue's copies back to
// back while that queue has one waiting; then it takes either the queue of the longest-waiting copy, or the
// next queue in bit-reversed round-robin order (0, 2, 1, 3 of four; 0, 4, 2, 6, 1, 5, 3, 7 of eight).
// H100 machines showed all of these: four queues taken oldest-first, a queue per stream, and four taken in
// bit-reversed order (sim/README.md, executor/validation); which order one process's streams see can
// change with how many streams it made before (calibrate, H100 run 98).
#include <cstdint>
#include <optional>
#include <vector>

namespace streamlab::model {

/// `slot`'s place in the bit-reversed order over the power of two at or above `queues`.
[[nodiscard]] std::uint32_t bit_reversed_rank(std::uint32_t slot, std::uint32_t queues) noexcept;

/// How many places after `from` slot `to` comes in the bit-reversed round-robin order over `queues` slots
/// (0: the next one; `from` itself comes last).
[[nodiscard]] std::uint32_t bit_reversed_distance(std::uint32_t from, std::uint32_t to, std::uint32_t queues) noexcept;

/// The order an engine runs copies in under one model, when the first is running and every other is
/// already queued: `streams[i]` is the stream (0-based, in the order the streams were made) of the i-th
/// copy issued. Returns the copies' indices in service order.
[[nodiscard]] std::vector<std::uint32_t> copy_service_order(const std::vector<std::uint32_t>& streams,
                                                            std::uint32_t queues, bool bit_reversed,
                                                            std::uint32_t offset = 0);

struct CopyArbitration {
  std::uint32_t queues = 0;   ///< 4: shared by streams k and k + 4; 8: one per stream (of 8)
  bool bit_reversed = false;  ///< next queue in bit-reversed order (else the oldest copy's)
  friend bool operator==(const CopyArbitration&, const CopyArbitration&) = default;
};

/// The model (4 or 8 queues, either order, any offset) under which `streams` issued in that order are served
/// as `observed` (copy indices in service order); nullopt when none or models that differ in queues or
/// order explain it (both queue orders agree on some patterns: ask with copies on eight streams, two each).
[[nodiscard]] std::optional<CopyArbitration> classify_copy_arbitration(const std::vector<std::uint32_t>& streams,
                                                                       const std::vector<std::uint32_t>& observed);

}  // namespace streamlab::model
