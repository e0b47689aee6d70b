#pragma once
/// \file ruler.hpp
/// The time ruler: "nice" tick steps (1, 2 or 5 times a power of ten nanoseconds) at least a given number
/// of pixels apart, labels in ns / µs / ms / s, and the duration formatting used in tooltips and tables.

#include <cstdint>
#include <string>
#include <vector>

#include "streamlab/model/op.hpp"
#include "streamlab/viz/timeline_view.hpp"

namespace streamlab::viz {

enum class TimeUnit : std::uint8_t { ns, us, ms, s };
[[nodiscard]] double unit_ns(TimeUnit u) noexcept;
/// "ns", "µs" (UTF-8), "ms", "s".
[[nodiscard]] const char* unit_name(TimeUnit u) noexcept;

/// The smallest 1/2/5 x 10^k ns (k >= 0) that is at least min_spacing_px pixels wide at this zoom.
[[nodiscard]] model::Nanos nice_tick_step(double ns_per_px, double min_spacing_px);

/// The unit ruler labels use for a step: the largest unit not above ten times the step, so labels
/// need at most one decimal (200 ns -> µs "0.2 µs", 5 ms -> ms, 100 ms -> s "0.1 s").
[[nodiscard]] TimeUnit unit_for_step(model::Nanos step) noexcept;

/// A label for time t on a ruler with this step ("1.5 ms"; "0" at zero).
[[nodiscard]] std::string format_tick(model::Nanos t, model::Nanos step);

struct RulerTick {
  model::Nanos t = 0;
  float x = 0;       ///< canvas pixels
  bool major = true; ///< major ticks carry a label
  std::string label;
};

/// Major ticks every nice step across the view, with minor ticks between them (4 or 5 per step).
[[nodiscard]] std::vector<RulerTick> ruler_ticks(const TimelineView& view, double min_spacing_px = 90.0);

/// A duration with three significant digits in the best unit: "850 ns", "12.5 µs", "1.23 ms", "2.00 s".
[[nodiscard]] std::string format_duration(double ns);
/// As format_duration with an explicit sign: "+1.20 µs", "-35 ns", "0 ns".
[[nodiscard]] std::string format_signed_duration(double ns);

}  // namespace streamlab::viz
