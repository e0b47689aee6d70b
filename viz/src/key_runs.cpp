#include "streamlab/viz/key_runs.hpp"

namespace streamlab::viz {

namespace {
constexpr std::uint32_t kNoKey = 0xffffffffu;
constexpr std::size_t kMaxDigits = 18;  // below 2^64
}  // namespace

bool KeyRuns::split(std::string_view id, Split& out) noexcept {
  std::size_t start = id.size();
  while (start > 0 && id[start - 1] >= '0' && id[start - 1] <= '9') --start;
  const std::size_t digits = id.size() - start;
  if (digits == 0 || digits > kMaxDigits || (digits > 1 && id[start] == '0')) return false;
  std::uint64_t number = 0;
  for (std::size_t k = start; k < id.size(); ++k) number = number * 10 + static_cast<std::uint64_t>(id[k] - '0');
  out = Split{id.substr(0, start), number};
  return true;
}

const KeyRuns::Run* KeyRuns::run_of(std::string_view prefix) const noexcept {
  if (last_ < runs_.size() && runs_[last_].prefix == prefix) return &runs_[last_];
  const auto it = by_prefix_.find(prefix);
  if (it == by_prefix_.end()) return nullptr;
  last_ = it->second;
  return &runs_[last_];
}

std::uint32_t KeyRuns::find_any(std::string_view id) const noexcept {
  Split s;
  if (!split(id, s)) return kNoKey;
  const Run* run = run_of(s.prefix);
  if (run == nullptr || s.number < run->first_number || s.number - run->first_number >= run->count) return kNoKey;
  return run->first_key + static_cast<std::uint32_t>(s.number - run->first_number);
}

std::uint32_t KeyRuns::find_or_add(std::string_view id, model::Engine engine, std::uint32_t next) {
  Split s;
  if (!split(id, s)) return kNoKey;
  if (run_of(s.prefix) != nullptr) {
    Run& run = runs_[last_];  // the run found
    const std::uint64_t at = s.number - run.first_number;  // wraps below the run: past its end
    if (at < run.count) return run.engine == engine ? run.first_key + static_cast<std::uint32_t>(at) : kNoKey;
    // A new key continues its prefix's run only as its next id and key (so the run is the last one).
    if (at != run.count || engine != run.engine || next != run.first_key + run.count) return kNoKey;
    ++run.count;
    return next;
  }
  if (runs_.size() >= max_runs_) return kNoKey;
  by_prefix_.emplace(s.prefix, static_cast<std::uint32_t>(runs_.size()));
  runs_.push_back(Run{s.prefix, s.number, next, 1, engine});
  last_ = runs_.size() - 1;
  return next;
}

}  // namespace streamlab::viz
