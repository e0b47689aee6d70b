#pragma once
/// \file step_function.hpp
/// A piecewise-constant function of time (concurrency, busy SMs) with a prefix integral, so the mean over
/// any interval costs two binary searches. The viewer samples one value per pixel column this way.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "streamlab/model/op.hpp"

namespace streamlab::viz {

class StepFunction {
 public:
  StepFunction() = default;
  /// `changes`: (time, value from that time on), times strictly increasing. The value is 0 before the
  /// first change; the last value holds forever.
  explicit StepFunction(std::span<const std::pair<model::Nanos, std::uint32_t>> changes);

  [[nodiscard]] bool empty() const noexcept { return times_.empty(); }
  [[nodiscard]] double value_at(double t) const noexcept;
  /// Time-weighted mean over [a, b); value_at(a) when b <= a.
  [[nodiscard]] double mean(double a, double b) const noexcept;
  [[nodiscard]] std::uint32_t max_value() const noexcept { return max_; }
  /// One mean per bucket: `buckets` equal slices of [a, b).
  [[nodiscard]] std::vector<float> sample(double a, double b, std::size_t buckets) const;

 private:
  /// Integral of the function from the first change to t.
  [[nodiscard]] double integral_to(double t) const noexcept;

  std::vector<model::Nanos> times_;
  std::vector<std::uint32_t> values_;
  std::vector<double> integral_;  ///< integral_[k] = integral from times_[0] to times_[k]
  std::uint32_t max_ = 0;
};

/// Change points of "how many of these intervals are open", from half-open [start, end) intervals in any
/// order (empty intervals ignored). Consecutive equal values are merged.
[[nodiscard]] std::vector<std::pair<model::Nanos, std::uint32_t>> count_open_intervals(
    std::vector<std::pair<model::Nanos, model::Nanos>> intervals);

}  // namespace streamlab::viz
