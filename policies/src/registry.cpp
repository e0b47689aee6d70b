// Policy names, configuration parsing and the human text of decision reasons.
#include "streamlab/policies/registry.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "policies_impl.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/units.hpp"

namespace streamlab::policies {

namespace {
constexpr std::array<std::string_view, 5> kNames{"round-robin", "load-balanced", "priority", "workload-aware",
                                                 "work-stealing"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::span<const std::string_view> policy_names() noexcept { return kNames; }

std::string_view default_policy_for(const model::Workload& w, std::string_view dag_default) noexcept {
  return w.program ? kReplayPolicy : dag_default;
}

std::unique_ptr<Policy> make_policy(std::string_view name, const PolicyConfig& config) {
  if (config.streams == 0) throw model::InputError("", "--streams", "", "a policy needs at least 1 stream");
  if (name == "round-robin") return detail::make_round_robin(config);
  if (name == "load-balanced") return detail::make_load_balanced(config);
  if (name == "priority") return detail::make_priority(config);
  if (name == "workload-aware") return detail::make_workload_aware(config);
  if (name == "work-stealing") return detail::make_work_stealing(config);
  if (name == kReplayPolicy) return detail::make_replay(config);
  std::string known(kReplayPolicy);
  for (auto n : kNames) known += ", " + std::string(n);
  throw model::InputError("", "--policy", "", "unknown policy '" + std::string(name) + "' (known: " + known + ")");
}

PriorityMap parse_priority_map(std::string_view text) {
  PriorityMap m;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw model::InputError("", "--priority-map", "",
                              "expected class=priority, got '" + std::string(item) + "'");
    }
    const auto cls_text = trim(item.substr(0, eq));
    const auto val_text = trim(item.substr(eq + 1));
    const auto cls = model::parse_priority(cls_text);
    if (!cls) {
      throw model::InputError("", "--priority-map", "",
                              "unknown priority class '" + std::string(cls_text) +
                                  "' (known: critical, high, normal, low, cleanup)");
    }
    int value = 0;
    const auto* first = val_text.data();
    const auto* last = val_text.data() + val_text.size();
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (val_text.empty() || ec != std::errc{} || ptr != last) {
      throw model::InputError("", "--priority-map", "",
                              "priority of '" + std::string(cls_text) + "' is not an integer: '" +
                                  std::string(val_text) + "'");
    }
    auto& slot = m.level[static_cast<std::size_t>(*cls)];
    if (slot) {
      throw model::InputError("", "--priority-map", "", "class '" + std::string(cls_text) + "' given twice");
    }
    slot = value;
  }
  return m;
}

std::string to_string(const PriorityMap& m) {
  std::string out;
  for (std::size_t i = 0; i < m.level.size(); ++i) {
    if (!m.level[i]) continue;
    if (!out.empty()) out += ',';
    out += model::to_string(static_cast<model::Priority>(i));
    out += '=';
    out += std::to_string(*m.level[i]);
  }
  return out.empty() ? "spread" : out;
}

std::optional<HintMode> parse_hint_mode(std::string_view t) noexcept {
  if (t == "honor") return HintMode::honor;
  if (t == "ignore") return HintMode::ignore;
  return std::nullopt;
}
std::string_view to_string(HintMode m) noexcept { return m == HintMode::honor ? "honor" : "ignore"; }
std::optional<PollMode> parse_poll_mode(std::string_view t) noexcept {
  if (t == "auto") return PollMode::automatic;
  if (t == "every-decision") return PollMode::every_decision;
  if (t == "when-blocked") return PollMode::when_blocked;
  return std::nullopt;
}
std::string_view to_string(PollMode m) noexcept {
  switch (m) {
    case PollMode::automatic: return "auto";
    case PollMode::every_decision: return "every-decision";
    case PollMode::when_blocked: return "when-blocked";
  }
  return "?";
}

std::string to_string(const PolicyConfig& c) {
  std::string out = "streams=" + std::to_string(c.streams) + " window=" + std::to_string(c.window) +
                    " kind=" + std::string(to_string(c.stream_kind)) + " hints=" + std::string(to_string(c.hints));
  if (c.legacy_hint) out += " legacy-hint=" + std::to_string(*c.legacy_hint);
  out += " poll=" + std::string(to_string(c.poll)) + " priority-map=" + to_string(c.priority_map);
  return out;
}

std::array<int, 5> resolve_priorities(const PriorityMap& m, std::pair<int, int> range) noexcept {
  // CUDA: numerically lower = higher priority; range = {least, greatest}, e.g. {0, -5}.
  const int least = range.first;
  const int greatest = range.second;
  std::array<int, 5> out{};
  for (std::size_t i = 0; i < 5; ++i) {
    if (m.level[i]) {
      out[i] = *m.level[i];
    } else {
      // Class i of 5 at fraction i/4 of the way from greatest (critical) to least (cleanup).
      const double v = greatest + (least - greatest) * (static_cast<double>(i) / 4.0);
      out[i] = static_cast<int>(std::lround(v));
    }
  }
  return out;
}

std::string_view to_string(StreamRole r) noexcept {
  switch (r) {
    case StreamRole::general: return "general";
    case StreamRole::priority_class: return "priority";
    case StreamRole::copy_h2d: return "copy-h2d";
    case StreamRole::copy_d2h: return "copy-d2h";
    case StreamRole::copy_d2d: return "copy-d2d";
    case StreamRole::compute: return "compute";
    case StreamRole::memory: return "memory";
    case StreamRole::mixed: return "mixed";
    case StreamRole::coordination: return "coordination";
  }
  return "?";
}

std::string describe(const Reason& r) {
  switch (r.code) {
    case ReasonCode::round_robin:
      return "round-robin: next stream " + std::to_string(r.a);
    case ReasonCode::least_outstanding:
      return "least outstanding work: " + model::format_duration(static_cast<double>(r.value)) + " (" + std::to_string(r.a) + " ops)";
    case ReasonCode::priority_class:
      return "priority " + std::string(model::to_string(static_cast<model::Priority>(r.a))) +
             " -> stream priority " + std::to_string(r.value);
    case ReasonCode::workload_class:
      return "class " + std::string(to_string(static_cast<StreamRole>(r.a))) + " stream " +
             std::to_string(r.b + 1) + "/" + std::to_string(r.c);
    case ReasonCode::local_queue:
      return "own queue (" + std::to_string(r.a) + " left)";
    case ReasonCode::stolen:
      return "stolen from tail of stream " + std::to_string(r.a) + " queue (" + std::to_string(r.b) + " left)";
    case ReasonCode::stream_hint:
      return "stream hint " + std::to_string(r.a);
    case ReasonCode::legacy_hint:
      return "stream hint " + std::to_string(r.a) + " -> legacy NULL stream";
    case ReasonCode::coordinator:
      return "registered on stream " + std::to_string(r.a);
    case ReasonCode::program:
      return r.a == 0 ? std::string("as written: legacy NULL stream") : "as written: program stream " + std::to_string(r.a);
  }
  return "?";
}

}  // namespace streamlab::policies
