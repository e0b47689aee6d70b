// OperationCoordinator: incremental registration on top of a Workload, run through the Dispatcher.
#include "streamlab/policies/coordinator.hpp"

#include <string>
#include <unordered_set>
#include <utility>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/stream_program.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::policies {

namespace {
constexpr const char* kSource = "<operation coordinator>";
}

struct OperationCoordinator::Impl {
  std::string policy_name;
  PolicyConfig config;
  model::Workload w;
  std::unordered_set<std::string> ids;
  std::vector<std::vector<std::function<void()>>> callbacks;
  std::vector<std::uint8_t> done;
  std::uint64_t completed = 0;
  std::uint64_t issued = 0;
  model::Nanos coordination_ns = 0;
  std::uint64_t deadlocks = 0;
  std::uint64_t waits_inserted = 0;
  std::uint64_t waits_implied = 0;

  void check_id(OperationId id, const char* what) const {
    if (!id.valid() || id.value() >= w.ops.size()) {
      throw model::InputError(kSource, what, "",
                              "operation " + std::to_string(id.value()) + " is not registered");
    }
  }

  /// Logical streams of the configured policy (layouts do not depend on the priority range).
  std::uint32_t lanes() const {
    auto p = make_policy(policy_name, config);
    return static_cast<std::uint32_t>(p->layout({0, -5}).size());
  }
};

OperationCoordinator::OperationCoordinator(std::string policy_name, PolicyConfig config)
    : impl_(std::make_unique<Impl>()) {
  impl_->policy_name = std::move(policy_name);
  impl_->config = config;
  impl_->config.hints = HintMode::honor;  // an explicit stream is a hint the Dispatcher must honour
  impl_->w.name = "coordinator";
  (void)make_policy(impl_->policy_name, impl_->config);  // unknown names fail here, not at run()
}
OperationCoordinator::~OperationCoordinator() = default;

OperationId OperationCoordinator::register_operation(OperationDesc desc) {
  auto& w = impl_->w;
  const auto index = static_cast<model::OpIndex>(w.ops.size());
  model::Op op = std::move(desc.op);
  // The op's texts may be borrowed from the caller: the workload keeps its own copies.
  op.id = op.id.empty() ? w.intern("op" + std::to_string(index)) : w.intern(op.id);
  op.event = w.intern(op.event);
  if (impl_->ids.count(op.id) != 0) {
    throw model::InputError(kSource, "register_operation", op.id, "an operation with this id is already registered");
  }
  if (!desc.description.empty())
    op.name = w.intern(desc.description);
  else
    op.name = op.name.empty() ? op.id : w.intern(op.name);
  op.stream_hint = desc.stream;
  std::vector<model::OpIndex> deps;
  for (OperationId d : desc.deps) {
    if (!d.valid() || d.value() >= index) {
      throw model::InputError(kSource, "register_operation", op.id,
                              "dependency " + std::to_string(d.value()) + " is not registered");
    }
    deps.push_back(d.value());
  }
  impl_->ids.insert(op.id);
  w.add_resolved(op, deps);
  impl_->callbacks.emplace_back();
  impl_->done.push_back(0);
  return OperationId{index};
}

OperationId OperationCoordinator::register_operation(model::OpKind kind, model::Priority priority,
                                                     model::WorkloadType type, std::optional<std::uint32_t> stream,
                                                     std::vector<OperationId> deps, std::string description) {
  OperationDesc d;
  d.op.kind = kind;
  d.op.priority = priority;
  d.op.type = type;
  if (model::runs_on_sms(kind)) {
    // No work description given: one block of one warp, no device time (a placeholder a user can time
    // with a real kernel on the CUDA backend).
    model::KernelShape shape;
    shape.block.x = 32;
    d.op.shape = shape;
  }
  d.stream = stream;
  d.deps = std::move(deps);
  d.description = std::move(description);
  return register_operation(std::move(d));
}

void OperationCoordinator::add_dependency(OperationId op, OperationId dep) {
  impl_->check_id(op, "add_dependency");
  impl_->check_id(dep, "add_dependency");
  auto& w = impl_->w;
  std::vector<model::OpIndex> deps(w.deps(op.value()).begin(), w.deps(op.value()).end());
  deps.push_back(dep.value());
  w.set_deps(op.value(), deps);
}

void OperationCoordinator::add_completion_callback(OperationId op, std::function<void()> fn) {
  impl_->check_id(op, "add_completion_callback");
  impl_->callbacks[op.value()].push_back(std::move(fn));
}

