// Replay: a program's calls, in its order, on its streams, with its host gaps. Adds no call of its own
// between the program's calls (no completion events, no queries): completion of the whole run is one
// synchronize_device at the end, then finish().
#include "replay.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/program.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::policies::detail {
namespace {

using Clock = std::chrono::steady_clock;
using model::Nanos;
using model::OpIndex;
using model::OpKind;

std::string ms_text(Nanos ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

class Replay {
 public:
  Replay(Backend& be, const DispatchOptions& opt, const model::Workload& w) : be_(be), opt_(opt), w_(w) {}

  DispatchResult run() {
    const model::ProgramEvents events = model::program_events(w_);
    const auto [least, greatest] = be_.priority_range();
    be_.prepare(w_);
    create_streams(least, greatest);
    event_ids_.reserve(events.names.size());
    for (std::size_t e = 0; e < events.names.size(); ++e)
      event_ids_.push_back(be_.create_event(EventTiming::untimed));  // cudaEventDisableTiming, as sync-only events are

    // Trace time 0 is the start of the program: after its streams and events exist, before its first
    // host gap and call.
    const Nanos origin = be_.now();
    std::vector<model::Span> calls;
    calls.reserve(w_.ops.size());
    if (opt_.keep_log) result_.log.reserve(w_.ops.size());
    for (OpIndex i = 0; i < w_.ops.size(); ++i) {
      const model::Op& op = w_.ops[i];
      if (op.host_gap_ns > 0) be_.host_work(op.host_gap_ns);
      const auto c0 = opt_.measure_cpu ? Clock::now() : Clock::time_point{};
      const Nanos t0 = be_.now();
      call(i, events.of_op[i]);
      const Nanos t1 = be_.now();
      const std::uint32_t declared = op.stream_hint.value_or(0);
      calls.push_back(model::Span{i, op.id, std::string(model::cuda_call_name(op)), op.kind, 0, declared,
                                  model::Engine::host, t0, t1, true});
      auto& st = result_.stats;
      ++st.ops;
      st.coordination_ns += t1 - t0;
      const Nanos cpu = opt_.measure_cpu ? std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - c0).count() : 0;
      st.cpu_ns += cpu;
      if (opt_.keep_log) {
        Decision d;
        d.op = i;
        d.stream = stream_of(declared);
        d.logical_stream = logical_[declared];
        d.reason.code = ReasonCode::program;
        d.reason.a = declared;
        d.host_ns = t1 - t0;
        d.cpu_ns = cpu;
        result_.log.push_back(d);
      }
    }
    ++result_.stats.blocking_waits;
    if (be_.synchronize_device(opt_.timeout_ns) == WaitStatus::timed_out)
      throw DispatchTimeout(0, w_.ops.empty() ? std::string() : w_.ops.back().id,
                            opt_.source + ": timed out after " + ms_text(opt_.timeout_ns) +
                                " waiting for the device at the end of the program");
    if (opt_.on_complete)
      for (OpIndex i = 0; i < w_.ops.size(); ++i)
        if (model::does_device_work(w_.ops[i].kind)) opt_.on_complete(i);
    for (EventId e : event_ids_) be_.destroy_event(e);

    result_.trace = be_.finish();
    // Device spans carry backend stream ids; a program's trace speaks of its own stream ids.
    for (auto& s : result_.trace.spans)
      if (const auto it = declared_of_.find(s.stream); it != declared_of_.end()) s.stream = it->second;
    if (opt_.host_call_spans) result_.trace.spans.insert(result_.trace.spans.end(), calls.begin(), calls.end());
    for (auto& s : result_.trace.spans) {
      s.start_ns -= origin;
      s.end_ns -= origin;
    }
    for (auto& b : result_.trace.blocks) {
      b.start_ns -= origin;
      b.end_ns -= origin;
    }
    return std::move(result_);
  }

 private:
  void create_streams(int least, int greatest) {
    logical_[0] = static_cast<std::uint32_t>(w_.streams.size());  // the legacy lane
    streams_[0] = be_.legacy_default_stream();
    declared_of_[streams_[0].value()] = 0;
    for (std::uint32_t k = 0; k < w_.streams.size(); ++k) {
      const model::StreamDecl& d = w_.streams[k];
      StreamDesc desc;
      // As cudaStreamCreateWithPriority: a priority outside the device's range is clamped into it.
      desc.priority = std::clamp(d.priority, std::min(least, greatest), std::max(least, greatest));
      desc.kind = d.kind;
      desc.label = d.label.empty() ? "stream " + std::to_string(d.id) : d.label;
      const StreamId id = be_.create_stream(desc);
      ++result_.stats.streams_created;
      streams_[d.id] = id;
      logical_[d.id] = k;
      declared_of_[id.value()] = d.id;
      result_.streams.push_back(id);
    }
  }

  StreamId stream_of(std::uint32_t declared) const { return streams_.at(declared); }

  [[noreturn]] void timeout(OpIndex i, const std::string& what) const {
    const model::Op& op = w_.ops[i];
    throw DispatchTimeout(i, op.id,
                          opt_.source + ": timed out after " + ms_text(opt_.timeout_ns) + " in " +
                              std::string(model::cuda_call_name(op)) + " of op '" + op.id + "': " + what);
  }

  void wait(WaitStatus st, OpIndex i, const std::string& what) {
    ++result_.stats.blocking_waits;
    if (st == WaitStatus::timed_out) timeout(i, what);
  }

  void call(OpIndex i, std::uint32_t event) {
    const model::Op& op = w_.ops[i];
    const std::uint32_t declared = op.stream_hint.value_or(0);
    switch (op.kind) {
      case OpKind::event_record:
        be_.record_event(event_ids_[event], stream_of(declared));
        ++result_.stats.event_records;
        return;
      case OpKind::event_wait: be_.stream_wait_event(stream_of(declared), event_ids_[event]); return;
      case OpKind::stream_sync:
        wait(be_.synchronize_stream(stream_of(declared), opt_.timeout_ns), i,
             "stream " + std::to_string(declared) + " did not finish");
        return;
      case OpKind::event_sync:
        wait(be_.synchronize_event(event_ids_[event], opt_.timeout_ns), i, "event '" + op.event + "' did not complete");
        return;
      case OpKind::device_sync: wait(be_.synchronize_device(opt_.timeout_ns), i, "the device did not finish"); return;
      default: break;
    }
    // A blocking copy or memset returns once it is done: the backend's enqueue waits (Backend contract).
    be_.enqueue(stream_of(declared), i);
    if (op.blocking) ++result_.stats.blocking_waits;
  }

  Backend& be_;
  const DispatchOptions& opt_;
  const model::Workload& w_;
  DispatchResult result_;
  std::unordered_map<std::uint32_t, StreamId> streams_;          ///< declared id -> backend stream
  std::unordered_map<std::uint32_t, std::uint32_t> logical_;     ///< declared id -> position in result.streams
  std::unordered_map<std::uint32_t, std::uint32_t> declared_of_;  ///< backend stream value -> declared id
  std::vector<EventId> event_ids_;
};

}  // namespace

DispatchResult replay_program(Backend& backend, const Policy& policy, const DispatchOptions& options,
                              const model::Workload& program) {
  if (!program.program) {
    std::string others;
    for (auto n : policy_names()) others += (others.empty() ? "" : ", ") + std::string(n);
    throw model::InputError(options.source, "--policy", "",
                            "policy '" + std::string(policy.name()) + "' replays a program as written, and '" +
                                program.name + "' is a DAG (no \"program\": true); choose one of " + others);
  }
  return Replay(backend, options, program).run();
}

}  // namespace streamlab::policies::detail
