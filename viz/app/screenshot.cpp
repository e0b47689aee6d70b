#include "screenshot.hpp"

#include <algorithm>
#include <cstdint>
#include <system_error>
#include <vector>

#include <GL/gl.h>
#include <stb_image_write.h>

namespace streamlab::viz::app {

std::string write_framebuffer_png(int width, int height, const std::filesystem::path& out) {
  const auto w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
  std::vector<std::uint8_t> pixels(w * h * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  if (const GLenum err = glGetError(); err != GL_NO_ERROR) return "glReadPixels failed (GL error " + std::to_string(err) + ")";
  // GL rows run bottom-up; PNG rows top-down.
  std::vector<std::uint8_t> flipped(pixels.size());
  for (std::size_t y = 0; y < h; ++y)
    std::copy_n(pixels.data() + (h - 1 - y) * w * 3, w * 3, flipped.data() + y * w * 3);
  const std::filesystem::path tmp = out.string() + ".tmp";
  if (stbi_write_png(tmp.c_str(), width, height, 3, flipped.data(), width * 3) == 0)
    return "cannot write '" + tmp.string() + "'";
  std::error_code ec;
  std::filesystem::rename(tmp, out, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return "cannot rename to '" + out.string() + "'";
  }
  return {};
}

}  // namespace streamlab::viz::app
