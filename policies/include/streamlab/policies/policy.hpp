#pragma once
/// \file policy.hpp
/// A scheduling policy decides which ready op the host issues next and onto which of its streams. It sees
/// only what a real host thread can see (HostView): the ready ops and their attributes, per-stream
/// outstanding work (issued minus observed-complete), duration estimates from the device profile, and
/// the completions the Dispatcher has observed through the Backend. It never sees device time.
///
/// Policies work on *logical* streams 0..layout().size()-1; the Dispatcher maps them onto backend
/// StreamIds (several logical streams collapse onto one when the configured kind is the legacy NULL
/// stream or the per-thread default stream).

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamlab/model/op.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/backend.hpp"

namespace streamlab::policies {

/// Explicit CUDA stream priority per priority class (index = model::Priority). An empty entry means
/// "spread the five classes evenly over the backend's priority_range(), critical highest".
struct PriorityMap {
  std::array<std::optional<int>, 5> level{};
  friend bool operator==(const PriorityMap&, const PriorityMap&) = default;
};

/// How the Dispatcher treats Op::stream_hint.
enum class HintMode : std::uint8_t {
  /// Hints follow the workload format's convention: 1-based, 0 = CUDA's legacy NULL stream. A hinted
  /// op goes, without asking the policy, to the legacy NULL stream when its hint equals
  /// PolicyConfig::legacy_hint (0 by default), else to logical stream `(hint - 1) % streams` (hint 0
  /// with legacy_hint unset: logical stream 0). Ops hinted to the same stream are issued in workload
  /// order: the hints *are* a stream program, which the deadlock check verifies before anything is
  /// issued.
  honor,
  /// Hints are ignored; the policy places every op.
  ignore,
};

/// When the Dispatcher queries the backend for completions (each query costs host time on a real GPU
/// and in the simulator, so this is an experimental knob, not a detail).
enum class PollMode : std::uint8_t {
  automatic,       ///< every_decision for policies that use feedback, when_blocked for static ones
  every_decision,  ///< before each decision: one query per busy stream (its oldest unobserved op)
  when_blocked,    ///< only when nothing can be issued (window full) or an event must be recycled
};

/// Everything a policy can be configured with, from the CLI (cli/policy_options.hpp) or an experiment.
struct PolicyConfig {
  /// Streams the policy creates (workload-aware raises it to its minimum of 7 classes).
  std::uint32_t streams = 4;
  /// Maximum ops in flight (issued, completion not yet observed) per stream; 0 = unbounded.
  /// Work-stealing needs a bound and uses 2 when this is 0.
  std::uint32_t window = 0;
  PriorityMap priority_map;
  /// Kind of the streams the Dispatcher creates. legacy_default: no stream is created and every logical
  /// stream is the legacy NULL stream (StreamId{0}); per_thread_default: one per-thread default stream
  /// is requested and every logical stream maps onto it. blocking / non_blocking: one stream each.
  StreamKind stream_kind = StreamKind::non_blocking;
  HintMode hints = HintMode::honor;
  /// Ops whose stream_hint equals this value go to the legacy NULL stream (StreamId{0}) instead of a
  /// created stream (experiment E5: "these ops on the legacy default stream"). Only with HintMode::honor.
  /// 0 by default, the workload format's meaning of hint 0; unset = no op goes there by hint.
  std::optional<std::uint32_t> legacy_hint = 0;
  PollMode poll = PollMode::automatic;
  friend bool operator==(const PolicyConfig&, const PolicyConfig&) = default;
};

/// What a logical stream is for (workload-aware and priority policies; shows in labels and reasons).
enum class StreamRole : std::uint8_t {
  general,
  priority_class,
  copy_h2d,
  copy_d2h,
  copy_d2d,
  compute,
  memory,
  mixed,
  coordination,
};
[[nodiscard]] std::string_view to_string(StreamRole) noexcept;

/// One stream a policy asks for.
struct StreamSlot {
  StreamDesc desc;
  StreamRole role = StreamRole::general;
};

/// Why an op went where it went, kept compact (no strings) so deciding costs no allocation; turned into
/// text by describe() only when a log is printed.
enum class ReasonCode : std::uint8_t {
  round_robin,        ///< a = stream picked
  least_outstanding,  ///< value = outstanding estimated ns on the stream, a = outstanding ops
  priority_class,     ///< a = model::Priority, value = CUDA stream priority
  workload_class,     ///< a = StreamRole, b = position among that class's streams, c = class size
  local_queue,        ///< work-stealing: own queue; a = ops left in it
  stolen,             ///< work-stealing: a = victim logical stream, b = ops left in the victim's queue
  stream_hint,        ///< a = the hint
  legacy_hint,        ///< a = the hint, mapped onto the legacy NULL stream
  coordinator,        ///< operation coordinator: the stream the user named
  program,            ///< replay: the program's own stream; a = its declared id (0 = legacy NULL)
};

struct Reason {
  ReasonCode code = ReasonCode::round_robin;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t c = 0;
  std::int64_t value = 0;
  friend bool operator==(const Reason&, const Reason&) = default;
};

/// "least outstanding work: 12.3 us (3 ops)", "priority critical -> stream priority -5", ...
[[nodiscard]] std::string describe(const Reason& r);

/// A policy's answer: issue `op` on logical stream `stream`.
struct Choice {
  model::OpIndex op = 0;
  std::uint32_t stream = 0;
  Reason reason;
};

/// Read-only view of the host's knowledge, owned by the Dispatcher. Cheap accessors (no virtual calls).
class HostView {
 public:
  HostView() = default;

