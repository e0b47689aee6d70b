// FakeBackend: a recording Backend with a tiny ordering model of streams and events (no timing).
#include "streamlab/policies/fake_backend.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "streamlab/policies/registry.hpp"

namespace streamlab::policies {

namespace {
constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

// (append rather than "s" + to_string: GCC 12 warns falsely (-Wrestrict) on the latter.)
std::string sname(StreamId s) {
  std::string out(1, 's');
  return out.append(std::to_string(s.value()));
}
std::string ename(EventId e) {
  std::string out(1, 'e');
  return out.append(std::to_string(e.value()));
}
}  // namespace

struct FakeBackend::Device {
  enum class Kind : std::uint8_t { op, wait, host_fn };
  struct Item {
    Kind kind = Kind::op;
    OpIndex op = 0;
    std::uint32_t target_stream = 0;  // wait: the recorded stream
    std::uint64_t target_pos = 0;     // wait: items of that stream that must be done
    std::function<void()> fn;
    Nanos enqueued = 0;
    Nanos done_tick = 0;
  };
  struct Stream {
    std::vector<Item> items;
    std::size_t done = 0;
    Nanos last_done = 0;
  };
  struct Event {
    bool alive = true;
    bool recorded = false;
    std::uint32_t stream = 0;
    std::uint64_t pos = 0;
  };

  const model::Workload* workload = nullptr;
  std::vector<Stream> streams;  // index = StreamId value; 0 = legacy NULL stream
  std::vector<Event> events;
  std::vector<std::uint8_t> op_done;
  std::vector<std::uint32_t> op_stream;
  std::vector<std::uint64_t> op_seq;
  std::vector<Nanos> op_start, op_end;
  std::uint64_t next_seq = 0;
  std::size_t script_pos = 0;

  Device() { streams.resize(1); }

  Stream& stream(StreamId s) {
    if (!s.valid() || s.value() >= streams.size()) {
      throw std::logic_error("fake backend: unknown stream " + std::to_string(s.value()));
    }
    return streams[s.value()];
  }
  Event& event(EventId e) {
    if (!e.valid() || e.value() >= events.size() || !events[e.value()].alive) {
      throw std::logic_error("fake backend: unknown or destroyed event " + std::to_string(e.value()));
    }
    return events[e.value()];
  }
  [[nodiscard]] bool reached(std::uint32_t s, std::uint64_t pos) const { return streams[s].done >= pos; }
  [[nodiscard]] bool event_done(const Event& e) const { return !e.recorded || reached(e.stream, e.pos); }

  // Where completions are reported (the FakeBackend's members).
  std::vector<OpIndex>* completed = nullptr;
  std::vector<std::string>* violations = nullptr;
  Nanos* clock = nullptr;

  void complete(OpIndex o, Nanos start) {
    op_start[o] = start;
    op_end[o] = *clock;
    op_done[o] = 1;
    completed->push_back(o);
    for (OpIndex dep : workload->deps(o)) {
      if (!op_done[dep]) {
        violations->push_back("op '" + workload->ops[o].id + "' completed before its dep '" + workload->ops[dep].id +
                              "'");
      }
    }
  }

  /// Runs the items at the head of every stream that need no host: satisfied waits and host funcs, and
  /// ops too when `ops` is true; until nothing changes.
  void settle(bool ops) {
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto& st : streams) {
        while (st.done < st.items.size()) {
          auto& it = st.items[st.done];
          if (it.kind == Kind::wait) {
            if (!reached(it.target_stream, it.target_pos)) break;
          } else if (it.kind == Kind::host_fn) {
            if (it.fn) it.fn();
          } else if (!ops) {
            break;
          } else {
            complete(it.op, std::max(it.enqueued, st.last_done));
          }
          it.done_tick = *clock;
          st.last_done = *clock;
          ++st.done;
          changed = true;
        }
      }
    }
  }
};

FakeBackend::FakeBackend(FakeOptions options) : options_(std::move(options)), dev_(std::make_unique<Device>()) {
  dev_->completed = &completed_;
  dev_->violations = &violations_;
  dev_->clock = &clock_;
}
FakeBackend::~FakeBackend() = default;

void FakeBackend::note(std::string line) {
  if (options_.record) calls_.push_back(std::move(line));
}

