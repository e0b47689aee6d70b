// Kineto Chrome-trace reader on simdjson's on-demand API: one pass over traceEvents, touching only the
// fields of the events a program needs (cpu_op and python events are skipped without materializing them).
#include "streamlab/import/kineto.hpp"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <new>
#include <unordered_map>

#include "gzip_file.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/input_limits.hpp"

namespace streamlab::import {
namespace {

namespace od = simdjson::ondemand;

enum class Cat : std::uint8_t { unknown, irrelevant, kernel, memcpy, memset, runtime, driver, sync, event, flow };

Cat parse_cat(std::string_view c) {
  if (c == "kernel") return Cat::kernel;
  if (c == "gpu_memcpy") return Cat::memcpy;
  if (c == "gpu_memset") return Cat::memset;
  if (c == "cuda_runtime") return Cat::runtime;
  if (c == "cuda_driver") return Cat::driver;
  if (c == "cuda_sync") return Cat::sync;
  if (c == "cuda_event") return Cat::event;
  if (c == "ac2g") return Cat::flow;
  return Cat::irrelevant;
}

/// Largest ts and dur accepted (2^60 ns, 36 years): every end (ts + dur) and every difference of two
/// times then stays within the trace format's bounds (model::kMaxTraceNs).
constexpr Nanos kMaxKinetoNs = model::kMaxTraceNs / 2;
constexpr std::int64_t kMaxU32 = 0xffffffffLL;
constexpr std::int64_t kMaxPriority = 1 << 20;  // CUDA's are a few either side of 0

/// Microseconds as a double, rounded to nanoseconds; false outside [-kMaxKinetoNs, kMaxKinetoNs] (NaN too).
bool double_micros_to_ns(double us, Nanos& out) {
  const double ns = us * 1000.0;
  if (!(ns >= -static_cast<double>(kMaxKinetoNs) && ns <= static_cast<double>(kMaxKinetoNs))) return false;
  out = static_cast<Nanos>(std::llround(ns));
  return true;
}

/// Kineto writes microseconds with up to three decimals ("4608286836773.042"): read them as exact integer
/// nanoseconds from the token (a double would lose the last digit at these magnitudes). False for a
/// token that is not a number or lies outside [-kMaxKinetoNs, kMaxKinetoNs].
bool micros_to_ns(std::string_view tok, Nanos& out) {
  while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\n' || tok.back() == '\r' || tok.back() == '\t' ||
                          tok.back() == ',' || tok.back() == '}' || tok.back() == ']'))
    tok.remove_suffix(1);
  bool neg = false;
  if (!tok.empty() && tok[0] == '-') { neg = true; tok.remove_prefix(1); }
  const auto dot = tok.find('.');
  const std::string_view ip = tok.substr(0, dot);
  std::int64_t whole = 0;
  auto [p, ec] = std::from_chars(ip.data(), ip.data() + ip.size(), whole);
  if (ec != std::errc() || p != ip.data() + ip.size() || ip.empty()) {
    double d = 0;  // exponent form or something odd: fall back to a double
    auto [p2, ec2] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
    if (ec2 != std::errc() || p2 != tok.data() + tok.size()) return false;
    return double_micros_to_ns(neg ? -d : d, out);
  }
  if (whole >= kMaxKinetoNs / 1000) return false;
  Nanos ns = whole * 1000;
  if (dot != std::string_view::npos) {
    const std::string_view frac = tok.substr(dot + 1);
    if (frac.find_first_not_of("0123456789") != std::string_view::npos) {
      double d = 0;
      auto [p2, ec2] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
      if (ec2 != std::errc()) return false;
      return double_micros_to_ns(neg ? -d : d, out);
    }
    Nanos scale = 100, f = 0;
    for (std::size_t i = 0; i < frac.size() && i < 3; ++i, scale /= 10) f += (frac[i] - '0') * scale;
    if (frac.size() > 3 && frac[3] >= '5') ++f;  // round sub-nanosecond digits
    ns += f;
  }
  out = neg ? -ns : ns;
  return true;
}

/// The args of one event, all kinds together (reset per event).
struct Args {
  std::int64_t stream = -1, correlation = -1, device = -1, registers = -1, shared = -1, bytes = -1;
  std::int64_t priority = INT64_MIN;
  std::array<std::int64_t, 3> grid{-1, -1, -1}, block{-1, -1, -1};
  std::string_view sync_kind;
  std::int64_t wait_on_stream = -1, wait_event = -1, wait_record_corr = -1, event_id = -1;
  bool has_grid = false, has_block = false;
};

