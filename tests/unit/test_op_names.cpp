#include <gtest/gtest.h>

#include "streamlab/model/op.hpp"

using namespace streamlab::model;

TEST(OpNames, EveryKindRoundTrips) {
  for (auto k : {OpKind::kernel, OpKind::h2d, OpKind::d2h, OpKind::d2d, OpKind::memset, OpKind::prefetch,
                 OpKind::host_func, OpKind::barrier, OpKind::task_pool}) {
    auto parsed = parse_op_kind(to_string(k));
    ASSERT_TRUE(parsed.has_value()) << to_string(k);
    EXPECT_EQ(*parsed, k);
  }
  EXPECT_FALSE(parse_op_kind("kernal").has_value());
}

TEST(OpNames, PrioritiesTypesAndAssignmentsRoundTrip) {
  for (auto p : {Priority::critical, Priority::high, Priority::normal, Priority::low, Priority::cleanup})
    EXPECT_EQ(parse_priority(to_string(p)), p);
  for (auto t : {WorkloadType::compute, WorkloadType::memory, WorkloadType::mixed, WorkloadType::coordination})
    EXPECT_EQ(parse_workload_type(to_string(t)), t);
  EXPECT_EQ(parse_task_assignment("static"), TaskAssignment::static_index);
  EXPECT_EQ(parse_task_assignment("dynamic"), TaskAssignment::dynamic_queue);
  EXPECT_EQ(parse_host_memory("pageable"), HostMemory::pageable);
}
