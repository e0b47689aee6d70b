#pragma once
/// \file policy_options.hpp
/// The policy flags shared by `streamlab sim` and `streamlab run`, so both name and parse them the same
/// way: --policy, --streams, --window, --priority-map, --stream-kind, --hints, --legacy-hint, --poll.

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "streamlab/model/workload.hpp"
#include "streamlab/policies/policy.hpp"

namespace streamlab::cli {

/// Raw option storage (strings as typed, so errors can quote them).
struct PolicyOptions {
  /// Empty: `replay` for a program workload, round-robin for a DAG (policy_for()).
  std::string policy;
  std::uint32_t streams = 4;
  std::uint32_t window = 0;
  std::string priority_map;
  std::string stream_kind = "non-blocking";
  std::string hints = "honor";
  int legacy_hint = 0;  ///< -1: none
  std::string poll = "auto";

  /// Validated configuration; throws model::InputError naming the flag.
  [[nodiscard]] policies::PolicyConfig config() const;
  /// The policy named, or the default for this workload.
  [[nodiscard]] std::string policy_for(const model::Workload& w) const;
  /// make_policy(policy_for(w), config()); throws model::InputError naming the flag.
  [[nodiscard]] std::unique_ptr<policies::Policy> make(const model::Workload& w) const;
};

/// Adds the flags to `app`, storing into `opts` (keep it alive, e.g. through a shared_ptr captured by
/// the callback).
void add_policy_options(CLI::App& app, PolicyOptions& opts);

}  // namespace streamlab::cli
