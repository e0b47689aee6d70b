#include "streamlab/viz/step_function.hpp"

#include <algorithm>
#include <stdexcept>

namespace streamlab::viz {

StepFunction::StepFunction(std::span<const std::pair<model::Nanos, std::uint32_t>> changes) {
  reserve(changes.size());
  for (const auto& [t, v] : changes) append(t, v);
}

void StepFunction::reserve(std::size_t changes) {
  times_.reserve(changes);
  values_.reserve(changes);
  checkpoints_.reserve(changes / kEvery + 1);
}

void StepFunction::append(model::Nanos t, std::uint32_t v) {
  if (!times_.empty() && t <= times_.back())
    throw std::invalid_argument("StepFunction: change times must increase strictly");
  if (!times_.empty())
    last_integral_ += static_cast<double>(values_.back()) * static_cast<double>(t - times_.back());
  if (times_.size() % kEvery == 0) checkpoints_.push_back(last_integral_);
  times_.push_back(t);
  values_.push_back(v);
  max_ = std::max(max_, v);
}

double StepFunction::value_at(double t) const noexcept {
  // Last change at or before t.
  const auto it = std::upper_bound(times_.begin(), times_.end(), t,
                                   [](double x, model::Nanos c) { return x < static_cast<double>(c); });
  if (it == times_.begin()) return 0.0;
  return values_[static_cast<std::size_t>(it - times_.begin()) - 1];
}

double StepFunction::integral_to(double t) const noexcept {
  const auto it = std::upper_bound(times_.begin(), times_.end(), t,
                                   [](double x, model::Nanos c) { return x < static_cast<double>(c); });
  if (it == times_.begin()) return 0.0;
  const auto k = static_cast<std::size_t>(it - times_.begin()) - 1;
  // From the checkpoint at or before k, as append summed it.
  double integral = checkpoints_[k / kEvery];
  for (std::size_t j = k / kEvery * kEvery + 1; j <= k; ++j)
    integral += static_cast<double>(values_[j - 1]) * static_cast<double>(times_[j] - times_[j - 1]);
  return integral + static_cast<double>(values_[k]) * (t - static_cast<double>(times_[k]));
}

double StepFunction::mean(double a, double b) const noexcept {
  if (b <= a) return value_at(a);
  return (integral_to(b) - integral_to(a)) / (b - a);
}

std::vector<float> StepFunction::sample(double a, double b, std::size_t buckets) const {
  std::vector<float> out(buckets, 0.0f);
  if (buckets == 0 || times_.empty()) return out;
  const double width = (b - a) / static_cast<double>(buckets);
  double left = integral_to(a);
  for (std::size_t i = 0; i < buckets; ++i) {
    const double right_t = a + width * static_cast<double>(i + 1);
    const double right = integral_to(right_t);
    out[i] = width > 0 ? static_cast<float>((right - left) / width)
                       : static_cast<float>(value_at(a));
    left = right;
  }
  return out;
}

std::vector<std::pair<model::Nanos, std::uint32_t>> count_open_intervals(
    std::vector<std::pair<model::Nanos, model::Nanos>> intervals) {
  // Edges as (time, +1/-1); at equal times closes sort first, so [0,5) and [5,9) never count as 2.
  std::vector<std::pair<model::Nanos, int>> edges;
  edges.reserve(intervals.size() * 2);
  for (const auto& [s, e] : intervals) {
    if (e <= s) continue;
    edges.emplace_back(s, +1);
    edges.emplace_back(e, -1);
  }
  std::sort(edges.begin(), edges.end());
  std::vector<std::pair<model::Nanos, std::uint32_t>> out;
  std::int64_t open = 0;
  for (std::size_t i = 0; i < edges.size();) {
    const model::Nanos t = edges[i].first;
    for (; i < edges.size() && edges[i].first == t; ++i) open += edges[i].second;
    const auto v = static_cast<std::uint32_t>(open);
    if (out.empty() ? v != 0 : out.back().second != v) out.emplace_back(t, v);
  }
  return out;
}

}  // namespace streamlab::viz
