#pragma once
// Reading the framebuffer back and writing it as a PNG (the headless --screenshot mode).

#include <filesystem>
#include <string>

namespace streamlab::viz::app {

/// Reads the current GL back buffer (width x height, bottom-up) and writes it top-down as an RGB PNG,
/// atomically (temporary file + rename). Returns an empty string on success, else the reason.
[[nodiscard]] std::string write_framebuffer_png(int width, int height, const std::filesystem::path& out);

}  // namespace streamlab::viz::app
