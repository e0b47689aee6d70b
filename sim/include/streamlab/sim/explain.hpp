#pragma once
/// \file explain.hpp
/// Why an op started when it did. The simulator records, per op, the moment each stage of its life ended
/// (issued by the host, arrived at the device, prerequisites met, left its hardware queue, started on its
/// engine, ended) and, for each wait between stages, the one thing that held it last: the binding
/// constraint. `streamlab sim --explain OP` prints it.

#include <cstdint>
#include <string>
#include <string_view>

#include "streamlab/model/op.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::sim {

inline constexpr std::uint32_t kNoRef = 0xffffffffu;

/// What held an op.
enum class Cause : std::uint8_t {
  none,              ///< nothing: the stage followed at once
  host_issue,        ///< the command reached the device only at `at` (host issue + launch latency)
  stream_order,      ///< the previous command of the same stream finished at `at`
  event_wait,        ///< a stream_wait_event's record completed (+ event_wait_latency) at `at`
  legacy_barrier,    ///< implicit legacy-default-stream synchronization: a command of another stream
  connection_queue,  ///< the hardware queue (CUDA_DEVICE_MAX_CONNECTIONS) was blocked by the head command
  copy_engine,       ///< the copy engine for this direction was busy with another copy
  sm_room,           ///< no SM had room for a block until a block of another kernel finished
  resident_grids,    ///< the resident-grid limit was reached until another grid finished
  earlier_kernel,    ///< blocks dispatch in order: an earlier kernel still had blocks to place
  higher_priority,   ///< a kernel of a higher-priority stream had blocks to place first
  host_worker,       ///< the host-callback thread was running another host function
};
[[nodiscard]] std::string_view to_string(Cause c) noexcept;

/// What kind of command a Blocker refers to.
enum class RefKind : std::uint8_t { none, op, record, wait, callback };

/// One binding constraint: the cause, when it was lifted, and the command behind it.
struct Blocker {
  Cause cause = Cause::none;
  model::Nanos at = 0;
  RefKind what = RefKind::none;
  std::uint32_t op = kNoRef;      ///< the op itself (what == op), or the op before a record/wait
  std::uint32_t stream = kNoRef;  ///< stream of the referenced command
  std::uint32_t event = kNoRef;   ///< event of a record or wait
  friend bool operator==(const Blocker&, const Blocker&) = default;
};

/// The life of one op in the simulator.
struct OpExplanation {
  model::OpIndex op = 0;
  std::uint32_t stream = 0;
  std::uint32_t queue = 0;   ///< hardware connection (stream id mod connections)
  bool copy_queue = false;   ///< a copy: `queue` is in the copy connections' pool
  model::Nanos issued = 0;   ///< host time at the end of the issuing call
  model::Nanos arrived = 0;  ///< command visible to the device (issued + launch latency)
  model::Nanos ready = 0;    ///< every prerequisite met (arrival, stream order, waits, barrier)
  model::Nanos dequeued = 0; ///< left its hardware queue
  model::Nanos started = 0;  ///< began on its engine (first block for kernels)
  model::Nanos ended = 0;
  Blocker ready_by;     ///< the prerequisite met last
  Blocker dequeued_by;  ///< the queue head it waited behind (cause none when it left at once)
  Blocker started_by;   ///< the engine it waited for (cause none when it started at once)
  bool valid = false;   ///< false for ops that were never issued
};

/// Several lines a person can read, e.g.
///   op 'k2' (kernel) on stream 2, compute queue 2
///     issued by the host at 3.000 us, at the device 5.000 us
///     ready at 13.000 us: stream order: op 'k1' (stream 2) finished at 13.000 us
///     started at 13.000 us, ended at 23.000 us (10.000 us)
[[nodiscard]] std::string format_explanation(const model::Workload& w, const OpExplanation& e);

}  // namespace streamlab::sim
