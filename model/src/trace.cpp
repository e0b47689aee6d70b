// Trace I/O as Chrome Trace Event JSON (format: docs/formats.md). Written by hand, one event per line:
// traces reach millions of spans, and timestamps are printed as exact decimals (ns / 1000) instead of
// going through a double. Exact nanoseconds also travel in args so reading back is lossless.
#include "streamlab/model/trace.hpp"

#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include "json_util.hpp"
#include "json_view.hpp"
#include "readers.hpp"
#include "json_write.hpp"
#include "line_scanner.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/input_limits.hpp"

namespace streamlab::model {

using detail::Json;
using detail::JsonRef;
using detail::Place;
using detail::pointer_token;
using detail::Reader;

namespace {
constexpr std::array<std::pair<Engine, std::string_view>, 5> kEngines{{{Engine::host, "host"},
                                                                        {Engine::sm, "sm"},
                                                                        {Engine::copy_h2d, "copy_h2d"},
                                                                        {Engine::copy_d2h, "copy_d2h"},
                                                                        {Engine::copy_d2d, "copy_d2d"}}};
constexpr int kTraceFormatVersion = 1;
// Nothing between Span's members but one byte after its last (see trace.hpp): a change of members that
// brings padding back fails here, not in a slower reader of ten-million-span traces.
static_assert(sizeof(Span) == 2 * sizeof(Nanos) + 2 * sizeof(Text) + 3 * sizeof(std::uint32_t) + 4);
}  // namespace

std::string_view to_string(Engine e) noexcept {
  for (const auto& [value, name] : kEngines)
    if (value == e) return name;
  return "?";
}

std::optional<Engine> parse_engine(std::string_view s) noexcept {
  for (const auto& [value, name] : kEngines)
    if (name == s) return value;
  return std::nullopt;
}

Engine engine_for(OpKind k) noexcept {
  switch (k) {
    case OpKind::kernel:
    case OpKind::task_pool:
    case OpKind::memset: return Engine::sm;  // cudaMemsetAsync on device memory runs as a kernel
    case OpKind::h2d:
    case OpKind::prefetch: return Engine::copy_h2d;  // migrating managed pages to the device uses a copy engine
    case OpKind::d2h: return Engine::copy_d2h;
    case OpKind::d2d: return Engine::copy_d2d;
    case OpKind::host_func:
    case OpKind::barrier:  // a barrier is event bookkeeping, no device work
    case OpKind::event_record:
    case OpKind::event_wait:
    case OpKind::stream_sync:
    case OpKind::event_sync:
    case OpKind::device_sync: return Engine::host;  // program calls: host API spans only
  }
  return Engine::sm;
}

namespace {

// ns as microseconds, printed exactly: 1234567 -> "1234.567".
// Sign and magnitude: the magnitude is unsigned so that neither -INT64_MIN nor a span longer than
// INT64_MAX (times built in code; read ones are bounded) overflows.
void append_us(std::string& out, bool negative, std::uint64_t ns) {
  if (negative) out += '-';
  detail::append_int(out, ns / 1000);
  const auto frac = static_cast<int>(ns % 1000);
  if (frac != 0) {
    out += '.';
    out += static_cast<char>('0' + frac / 100);
    out += static_cast<char>('0' + frac / 10 % 10);
    out += static_cast<char>('0' + frac % 10);
  }
}

void append_us(std::string& out, Nanos ns) {
  append_us(out, ns < 0, ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns));
}

// end - start without overflow: the difference of two int64 values always fits in 65 bits (sign + u64).
void append_duration_us(std::string& out, Nanos start, Nanos end) {
  if (end >= start)
    append_us(out, false, static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(start));
  else
    append_us(out, true, static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(end));
}

std::string stream_label(std::uint32_t stream) {
  return stream == 0 ? std::string("stream 0 (legacy default)") : "stream " + std::to_string(stream);
}

void append_span(std::string& out, const Span& s) {
  out += "{\"name\":";
  detail::append_string(out, s.name);
  out += ",\"cat\":\"";
  out += to_string(s.kind);
  out += "\",\"ph\":\"X\",\"ts\":";
  append_us(out, s.start_ns);
  out += ",\"dur\":";
  append_duration_us(out, s.start_ns, s.end_ns);
  out += ",\"pid\":";
  detail::append_int(out, s.device);
  out += ",\"tid\":";
  detail::append_int(out, s.host_call ? kHostThreadTid : s.stream);
  out += ",\"args\":{\"op\":";
  detail::append_int(out, s.op);
  out += ",\"op_id\":";
  detail::append_string(out, s.op_id);
  out += ",\"engine\":\"";
  out += to_string(s.engine);
  out += "\",\"stream\":";
  detail::append_int(out, s.stream);
  out += ",\"start_ns\":";
  detail::append_int(out, s.start_ns);
  out += ",\"end_ns\":";
  detail::append_int(out, s.end_ns);
  if (s.host_call) out += ",\"host_call\":true";
  out += "}}";
}

// Hands the trace's text to `sink` in pieces of about kPiece bytes: written to a file, a million-span
// trace never exists as one string.
void write_chrome_json(const Trace& t, const TextSink& sink) {
  constexpr std::size_t kPiece = std::size_t{1} << 16;
  std::string out;
  out.reserve(kPiece + 4096);
  auto maybe_flush = [&] {
    if (out.size() >= kPiece) {
      sink(out);
      out.clear();
    }
  };
  out += "{\"traceEvents\": [\n";
  bool first = true;
  auto begin_event = [&] {
    out += first ? "" : ",\n";
    first = false;
  };

  // Name every device (process) and stream (thread) that appears, in a stable order.
  std::set<std::pair<std::uint32_t, std::uint32_t>> rows;
  std::set<std::uint32_t> devices;
  bool host_calls = false;
  for (const auto& s : t.spans) {
    if (s.host_call)
      host_calls = true;
    else
      rows.emplace(s.device, s.stream);
    devices.insert(s.device);
  }
  const std::string backend = t.meta.backend.empty() ? std::string() : ", " + t.meta.backend;
  for (auto d : devices) {
    const std::string dev = t.meta.device_name.empty() ? std::string() : ": " + t.meta.device_name;
    begin_event();
    out += R"({"name":"process_name","ph":"M","pid":)" + std::to_string(d) + R"(,"tid":0,"args":{"name":)";
    detail::append_string(out, "GPU " + std::to_string(d) + dev + backend);
    out += "}}";
  }
  // One named, sorted row (Chrome trace thread) per stream of each device.
  const auto row = [&](std::uint32_t d, std::uint32_t tid, const std::string& name, std::int64_t sort_index) {
    begin_event();
    out += R"({"name":"thread_name","ph":"M","pid":)" + std::to_string(d) + R"(,"tid":)" + std::to_string(tid) +
           R"(,"args":{"name":)";
    detail::append_string(out, name);
    out += "}}";
    begin_event();
    out += R"({"name":"thread_sort_index","ph":"M","pid":)" + std::to_string(d) + R"(,"tid":)" +
           std::to_string(tid) + R"(,"args":{"sort_index":)" + std::to_string(sort_index) + "}}";
    maybe_flush();
  };
  for (const auto& [d, s] : rows) row(d, s, stream_label(s), s);
  // Host API calls get one row of their own per device, on top (one host thread issues them, so they
  // never overlap); their stream stays in args.
  if (host_calls)
    for (auto d : devices) row(d, kHostThreadTid, "host thread (API calls)", -1);

  for (const auto& s : t.spans) {
    begin_event();
    append_span(out, s);
    maybe_flush();
  }
  out += "\n],\n\"displayTimeUnit\": \"ns\",\n";

  Json meta;
  meta["streamlab_trace_format"] = kTraceFormatVersion;
  meta["backend"] = t.meta.backend;
  meta["device_name"] = t.meta.device_name;
  meta["profile"] = t.meta.profile;
  meta["policy"] = t.meta.policy;
  meta["workload"] = t.meta.workload;
  meta["workload_hash"] = t.meta.workload_hash;
  meta["version"] = t.meta.version;
  meta["date"] = t.meta.date;
  meta["extra"] = Json::object();
  for (const auto& [k, v] : t.meta.extra) meta["extra"][k] = v;
  out += "\"otherData\": " + meta.dump() + ",\n";

  // Block placements: compact rows [op, block, sm, start_ns, end_ns]; viewers that don't know the key
  // ignore it.
  out += "\"streamlabBlocks\": [";
  for (std::size_t i = 0; i < t.blocks.size(); ++i) {
    const auto& b = t.blocks[i];
    out += i == 0 ? "\n[" : ",\n[";
    detail::append_int(out, b.op);
    out += ',';
    detail::append_int(out, b.block);
    out += ',';
    detail::append_int(out, b.sm);
    out += ',';
    detail::append_int(out, b.start_ns);
    out += ',';
    detail::append_int(out, b.end_ns);
    out += ']';
    maybe_flush();
  }
  out += t.blocks.empty() ? "]\n}\n" : "\n]\n}\n";
  sink(out);
}

}  // namespace

