#include "streamlab/viz/palette.hpp"

#include <iterator>

namespace streamlab::viz {

Rgba kind_color(model::OpKind k) noexcept {
  using model::OpKind;
  switch (k) {
    case OpKind::kernel: return {76, 175, 80};      // green
    case OpKind::h2d: return {33, 150, 243};        // blue
    case OpKind::d2h: return {255, 152, 0};         // orange
    case OpKind::d2d: return {156, 39, 176};        // purple
    case OpKind::memset: return {0, 150, 136};      // teal
    case OpKind::prefetch: return {121, 85, 72};    // brown
    case OpKind::host_func: return {233, 30, 99};   // pink
    case OpKind::barrier: return {158, 158, 158};   // grey
    case OpKind::task_pool: return {205, 220, 57};  // lime
    default: break;
  }
  // Later kinds (the program calls: event record/wait, synchronizes): light, distinct, by value.
  static constexpr Rgba kMore[] = {{128, 222, 234}, {255, 204, 128}, {206, 147, 216}, {239, 154, 154},
                                   {165, 214, 167}, {255, 241, 118}, {176, 190, 197}};
  return kMore[static_cast<std::size_t>(k) % std::size(kMore)];
}

namespace {
// Trace identity hues: light blue, amber, light green-cyan, rose, violet, sand.
constexpr Rgba kTraceColors[] = {{158, 178, 255}, {255, 184, 115}, {120, 220, 200},
                                 {255, 138, 170}, {200, 160, 255}, {220, 210, 150}};
}  // namespace

Rgba trace_color(std::uint32_t trace) noexcept { return kTraceColors[trace % std::size(kTraceColors)]; }

Rgba trace_lane_bg(std::uint32_t trace) noexcept {
  const Rgba c = trace_color(trace);
  // About 20% of the hue over the window's near-black: told apart, yet dark under every kind colour.
  auto tint = [](std::uint8_t v) { return static_cast<std::uint8_t>(28 + v * 20 / 100); };
  return {tint(c.r), tint(c.g), tint(c.b), 255};
}

Rgba folded_color(model::OpKind k) noexcept {
  const Rgba c = kind_color(k);
  auto dim = [](std::uint8_t v) { return static_cast<std::uint8_t>(v * 55 / 100); };
  return {dim(c.r), dim(c.g), dim(c.b), c.a};
}

}  // namespace streamlab::viz
