#include "streamlab/sim/explain.hpp"

#include <cstdio>
#include <string>

namespace streamlab::sim {
namespace {

std::string us(model::Nanos ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f us", static_cast<double>(ns) / 1000.0);
  return buf;
}

std::string op_name(const model::Workload& w, std::uint32_t op) {
  if (op == kNoRef || op >= w.ops.size()) return "(nothing)";
  const model::Op& o = w.ops[op];
  std::string s = "op '" + o.id + "'";
  if (!o.name.empty() && o.name != o.id) s += " (" + o.name + ")";
  return s;
}

std::string stream_name(std::uint32_t s) { return s == kNoRef ? "?" : "stream " + std::to_string(s); }

/// "op 'k1' (stream 1)", "the record of event 3 on stream 1 (after op 'k1')", ...
std::string what(const model::Workload& w, const Blocker& b) {
  switch (b.what) {
    case RefKind::op: return op_name(w, b.op) + " (" + stream_name(b.stream) + ")";
    case RefKind::record:
      return "the record of event " + std::to_string(b.event) + " on " + stream_name(b.stream) + " (after " +
             op_name(w, b.op) + ")";
    case RefKind::wait:
      return "a wait on event " + std::to_string(b.event) + " (recorded on " + stream_name(b.stream) +
             " after " + op_name(w, b.op) + ")";
    case RefKind::callback: return "a host function (after " + op_name(w, b.op) + ")";
    case RefKind::none: break;
  }
  return "?";
}

std::string because(const model::Workload& w, const Blocker& b) {
  switch (b.cause) {
    case Cause::none: return "at once";
    case Cause::host_issue: return "the command reached the device (host issue + launch latency)";
    case Cause::stream_order: return "stream order: " + what(w, b) + " finished";
    case Cause::event_wait:
      return "event wait: event " + std::to_string(b.event) + " recorded on " + stream_name(b.stream) +
             " after " + op_name(w, b.op) + " completed (+ event_wait_latency)";
    case Cause::legacy_barrier: return "legacy default stream barrier: " + what(w, b) + " finished";
    case Cause::connection_queue: return "hardware queue blocked behind " + what(w, b) + " until it left";
    case Cause::copy_engine: return "copy engine busy with " + what(w, b);
    case Cause::sm_room: return "no SM had room until a block of " + what(w, b) + " finished";
    case Cause::resident_grids: return "resident-grid limit until " + what(w, b) + " finished";
    case Cause::earlier_kernel: return "blocks dispatch in order: " + what(w, b) + " placed its last block";
    case Cause::higher_priority:
      return "higher-priority " + what(w, b) + " placed its last block first";
    case Cause::host_worker: return "host-callback thread busy with " + what(w, b);
  }
  return "?";
}

}  // namespace

std::string_view to_string(Cause c) noexcept {
  switch (c) {
    case Cause::none: return "none";
    case Cause::host_issue: return "host_issue";
    case Cause::stream_order: return "stream_order";
    case Cause::event_wait: return "event_wait";
    case Cause::legacy_barrier: return "legacy_barrier";
    case Cause::connection_queue: return "connection_queue";
    case Cause::copy_engine: return "copy_engine";
    case Cause::sm_room: return "sm_room";
    case Cause::resident_grids: return "resident_grids";
    case Cause::earlier_kernel: return "earlier_kernel";
    case Cause::higher_priority: return "higher_priority";
    case Cause::host_worker: return "host_worker";
  }
  return "?";
}

std::string format_explanation(const model::Workload& w, const OpExplanation& e) {
  std::string out;
  const model::Op* op = e.op < w.ops.size() ? &w.ops[e.op] : nullptr;
  out += op_name(w, e.op);
  if (op != nullptr) out += " [" + std::string(model::to_string(op->kind)) + "]";
  const std::string queue = std::string(e.copy_queue ? "copy" : "compute") + " queue " + std::to_string(e.queue);
  out += " on " + stream_name(e.stream) + ", " + queue + "\n";
  if (!e.valid) return out + "  never issued\n";
  out += "  issued by the host at " + us(e.issued) + "; visible to the device at " + us(e.arrived) + "\n";
  out += "  ready at " + us(e.ready) + ": " + because(w, e.ready_by) + " at " + us(e.ready_by.at) + "\n";
  out += "  left " + queue + " at " + us(e.dequeued);
  if (e.dequeued > e.ready && e.dequeued_by.cause != Cause::none) out += ": " + because(w, e.dequeued_by);
  out += "\n";
  out += "  started at " + us(e.started);
  if (e.started > e.dequeued && e.started_by.cause != Cause::none)
    out += ": " + because(w, e.started_by) + " at " + us(e.started_by.at);
  else if (e.started > e.dequeued)
    out += " (launch of its first block)";
  out += "\n  ended at " + us(e.ended) + " (ran " + us(e.ended - e.started) + ")\n";
  // The one-line answer: the latest of the stages that held it.
  std::string verdict = "the host issued it late";
  if (e.started > e.dequeued) {
    verdict = because(w, e.started_by);
  } else if (e.dequeued > e.ready) {
    verdict = because(w, e.dequeued_by);
  } else if (e.ready > e.arrived) {
    verdict = because(w, e.ready_by);
  }
  out += "  => started when it did because: " + verdict + "\n";
  return out;
}

}  // namespace streamlab::sim