std::string FakeBackend::call_log_text() const {
  std::string out;
  for (const auto& c : calls_) {
    out += c;
    out += '\n';
  }
  return out;
}

void FakeBackend::prepare(const model::Workload& workload) {
  ++clock_;
  dev_->workload = &workload;
  const std::size_t n = workload.ops.size();
  dev_->op_done.assign(n, 0);
  dev_->op_stream.assign(n, Id<StreamTag>::kInvalid);
  dev_->op_seq.assign(n, kNever);
  dev_->op_start.assign(n, 0);
  dev_->op_end.assign(n, 0);
  if (options_.record) note("prepare '" + workload.name + "' " + std::to_string(n) + " ops");
}

StreamId FakeBackend::create_stream(const StreamDesc& desc) {
  ++clock_;
  if (desc.kind == StreamKind::legacy_default) {
    throw std::logic_error("fake backend: the legacy NULL stream is not created; use legacy_default_stream()");
  }
  const StreamId id{static_cast<std::uint32_t>(dev_->streams.size())};
  dev_->streams.emplace_back();
  if (options_.record) {
    note("create_stream " + sname(id) + " prio=" + std::to_string(desc.priority) + " kind=" +
         std::string(to_string(desc.kind)) + " label='" + desc.label + "'");
  }
  return id;
}

void FakeBackend::host_work(Nanos ns) {
  if (ns < 0) throw std::logic_error("fake backend: host_work of negative time");
  clock_ += ns;
  if (options_.record) note("host_work " + std::to_string(ns));
}

StreamId FakeBackend::legacy_default_stream() {
  ++clock_;
  if (options_.record) note("legacy_default_stream -> s0");
  return StreamId{0};
}

void FakeBackend::enqueue(StreamId stream, OpIndex op) {
  ++clock_;
  auto& st = dev_->stream(stream);
  if (dev_->workload == nullptr) throw std::logic_error("fake backend: enqueue before prepare");
  if (op >= dev_->workload->ops.size()) {
    throw std::logic_error("fake backend: op index " + std::to_string(op) + " is not in the workload");
  }
  if (dev_->op_seq[op] != kNever) {
    throw std::logic_error("fake backend: op '" + dev_->workload->ops[op].id + "' enqueued twice");
  }
  ++enqueues_;
  dev_->op_seq[op] = dev_->next_seq++;
  dev_->op_stream[op] = stream.value();
  Device::Item it;
  it.kind = Device::Kind::op;
  it.op = op;
  it.enqueued = clock_;
  st.items.push_back(std::move(it));
  if (options_.record) note("enqueue " + sname(stream) + " op '" + dev_->workload->ops[op].id + "'");
  if (options_.completion == FakeCompletion::immediate) dev_->settle(true);
  if (dev_->workload->ops[op].blocking) wait_blocking(op);  // the call returns once the op is done
}

void FakeBackend::launch_host_func(StreamId stream, std::function<void()> fn) {
  ++clock_;
  auto& st = dev_->stream(stream);
  Device::Item it;
  it.kind = Device::Kind::host_fn;
  it.fn = std::move(fn);
  it.enqueued = clock_;
  st.items.push_back(std::move(it));
  if (options_.record) note("host_func " + sname(stream));
  dev_->settle(options_.completion == FakeCompletion::immediate);
}

EventId FakeBackend::create_event(EventTiming timing) {
  ++clock_;
  const EventId id{static_cast<std::uint32_t>(dev_->events.size())};
  dev_->events.emplace_back();
  ++events_created_;
  if (options_.record) note("create_event " + ename(id) + (timing == EventTiming::timed ? " timed" : " untimed"));
  return id;
}

void FakeBackend::destroy_event(EventId event) {
  ++clock_;
  dev_->event(event).alive = false;
  if (options_.record) note("destroy_event " + ename(event));
}

void FakeBackend::record_event(EventId event, StreamId stream) {
  ++clock_;
  auto& e = dev_->event(event);
  auto& st = dev_->stream(stream);
  e.recorded = true;
  e.stream = stream.value();
  e.pos = st.items.size();
  ++records_;
  if (options_.record) note("record " + ename(event) + " " + sname(stream));
}

