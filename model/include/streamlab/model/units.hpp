#pragma once
/// \file units.hpp
/// Durations for people: every command prints times through format_duration, so a makespan reads
/// "26.78 ms" or "1.204 s" rather than "26783744.923 us".

#include <string>

namespace streamlab::model {

/// ns in the largest unit that keeps the value >= 1 (ns, us, ms, s), 4 significant digits at most:
/// 850 -> "850 ns", 20400 -> "20.4 us", 26783744.9 -> "26.78 ms", 26.78e9 -> "26.78 s". Negative values keep
/// their sign; NaN prints "n/a".
[[nodiscard]] std::string format_duration(double ns);

/// As format_duration with an explicit sign for non-zero values: "+1.2 us", "-35 ns", "0 ns".
[[nodiscard]] std::string format_signed_duration(double ns);

}  // namespace streamlab::model
