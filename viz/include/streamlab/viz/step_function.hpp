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

  /// Room for `changes` change points.
  void reserve(std::size_t changes);
  /// Adds a change after the last one (its time strictly later): a function built point by point, as
  /// model::compute_metrics hands them over, without a list of them all first.
  void append(model::Nanos t, std::uint32_t v);

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

  /// The integral is kept at every kEvery-th change and summed from there to the others, step by step
  /// in the order it was first summed (so to the same double): 12 bytes a change instead of 20 (at ten
  /// million spans a trace's concurrency has twenty million changes).
  static constexpr std::size_t kEvery = 64;
  std::vector<model::Nanos> times_;
  std::vector<std::uint32_t> values_;
  std::vector<double> checkpoints_;  ///< checkpoints_[j] = integral from times_[0] to times_[j * kEvery]
  double last_integral_ = 0;         ///< to times_.back()
  std::uint32_t max_ = 0;
};

/// Change points of "how many of these intervals are open", from half-open [start, end) intervals in any
/// order (empty intervals ignored). Consecutive equal values are merged.
[[nodiscard]] std::vector<std::pair<model::Nanos, std::uint32_t>> count_open_intervals(
    std::vector<std::pair<model::Nanos, model::Nanos>> intervals);

}  // namespace streamlab::viz