void FakeBackend::stream_wait_event(StreamId stream, EventId event) {
  ++clock_;
  auto& e = dev_->event(event);
  auto& st = dev_->stream(stream);
  ++waits_;
  if (options_.record) note("wait " + sname(stream) + " " + ename(event));
  if (!e.recorded) return;  // CUDA: waiting on a never-recorded event is a no-op
  Device::Item it;
  it.kind = Device::Kind::wait;
  it.target_stream = e.stream;
  it.target_pos = e.pos;
  it.enqueued = clock_;
  st.items.push_back(std::move(it));
  dev_->settle(options_.completion == FakeCompletion::immediate);
}

bool FakeBackend::query_event(EventId event) {
  ++clock_;
  const bool done = dev_->event_done(dev_->event(event));
  if (options_.record && options_.record_queries) note("query " + ename(event) + (done ? " -> done" : " -> busy"));
  return done;
}

bool FakeBackend::query_stream(StreamId stream) {
  ++clock_;
  auto& st = dev_->stream(stream);
  const bool done = st.done == st.items.size();
  if (options_.record && options_.record_queries) note("query " + sname(stream) + (done ? " -> done" : " -> busy"));
  return done;
}

Nanos FakeBackend::elapsed(EventId start, EventId end) {
  ++clock_;
  auto tick = [&](EventId id) -> Nanos {
    const auto& e = dev_->event(id);
    if (!dev_->event_done(e)) throw std::logic_error("fake backend: elapsed() on an incomplete event");
    if (!e.recorded || e.pos == 0) return 0;
    return dev_->streams[e.stream].items[e.pos - 1].done_tick;
  };
  return tick(end) - tick(start);
}

// Blocking: the device progresses only here (on_block / scripted) ---------------------------------------
namespace {
struct Stepper {
  FakeBackend::Device& d;
  FakeOptions& opt;
  Nanos& clock;

  void settle_rest() { d.settle(false); }
  /// Is `op` the next item of its stream (after settling non-op items)?
  bool runnable(OpIndex op) {
    if (d.workload == nullptr || op >= d.op_seq.size() || d.op_seq[op] == kNever || d.op_done[op]) return false;
    auto& st = d.streams[d.op_stream[op]];
    return st.done < st.items.size() && st.items[st.done].kind == FakeBackend::Device::Kind::op &&
           st.items[st.done].op == op;
  }
  void run(OpIndex op) {
    auto& st = d.streams[d.op_stream[op]];
    auto& it = st.items[st.done];
    ++clock;
    d.complete(op, std::max(it.enqueued, st.last_done));
    it.done_tick = clock;
    st.last_done = clock;
    ++st.done;
    settle_rest();
  }
  /// One op completes: the next scripted one, or the runnable op issued first. False when none can.
  bool step(bool script_only) {
    settle_rest();
    if (opt.completion == FakeCompletion::scripted && d.script_pos < opt.script.size()) {
      const OpIndex op = opt.script[d.script_pos];
      if (!runnable(op)) {
        throw std::logic_error("fake backend: scripted completion of op " + std::to_string(op) +
                               (op < d.op_seq.size() && d.workload ? " '" + d.workload->ops[op].id + "'" : "") +
                               " is not possible now (not issued, done, or not at its stream's head)");
      }
      ++d.script_pos;
      run(op);
      return true;
    }
    if (script_only) return false;
    OpIndex best = 0;
    std::uint64_t best_seq = kNever;
    for (auto& st : d.streams) {
      if (st.done < st.items.size() && st.items[st.done].kind == FakeBackend::Device::Kind::op) {
        const OpIndex op = st.items[st.done].op;
        if (d.op_seq[op] < best_seq) {
          best_seq = d.op_seq[op];
          best = op;
        }
      }
    }
    if (best_seq == kNever) return false;
    run(best);
    return true;
  }
  template <class Cond>
  WaitStatus until(Cond&& cond) {
    settle_rest();
    // Scripted: only the script makes progress before synchronize_device.
    const bool script_only = opt.completion == FakeCompletion::scripted;
    while (!cond()) {
      if (!step(script_only)) return WaitStatus::timed_out;
    }
    return WaitStatus::ready;
  }
};
}  // namespace

WaitStatus FakeBackend::synchronize_event(EventId event, Nanos) {
  ++clock_;
  Stepper s{*dev_, options_, clock_};
  const auto& e = dev_->event(event);
  const WaitStatus st = s.until([&] { return dev_->event_done(e); });
  if (options_.record && options_.record_queries)
    note("synchronize " + ename(event) + (st == WaitStatus::ready ? " -> ready" : " -> timed out"));
  return st;
}