std::string trace_to_chrome_json(const Trace& t) {
  std::string text;
  text.reserve(256 + t.spans.size() * 200 + t.blocks.size() * 32);
  write_chrome_json(t, [&text](std::string_view piece) { text += piece; });
  return text;
}

namespace {

std::string get_meta_string(const Reader& r, JsonRef meta, std::string_view key) {
  return std::string(r.get_string(r.required(meta, "/otherData", key), "/otherData/" + std::string(key)));
}

TraceMeta parse_meta(const Reader& r, JsonRef doc) {
  const JsonRef m = r.required(doc, "", "otherData", "streamlab traces carry their run metadata there");
  r.expect_object(m, "/otherData");
  const auto version = r.get_int(r.required(m, "/otherData", "streamlab_trace_format",
                                            "not a streamlab trace, or one from an older streamlab"),
                                 "/otherData/streamlab_trace_format");
  if (version != kTraceFormatVersion)
    r.fail("/otherData/streamlab_trace_format", "trace format " + std::to_string(version) +
                                                    " is not supported (this streamlab reads " +
                                                    std::to_string(kTraceFormatVersion) + ")");
  r.check_keys(m, "/otherData",
               {"streamlab_trace_format", "backend", "device_name", "profile", "policy", "workload",
                "workload_hash", "version", "date", "extra"},
               "trace metadata");
  TraceMeta meta;
  meta.backend = get_meta_string(r, m, "backend");
  meta.device_name = get_meta_string(r, m, "device_name");
  meta.profile = get_meta_string(r, m, "profile");
  meta.policy = get_meta_string(r, m, "policy");
  meta.workload = get_meta_string(r, m, "workload");
  meta.workload_hash = get_meta_string(r, m, "workload_hash");
  meta.version = get_meta_string(r, m, "version");
  meta.date = get_meta_string(r, m, "date");
  if (const auto extra = m.find("extra")) {
    r.expect_object(*extra, "/otherData/extra");
    for (JsonRef v : *extra)
      meta.extra[std::string(v.key())] =
          r.get_string(v, detail::shorten_pointer("/otherData/extra/" + detail::pointer_token(v.key())));
  }
  return meta;
}

// The members of a span event and of its args the reader uses, each found once per event.
enum EventField : std::uint8_t { e_ph, e_args, e_name, e_cat, e_pid, kEventFieldCount };
constexpr std::array<std::string_view, kEventFieldCount> kEventFieldNames{"ph", "args", "name", "cat", "pid"};
enum ArgField : std::uint8_t { a_op, a_op_id, a_engine, a_stream, a_start_ns, a_end_ns, a_host_call, kArgFieldCount };
constexpr std::array<std::string_view, kArgFieldCount> kArgFieldNames{"op",       "op_id",  "engine",   "stream",
                                                                      "start_ns", "end_ns", "host_call"};
using EventFields = std::array<std::optional<JsonRef>, kEventFieldCount>;

/// Member `f` of an object read into `fields`; when absent, the "missing required key" error.
template <std::size_t N>
JsonRef need(const Reader& r, JsonRef object, const Place& p, const std::array<std::optional<JsonRef>, N>& fields,
             const std::array<std::string_view, N>& names, std::size_t f) {
  if (!fields[f]) (void)r.required(object, p, names[f]);  // throws
  return *fields[f];
}

// The span's texts are interned into `t`'s table (its name only with `names`).
Span parse_span(Reader& r, JsonRef e, const EventFields& ev, const Place& p, Trace& t, bool names) {
  Span s;
  const JsonRef args = need(r, e, p, ev, kEventFieldNames, e_args);
  const Place a(p, "/args");
  r.expect_object(args, a);
  std::array<std::optional<JsonRef>, kArgFieldCount> arg;
  const bool other_args = args.members(kArgFieldNames, arg);
  const auto need_arg = [&](ArgField f) { return need(r, args, a, arg, kArgFieldNames, f); };
  const std::string_view op_id = r.get_string(need_arg(a_op_id), Place(a, "/op_id"));
  r.set_op(op_id);
  if (other_args)  // names the key it does not know
    r.check_keys(args, a, {"op", "op_id", "engine", "stream", "start_ns", "end_ns", "host_call"}, "span args");
  s.op = r.get_u32(need_arg(a_op), Place(a, "/op"));
  const std::string_view name = r.get_string(need(r, e, p, ev, kEventFieldNames, e_name), Place(p, "/name"));
  const std::string_view cat = r.get_string(need(r, e, p, ev, kEventFieldNames, e_cat), Place(p, "/cat"));
  const auto kind = parse_op_kind(cat);
  if (!kind) r.fail(Place(p, "/cat"), "unknown op kind '" + detail::clip(cat) + "'");
  s.kind = *kind;
  s.device = r.get_u32(need(r, e, p, ev, kEventFieldNames, e_pid), Place(p, "/pid"));
  s.stream = r.get_u32(need_arg(a_stream), Place(a, "/stream"));
  const std::string_view engine = r.get_string(need_arg(a_engine), Place(a, "/engine"));
  const auto eng = parse_engine(engine);
  if (!eng)
    r.fail(Place(a, "/engine"),
           "unknown engine '" + detail::clip(engine) + "' (one of: host, sm, copy_h2d, copy_d2h, copy_d2d)");
  s.engine = *eng;
  if (const auto& host_call = arg[a_host_call]) {
    s.host_call = r.get_bool(*host_call, Place(a, "/host_call"));
    if (s.host_call && s.engine != Engine::host)
      r.fail(Place(a, "/host_call"), "a host API call runs on engine 'host', not '" + std::string(engine) + "'");
  }
  s.start_ns = r.get_int(need_arg(a_start_ns), Place(a, "/start_ns"), -kMaxTraceNs, kMaxTraceNs);
  s.end_ns = r.get_int(need_arg(a_end_ns), Place(a, "/end_ns"), -kMaxTraceNs, kMaxTraceNs);
  if (s.end_ns < s.start_ns)
    r.fail(Place(a, "/end_ns"), "span ends (" + std::to_string(s.end_ns) + " ns) before it starts (" +
                              std::to_string(s.start_ns) + " ns)");
  s.op_id = t.intern(op_id);
  if (names) s.name = t.intern(name);
  r.set_op("");
  return s;
}

BlockPlacement parse_block(const Reader& r, JsonRef b, const Place& p) {
  if (!b.is_array() || b.size() != 5) r.fail(p, "expected [op, block, sm, start_ns, end_ns], got " + b.shown());
  BlockPlacement bp;
  bp.op = r.get_u32(b[0], Place(p, "/0"));
  bp.block = r.get_u32(b[1], Place(p, "/1"));
  bp.sm = r.get_u32(b[2], Place(p, "/2"));
  bp.start_ns = r.get_int(b[3], Place(p, "/3"), -kMaxTraceNs, kMaxTraceNs);  // the same bounds as spans'
  bp.end_ns = r.get_int(b[4], Place(p, "/4"), -kMaxTraceNs, kMaxTraceNs);
  if (bp.end_ns < bp.start_ns) r.fail(Place(p, "/4"), "block ends before it starts");
  return bp;
}

/// A span event exactly as write_chrome_json writes it, read straight from its line (LineScanner's
/// plain values); anything else returns false and the line is parsed as JSON instead. What it accepts it
/// checks as parse_span does, and interns its texts into `t`'s table (its name only with `names`).
bool read_span_line(std::string_view line, Span& s, Trace& t, bool names) {
  detail::LineScanner in(line);
  std::string_view name, cat, op_id, engine;
  std::uint64_t pid = 0, tid = 0, op = 0, stream = 0;
  std::int64_t start = 0, end = 0;
  if (!(in.lit("{\"name\":") && in.str(name) && in.lit(",\"cat\":") && in.str(cat) &&
        in.lit(",\"ph\":\"X\",\"ts\":") && in.decimal() && in.lit(",\"dur\":") && in.decimal() &&
        in.lit(",\"pid\":") && in.uint(pid) && in.lit(",\"tid\":") && in.uint(tid) &&
        in.lit(",\"args\":{\"op\":") && in.uint(op) && in.lit(",\"op_id\":") && in.str(op_id) &&
        in.lit(",\"engine\":") && in.str(engine) && in.lit(",\"stream\":") && in.uint(stream) &&
        in.lit(",\"start_ns\":") && in.integer(start) && in.lit(",\"end_ns\":") && in.integer(end)))
    return false;
  bool host_call = false;
  if (in.lit(",\"host_call\":true"))
    host_call = true;
  else
    (void)in.lit(",\"host_call\":false");
  if (!in.lit("}}") || !in.at_end()) return false;
  constexpr std::uint64_t kU32 = std::numeric_limits<std::uint32_t>::max();
  const auto kind = parse_op_kind(cat);
  const auto eng = parse_engine(engine);
  if (!kind || !eng || pid > kU32 || op > kU32 || stream > kU32 || start < -kMaxTraceNs || start > kMaxTraceNs ||
      end < -kMaxTraceNs || end > kMaxTraceNs || end < start || (host_call && *eng != Engine::host))
    return false;  // parse_span says what is wrong
  s.op = static_cast<OpIndex>(op);
  s.op_id = t.intern(op_id);
  if (names) s.name = t.intern(name);
  s.kind = *kind;
  s.device = static_cast<std::uint32_t>(pid);
  s.stream = static_cast<std::uint32_t>(stream);
  s.engine = *eng;
  s.host_call = host_call;
  s.start_ns = start;
  s.end_ns = end;
  return true;
}

}  // namespace

