#include "streamlab/viz/ruler.hpp"

#include <cmath>
#include <cstdio>

namespace streamlab::viz {

double unit_ns(TimeUnit u) noexcept {
  switch (u) {
    case TimeUnit::ns: return 1.0;
    case TimeUnit::us: return 1e3;
    case TimeUnit::ms: return 1e6;
    case TimeUnit::s: return 1e9;
  }
  return 1.0;
}

const char* unit_name(TimeUnit u) noexcept {
  switch (u) {
    case TimeUnit::ns: return "ns";
    case TimeUnit::us: return "\xc2\xb5s";
    case TimeUnit::ms: return "ms";
    case TimeUnit::s: return "s";
  }
  return "ns";
}

model::Nanos nice_tick_step(double ns_per_px, double min_spacing_px) {
  const double want = ns_per_px * min_spacing_px;
  model::Nanos decade = 1;
  // 9.2e18 ns is the Nanos range; stop well before overflow.
  while (decade < 1'000'000'000'000'000'000LL) {
    for (const model::Nanos m : {1, 2, 5})
      if (static_cast<double>(m * decade) >= want) return m * decade;
    decade *= 10;
  }
  return decade;
}

TimeUnit unit_for_step(model::Nanos step) noexcept {
  const double ten = 10.0 * static_cast<double>(step);
  if (ten >= 1e9) return TimeUnit::s;
  if (ten >= 1e6) return TimeUnit::ms;
  if (ten >= 1e3) return TimeUnit::us;
  return TimeUnit::ns;
}

std::string format_tick(model::Nanos t, model::Nanos step) {
  if (t == 0) return "0";
  const TimeUnit u = unit_for_step(step);
  const double per = unit_ns(u);
  const int decimals = static_cast<double>(step) >= per ? 0 : 1;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, static_cast<double>(t) / per, unit_name(u));
  return buf;
}

std::vector<RulerTick> ruler_ticks(const TimelineView& view, double min_spacing_px) {
  std::vector<RulerTick> ticks;
  const model::Nanos step = nice_tick_step(view.ns_per_px(), min_spacing_px);
  // Mantissa 2 splits into 4 minor steps, 1 and 5 into 5; below 5 ns there are no whole-ns minors.
  const model::Nanos mantissa = step / static_cast<model::Nanos>(std::pow(10.0, std::floor(std::log10(static_cast<double>(step)))));
  const model::Nanos minor = step >= 5 ? step / (mantissa == 2 ? 4 : 5) : step;
  const auto first = static_cast<model::Nanos>(std::floor(view.start_ns() / static_cast<double>(minor))) * minor;
  for (model::Nanos t = first; static_cast<double>(t) <= view.end_ns(); t += minor) {
    if (static_cast<double>(t) < view.start_ns()) continue;
    RulerTick tick;
    tick.t = t;
    tick.x = static_cast<float>(view.x_of(static_cast<double>(t)));
    tick.major = t % step == 0;
    if (tick.major) tick.label = format_tick(t, step);
    ticks.push_back(std::move(tick));
  }
  return ticks;
}

std::string format_duration(double ns) {
  const double a = std::fabs(ns);
  TimeUnit u = TimeUnit::ns;
  if (a >= 999.5e6) u = TimeUnit::s;
  else if (a >= 999.5e3) u = TimeUnit::ms;
  else if (a >= 999.5) u = TimeUnit::us;
  const double v = ns / unit_ns(u);
  char buf[64];
  if (u == TimeUnit::ns) {
    std::snprintf(buf, sizeof buf, "%.0f ns", v);
  } else {
    const double av = std::fabs(v);
    const int decimals = av >= 99.95 ? 0 : (av >= 9.995 ? 1 : 2);
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, unit_name(u));
  }
  return buf;
}

std::string format_signed_duration(double ns) {
  if (ns == 0) return "0 ns";
  // Appending (not "+" + string&&) also keeps GCC 12's -Wrestrict false positive away.
  std::string out(ns > 0 ? "+" : "");
  out += format_duration(ns);
  return out;
}

}  // namespace streamlab::viz
