#pragma once
/// \file registry.hpp
/// The five policies by name, plus the parsers the CLI and experiment definitions share for their
/// configuration values.

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "streamlab/policies/policy.hpp"

namespace streamlab::policies {

/// "round-robin", "load-balanced", "priority", "workload-aware", "work-stealing": the five that decide
/// streams and order (on a program they see its DAG view, a what-if).
[[nodiscard]] std::span<const std::string_view> policy_names() noexcept;

/// The policy that issues a program exactly as written (Policy::replays_program); the default for
/// program workloads. Not among policy_names(): it decides nothing and refuses DAG workloads.
inline constexpr std::string_view kReplayPolicy = "replay";

/// The policy a workload runs under when none is named: replay for a program, else `dag_default`.
[[nodiscard]] std::string_view default_policy_for(const model::Workload& w, std::string_view dag_default) noexcept;

/// A fresh policy. Throws model::InputError (place "--policy") naming the known policies when `name`
/// is unknown, and (place "--streams") when config.streams is 0.
[[nodiscard]] std::unique_ptr<Policy> make_policy(std::string_view name, const PolicyConfig& config);

/// "critical=-5,high=-4,normal=-2,low=0,cleanup=0" (any subset; missing classes are spread). Throws
/// InputError (place "--priority-map") on an unknown class, a duplicate, or a value that is no integer.
[[nodiscard]] PriorityMap parse_priority_map(std::string_view text);
[[nodiscard]] std::string to_string(const PriorityMap& m);

/// "blocking", "non-blocking", "legacy" (the legacy NULL stream), "per-thread" (defined in model/).
using model::parse_stream_kind;
using model::to_string;

/// "honor", "ignore".
[[nodiscard]] std::optional<HintMode> parse_hint_mode(std::string_view text) noexcept;
[[nodiscard]] std::string_view to_string(HintMode m) noexcept;

/// "auto", "every-decision", "when-blocked".
[[nodiscard]] std::optional<PollMode> parse_poll_mode(std::string_view text) noexcept;
[[nodiscard]] std::string_view to_string(PollMode m) noexcept;

/// One line: "streams=4 window=0 kind=non-blocking hints=honor poll=auto priority-map=..." (trace
/// metadata and logs).
[[nodiscard]] std::string to_string(const PolicyConfig& c);

/// Resolved CUDA priority per class for a backend range {least, greatest}: explicit map entries win,
/// the others are spread evenly, critical on `greatest`, cleanup on `least`.
[[nodiscard]] std::array<int, 5> resolve_priorities(const PriorityMap& m, std::pair<int, int> range) noexcept;

}  // namespace streamlab::policies
