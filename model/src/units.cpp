#include "streamlab/model/units.hpp"

#include <cmath>
#include <cstdio>

namespace streamlab::model {

std::string format_duration(double ns) {
  if (std::isnan(ns)) return "n/a";
  const double a = std::abs(ns);
  struct Unit { double per; const char* name; };
  static constexpr Unit kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
  Unit u = kUnits[3];
  for (const Unit& c : kUnits)
    if (a >= c.per) {
      u = c;
      break;
    }
  const double v = ns / u.per;
  // 4 significant digits, without trailing zeros; whole nanoseconds are the resolution.
  char buf[64];
  if (u.per == 1) {
    std::snprintf(buf, sizeof buf, "%.0f ns", v);
    return buf;
  }
  const double av = std::abs(v);
  const int decimals = av >= 100 ? 1 : av >= 10 ? 2 : 3;
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + " " + u.name;
}

std::string format_signed_duration(double ns) {
  const std::string s = format_duration(ns);
  return ns > 0 ? "+" + s : s;
}

}  // namespace streamlab::model