std::vector<Deadlock> OperationCoordinator::detect_deadlocks() {
  const auto& w = impl_->w;
  std::vector<Deadlock> out;
  auto to_ids = [](const model::Cycle& c) {
    std::vector<OperationId> ids;
    for (auto v : c.ops) ids.emplace_back(v);
    return ids;
  };
  // Dependency cycles first: with one, there is no stream program to speak of.
  for (const auto& c : model::find_cycles(model::Dag(w))) {
    out.push_back({to_ids(c), model::describe_cycle(w, c), false});
  }
  if (out.empty()) {
    const std::uint32_t lanes = impl_->lanes();
    model::StreamProgram prog;
    prog.streams.resize(lanes + 1);
    for (model::OpIndex v = 0; v < w.ops.size(); ++v) {
      if (w.ops[v].stream_hint) {
        const std::uint32_t h = *w.ops[v].stream_hint;
        // Same mapping as the Dispatcher: 0 = the legacy NULL stream (its own lane), else (h-1) % lanes.
        prog.streams[h == 0 ? lanes : (h - 1) % lanes].push_back(v);
      } else {
        prog.streams.push_back({v});
      }
    }
    for (const auto& c : model::find_stream_program_cycles(w, prog)) {
      out.push_back({to_ids(c), model::describe_cycle(w, c) + " (closed by stream order)", true});
    }
  }
  if (!out.empty()) ++impl_->deadlocks;
  return out;
}

DispatchResult OperationCoordinator::run(Backend& backend, DispatchOptions options) {
  const auto deadlocks = detect_deadlocks();
  if (!deadlocks.empty()) {
    std::string what = "deadlock: " + std::to_string(deadlocks.size()) + " cycle(s)";
    for (std::size_t i = 0; i < deadlocks.size(); ++i)
      what += "; cycle " + std::to_string(i + 1) + ": " + deadlocks[i].description;
    throw model::InputError(kSource, "", "", what);
  }
  auto& im = *impl_;
  // Ops completed by an earlier run are done: this run takes the rest, their deps on done ops dropped.
  model::Workload sub;
  sub.share_strings(im.w);
  sub.name = im.w.name;
  std::vector<model::OpIndex> to_sub(im.w.ops.size(), 0), to_full;
  for (model::OpIndex v = 0; v < im.w.ops.size(); ++v) {
    if (im.done[v]) continue;
    to_sub[v] = static_cast<model::OpIndex>(to_full.size());
    to_full.push_back(v);
  }
  std::vector<model::OpIndex> deps;
  for (model::OpIndex v : to_full) {
    deps.clear();
    for (model::OpIndex d : im.w.deps(v))
      if (!im.done[d]) deps.push_back(to_sub[d]);
    sub.add_resolved(im.w.ops[v], deps);
  }
  if (options.source == DispatchOptions{}.source) options.source = kSource;
  model::resolve_and_check(sub, options.source);  // the same rules as a workload file (shapes, ...)
  CompletionCallback user = std::move(options.on_complete);
  options.on_complete = [&im, &to_full, user](model::OpIndex sub_op) {
    const model::OpIndex v = to_full[sub_op];
    if (!im.done[v]) {
      im.done[v] = 1;
      ++im.completed;
    }
    for (auto& fn : im.callbacks[v]) fn();
    if (user) user(v);
  };
  auto policy = make_policy(im.policy_name, im.config);
  DispatchResult r = Dispatcher(backend, *policy, std::move(options)).run(sub);
  im.issued += r.stats.ops;
  im.coordination_ns += r.stats.coordination_ns;
  im.waits_inserted += r.stats.waits_inserted;
  im.waits_implied += r.stats.waits_implied;
  // The log speaks the sub-workload's indices; give the caller the coordinator's.
  for (auto& d : r.log) d.op = to_full[d.op];
  for (auto& wt : r.waits) wt.producer = to_full[wt.producer];
  for (auto& s : r.trace.spans) s.op = to_full[s.op];
  return r;
}

CoordinatorMetrics OperationCoordinator::metrics() const noexcept {
  CoordinatorMetrics m;
  m.total_operations = impl_->w.ops.size();
  m.completed_operations = impl_->completed;
  m.average_coordination_ns =
      impl_->issued == 0 ? 0.0 : static_cast<double>(impl_->coordination_ns) / static_cast<double>(impl_->issued);
  m.deadlock_detections = impl_->deadlocks;
  m.waits_inserted = impl_->waits_inserted;
  m.waits_implied = impl_->waits_implied;
  return m;
}

const model::Workload& OperationCoordinator::workload() const noexcept { return impl_->w; }

bool OperationCoordinator::completed(OperationId op) const {
  impl_->check_id(op, "completed");
  return impl_->done[op.value()] != 0;
}

}  // namespace streamlab::policies
