// HeapOptional: an Op's task list behaves as the std::optional it replaced (copies are deep, equality
// compares values), and an Op without one stays a pointer's size.
#include <gtest/gtest.h>

#include <optional>
#include <utility>
#include <vector>

#include "streamlab/model/heap_optional.hpp"
#include "streamlab/model/op.hpp"

namespace streamlab::model {
namespace {

TEST(HeapOptional, EmptyUntilAssignedThenHoldsTheValue) {
  HeapOptional<TaskList> t;
  EXPECT_FALSE(t);
  EXPECT_FALSE(t.has_value());
  EXPECT_THROW((void)t.value(), std::bad_optional_access);
  EXPECT_EQ(t.value_or(TaskList{{7}, TaskAssignment::static_index}).task_ns, std::vector<Nanos>{7});
  t = TaskList{{1, 2, 3}, TaskAssignment::static_index};
  ASSERT_TRUE(t);
  EXPECT_EQ(t->task_ns, (std::vector<Nanos>{1, 2, 3}));
  EXPECT_EQ((*t).assignment, TaskAssignment::static_index);
  EXPECT_EQ(t.value_or(TaskList{}).task_ns.size(), 3u);
  t->task_ns.push_back(4);  // assigning again keeps one value, changed in place
  const TaskList* before = &*t;
  t = TaskList{{9}, TaskAssignment::dynamic_queue};
  EXPECT_EQ(&*t, before);
  EXPECT_EQ(t->task_ns, std::vector<Nanos>{9});
  t = std::nullopt;
  EXPECT_FALSE(t);
  t.emplace(TaskList{{5}, TaskAssignment::dynamic_queue});
  EXPECT_EQ(t->task_ns, std::vector<Nanos>{5});
  t.reset();
  EXPECT_FALSE(t);
}

TEST(HeapOptional, CopiesAreDeepAndMovesTakeTheValue) {
  HeapOptional<TaskList> a = TaskList{{10, 20}, TaskAssignment::dynamic_queue};
  HeapOptional<TaskList> b = a;
  ASSERT_TRUE(b);
  EXPECT_NE(&*a, &*b);
  b->task_ns[0] = 11;
  EXPECT_EQ(a->task_ns[0], 10);
  a = b;
  EXPECT_EQ(a->task_ns[0], 11);
  EXPECT_NE(&*a, &*b);
  const HeapOptional<TaskList>& same = a;
  a = same;  // self-assignment keeps the value
  EXPECT_EQ(a->task_ns[0], 11);
  const TaskList* held = &*b;
  HeapOptional<TaskList> c = std::move(b);
  EXPECT_EQ(&*c, held);
  HeapOptional<TaskList> empty;
  c = empty;
  EXPECT_FALSE(c);
}

TEST(HeapOptional, EqualWhenBothEmptyOrBothHoldEqualValues) {
  HeapOptional<TaskList> none, other_none;
  EXPECT_EQ(none, other_none);
  HeapOptional<TaskList> x = TaskList{{1}, TaskAssignment::dynamic_queue};
  HeapOptional<TaskList> y = TaskList{{1}, TaskAssignment::dynamic_queue};
  EXPECT_EQ(x, y);
  EXPECT_NE(x, none);
  y->assignment = TaskAssignment::static_index;
  EXPECT_NE(x, y);
}

TEST(HeapOptional, OpsCopyAndCompareTheirTaskLists) {
  Op pool;
  pool.kind = OpKind::task_pool;
  pool.tasks = TaskList{{40, 10}, TaskAssignment::dynamic_queue};
  Op copy = pool;
  EXPECT_EQ(copy, pool);
  copy.tasks->task_ns[1] = 11;
  EXPECT_NE(copy, pool);
  EXPECT_EQ(pool.tasks->task_ns[1], 10);
  static_assert(sizeof(HeapOptional<TaskList>) == sizeof(void*));
}

}  // namespace
}  // namespace streamlab::model
