// Replay: a program's calls, in its order, on its streams, with its host gaps. Adds no call of its own
// between the program's calls (no completion events, no queries): completion of the whole run is one
// synchronize_device at the end, then finish().
#include "replay.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/program.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::policies::detail {
namespace {

using model::Nanos;
using model::OpIndex;
using model::OpKind;

/// When one call of the program started and returned (backend host clock).
struct CallTimes {
  Nanos start = 0;
  Nanos end = 0;
};

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
    // Everything a call needs is looked up now, so the loop between two calls does only what a program's
    // own code would: read the next call and make it.
    const std::size_t n = w_.ops.size();
    op_stream_.reserve(n);
    for (const model::Op& op : w_.ops) op_stream_.push_back(stream_of(op.stream_hint.value_or(0)));
    std::vector<CallTimes> times(n);  // touched now, not on the first write inside the timed loop
    if (opt_.keep_log) result_.log.reserve(n);
    // A program makes its streams and events, then its device is idle before its first call: the plain
    // programs synchronize after creating theirs, and so does the replay, before time 0.
    ++result_.stats.blocking_waits;
    if (be_.synchronize_device(opt_.timeout_ns) == WaitStatus::timed_out)
      throw DispatchTimeout(0, n == 0 ? std::string() : w_.ops.front().id,
                            opt_.source + ": timed out after " + ms_text(opt_.timeout_ns) +
                                " waiting for the device before the program's first call");

    // Trace time 0 is the start of the program: after its streams and events exist, before its first
    // host gap and call. One clock read per call and nothing else: the read after a call is also the
    // next call's start unless a host gap lies between them (then the gap's end is read too), so a call's
    // span includes the loop's few instructions that fetch it. Spans and log entries are made after the
    // last call.
    Nanos t = be_.now();
    const Nanos origin = t;
    for (OpIndex i = 0; i < n; ++i) {
      const model::Op& op = w_.ops[i];
      if (op.host_gap_ns > 0) {
        be_.host_work(op.host_gap_ns);
        t = be_.now();
      }
      times[i].start = t;
      call(i, events.of_op[i]);
      t = be_.now();
      times[i].end = t;
    }
    auto& st = result_.stats;
    for (OpIndex i = 0; i < n; ++i) {
      ++st.ops;
      st.coordination_ns += times[i].end - times[i].start;
      if (!opt_.keep_log) continue;
      const std::uint32_t declared = w_.ops[i].stream_hint.value_or(0);
      Decision d;
      d.op = i;
      d.stream = op_stream_[i];
      d.logical_stream = logical_[declared];
      d.reason.code = ReasonCode::program;
      d.reason.a = declared;
      d.host_ns = times[i].end - times[i].start;
      d.cpu_ns = 0;  // the replay decides nothing: the call's whole host time is the program's own call
      result_.log.push_back(d);
    }
    ++result_.stats.blocking_waits;
    if (be_.synchronize_device(opt_.timeout_ns) == WaitStatus::timed_out)
      throw DispatchTimeout(0, w_.ops.empty() ? std::string() : w_.ops.back().id,
                            opt_.source + ": timed out after " + ms_text(opt_.timeout_ns) +
                                " waiting for the device at the end of the program");
    if (opt_.on_complete)
      for (OpIndex i = 0; i < n; ++i)
        if (model::does_device_work(w_.ops[i].kind)) opt_.on_complete(i);
    for (EventId e : event_ids_) be_.destroy_event(e);

    result_.trace = be_.finish();
    // Device spans carry backend stream ids; a program's trace speaks of its own stream ids.
    for (auto& s : result_.trace.spans)
      if (const auto it = declared_of_.find(s.stream); it != declared_of_.end()) s.stream = it->second;
    if (opt_.host_call_spans) {
      result_.trace.spans.reserve(result_.trace.spans.size() + n);
      // The ids are w_'s texts, which a trace of a backend that keeps Backend::finish's promise holds
      // already (other traces get copies); call names are literals.
      const bool shares = result_.trace.strings == w_.strings();
      for (OpIndex i = 0; i < n; ++i) {
        const model::Op& op = w_.ops[i];
        const model::Text id = shares ? op.id : result_.trace.intern(op.id);
        result_.trace.spans.push_back(model::Span{i, id, model::Text::borrow(model::cuda_call_name(op)), op.kind, 0,
                                                  op.stream_hint.value_or(0), model::Engine::host, times[i].start,
                                                  times[i].end, true});
      }
    }
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
    switch (op.kind) {
      case OpKind::event_record:
        be_.record_event(event_ids_[event], op_stream_[i]);
        ++result_.stats.event_records;
        return;
      case OpKind::event_wait: be_.stream_wait_event(op_stream_[i], event_ids_[event]); return;
      case OpKind::stream_sync:
        wait(be_.synchronize_stream(op_stream_[i], opt_.timeout_ns), i,
             "stream " + std::to_string(op.stream_hint.value_or(0)) + " did not finish");
        return;
      case OpKind::event_sync:
        wait(be_.synchronize_event(event_ids_[event], opt_.timeout_ns), i, "event '" + op.event + "' did not complete");
        return;
      case OpKind::device_sync: wait(be_.synchronize_device(opt_.timeout_ns), i, "the device did not finish"); return;
      default: break;
    }
    // A blocking copy or memset returns once it is done: the backend's enqueue waits (Backend contract).
    be_.enqueue(op_stream_[i], i);
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
  std::vector<StreamId> op_stream_;  ///< op -> the backend stream its call names
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