void FakeBackend::wait_blocking(OpIndex op) {
  Stepper s{*dev_, options_, clock_};
  if (s.until([&] { return dev_->op_done[op] != 0; }) != WaitStatus::ready)
    throw std::logic_error("fake backend: blocking op '" + dev_->workload->ops[op].id + "' can never complete");
}

WaitStatus FakeBackend::synchronize_stream(StreamId stream, Nanos) {
  ++clock_;
  Stepper s{*dev_, options_, clock_};
  auto& stv = dev_->stream(stream);
  const WaitStatus st = s.until([&] { return stv.done == stv.items.size(); });
  if (options_.record && options_.record_queries)
    note("synchronize " + sname(stream) + (st == WaitStatus::ready ? " -> ready" : " -> timed out"));
  return st;
}

WaitStatus FakeBackend::synchronize_device(Nanos) {
  ++clock_;
  Stepper s{*dev_, options_, clock_};
  s.settle_rest();
  auto all_done = [&] {
    return std::all_of(dev_->streams.begin(), dev_->streams.end(),
                       [](const Device::Stream& st) { return st.done == st.items.size(); });
  };
  WaitStatus st = WaitStatus::ready;
  while (!all_done()) {
    if (!s.step(false)) {
      st = WaitStatus::timed_out;  // a wait that can never be satisfied: the program deadlocked
      break;
    }
  }
  if (options_.record && options_.record_queries)
    note(std::string("synchronize_device") + (st == WaitStatus::ready ? " -> ready" : " -> timed out"));
  return st;
}

std::optional<std::size_t> FakeBackend::wait_any_event(std::span<const EventId> events, Nanos) {
  ++clock_;
  Stepper s{*dev_, options_, clock_};
  std::optional<std::size_t> hit;
  auto any = [&] {
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (dev_->event_done(dev_->event(events[i]))) {
        hit = i;
        return true;
      }
    }
    return false;
  };
  const WaitStatus st = s.until(any);
  if (options_.record && options_.record_queries) {
    std::string line = "wait_any [";
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (i) line += ' ';
      line += ename(events[i]);
    }
    line += st == WaitStatus::ready ? "] -> " + ename(events[*hit]) : "] -> timed out";
    note(std::move(line));
  }
  if (st == WaitStatus::timed_out) return std::nullopt;
  return hit;
}

void FakeBackend::complete(std::span<const model::OpIndex> ops) {
  Stepper s{*dev_, options_, clock_};
  s.settle_rest();
  for (OpIndex op : ops) {
    if (!s.runnable(op)) {
      throw std::logic_error("fake backend: complete(" + std::to_string(op) + "): op is not at its stream's head");
    }
    s.run(op);
  }
}

StreamId FakeBackend::stream_of(model::OpIndex op) const {
  if (op >= dev_->op_stream.size() || dev_->op_stream[op] == Id<StreamTag>::kInvalid) return StreamId{};
  return StreamId{dev_->op_stream[op]};
}

model::Trace FakeBackend::finish() {
  const bool rec = options_.record_queries;
  options_.record_queries = false;
  (void)synchronize_device(0);
  options_.record_queries = rec;
  if (options_.record) note("finish");
  model::Trace t;
  t.meta.backend = "fake";
  t.meta.device_name = options_.device_name;
  if (dev_->workload == nullptr) return t;
  const auto& w = *dev_->workload;
  t.share_strings(w.strings());  // the spans' ids and names are the workload's texts
  std::vector<OpIndex> order;
  for (OpIndex o = 0; o < w.ops.size(); ++o)
    if (dev_->op_done[o]) order.push_back(o);
  std::sort(order.begin(), order.end(), [&](OpIndex a, OpIndex b) { return dev_->op_seq[a] < dev_->op_seq[b]; });
  for (OpIndex o : order) {
    model::Span s;
    s.op = o;
    s.op_id = w.ops[o].id;
    s.name = w.ops[o].name;
    s.kind = w.ops[o].kind;
    s.stream = dev_->op_stream[o];
    s.engine = model::engine_for(w.ops[o].kind);
    s.start_ns = dev_->op_start[o];
    s.end_ns = dev_->op_end[o];
    t.spans.push_back(std::move(s));
  }
  return t;
}

}  // namespace streamlab::policies