  [[nodiscard]] const model::Workload& workload() const noexcept { return *workload_; }
  [[nodiscard]] const model::Op& op(model::OpIndex i) const noexcept { return workload_->ops[i]; }
  /// Estimated duration of op i from the device profile (model::estimate_duration).
  [[nodiscard]] model::Nanos estimate(model::OpIndex i) const noexcept { return estimates_[i]; }
  [[nodiscard]] std::uint32_t stream_count() const noexcept {
    return static_cast<std::uint32_t>(outstanding_ops_.size());
  }
  /// Ops issued on logical stream s whose completion the host has not observed yet.
  [[nodiscard]] std::uint32_t outstanding_ops(std::uint32_t s) const noexcept { return outstanding_ops_[s]; }
  /// Sum of estimates over those ops.
  [[nodiscard]] model::Nanos outstanding_ns(std::uint32_t s) const noexcept { return outstanding_ns_[s]; }
  /// The in-flight window (0 = unbounded) and whether logical stream s may take another op now.
  [[nodiscard]] std::uint32_t window() const noexcept { return window_; }
  [[nodiscard]] bool has_room(std::uint32_t s) const noexcept {
    return window_ == 0 || outstanding_ops_[s] < window_;
  }

 private:
  friend class Dispatcher;
  const model::Workload* workload_ = nullptr;
  std::span<const model::Nanos> estimates_;
  std::span<const std::uint32_t> outstanding_ops_;
  std::span<const model::Nanos> outstanding_ns_;
  std::uint32_t window_ = 0;
};

/// The interface every policy implements. A run: layout() once, begin(), then on_ready() / choose() /
/// on_issued() / on_completed() as the Dispatcher's loop goes. Ops the Dispatcher places itself (stream
/// hints) are never offered through on_ready(), but are still reported through on_issued().
class Policy {
 public:
  virtual ~Policy() = default;
  Policy() = default;
  Policy(const Policy&) = delete;
  Policy& operator=(const Policy&) = delete;

  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  [[nodiscard]] virtual const PolicyConfig& config() const noexcept = 0;

  /// True when the sequence of choices depends only on the workload and the order of on_ready() calls,
  /// never on completions or windows (a full window only delays). The Dispatcher then plans the whole
  /// stream program first, checks it for deadlock, and issues it.
  [[nodiscard]] virtual bool is_static() const noexcept = 0;
  /// True for the replay policy: the Dispatcher then issues a program workload exactly as written (its
  /// streams, order, host gaps, syncs and event pairs) and asks the policy nothing.
  [[nodiscard]] virtual bool replays_program() const noexcept { return false; }
  /// True when choices read outstanding work, so fresh completion observations matter.
  [[nodiscard]] virtual bool uses_feedback() const noexcept { return !is_static(); }
  /// The in-flight window per stream the Dispatcher enforces (0 = unbounded); config().window unless
  /// the policy needs a bound (work-stealing).
  [[nodiscard]] virtual std::uint32_t window() const noexcept { return config().window; }

  /// The logical streams this policy needs. `priority_range` is the backend's {least, greatest}.
  [[nodiscard]] virtual std::vector<StreamSlot> layout(std::pair<int, int> priority_range) = 0;
  /// Start of a run (after layout()); forget all state of a previous run.
  virtual void begin(const HostView& view) = 0;
  /// Op became ready: all its deps are issued. Called in a deterministic order.
  virtual void on_ready(model::OpIndex op) = 0;
  /// Pick the next op and its stream, or nullopt when nothing can be issued now (for example every
  /// stream it would use is at its window): the Dispatcher then blocks until a completion.
  [[nodiscard]] virtual std::optional<Choice> choose(const HostView& view) = 0;
  /// The op choose() will most likely return `k` choices from now (0: the next), when the policy can tell
  /// cheaply, else kNoUpcoming. Only a hint that changes no decision: ops are issued in no index order, so
  /// each one's state lies in cold memory, and the Dispatcher asks for it a few choices ahead.
  [[nodiscard]] virtual model::OpIndex upcoming(std::size_t /*k*/) const noexcept { return kNoUpcoming; }
  static constexpr model::OpIndex kNoUpcoming = 0xffffffffu;
  /// Op was issued on logical stream `stream` (by this policy's choice or by a stream hint).
  virtual void on_issued(model::OpIndex /*op*/, std::uint32_t /*stream*/) {}
  /// The host observed that op completed.
  virtual void on_completed(model::OpIndex /*op*/, std::uint32_t /*stream*/) {}
};

}  // namespace streamlab::policies
