#include "streamlab/viz/search.hpp"

#include <algorithm>
#include <string>

namespace streamlab::viz {

namespace {

char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool contains_nocase(std::string_view hay, std::string_view lowered_needle) noexcept {
  if (lowered_needle.size() > hay.size()) return false;
  const auto it = std::search(hay.begin(), hay.end(), lowered_needle.begin(), lowered_needle.end(),
                              [](char h, char n) { return lower(h) == n; });
  return it != hay.end();
}

}  // namespace

std::string_view op_name_of_key(const TraceSet& set, std::uint32_t key) noexcept {
  const auto [t, s] = set.any_span_of_key(key);
  return t == kNone ? std::string_view{} : std::string_view(set.trace(t).spans[s].name);
}

std::vector<std::uint32_t> search_ops(const TraceSet& set, std::string_view text) {
  std::vector<std::uint32_t> out;
  if (text.empty()) return out;
  std::string needle(text);
  std::transform(needle.begin(), needle.end(), needle.begin(), lower);
  for (std::uint32_t k = 0; k < set.op_key_count(); ++k) {
    if (contains_nocase(set.op_id_of_key(k), needle)) {
      out.push_back(k);
      continue;
    }
    // Names may differ between traces (a measurement names kernels as the driver reports them).
    for (TraceIndex t = 0; t < set.size(); ++t) {
      const auto s = set.span_of_key(t, k);
      if (s != kNone && contains_nocase(set.trace(t).spans[s].name, needle)) {
        out.push_back(k);
        break;
      }
    }
  }
  return out;
}

}  // namespace streamlab::viz
