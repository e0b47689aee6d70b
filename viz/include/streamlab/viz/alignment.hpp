#pragma once
/// \file alignment.hpp
/// Putting several traces on one time axis. Each trace has its own clock (0 = its backend's prepare()),
/// and a measured run starts its first op some time after that (driver and CUPTI set-up) while a
/// simulation starts at once: compared as recorded, every op's start error would carry that constant.
/// The viewer shifts each trace by an offset so a common origin lines up, shows the offsets, and measures
/// every error on the shifted (aligned) times.

#include <string>
#include <string_view>
#include <vector>

#include "streamlab/viz/trace_set.hpp"

namespace streamlab::viz {

struct Alignment {
  enum class Mode : std::uint8_t {
    first_op,  ///< each trace's first device span starts at 0 (as `streamlab compare` aligns)
    none,      ///< each trace on its own clock
    op,        ///< the named op's first span starts at 0 in every trace
  };
  Mode mode = Mode::first_op;
  std::string op_id;  ///< Mode::op
  friend bool operator==(const Alignment&, const Alignment&) = default;
};

/// "first", "none" or "op:ID". Throws model::InputError naming --align otherwise.
[[nodiscard]] Alignment parse_alignment(std::string_view text);
/// The flag's spelling of an alignment.
[[nodiscard]] std::string to_string(const Alignment& a);

/// Per trace: the time on its own clock that becomes 0 (aligned time = trace time - offset).
struct AlignmentOffsets {
  std::vector<model::Nanos> offsets;
  /// Why the alignment could not be applied as asked (e.g. the op is missing from a trace: that trace
  /// then falls back to its first device span); empty when it was.
  std::string problem;
};

[[nodiscard]] AlignmentOffsets alignment_offsets(const TraceSet& set, const Alignment& a);

}  // namespace streamlab::viz
