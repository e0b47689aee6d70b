#pragma once
/// \file options.hpp
/// Parsing of the viewer's command-line values that are not plain numbers. Errors are model::InputError
/// naming the flag.

#include <cstdint>
#include <string_view>
#include <utility>

#include "streamlab/model/op.hpp"
#include "streamlab/viz/lanes.hpp"

namespace streamlab::viz {

/// "1500", "1500ns", "2.5us", "2.5µs", "3ms", "0.1s" -> nanoseconds (a bare number is ns).
[[nodiscard]] model::Nanos parse_time(std::string_view text, std::string_view flag);
/// "START:END" with times as parse_time; END > START.
[[nodiscard]] std::pair<model::Nanos, model::Nanos> parse_view_range(std::string_view text);
/// "X,Y" pixel coordinates, each 0..16384.
[[nodiscard]] std::pair<int, int> parse_point(std::string_view text, std::string_view flag);
/// "stream" or "engine".
[[nodiscard]] LaneMode parse_lane_mode(std::string_view text);
/// "WIDTHxHEIGHT", each 64..16384.
[[nodiscard]] std::pair<int, int> parse_size(std::string_view text);

}  // namespace streamlab::viz
