#pragma once
// The replay of a program workload (the `replay` policy): the Dispatcher's second loop. Private to
// policies/; dispatcher.hpp documents what it does.
#include "streamlab/policies/dispatcher.hpp"

namespace streamlab::policies::detail {

/// Issues `program` exactly as written on `backend`; throws model::InputError for a DAG workload.
[[nodiscard]] DispatchResult replay_program(Backend& backend, const Policy& policy, const DispatchOptions& options,
                                            const model::Workload& program);

}  // namespace streamlab::policies::detail
