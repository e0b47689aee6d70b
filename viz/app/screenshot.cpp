#include "screenshot.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <vector>

#include <GL/gl.h>
#include <stb_image_write.h>

#include "streamlab/model/file_io.hpp"

namespace streamlab::viz::app {

std::string write_framebuffer_png(int width, int height, const std::filesystem::path& out) {
  if (width <= 0 || height <= 0) return "cannot write '" + out.string() + "': empty framebuffer";
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
  std::string png;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (stbi_write_png_to_func(append, &png, width, height, 3, flipped.data(), width * 3) == 0 || png.empty())
    return "cannot encode the PNG for '" + out.string() + "'";
  try {
    model::write_file_atomically(out, png);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace streamlab::viz::app
