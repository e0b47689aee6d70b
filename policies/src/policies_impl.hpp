#pragma once
// Factories of the five policies (registry.cpp maps names onto them).
#include <memory>

#include "streamlab/policies/policy.hpp"

namespace streamlab::policies::detail {
std::unique_ptr<Policy> make_round_robin(const PolicyConfig& c);
std::unique_ptr<Policy> make_load_balanced(const PolicyConfig& c);
std::unique_ptr<Policy> make_priority(const PolicyConfig& c);
std::unique_ptr<Policy> make_workload_aware(const PolicyConfig& c);
std::unique_ptr<Policy> make_work_stealing(const PolicyConfig& c);
std::unique_ptr<Policy> make_replay(const PolicyConfig& c);
}  // namespace streamlab::policies::detail
