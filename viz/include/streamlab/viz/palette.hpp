#pragma once
/// \file palette.hpp
/// The fixed colours of the timeline: one per op kind (documented in viz/README.md; the CI screenshot test
/// looks for exactly these), a darker shade for folded runs, and the highlight colours.

#include <cstdint>

#include "streamlab/model/op.hpp"

namespace streamlab::viz {

/// 8-bit RGBA, independent of any GUI library.
struct Rgba {
  std::uint8_t r = 0, g = 0, b = 0, a = 255;
  /// Packed as Dear ImGui's ImU32 (IM_COL32: A in the high byte, R in the low byte).
  [[nodiscard]] constexpr std::uint32_t packed_abgr() const noexcept {
    return (std::uint32_t{a} << 24) | (std::uint32_t{b} << 16) | (std::uint32_t{g} << 8) | r;
  }
  friend constexpr bool operator==(const Rgba&, const Rgba&) = default;
};

/// Fill colour of a span of this kind (Material palette, chosen to stay apart from ImGui's dark theme).
/// Kinds added to the model after these nine get colours from a second fixed list, by value.
[[nodiscard]] Rgba kind_color(model::OpKind k) noexcept;
/// Fill of a run of folded sub-pixel spans whose majority kind is `k`: the kind colour at 55% brightness,
/// so a folded block reads as "many small things of this kind" and never as one long op.
[[nodiscard]] Rgba folded_color(model::OpKind k) noexcept;

/// Outline colours for selection and the dependency overlay.
inline constexpr Rgba kSelectedOutline{255, 255, 255, 255};
inline constexpr Rgba kDependencyOutline{0, 229, 255, 255};   ///< ops the selected op waits for
inline constexpr Rgba kDependentOutline{255, 64, 255, 255};   ///< ops waiting for the selected op
inline constexpr Rgba kCriticalPathOutline{255, 45, 45, 255};  ///< ops on the workload's critical path
/// Bars of the SM occupancy strip (height = fraction of SMs busy).
inline constexpr Rgba kOccupancyFill{120, 144, 156, 255};
/// A trace's identity colour (its tag in lane labels, the header, the concurrency plot): a fixed cycle
/// of hues that none of the kind colours uses.
[[nodiscard]] Rgba trace_color(std::uint32_t trace) noexcept;
/// A trace's lane background: a dark tint of its identity colour, so spans keep their kind colour.
[[nodiscard]] Rgba trace_lane_bg(std::uint32_t trace) noexcept;

}  // namespace streamlab::viz
