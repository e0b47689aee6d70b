// Shared policy flags for the sim and run subcommands.
#include "policy_options.hpp"

#include <string>

#include "streamlab/model/errors.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::cli {

namespace {
std::string joined_policy_names() {
  std::string out;
  for (auto n : policies::policy_names()) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}
}  // namespace

policies::PolicyConfig PolicyOptions::config() const {
  policies::PolicyConfig c;
  if (streams == 0) throw model::InputError("", "--streams", "", "needs at least 1 stream");
  c.streams = streams;
  c.window = window;
  if (!priority_map.empty()) c.priority_map = policies::parse_priority_map(priority_map);
  auto kind = policies::parse_stream_kind(stream_kind);
  if (!kind) {
    throw model::InputError("", "--stream-kind", "",
                            "unknown stream kind '" + stream_kind +
                                "' (known: blocking, non-blocking, legacy, per-thread)");
  }
  c.stream_kind = *kind;
  auto h = policies::parse_hint_mode(hints);
  if (!h) throw model::InputError("", "--hints", "", "unknown hint mode '" + hints + "' (known: honor, ignore)");
  c.hints = *h;
  c.legacy_hint.reset();
  if (legacy_hint >= 0) c.legacy_hint = static_cast<std::uint32_t>(legacy_hint);
  auto p = policies::parse_poll_mode(poll);
  if (!p) {
    throw model::InputError("", "--poll", "",
                            "unknown poll mode '" + poll + "' (known: auto, every-decision, when-blocked)");
  }
  c.poll = *p;
  return c;
}

std::string PolicyOptions::policy_for(const model::Workload& w) const {
  return policy.empty() ? std::string(policies::default_policy_for(w, "round-robin")) : policy;
}

std::unique_ptr<policies::Policy> PolicyOptions::make(const model::Workload& w) const {
  return policies::make_policy(policy_for(w), config());
}

void add_policy_options(CLI::App& app, PolicyOptions& opts) {
  app.add_option("--policy", opts.policy,
                 "scheduling policy: " + joined_policy_names() + ", or " + std::string(policies::kReplayPolicy) +
                     " (a program as written); default: " + std::string(policies::kReplayPolicy) +
                     " for a program, round-robin for a DAG (on a program the others see its DAG view: a what-if)");
  app.add_option("--streams", opts.streams, "streams the policy creates (workload-aware: at least 7)")
      ->capture_default_str();
  app.add_option("--window", opts.window,
                 "max ops in flight per stream, 0 = unbounded (work-stealing uses 2 when 0)")
      ->capture_default_str();
  app.add_option("--priority-map", opts.priority_map,
                 "CUDA stream priority per class, e.g. critical=-5,high=-4,normal=-2,low=0,cleanup=0 "
                 "(unnamed classes are spread over the device's range)");
  app.add_option("--stream-kind", opts.stream_kind,
                 "kind of created streams: blocking, non-blocking, legacy (all on the legacy NULL "
                 "stream), per-thread (all on the per-thread default stream)")
      ->capture_default_str();
  app.add_option("--hints", opts.hints,
                 "op stream hints: honor (hint h >= 1 goes to stream (h-1) % streams, hinted ops in "
                 "workload order) or ignore")
      ->capture_default_str();
  app.add_option("--legacy-hint", opts.legacy_hint,
                 "ops hinted to this stream go to the legacy NULL stream (default 0, the workload format's meaning; -1: none)")
      ->capture_default_str();
  app.add_option("--poll", opts.poll,
                 "when to query completions: auto, every-decision, when-blocked")
      ->capture_default_str();
}

}  // namespace streamlab::cli
