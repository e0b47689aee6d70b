#include "streamlab/experiments/workload_order_policy.hpp"

#include <set>
#include <string>

#include "streamlab/experiments/experiment.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::experiments {

namespace {

class WorkloadOrder final : public policies::Policy {
 public:
  explicit WorkloadOrder(const policies::PolicyConfig& c) : config_(c) {
    if (config_.streams == 0) throw model::InputError("", "--streams", "", "workload-order needs at least one stream");
    // The Dispatcher must not place hinted ops itself: this policy is the one that reads the hints.
    config_.hints = policies::HintMode::ignore;
    config_.legacy_hint.reset();
  }
  [[nodiscard]] std::string_view name() const noexcept override { return kWorkloadOrderPolicy; }
  [[nodiscard]] const policies::PolicyConfig& config() const noexcept override { return config_; }
  [[nodiscard]] bool is_static() const noexcept override { return true; }

  std::vector<policies::StreamSlot> layout(std::pair<int, int>) override {
    std::vector<policies::StreamSlot> out(config_.streams);
    for (std::uint32_t i = 0; i < config_.streams; ++i) {
      out[i].desc.kind = config_.stream_kind;
      out[i].desc.label = "wo" + std::to_string(i);
    }
    return out;
  }
  void begin(const policies::HostView& v) override {
    workload_ = &v.workload();
    ready_.clear();
  }
  void on_ready(model::OpIndex op) override { ready_.insert(op); }
  std::optional<policies::Choice> choose(const policies::HostView& v) override {
    if (ready_.empty()) return std::nullopt;
    const model::OpIndex op = *ready_.begin();
    const auto& hint = workload_->ops[op].stream_hint;
    // Hints are 1-based (the workload convention; 0 would be the legacy NULL stream, which this policy
    // does not model: it goes to stream 0 like an unhinted op).
    const std::uint32_t s = hint && *hint > 0 ? (*hint - 1) % config_.streams : 0;
    // A static policy waits for room on its stream rather than reordering (windows only delay).
    if (!v.has_room(s)) return std::nullopt;
    ready_.erase(ready_.begin());
    policies::Choice c{op, s, {}};
    c.reason.code = hint ? policies::ReasonCode::stream_hint : policies::ReasonCode::round_robin;
    c.reason.a = hint ? *hint : s;
    return c;
  }

 private:
  policies::PolicyConfig config_;
  const model::Workload* workload_ = nullptr;
  std::set<model::OpIndex> ready_;  // smallest index = first in the workload
};

}  // namespace

std::unique_ptr<policies::Policy> make_workload_order_policy(const policies::PolicyConfig& config) {
  return std::make_unique<WorkloadOrder>(config);
}

std::unique_ptr<policies::Policy> make_experiment_policy(std::string_view name, const policies::PolicyConfig& config) {
  if (name == kWorkloadOrderPolicy) return make_workload_order_policy(config);
  return policies::make_policy(name, config);
}

}  // namespace streamlab::experiments