/// Reads a string into `out`; a value of another type leaves it empty (the field is then "absent").
template <class Result>
void read_string(Result&& r, std::string_view& out) {
  if (std::forward<Result>(r).get(out) != simdjson::SUCCESS) out = {};
}

std::int64_t as_int(od::value v) {
  std::int64_t i = 0;
  if (!v.get_int64().get(i)) return i;
  // A number in exponent form: whole and within int64 (converting 1e300 is undefined), else as absent.
  double d = 0;
  if (!v.get_double().get(d) && d >= -9.2e18 && d <= 9.2e18 && d == std::trunc(d)) return static_cast<std::int64_t>(d);
  return -1;
}

void read_dim3(od::value v, std::array<std::int64_t, 3>& out, bool& has) {
  od::array a;
  if (v.get_array().get(a)) return;
  std::size_t i = 0;
  for (auto e : a) {
    std::int64_t x = 0;
    if (i < 3 && !e.get_int64().get(x)) out[i] = x;
    ++i;
  }
  has = i == 3;
}

void read_args(od::object obj, Args& a) {
  for (auto field : obj) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) throw simdjson::simdjson_error(e);
    od::value v = field.value();
    switch (key.empty() ? '\0' : key[0]) {
      case 's':
        if (key == "stream") a.stream = as_int(v);
        else if (key == "shared memory") a.shared = as_int(v);
        break;
      case 'c':
        if (key == "correlation") a.correlation = as_int(v);
        else if (key == "cuda_sync_kind") read_string(v.get_string(), a.sync_kind);
        break;
      case 'd':
        if (key == "device") a.device = as_int(v);
        break;
      case 'r':
        if (key == "registers per thread") a.registers = as_int(v);
        break;
      case 'b':
        if (key == "bytes") a.bytes = as_int(v);
        else if (key == "block") read_dim3(v, a.block, a.has_block);
        break;
      case 'g':
        if (key == "grid") read_dim3(v, a.grid, a.has_grid);
        break;
      case 'p':
        if (key == "priority") a.priority = as_int(v);
        break;
      case 'w':
        if (key == "wait_on_stream") a.wait_on_stream = as_int(v);
        else if (key == "wait_on_cuda_event_id") a.wait_event = as_int(v);
        else if (key == "wait_on_cuda_event_record_corr_id") a.wait_record_corr = as_int(v);
        break;
      case 'e':
        if (key == "event_id") a.event_id = as_int(v);
        break;
      default:
        break;
    }
  }
}

/// "Memcpy HtoD (Pinned -> Device)": direction and host memory kind from the name Kineto gives a copy.
void classify_copy(std::string_view name, GpuActivity& act) {
  const auto sp = name.find(' ');
  const std::string_view kind = sp == std::string_view::npos ? std::string_view() : name.substr(sp + 1, 4);
  if (kind == "HtoD") act.copy_kind = model::OpKind::h2d;
  else if (kind == "DtoH") act.copy_kind = model::OpKind::d2h;
  else act.copy_kind = model::OpKind::d2d;  // DtoD, PtoP; HtoH is refused by the builder via the name
  act.host_memory = name.find("Pageable") != std::string_view::npos ? model::HostMemory::pageable
                                                                     : model::HostMemory::pinned;
}

std::optional<SyncKind> parse_sync_kind(std::string_view k) {
  if (k == "Stream Wait Event") return SyncKind::stream_wait_event;
  if (k == "Event Sync") return SyncKind::event_sync;
  if (k == "Stream Sync") return SyncKind::stream_sync;
  if (k == "Context Sync") return SyncKind::context_sync;
  return std::nullopt;
}

struct FlowKey {
  std::int64_t pid, tid;
  Nanos ts;
  bool operator==(const FlowKey&) const = default;
};
struct FlowKeyHash {
  std::size_t operator()(const FlowKey& k) const noexcept {
    // Unsigned arithmetic: wraps instead of overflowing.
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    return std::hash<std::uint64_t>()(u(k.pid) * 1000003u ^ u(k.tid) * 7919u ^ u(k.ts));
  }
};

