#pragma once
/// \file kernel_race.hpp
/// Which kernel places its blocks first when two kernels become ready within a short window of each
/// other. The GPU decides such a race either way from run to run (H100 run 84, experiment E7 with equal
/// priorities: the 5 runs of a configuration had either successor of two kernels that ended within a
/// microsecond go first), at any priority level (run 106, E7 with the foreground stream at the higher
/// priority: in 3 of 6 runs with 25 us background blocks and 1 of 6 with 100 us, the next background
/// kernel took every SM first and the foreground kernel waited a whole background block), and the
/// simulator places a kernel's end only to within a few hundred ns, so a prediction takes each rule and
/// reports the range (SimOptions::kernel_race).

#include <cstdint>
#include <string_view>

namespace streamlab::sim {

enum class KernelRace : std::uint8_t {
  ready_order,          ///< the one that became ready first (the default; no window)
  lower_stream_first,   ///< the one on the lower-numbered stream (the first created)
  higher_stream_first,  ///< the one on the higher-numbered stream
};

[[nodiscard]] constexpr std::string_view to_string(KernelRace r) noexcept {
  switch (r) {
    case KernelRace::ready_order: return "ready-order";
    case KernelRace::lower_stream_first: return "lower-stream-first";
    case KernelRace::higher_stream_first: return "higher-stream-first";
  }
  return "?";
}

}  // namespace streamlab::sim
