#include "streamlab/viz/options.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "streamlab/model/errors.hpp"

namespace streamlab::viz {
namespace {

[[noreturn]] void bad(std::string_view flag, std::string_view text, const std::string& why) {
  throw model::InputError("command line", std::string(flag), "",
                          "bad value '" + std::string(text) + "': " + why);
}

}  // namespace

model::Nanos parse_time(std::string_view text, std::string_view flag) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr == text.data()) bad(flag, text, "expected a time such as 1500, 2.5us or 3ms");
  const std::string_view unit(ptr, static_cast<std::size_t>(text.data() + text.size() - ptr));
  double scale = 0;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us" || unit == "\xc2\xb5s") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else bad(flag, text, "unknown unit '" + std::string(unit) + "' (ns, us, ms, s)");
  const double ns = value * scale;
  if (!std::isfinite(ns) || std::fabs(ns) > 9e18) bad(flag, text, "out of range");
  return static_cast<model::Nanos>(std::llround(ns));
}

std::pair<model::Nanos, model::Nanos> parse_view_range(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) bad("--view", text, "expected START:END, e.g. 0:2ms");
  const auto start = parse_time(text.substr(0, colon), "--view");
  const auto end = parse_time(text.substr(colon + 1), "--view");
  if (end <= start) bad("--view", text, "END must be after START");
  return {start, end};
}

std::pair<int, int> parse_point(std::string_view text, std::string_view flag) {
  const auto comma = text.find(',');
  int x = 0, y = 0;
  const char* end = text.data() + text.size();
  if (comma == std::string_view::npos) bad(flag, text, "expected X,Y, e.g. 640,120");
  const auto a = std::from_chars(text.data(), text.data() + comma, x);
  const auto b = std::from_chars(text.data() + comma + 1, end, y);
  if (a.ec != std::errc{} || a.ptr != text.data() + comma || b.ec != std::errc{} || b.ptr != end)
    bad(flag, text, "expected X,Y, e.g. 640,120");
  if (x < 0 || y < 0 || x > 16384 || y > 16384) bad(flag, text, "each coordinate must be 0..16384");
  return {x, y};
}

LaneMode parse_lane_mode(std::string_view text) {
  if (text == "stream") return LaneMode::stream;
  if (text == "engine") return LaneMode::engine;
  bad("--lanes", text, "expected stream or engine");
}

std::pair<int, int> parse_size(std::string_view text) {
  const auto x = text.find('x');
  if (x == std::string_view::npos) bad("--size", text, "expected WIDTHxHEIGHT, e.g. 1600x900");
  int w = 0, h = 0;
  const auto a = std::from_chars(text.data(), text.data() + x, w);
  const auto b = std::from_chars(text.data() + x + 1, text.data() + text.size(), h);
  if (a.ec != std::errc{} || a.ptr != text.data() + x || b.ec != std::errc{} ||
      b.ptr != text.data() + text.size())
    bad("--size", text, "expected WIDTHxHEIGHT, e.g. 1600x900");
  if (w < 64 || h < 64 || w > 16384 || h > 16384) bad("--size", text, "each side must be 64..16384");
  return {w, h};
}

}  // namespace streamlab::viz