std::string json_error(const char* where, simdjson::error_code e) {
  return std::string(where) + ": " + simdjson::error_message(e);
}

/// The reader proper, on text followed by simdjson's padding. `text`, where given, is the padded text's
/// owner: its pages behind the reader are given back as it goes (the capture keeps no view into them).
Capture parse_padded(simdjson::padded_string_view padded, const std::string& source,
                     const detail::PaddedText* text = nullptr) {
  Capture cap;
  cap.source = source;
  cap.format = "kineto";
  od::parser parser;
  od::document doc;
  if (auto e = parser.iterate(padded).get(doc)) throw model::InputError(source, "", "", json_error("not JSON", e));
  od::object root;
  if (auto e = doc.get_object().get(root)) {
    if (e == simdjson::INCORRECT_TYPE)
      throw model::InputError(source, "", "", "not a Kineto trace: the top level is not an object");
    throw model::InputError(source, "", "", json_error("malformed JSON", e));
  }

  // GPU records whose args lack a correlation id are linked through their ac2g flow's id.
  // Flows are only looked up when some record lacks a correlation id, so they are kept in a plain vector.
  std::vector<std::pair<FlowKey, std::int64_t>> flows;
  struct Pending { std::size_t index; bool is_call; FlowKey key; };
  std::vector<Pending> unlinked;
  std::vector<std::pair<std::int64_t, std::string>> device_names;
  bool saw_events = false;
  // A GPU record and its API call take several hundred bytes of Kineto JSON each: room for as many as the
  // text could hold, so the arrays do not grow by copying (untouched capacity costs no memory).
  try {
    const std::size_t most_records = std::min<std::size_t>(padded.length() / 256, std::size_t{1} << 26);
    cap.activities.reserve(most_records);
    cap.calls.reserve(most_records);
  } catch (const std::bad_alloc&) {  // no address space for that much: grow as needed
  }

  try {
    for (auto top : root) {
      std::string_view top_key;
      if (top.unescaped_key().get(top_key)) continue;
      if (top_key == "deviceProperties") {
        od::array devs;
        if (top.value().get_array().get(devs)) continue;
        for (auto d : devs) {
          od::object o;
          if (d.get_object().get(o)) continue;
          std::int64_t id = -1;
          std::string_view name;
          for (auto f : o) {
            std::string_view k;
            if (f.unescaped_key().get(k)) continue;
            if (k == "id") id = as_int(f.value());
            else if (k == "name") read_string(f.value().get_string(), name);
          }
          device_names.emplace_back(id, std::string(name));
        }
        continue;
      }
      if (top_key != "traceEvents") continue;
      saw_events = true;
      od::array events;
      if (top.value().get_array().get(events))
        throw model::InputError(source, "/traceEvents", "", "is not an array");
      std::size_t index = 0;
      for (auto ev_value : events) {
        const char* at = nullptr;
        if (text != nullptr && index % 4096 == 0 && !doc.current_location().get(at))
          text->release_before(static_cast<std::size_t>(at - text->data()));
        od::object ev;
        if (auto e = ev_value.get_object().get(ev)) {
          if (e != simdjson::INCORRECT_TYPE) throw simdjson::simdjson_error(e);
          ++index;
          continue;
        }
        Cat cat = Cat::unknown;
        std::string_view ph, name;
        std::int64_t pid = -1, tid = -1, flow_id = -1;
        Nanos ts = 0, dur = 0;
        bool has_ts = false, has_dur = false, has_args = false;
        std::string_view bad_time;  // "ts" or "dur" when its value is not a time in range
        Args args;
        for (auto field : ev) {
          std::string_view key;
          if (auto e = field.unescaped_key().get(key)) throw simdjson::simdjson_error(e);
          if (key == "ph") {
            read_string(field.value().get_string(), ph);
            if (!ph.empty() && ph != "X" && ph != "s" && ph != "f") break;  // metadata, instants, counters
          } else if (key == "cat") {
            std::string_view c;
            read_string(field.value().get_string(), c);
            cat = parse_cat(c);
            if (cat == Cat::irrelevant) break;
          } else if (key == "name") {
            read_string(field.value().get_string(), name);
          } else if (key == "pid") {
            pid = as_int(field.value());
          } else if (key == "tid") {
            tid = as_int(field.value());
          } else if (key == "ts") {
            std::string_view tok;
            if (!field.value().raw_json_token().get(tok)) has_ts = micros_to_ns(tok, ts);
            if (!has_ts) bad_time = "ts";
          } else if (key == "dur") {
            std::string_view tok;
            if (!field.value().raw_json_token().get(tok)) has_dur = micros_to_ns(tok, dur);
            if (!has_dur) bad_time = "dur";
          } else if (key == "id") {
            flow_id = as_int(field.value());
          } else if (key == "args") {
            od::object a;
            if (!field.value().get_object().get(a)) {
              read_args(a, args);
              has_args = true;
            }
          }
        }
        const std::size_t event_index = index++;
        auto place = [event_index] { return "/traceEvents/" + std::to_string(event_index); };
        if (cat == Cat::unknown || cat == Cat::irrelevant) continue;
        if (!bad_time.empty())
          throw model::InputError(source, place() + "/" + std::string(bad_time), "",
                                  "not a time in microseconds within 0.." + std::to_string(kMaxKinetoNs / 1000) +
                                      " us");
        if (ts < 0) throw model::InputError(source, place() + "/ts", "", "negative time " + std::to_string(ts) + " ns");
        if (cat == Cat::flow) {
          // Finish ("f") flows sit at the GPU record's start, start ("s") flows at the API call's start;
          // the call side's key is negated so the two never collide.
          if (ph == "f" && has_ts && flow_id >= 0) flows.push_back({FlowKey{pid, tid, ts}, flow_id});
          else if (ph == "s" && has_ts && flow_id >= 0) flows.push_back({FlowKey{pid, tid, -ts - 1}, flow_id});
          continue;
        }
        if (ph != "X") continue;
        if (!has_ts) throw model::InputError(source, place(), "", "a '" + std::string(name) + "' record has no ts");
        if (!has_dur || dur < 0) dur = 0;  // a negative duration would end a span before it starts
        auto need = [&](bool ok, const char* what) {
          if (!ok)
            throw model::InputError(source, place(), "",
                                    "'" + std::string(name.substr(0, 80)) + "' has no " + what + " in its args");
        };
        // A value the program would truncate (a grid of 2^32 + 1 blocks read as 1) is refused.
        auto within = [&](std::int64_t v, std::int64_t hi, const char* arg) {
          if (v > hi)
            throw model::InputError(source, place() + "/args/" + arg, "",
                                    "'" + std::string(name.substr(0, 80)) + "' has " + arg + " " + std::to_string(v) +
                                        ", over " + std::to_string(hi));
          return v;
        };
        if (cat == Cat::runtime || cat == Cat::driver) {
          ApiCall c;
          c.start = ts;
          c.end = ts + dur;
          c.process = static_cast<std::uint32_t>(pid);
          c.thread = static_cast<std::uint32_t>(tid);
          c.name = cap.intern(name);
          c.kind = classify_call(name);
          if (args.correlation >= 0) c.correlation = static_cast<std::uint64_t>(args.correlation);
          else unlinked.push_back({cap.calls.size(), true, FlowKey{pid, tid, -ts - 1}});
          cap.calls.push_back(std::move(c));
          continue;
        }
        if (cat == Cat::sync) {
          const auto kind = parse_sync_kind(args.sync_kind.empty() ? name : args.sync_kind);
          if (!kind) continue;
          SyncRecord s;
          s.kind = *kind;
          s.correlation = static_cast<std::uint64_t>(std::max<std::int64_t>(args.correlation, 0));
          s.device = static_cast<std::uint32_t>(args.device >= 0 ? args.device : std::max<std::int64_t>(pid, 0));
          s.stream = args.stream;
          s.event_id = args.wait_event;
          s.record_correlation = args.wait_record_corr;
          s.record_stream = args.wait_on_stream;
          cap.syncs.push_back(s);
          continue;
        }
        if (cat == Cat::event) {
          need(args.correlation >= 0 && args.stream >= 0, "correlation or stream");
          cap.event_records.push_back(EventRecordInfo{static_cast<std::uint64_t>(args.correlation), args.event_id,
                                                      static_cast<std::uint32_t>(args.stream),
                                                      static_cast<std::uint32_t>(std::max<std::int64_t>(args.device, 0))});
          continue;
        }
        // GPU work.
        need(has_args, "args");
        need(args.stream >= 0, "stream");
        GpuActivity act;
        act.start = ts;
        act.end = ts + dur;
        act.device = static_cast<std::uint32_t>(
            args.device >= 0 ? within(args.device, kMaxU32, "device") : std::clamp<std::int64_t>(pid, 0, kMaxU32));
        act.stream = static_cast<std::uint32_t>(within(args.stream, kMaxU32, "stream"));
        act.name = cap.intern(name);
        if (args.priority != INT64_MIN) {
          if (args.priority < -kMaxPriority || args.priority > kMaxPriority)
            throw model::InputError(source, place() + "/args/priority", "",
                                    "stream priority " + std::to_string(args.priority) + " is out of range");
          act.priority = static_cast<int>(args.priority);
        }
        if (cat == Cat::kernel) {
          act.kind = ActivityKind::kernel;
          need(args.has_grid, "grid");
          need(args.has_block, "block");
          for (int i = 0; i < 3; ++i) {
            need(args.grid[static_cast<std::size_t>(i)] > 0 && args.block[static_cast<std::size_t>(i)] > 0,
                 "positive grid and block sizes");
            within(args.grid[static_cast<std::size_t>(i)], kMaxU32, "grid");
            within(args.block[static_cast<std::size_t>(i)], kMaxU32, "block");
          }
          act.shape.grid = {static_cast<std::uint32_t>(args.grid[0]), static_cast<std::uint32_t>(args.grid[1]),
                            static_cast<std::uint32_t>(args.grid[2])};
          act.shape.block = {static_cast<std::uint32_t>(args.block[0]), static_cast<std::uint32_t>(args.block[1]),
                             static_cast<std::uint32_t>(args.block[2])};
          if (args.registers >= 0)
            act.shape.registers_per_thread =
                static_cast<std::uint32_t>(within(args.registers, kMaxU32, "registers per thread"));
          if (args.shared >= 0)
            act.shape.shared_mem_bytes = static_cast<std::uint32_t>(within(args.shared, kMaxU32, "shared memory"));
        } else {
          act.kind = cat == Cat::memcpy ? ActivityKind::memcpy : ActivityKind::memset;
          need(args.bytes >= 0, "bytes");
          act.bytes = static_cast<std::uint64_t>(within(args.bytes, static_cast<std::int64_t>(model::kMaxOpBytes), "bytes"));
          if (cat == Cat::memcpy) classify_copy(name, act);
        }
        if (args.correlation >= 0) act.correlation = static_cast<std::uint64_t>(args.correlation);
        else unlinked.push_back({cap.activities.size(), false, FlowKey{pid, tid, ts}});
        cap.activities.push_back(std::move(act));
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    throw model::InputError(source, "", "", std::string("malformed JSON: ") + e.what());
  }
  if (!saw_events) throw model::InputError(source, "", "", "not a Kineto trace: no traceEvents array");
  std::unordered_map<FlowKey, std::int64_t, FlowKeyHash> flow_ids;
  if (!unlinked.empty()) flow_ids.insert(flows.begin(), flows.end());
  for (const auto& u : unlinked) {
    const auto it = flow_ids.find(u.key);
    if (u.is_call) {
      if (it != flow_ids.end()) cap.calls[u.index].correlation = static_cast<std::uint64_t>(it->second);
    } else {
      if (it == flow_ids.end())
        throw model::InputError(source, "", "",
                                "GPU record '" + std::string(cap.activities[u.index].name.substr(0, 80)) +
                                    "' has neither a correlation id nor an ac2g flow linking it to its API call");
      cap.activities[u.index].correlation = static_cast<std::uint64_t>(it->second);
    }
  }
  for (const auto& [id, n] : device_names)
    if (cap.device_name.empty() || (!cap.activities.empty() && id == cap.activities.front().device)) cap.device_name = n;
  return cap;
}

}  // namespace

Capture parse_kineto(std::string_view json_text, const std::string& source) {
  const simdjson::padded_string padded(json_text);
  return parse_padded(padded, source);
}

Capture read_kineto(const std::filesystem::path& file) {
  const detail::PaddedText text = detail::read_maybe_gzip(file);
  static_assert(detail::PaddedText::kPadding >= simdjson::SIMDJSON_PADDING);
  return parse_padded(simdjson::padded_string_view(text.data(), text.size(), text.capacity()), file.string(), &text);
}

}  // namespace streamlab::import
