// The operation coordinator: incremental registration, callbacks, deadlock detection, metrics, all
// through the Dispatcher on the FakeBackend.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "streamlab/model/errors.hpp"
#include "streamlab/policies/coordinator.hpp"
#include "streamlab/policies/fake_backend.hpp"

namespace sp = streamlab::policies;
namespace sm = streamlab::model;

namespace {
bool logged(const sp::FakeBackend& f, const std::string& needle) {
  for (const auto& l : f.call_log())
    if (l.find(needle) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST(Coordinator, RegisterRunCallbacksMetrics) {
  sp::OperationCoordinator c;  // workload-aware
  const auto load = c.register_operation(sm::OpKind::h2d, sm::Priority::high, sm::WorkloadType::memory, std::nullopt,
                                         {}, "Load input data");
  const auto gemm = c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute,
                                         std::nullopt, {load}, "Matrix multiplication");
  const auto note = c.register_operation(sm::OpKind::host_func, sm::Priority::low, sm::WorkloadType::coordination,
                                         std::nullopt, {gemm}, "Notify");
  std::vector<std::string> order;
  c.add_completion_callback(load, [&] { order.push_back("load"); });
  c.add_completion_callback(gemm, [&] { order.push_back("gemm"); });
  c.add_completion_callback(gemm, [&] { order.push_back("gemm again"); });
  EXPECT_TRUE(c.detect_deadlocks().empty());
  EXPECT_EQ(c.metrics().total_operations, 3u);
  EXPECT_EQ(c.metrics().completed_operations, 0u);

  sp::FakeBackend fake;
  const auto r = c.run(fake);
  ASSERT_EQ(r.log.size(), 3u);
  // Placed by workload type: the copy on the h2d stream, the kernel on compute, the host func on the
  // coordination stream, each waiting on the previous one.
  EXPECT_EQ(r.log[0].op, load.value());
  EXPECT_EQ(r.log[0].reason.code, sp::ReasonCode::workload_class);
  EXPECT_EQ(r.log[0].stream.value(), 1u);
  EXPECT_EQ(r.log[1].stream.value(), 5u);
  EXPECT_EQ(r.log[2].stream.value(), 4u);
  EXPECT_EQ(r.stats.waits_inserted, 2u);
  EXPECT_TRUE(fake.violations().empty());
  EXPECT_EQ(order, (std::vector<std::string>{"load", "gemm", "gemm again"}));
  EXPECT_TRUE(c.completed(note));
  const auto m = c.metrics();
  EXPECT_EQ(m.completed_operations, 3u);
  EXPECT_GT(m.average_coordination_ns, 0.0);
  EXPECT_EQ(m.deadlock_detections, 0u);
  EXPECT_EQ(m.waits_inserted, 2u);
  EXPECT_EQ(c.workload().ops[gemm.value()].name, "Matrix multiplication");
}

TEST(Coordinator, ExplicitStreamsKeepRegistrationOrder) {
  sp::OperationCoordinator c("round-robin", {});
  const auto a = c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, 2, {}, "a");
  const auto b = c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, 2, {}, "b");
  (void)c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, 0, {a, b}, "on NULL");
  sp::FakeBackend fake;
  const auto r = c.run(fake);
  EXPECT_EQ(r.log[0].stream.value(), 2u);
  EXPECT_EQ(r.log[1].stream.value(), 2u);
  EXPECT_EQ(r.log[2].stream.value(), 0u);  // stream 0 = the legacy NULL stream
  EXPECT_EQ(r.log[2].reason.code, sp::ReasonCode::legacy_hint);
  EXPECT_EQ(r.stats.waits_inserted, 1u);  // b implies a (same stream)
}

TEST(Coordinator, DependencyCycleDetectedAndRefused) {
  sp::OperationCoordinator c;
  const auto a = c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, {}, {}, "a");
  const auto b = c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, {}, {a}, "b");
  c.add_dependency(a, b);
  const auto d = c.detect_deadlocks();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(d[0].stream_order);
  EXPECT_EQ(d[0].ops.size(), 2u);
  EXPECT_EQ(c.metrics().deadlock_detections, 1u);
  sp::FakeBackend fake;
  EXPECT_THROW((void)c.run(fake), sm::InputError);
  EXPECT_EQ(fake.enqueue_count(), 0u);
  EXPECT_EQ(c.metrics().deadlock_detections, 2u);
}

TEST(Coordinator, StreamProgramCycleDetected) {
  // Stream 1: A then B; stream 2: C then D; C needs B, and (added later) A needs D.
  sp::OperationCoordinator c("round-robin", {});
  const auto A = c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, 1, {}, "A");
  const auto B = c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, 1, {}, "B");
  (void)c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, 2, {B}, "C");
  const auto D = c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, 2, {}, "D");
  EXPECT_TRUE(c.detect_deadlocks().empty());
  c.add_dependency(A, D);
  const auto d = c.detect_deadlocks();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(d[0].stream_order);
  EXPECT_EQ(d[0].ops.size(), 4u);
  sp::FakeBackend fake;
  try {
    (void)c.run(fake);
    FAIL() << "deadlock not refused";
  } catch (const sm::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos);
  }
  EXPECT_FALSE(logged(fake, "enqueue"));
}

TEST(Coordinator, BadRegistrationsAreInputErrors) {
  sp::OperationCoordinator c;
  EXPECT_THROW((void)c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, {},
                                          {sp::OperationId{7}}, "x"),
               sm::InputError);
  sp::OperationDesc d;
  d.op.id = "same";
  d.op.kind = sm::OpKind::h2d;
  (void)c.register_operation(d);
  EXPECT_THROW((void)c.register_operation(d), sm::InputError);
  EXPECT_THROW(c.add_completion_callback(sp::OperationId{9}, [] {}), sm::InputError);
  EXPECT_THROW(sp::OperationCoordinator("no-such-policy"), sm::InputError);
}

TEST(Coordinator, SecondRunTakesOnlyNewOperations) {
  sp::OperationCoordinator c;
  const auto a = c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, {}, {}, "a");
  {
    sp::FakeBackend fake;
    (void)c.run(fake);
  }
  (void)c.register_operation(sm::OpKind::kernel, sm::Priority::normal, sm::WorkloadType::compute, {}, {a}, "b");
  sp::FakeBackend fake;
  const auto r = c.run(fake);
  ASSERT_EQ(r.log.size(), 1u);
  EXPECT_EQ(r.log[0].op, 1u);  // the coordinator's index, not the run's
  EXPECT_EQ(r.stats.waits_inserted, 0u);  // a completed in the first run
  EXPECT_EQ(fake.enqueue_count(), 1u);
  EXPECT_EQ(c.metrics().completed_operations, 2u);
}
