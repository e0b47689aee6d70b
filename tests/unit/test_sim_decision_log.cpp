// The one contract, checked across backends: the same policy, workload and completion order give the
// same decision log on the simulator's backend as on the recording fake (the GPU half of this check is
// tests/gpu/test_backend.cpp, DecisionLogMatchesTheFakeBackendForTheSameCompletionOrder).
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/fake_backend.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace model = streamlab::model;
namespace pol = streamlab::policies;
namespace sim = streamlab::sim;

namespace {

void add_kernel(model::Workload& w, const std::string& id, model::Nanos ns, std::vector<std::string> deps = {},
                model::Priority prio = model::Priority::normal) {
  model::Op o;
  o.id = o.name = model::Text::borrow(id);  // add() keeps a copy
  o.kind = model::OpKind::kernel;
  o.priority = prio;
  o.shape = model::KernelShape{{1, 1, 1}, {64, 1, 1}, 32, 0};
  o.duration = model::FixedPerBlock{ns};
  w.add(o, deps);
}

/// Independent kernels of well-separated lengths (no two completions coincide), then a join.
model::Workload separated() {
  model::Workload w;
  w.name = "separated";
  for (int i = 0; i < 9; ++i) {
    const auto prio = static_cast<model::Priority>(i % 5);
    std::string id = std::to_string(i);
    id.insert(0, 1, 'k');
    add_kernel(w, id, 1'500'000 + 900'000 * ((i * 5) % 9), {}, prio);
  }
  add_kernel(w, "join", 10'000, {"k0", "k4", "k8"});
  model::resolve_and_check(w, "<test>");
  return w;
}

std::vector<model::OpIndex> completion_order(const model::Trace& t) {
  std::vector<model::Span> spans = t.spans;
  std::sort(spans.begin(), spans.end(), [](const model::Span& a, const model::Span& b) {
    return a.end_ns != b.end_ns ? a.end_ns < b.end_ns : a.op < b.op;
  });
  std::vector<model::OpIndex> order;
  for (const auto& s : spans) order.push_back(s.op);
  return order;
}

}  // namespace

TEST(SimDecisionLog, MatchesTheFakeBackendForTheSameCompletionOrder) {
  const model::Workload w = separated();
  const model::DeviceProfile profile = model::bundled_h100_profile();
  for (const std::string name : {"round-robin", "load-balanced", "priority", "workload-aware", "work-stealing"}) {
    pol::PolicyConfig cfg;
    cfg.streams = 3;
    cfg.window = 2;
    sim::SimBackend simulated(profile);
    auto p1 = pol::make_policy(name, cfg);
    const pol::DispatchResult rs = pol::dispatch(simulated, w, *p1);
    ASSERT_EQ(rs.trace.spans.size(), w.ops.size()) << name;

    pol::FakeOptions fo;
    fo.completion = pol::FakeCompletion::scripted;
    fo.script = completion_order(rs.trace);
    fo.priority_range = simulated.priority_range();
    pol::FakeBackend fake(fo);
    auto p2 = pol::make_policy(name, cfg);
    const pol::DispatchResult rf = pol::dispatch(fake, w, *p2);
    const std::string log = pol::format_decision_log(w, rs);
    EXPECT_EQ(log, pol::format_decision_log(w, rf)) << "policy " << name;
    EXPECT_FALSE(log.empty());
    EXPECT_TRUE(fake.violations().empty()) << name;
  }
}
