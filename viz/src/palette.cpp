#include "streamlab/viz/palette.hpp"

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
  }
  return {255, 255, 255};
}

Rgba folded_color(model::OpKind k) noexcept {
  const Rgba c = kind_color(k);
  auto dim = [](std::uint8_t v) { return static_cast<std::uint8_t>(v * 55 / 100); };
  return {dim(c.r), dim(c.g), dim(c.b), c.a};
}

}  // namespace streamlab::viz