namespace detail {

std::optional<Trace> read_trace_by_lines(std::string_view t, const std::string& source, const PaddedText* mapped,
                                         ProgressCounter* progress, const TraceReadOptions& options) {
  constexpr std::string_view kOpen = "{\"traceEvents\": [\n";
  if (t.substr(0, kOpen.size()) != kOpen) return std::nullopt;
  try {
    Trace trace;
    Reader r(source);
    JsonDocument doc(std::string_view(), source);
    JsonArena arena;
    const std::size_t close = for_each_element_line(
        t, kOpen.size(), mapped, progress, [&](std::string_view element, std::size_t i, std::size_t next) {
          Span s;
          if (read_span_line(element, s, trace, options.names)) {
            trace.spans.push_back(std::move(s));
          } else {
            // Any other event: parsed as JSON, read as the whole-file reader reads an event.
            doc.reset(element);
            const JsonRef e = doc.build_root(arena);
            const std::string at = "/traceEvents/" + std::to_string(i);  // Place keeps a view: not a temporary
            const Place p(at);
            r.expect_object(e, p);
            EventFields ev;
            (void)e.members(kEventFieldNames, ev);
            const std::string_view ph = r.get_string(need(r, e, p, ev, kEventFieldNames, e_ph), Place(p, "/ph"));
            if (ph == "X") trace.spans.push_back(parse_span(r, e, ev, p, trace, options.names));
          }
          if (i + 1 == 4096) {
            // Spans yet to come, from the bytes per line so far: one reservation, no regrowth.
            const double per_line = static_cast<double>(next - kOpen.size()) / 4096.0;
            trace.spans.reserve(static_cast<std::size_t>(static_cast<double>(t.size()) / per_line * 1.02) + 16);
          }
        });

    // The rest of the document with an empty event list: metadata and block placements read as always.
    std::string rest(t.substr(0, kOpen.size() - 1));
    rest += ']';
    rest += t.substr(close + 1);
    JsonDocument top_doc(rest, source);
    Trace top = read_trace(top_doc, nullptr);
    trace.meta = std::move(top.meta);
    trace.blocks = std::move(top.blocks);
    if (progress != nullptr) progress->set_done(t.size());
    return trace;
  } catch (const NotByLines&) {
    return std::nullopt;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

Trace read_trace(JsonDocument& doc, ProgressCounter* progress, const TraceReadOptions& options) {
  Reader r(doc.source());
  // One pass: spans and block placements stream in element by element; the other members (small: the
  // metadata) are checked once the pass is over, first, as always. A problem found in an event waits
  // for them (the metadata's format version decides whether the events can be read at all).
  JsonArena top;
  JsonArena element;
  Trace t;
  bool have_events = false;
  std::optional<InputError> events_error;
  std::optional<InputError> blocks_error;
  const auto keep_first = [](std::optional<InputError>& slot, const auto& f) {
    if (slot) return;
    try {
      f();
    } catch (const InputError& e) {
      slot = e;
    }
  };
  const Place events_place("/traceEvents");
  const Place blocks_place("/streamlabBlocks");
  top.begin_object();
  doc.for_each_root_member(
      [&](std::string_view key, simdjson::ondemand::value& value) {
        if (key == "traceEvents") {
          have_events = true;
          doc.for_each_element(
              value, "/traceEvents", element, [&](std::size_t n) { t.spans.reserve(n); },
              [&](std::size_t i, JsonRef e) {
                keep_first(events_error, [&] {
                  const detail::IndexToken index(i);
                  const Place p(events_place, index.view());
                  r.expect_object(e, p);
                  EventFields ev;
                  (void)e.members(kEventFieldNames, ev);  // other keys (ts, dur, tid, ...) are Chrome's
                  const std::string_view ph =
                      r.get_string(need(r, e, p, ev, kEventFieldNames, e_ph), Place(p, "/ph"));
                  // Metadata and any other event types (added by other tools) carry no spans.
                  if (ph == "X") t.spans.push_back(parse_span(r, e, ev, p, t, options.names));
                });
              },
              [&](JsonRef not_array) { keep_first(events_error, [&] { r.expect_array(not_array, "/traceEvents"); }); },
              progress);
        } else if (key == "streamlabBlocks") {
          doc.for_each_element(
              value, "/streamlabBlocks", element, [&](std::size_t n) { t.blocks.reserve(n); },
              [&](std::size_t i, JsonRef b) {
                keep_first(blocks_error, [&] {
                  const detail::IndexToken index(i);
                  t.blocks.push_back(parse_block(r, b, Place(blocks_place, index.view())));
                });
              },
              [&](JsonRef not_array) {
                keep_first(blocks_error, [&] { r.expect_array(not_array, "/streamlabBlocks"); });
              },
              progress);
        } else {
          (void)doc.build(value, "/" + pointer_token(key), top, key);
        }
      },
      top, [&](JsonRef root) { r.expect_object(root, ""); });
  top.end_object();
  r.set_op("");
  t.meta = parse_meta(r, top.root());
  if (!have_events) r.fail("", "missing required key 'traceEvents'");
  if (events_error) throw *events_error;
  if (blocks_error) throw *blocks_error;
  return t;
}

}  // namespace detail

Trace parse_chrome_trace(std::string_view json_text, const std::string& source) {
  if (auto t = detail::read_trace_by_lines(json_text, source, nullptr, nullptr)) return std::move(*t);
  detail::JsonDocument doc(json_text, source);
  return detail::read_trace(doc, nullptr);
}

Trace load_trace(const std::filesystem::path& file, ProgressCounter* progress, const TraceReadOptions& options) {
  if (auto t = with_step(file.string(), "parsing", [&]() -> std::optional<Trace> {
        const auto mapped = detail::PaddedText::map(file, /*populate=*/false);
        if (!mapped) return std::nullopt;
        return detail::read_trace_by_lines(std::string_view(mapped->data(), mapped->size()), file.string(), &*mapped,
                                           progress, options);
      }))
    return std::move(*t);
  return detail::read_json_file(file,
                                [&](detail::JsonDocument& doc) { return detail::read_trace(doc, progress, options); });
}

void save_trace(const Trace& t, const std::filesystem::path& file) {
  write_file_atomically(file, [&t](const TextSink& sink) { write_chrome_json(t, sink); });
}

}  // namespace streamlab::model
