#pragma once
// Reading the framebuffer back and writing it as a PNG (the headless --screenshot mode and F12).

#include <filesystem>
#include <string>

namespace streamlab::viz::app {

/// Reads the current GL back buffer (width x height, bottom-up) and writes it top-down as an RGB PNG.
/// The PNG is encoded in memory first, then written with model::write_file_atomically (a uniquely named
/// temporary file in the target's directory, every write and the close checked, fsync, rename): a full
/// disk or a missing directory leaves the old file, if any, untouched and no temporary behind. Returns
/// an empty string on success, else the reason.
[[nodiscard]] std::string write_framebuffer_png(int width, int height, const std::filesystem::path& out);

}  // namespace streamlab::viz::app
