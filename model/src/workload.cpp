// Workload JSON I/O and validation. Format: docs/formats.md. Two layers: parse_op checks the *syntax*
// of one op (keys, types, enum names); resolve_and_check checks the *meaning* of the whole workload
// (shapes against device limits, durations, ids, deps, cycles), so workloads built in code by generators
// or tests get exactly the same checks as files.
#include "streamlab/model/workload.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <ranges>
#include <span>
#include <stdexcept>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include "canonical_out.hpp"
#include "json_util.hpp"
#include "json_view.hpp"
#include "intervals.hpp"
#include "json_write.hpp"
#include "line_scanner.hpp"
#include "readers.hpp"
#include "streamlab/model/csr.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/input_limits.hpp"

namespace streamlab::model {

using detail::append_int;
using detail::append_string;
using detail::Json;
using detail::JsonRef;
using detail::Place;
using detail::pointer_token;
using detail::Reader;

WorkloadType default_workload_type(OpKind k) noexcept {
  switch (k) {
    case OpKind::kernel:
    case OpKind::task_pool: return WorkloadType::compute;
    case OpKind::h2d:
    case OpKind::d2h:
    case OpKind::d2d:
    case OpKind::memset:
    case OpKind::prefetch: return WorkloadType::memory;
    case OpKind::host_func:
    case OpKind::barrier:
    case OpKind::event_record:
    case OpKind::event_wait:
    case OpKind::stream_sync:
    case OpKind::event_sync:
    case OpKind::device_sync: return WorkloadType::coordination;
  }
  return WorkloadType::compute;
}

std::optional<StreamKind> parse_stream_kind(std::string_view t) noexcept {
  if (t == "blocking") return StreamKind::blocking;
  if (t == "non-blocking") return StreamKind::non_blocking;
  if (t == "legacy") return StreamKind::legacy_default;
  if (t == "per-thread") return StreamKind::per_thread_default;
  return std::nullopt;
}
std::string_view to_string(StreamKind k) noexcept {
  switch (k) {
    case StreamKind::blocking: return "blocking";
    case StreamKind::non_blocking: return "non-blocking";
    case StreamKind::legacy_default: return "legacy";
    case StreamKind::per_thread_default: return "per-thread";
  }
  return "?";
}

OpIndex Workload::index_of(std::string_view id) const {
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].id == id) return static_cast<OpIndex>(i);
  throw std::out_of_range("no op with id '" + std::string(id) + "' in workload '" + name + "'");
}

void Workload::pad_deps() {
  // Ops pushed onto `ops` directly have no deps: give each an empty range.
  if (dep_begin_.empty()) dep_begin_.push_back(0);
  while (dep_begin_.size() < ops.size() + 1) dep_begin_.push_back(static_cast<std::uint32_t>(dep_index_.size()));
}

template <class Fill>
OpIndex Workload::append(const Op& op, std::size_t n, Fill&& dep) {
  pad_deps();
  if (dep_index_.size() + n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("workload '" + name + "': more than 2^32 - 1 deps");
  if (ops.size() >= kUnresolved) throw std::length_error("workload '" + name + "': more than 2^32 - 2 ops");
  Op& added = ops.emplace_back(op);
  added.id = strings_->adopt(op.id);
  added.name = op.name == op.id ? added.id : strings_->adopt(op.name);  // the usual unnamed op keeps one copy
  added.event = strings_->adopt(op.event);
  for (std::size_t k = 0; k < n; ++k) dep(k);
  dep_begin_.push_back(static_cast<std::uint32_t>(dep_index_.size()));
  return static_cast<OpIndex>(ops.size() - 1);
}

OpIndex Workload::add(const Op& op, std::initializer_list<std::string_view> deps) {
  return add(op, std::span<const std::string_view>(deps.begin(), deps.size()));
}

OpIndex Workload::add(const Op& op, std::span<const std::string> deps) {
  const std::vector<std::string_view> views(deps.begin(), deps.end());
  return add(op, std::span<const std::string_view>(views));
}

OpIndex Workload::add(const Op& op, std::span<const std::string_view> deps) {
  return append(op, deps.size(), [&](std::size_t k) {
    dep_name_.resize(dep_index_.size());
    dep_index_.push_back(kUnresolved);
    dep_name_.push_back(intern(deps[k]));
  });
}

OpIndex Workload::add_resolved(const Op& op, std::span<const OpIndex> deps) {
  return append(op, deps.size(), [&](std::size_t k) {
    dep_index_.push_back(deps[k]);
    if (!dep_name_.empty()) dep_name_.emplace_back();
  });
}

void Workload::set_deps(OpIndex i, std::span<const OpIndex> deps) {
  if (i >= ops.size()) throw std::out_of_range("set_deps: no op " + std::to_string(i));
  pad_deps();
  const auto begin = static_cast<std::ptrdiff_t>(dep_begin_[i]);
  const auto end = static_cast<std::ptrdiff_t>(dep_begin_[i + 1]);
  dep_index_.erase(dep_index_.begin() + begin, dep_index_.begin() + end);
  dep_index_.insert(dep_index_.begin() + begin, deps.begin(), deps.end());
  if (!dep_name_.empty()) {
    dep_name_.erase(dep_name_.begin() + begin, dep_name_.begin() + end);
    dep_name_.insert(dep_name_.begin() + begin, deps.size(), Text());
  }
  const auto shift = static_cast<std::int64_t>(deps.size()) - (end - begin);
  for (std::size_t v = std::size_t{i} + 1; v < dep_begin_.size(); ++v)
    dep_begin_[v] = static_cast<std::uint32_t>(static_cast<std::int64_t>(dep_begin_[v]) + shift);
}

void Workload::dependents(std::vector<std::uint32_t>& start, std::vector<OpIndex>& rows) const {
  // Ops added without deps past the last one with any have no row of their own: none to turn around.
  transpose_rows(static_cast<std::uint32_t>(ops.size()), dep_begin_, dep_index_, start, rows);
}

std::vector<std::string_view> Workload::dep_ids(OpIndex i) const {
  std::vector<std::string_view> out;
  if (std::size_t{i} + 1 >= dep_begin_.size()) return out;
  for (std::uint32_t e = dep_begin_[i]; e < dep_begin_[i + 1]; ++e) {
    const OpIndex d = dep_index_[e];
    out.push_back(d == kUnresolved ? std::string_view(dep_name_[e])
                  : d < ops.size() ? std::string_view(ops[d].id)
                                   : std::string_view());
  }
  return out;
}

bool operator==(const Workload& a, const Workload& b) {
  if (a.name != b.name || a.description != b.description || a.program != b.program || a.streams != b.streams ||
      a.ops != b.ops)
    return false;
  for (OpIndex i = 0; i < a.ops.size(); ++i)
    if (a.dep_ids(i) != b.dep_ids(i)) return false;
  return true;
}

namespace {

// ---------------------------------------------------------------------------------------------------
// Which keys each kind takes. Common keys apply to every op.

// host_gap_ns is common syntax but only programs may use it (checked with the rest of the program rules).
constexpr std::array<std::string_view, 8> kCommonKeys{"id",     "name", "kind", "priority",
                                                      "type",   "stream", "deps", "host_gap_ns"};
constexpr std::array<std::string_view, 5> kKernelKeys{"grid", "block", "registers", "shared_mem", "duration"};
constexpr std::array<std::string_view, 5> kTaskPoolKeys{"grid", "block", "registers", "shared_mem", "tasks"};
constexpr std::array<std::string_view, 3> kHostCopyKeys{"bytes", "host_memory", "blocking"};
constexpr std::array<std::string_view, 2> kDeviceCopyKeys{"bytes", "blocking"};
constexpr std::array<std::string_view, 1> kDeviceBytesKeys{"bytes"};
constexpr std::array<std::string_view, 1> kHostFuncKeys{"host_ns"};
constexpr std::array<std::string_view, 1> kEventKeys{"event"};
constexpr std::array<std::string_view, 3> kKernelRequired{"grid", "block", "duration"};
constexpr std::array<std::string_view, 3> kTaskPoolRequired{"grid", "block", "tasks"};

struct KindRule {
  std::span<const std::string_view> keys;      ///< kind-specific keys (besides the common ones)
  std::span<const std::string_view> required;  ///< of those, the ones that must be present
};

KindRule rule_for(OpKind k) {
  switch (k) {
    case OpKind::kernel: return {kKernelKeys, kKernelRequired};
    case OpKind::task_pool: return {kTaskPoolKeys, kTaskPoolRequired};
    case OpKind::h2d:
    case OpKind::d2h: return {kHostCopyKeys, std::span(kHostCopyKeys).first(1)};
    case OpKind::d2d:
    case OpKind::memset: return {kDeviceCopyKeys, std::span(kDeviceCopyKeys).first(1)};
    case OpKind::prefetch: return {kDeviceBytesKeys, kDeviceBytesKeys};
    case OpKind::host_func: return {kHostFuncKeys, kHostFuncKeys};
    case OpKind::event_record:
    case OpKind::event_wait:
    case OpKind::event_sync: return {kEventKeys, kEventKeys};
    case OpKind::barrier:
    case OpKind::stream_sync:
    case OpKind::device_sync: return {};
  }
  return {};
}

bool contains(std::span<const std::string_view> keys, std::string_view k) {
  return std::find(keys.begin(), keys.end(), k) != keys.end();
}

std::string join(std::span<const std::string_view> keys) {
  std::string s;
  for (auto k : keys) s += (s.empty() ? "" : ", ") + std::string(k);
  return s;
}

std::string a_kind(OpKind k) {
  const std::string_view n = to_string(k);
  const bool vowel_sound = (n.front() == 'h' && n != "host_func") || n.front() == 'e';  // "an h2d", "an event_wait"
  return std::string(vowel_sound ? "an " : "a ") + std::string(n) + " op";
}

std::string kind_needs(OpKind k) {
  const KindRule rule = rule_for(k);
  if (rule.required.empty()) return {};
  return a_kind(k) + " needs " + join(rule.required);
}

template <class E, class ParseFn, std::size_t N>
E parse_enum(const Reader& r, JsonRef j, const Place& ptr, ParseFn parse, std::string_view what,
             const std::array<E, N>& all) {
  const std::string_view s = r.get_string(j, ptr);
  if (auto v = parse(s)) return *v;
  std::string choices;
  for (E e : all) choices += (choices.empty() ? "" : ", ") + std::string(to_string(e));
  r.fail(ptr, "unknown " + std::string(what) + " '" + detail::clip(s) + "' (one of: " + choices + ")");
}

constexpr std::array kAllKinds{OpKind::kernel,       OpKind::h2d,        OpKind::d2h,         OpKind::d2d,
                               OpKind::memset,       OpKind::prefetch,   OpKind::host_func,   OpKind::barrier,
                               OpKind::task_pool,    OpKind::event_record, OpKind::event_wait, OpKind::stream_sync,
                               OpKind::event_sync,   OpKind::device_sync};
constexpr std::array kAllPriorities{Priority::critical, Priority::high, Priority::normal, Priority::low,
                                    Priority::cleanup};
constexpr std::array kAllTypes{WorkloadType::compute, WorkloadType::memory, WorkloadType::mixed,
                               WorkloadType::coordination};
constexpr std::array kAllHostMemory{HostMemory::pinned, HostMemory::pageable};
constexpr std::array kAllAssignments{TaskAssignment::static_index, TaskAssignment::dynamic_queue};

// A dimension is an integer (x) or an array [x], [x, y] or [x, y, z].
Dim3 parse_dim3(const Reader& r, JsonRef j, const Place& ptr) {
  if (j.is_number()) return Dim3{r.get_u32(j, ptr), 1, 1};
  if (!j.is_array() || j.empty() || j.size() > 3)
    r.fail(ptr, "expected an integer or an array of 1 to 3 integers, got " + j.shown());
  std::array<std::uint32_t, 3> d{1, 1, 1};
  std::size_t i = 0;
  for (JsonRef v : j) {
    // Hot path: build the pointer only for an error.
    if (v.is_unsigned() && v.uint64() <= std::numeric_limits<std::uint32_t>::max())
      d[i] = static_cast<std::uint32_t>(v.uint64());
    else
      d[i] = r.get_u32(v, ptr.str() + "/" + std::to_string(i));
    ++i;
  }
  return Dim3{d[0], d[1], d[2]};
}

std::vector<Nanos> parse_ns_list(const Reader& r, JsonRef j, const Place& ptr) {
  r.expect_array(j, ptr);
  std::vector<Nanos> out;
  out.reserve(j.size());
  std::size_t i = 0;
  for (JsonRef v : j) {
    // Hot path (per-block lists can be long): build the pointer only for an error.
    if (v.is_unsigned() && v.uint64() <= std::uint64_t{std::numeric_limits<Nanos>::max()})
      out.push_back(static_cast<Nanos>(v.uint64()));
    else if (v.type() == JsonRef::Type::integer)
      out.push_back(v.int64());
    else
      out.push_back(r.get_int(v, ptr.str() + "/" + std::to_string(i)));
    ++i;
  }
  return out;
}

DurationSpec parse_duration(const Reader& r, JsonRef j, const Place& ptr) {
  r.check_keys(j, ptr, {"per_block_ns", "blocks_ns", "bytes", "flops"}, "a duration");
  const bool fixed = j.contains("per_block_ns");
  const bool list = j.contains("blocks_ns");
  const bool cost = j.contains("bytes") || j.contains("flops");
  const int forms = int{fixed} + int{list} + int{cost};
  if (forms != 1)
    r.fail(ptr, std::string(forms == 0 ? "empty duration" : "duration mixes forms") +
                    ": give exactly one of {\"per_block_ns\": N}, {\"blocks_ns\": [..]} or "
                    "{\"bytes\": B, \"flops\": F}");
  if (fixed) return FixedPerBlock{r.get_int(j["per_block_ns"], Place(ptr, "/per_block_ns"))};
  if (list) return PerBlockList{parse_ns_list(r, j["blocks_ns"], Place(ptr, "/blocks_ns"))};
  CostModel c;
  if (j.contains("bytes")) c.bytes = r.get_double(j["bytes"], Place(ptr, "/bytes"));
  if (j.contains("flops")) c.flops = r.get_double(j["flops"], Place(ptr, "/flops"));
  return c;
}

TaskList parse_tasks(const Reader& r, JsonRef j, const Place& ptr) {
  r.check_keys(j, ptr, {"ns", "assignment"}, "a task list");
  TaskList t;
  t.task_ns = parse_ns_list(r, r.required(j, ptr, "ns"), Place(ptr, "/ns"));
  if (j.contains("assignment"))
    t.assignment = parse_enum(r, j["assignment"], Place(ptr, "/assignment"), parse_task_assignment, "task assignment",
                              kAllAssignments);
  return t;
}

// Every key an op may have, one slot each: parse_op finds an op's members in one pass instead of
// searching the op once per key (at a million ops, those searches cost as much as the parse).
enum OpField : std::uint8_t {
  f_id, f_name, f_kind, f_priority, f_type, f_stream, f_deps, f_host_gap_ns,  // kCommonKeys, same order
  f_grid, f_block, f_registers, f_shared_mem, f_duration, f_tasks, f_bytes, f_host_memory, f_blocking,
  f_host_ns, f_event, kOpFieldCount
};
constexpr std::array<std::string_view, kOpFieldCount> kOpFieldNames{
    "id",     "name",     "kind",  "priority", "type",  "stream",      "deps",     "host_gap_ns", "grid", "block",
    "registers", "shared_mem", "duration", "tasks", "bytes", "host_memory", "blocking", "host_ns",  "event"};

std::optional<OpField> op_field(std::string_view key) noexcept {
  for (std::size_t f = 0; f < kOpFieldNames.size(); ++f)
    if (kOpFieldNames[f] == key) return static_cast<OpField>(f);
  return std::nullopt;
}

constexpr std::uint32_t bit(OpField f) noexcept { return std::uint32_t{1} << f; }

/// The fields an op of kind `k` may have: the common keys and its kind's own.
std::uint32_t allowed_fields(OpKind k) {
  static const auto masks = [] {
    std::array<std::uint32_t, kAllKinds.size()> m{};
    for (OpKind kind : kAllKinds) {
      std::uint32_t mask = 0;
      for (auto key : kCommonKeys) mask |= bit(*op_field(key));
      for (auto key : rule_for(kind).keys) mask |= bit(*op_field(key));
      m[static_cast<std::size_t>(kind)] = mask;
    }
    return m;
  }();
  return masks[static_cast<std::size_t>(k)];
}

/// Throws for the first member of op `j` (in file order) that an op of kind `kind` does not take.
[[noreturn]] void fail_key_not_taken(JsonRef j, OpKind kind, const std::string& p, const Reader& r) {
  const KindRule rule = rule_for(kind);
  for (JsonRef member : j) {
    const std::string_view key = member.key();
    if (contains(kCommonKeys, key) || contains(rule.keys, key)) continue;
    const std::string where = detail::shorten_pointer(p + "/" + detail::pointer_token(key));
    const std::string takes = rule.keys.empty() ? std::string("only the common keys")
                                                : join(rule.keys) + " besides the common keys";
    bool known = false;
    for (OpKind k : kAllKinds) known = known || contains(rule_for(k).keys, key);
    if (known) r.fail(where, "key '" + std::string(key) + "' does not apply to " + a_kind(kind) + " (it takes " + takes + ")");
    r.fail(where, "unknown key '" + detail::clip(key) + "' (common keys: " + join(kCommonKeys) + "; " + a_kind(kind) +
                      " also takes " + (rule.keys.empty() ? std::string("nothing else") : join(rule.keys)) + ")");
  }
  r.fail(p, "internal error: no key to refuse");
}

// `deps` receives the op's deps as written, as views of the parser's strings (alive until the document is).
Op parse_op(JsonRef j, std::size_t i, Reader& r, std::vector<Text>& deps) {
  const std::string p = "/ops/" + std::to_string(i);
  r.set_op("");
  r.expect_object(j, p);
  std::array<std::optional<JsonRef>, kOpFieldCount> field;
  const bool unknown = j.members(kOpFieldNames, field);
  std::uint32_t present = 0;
  for (std::size_t f = 0; f < field.size(); ++f)
    if (field[f]) present |= bit(static_cast<OpField>(f));
  // The checks in their usual order: id, kind, keys the kind does not take, keys it needs, values.
  const auto need = [&](OpField f, std::string_view why = {}) {
    if (!field[f]) (void)r.required(j, p, kOpFieldNames[f], why);  // throws "missing required key"
    return *field[f];
  };
  Op op;
  op.id = Text::borrow(r.get_string(need(f_id), Place(p, "/id")));
  r.set_op(op.id);
  op.kind = parse_enum(r, need(f_kind), Place(p, "/kind"), parse_op_kind, "op kind", kAllKinds);
  if (unknown || (present & ~allowed_fields(op.kind)) != 0) fail_key_not_taken(j, op.kind, p, r);
  for (auto key : rule_for(op.kind).required)
    if ((present & bit(*op_field(key))) == 0) (void)r.required(j, p, key, kind_needs(op.kind));

  if (field[f_name])
    op.name = Text::borrow(r.get_string(*field[f_name], Place(p, "/name")));
  else
    op.name = op.id;
  if (field[f_priority])
    op.priority = parse_enum(r, *field[f_priority], Place(p, "/priority"), parse_priority, "priority", kAllPriorities);
  op.type = field[f_type] ? parse_enum(r, *field[f_type], Place(p, "/type"), parse_workload_type, "workload type",
                                       kAllTypes)
                          : default_workload_type(op.kind);
  if (field[f_stream]) op.stream_hint = r.get_u32(*field[f_stream], Place(p, "/stream"));
  deps.clear();
  if (const auto& list = field[f_deps]) {
    r.expect_array(*list, Place(p, "/deps"));
    for (JsonRef dep : *list) {
      // Hot path (millions of deps): build the pointer only for an error.
      if (!dep.is_string()) (void)r.get_string(dep, p + "/deps/" + std::to_string(deps.size()));
      deps.push_back(Text::borrow(dep.string()));
    }
  }

  if (runs_on_sms(op.kind)) {
    KernelShape s;
    s.grid = parse_dim3(r, *field[f_grid], Place(p, "/grid"));
    s.block = parse_dim3(r, *field[f_block], Place(p, "/block"));
    if (field[f_registers]) s.registers_per_thread = r.get_u32(*field[f_registers], Place(p, "/registers"));
    if (field[f_shared_mem]) s.shared_mem_bytes = r.get_u32(*field[f_shared_mem], Place(p, "/shared_mem"));
    op.shape = s;
    if (op.kind == OpKind::kernel) op.duration = parse_duration(r, *field[f_duration], Place(p, "/duration"));
    if (op.kind == OpKind::task_pool) op.tasks = parse_tasks(r, *field[f_tasks], Place(p, "/tasks"));
  }
  if (field[f_bytes]) op.bytes = r.get_uint(*field[f_bytes], Place(p, "/bytes"));
  if (field[f_host_memory])
    op.host_memory = parse_enum(r, *field[f_host_memory], Place(p, "/host_memory"), parse_host_memory, "host memory",
                                kAllHostMemory);
  if (field[f_host_ns]) op.host_ns = r.get_int(*field[f_host_ns], Place(p, "/host_ns"));
  if (field[f_host_gap_ns]) op.host_gap_ns = r.get_int(*field[f_host_gap_ns], Place(p, "/host_gap_ns"));
  if (field[f_event]) op.event = Text::borrow(r.get_string(*field[f_event], Place(p, "/event")));
  if (field[f_blocking]) op.blocking = r.get_bool(*field[f_blocking], Place(p, "/blocking"));
  return op;
}

std::vector<StreamDecl> parse_streams(JsonRef j, Reader& r) {
  r.set_op("");
  r.expect_array(j, "/streams");
  std::vector<StreamDecl> out;
  out.reserve(j.size());
  std::size_t i = 0;
  for (JsonRef s : j) {
    const std::string p = "/streams/" + std::to_string(i++);
    r.check_keys(s, p, {"id", "priority", "kind", "label"}, "a stream declaration");
    StreamDecl d;
    d.id = r.get_u32(r.required(s, p, "id"), p + "/id");
    if (s.contains("priority"))
      d.priority = static_cast<int>(r.get_int(s["priority"], p + "/priority", std::numeric_limits<int>::min(),
                                              std::numeric_limits<int>::max()));
    if (s.contains("kind")) {
      const std::string_view k = r.get_string(s["kind"], p + "/kind");
      const auto kind = parse_stream_kind(k);
      if (!kind) r.fail(p + "/kind", "unknown stream kind '" + detail::clip(k) + "' (one of: blocking, non-blocking, legacy, per-thread)");
      d.kind = *kind;
    }
    if (s.contains("label")) d.label = r.get_string(s["label"], p + "/label");
    out.push_back(std::move(d));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Semantic checks.

std::string dims(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

// A duration in [0, kMaxOpNs].
void check_nonnegative(const Reader& r, Nanos ns, const Place& ptr, std::string_view what) {
  if (ns < 0) r.fail(ptr, std::string(what) + " must be >= 0 ns, got " + std::to_string(ns));
  if (ns > kMaxOpNs)
    r.fail(ptr, std::string(what) + " " + std::to_string(ns) + " ns is over the limit of " +
                    std::to_string(kMaxOpNs) + " ns (2^40, about 18 minutes)");
}

// Nanoseconds the op's work takes run serially at the slowest rates a device profile may have: an upper
// bound on the device and host time it can add to a simulated clock (profile per-op costs aside).
double serial_ns(const Op& op) {
  constexpr double kSlowest = kMinProfileRate;
  double ns = static_cast<double>(op.host_ns) + static_cast<double>(op.host_gap_ns) +
              static_cast<double>(op.bytes) / kSlowest;
  if (op.kind == OpKind::kernel && op.shape) {
    if (const auto* f = std::get_if<FixedPerBlock>(&op.duration)) {
      ns += static_cast<double>(f->ns) * static_cast<double>(op.shape->blocks());
    } else if (const auto* l = std::get_if<PerBlockList>(&op.duration)) {
      for (const Nanos b : l->ns) ns += static_cast<double>(b);
    } else {
      const auto& c = std::get<CostModel>(op.duration);
      ns += (c.bytes + c.flops) / kSlowest;
    }
  }
  if (op.tasks)
    for (const Nanos t : op.tasks->task_ns) ns += static_cast<double>(t);
  return ns;
}

void check_op(const Op& op, std::size_t i, const ShapeLimits& lim, Reader& r) {
  // The op's place, spelled out only for a message (formatting it for every op cost more than the checks).
  const detail::IndexToken index(i);
  const Place ops("/ops");
  const Place p(ops, index.view());
  r.set_op(op.id);
  if (op.id.empty()) r.fail(Place(p, "/id"), "op id must not be empty");
  check_nonnegative(r, op.host_gap_ns, Place(p, "/host_gap_ns"), "host_gap_ns");

  if (!runs_on_sms(op.kind)) {
    if (op.shape) r.fail(p, a_kind(op.kind) + " has no launch shape (grid/block belong to kernels and task pools)");
    if (op.tasks) r.fail(p, a_kind(op.kind) + " has no task list (tasks belong to task_pool ops)");
    if (op.kind == OpKind::host_func) check_nonnegative(r, op.host_ns, Place(p, "/host_ns"), "host_ns");
    if (op.bytes > kMaxOpBytes)
      r.fail(Place(p, "/bytes"), std::to_string(op.bytes) + " bytes is over the limit of " + std::to_string(kMaxOpBytes) +
                               " bytes (2^44, 16 TiB)");
    return;
  }
  if (!op.shape) r.fail(p, kind_needs(op.kind));
  const KernelShape& s = *op.shape;
  const Dim3& g = s.grid;
  const Dim3& b = s.block;
  if (g.x == 0 || g.y == 0 || g.z == 0)
    r.fail(Place(p, "/grid"), "zero-sized grid " + dims(g) + ": every dimension must be >= 1");
  if (g.x > lim.max_grid_x || g.y > lim.max_grid_yz || g.z > lim.max_grid_yz)
    r.fail(Place(p, "/grid"), "grid " + dims(g) + " exceeds the device limit " + std::to_string(lim.max_grid_x) + "x" +
                            std::to_string(lim.max_grid_yz) + "x" + std::to_string(lim.max_grid_yz));
  if (s.blocks() > kMaxOpBlocks)
    r.fail(Place(p, "/grid"), "grid " + dims(g) + " has " + std::to_string(s.blocks()) + " blocks; at most " +
                            std::to_string(kMaxOpBlocks) + " (2^32 - 1) per op");
  if (b.x == 0 || b.y == 0 || b.z == 0)
    r.fail(Place(p, "/block"), "zero-sized block " + dims(b) + ": every dimension must be >= 1");
  if (s.threads_per_block() > lim.max_threads_per_block)
    r.fail(Place(p, "/block"), "block " + dims(b) + " has " + std::to_string(s.threads_per_block()) +
                             " threads; at most " + std::to_string(lim.max_threads_per_block) +
                             " threads per block are possible");
  if (b.z > lim.max_block_z)
    r.fail(Place(p, "/block"), "block " + dims(b) + ": the z dimension is at most " + std::to_string(lim.max_block_z));
  if (s.registers_per_thread > lim.max_registers_per_thread)
    r.fail(Place(p, "/registers"), std::to_string(s.registers_per_thread) + " registers per thread; at most " +
                                 std::to_string(lim.max_registers_per_thread) + " are possible");
  const std::uint64_t regs = std::uint64_t{s.registers_per_thread} * s.threads_per_block();
  if (regs > lim.max_registers_per_block)
    r.fail(Place(p, "/registers"), std::to_string(s.registers_per_thread) + " registers x " +
                                 std::to_string(s.threads_per_block()) + " threads = " + std::to_string(regs) +
                                 " registers per block; at most " + std::to_string(lim.max_registers_per_block) +
                                 " fit on one SM");
  if (s.shared_mem_bytes > lim.max_shared_mem_per_block)
    r.fail(Place(p, "/shared_mem"), std::to_string(s.shared_mem_bytes) + " bytes of shared memory per block; at most " +
                                  std::to_string(lim.max_shared_mem_per_block) + " are possible");

  if (op.kind == OpKind::kernel) {
    const Place d(p, "/duration");
    if (const auto* f = std::get_if<FixedPerBlock>(&op.duration)) {
      check_nonnegative(r, f->ns, Place(d, "/per_block_ns"), "per_block_ns");
    } else if (const auto* l = std::get_if<PerBlockList>(&op.duration)) {
      if (l->ns.size() != s.blocks())
        r.fail(Place(d, "/blocks_ns"), "blocks_ns has " + std::to_string(l->ns.size()) + " entries but the grid " +
                                     dims(g) + " has " + std::to_string(s.blocks()) + " blocks");
      for (std::size_t k = 0; k < l->ns.size(); ++k)
        if (l->ns[k] < 0 || l->ns[k] > kMaxOpNs)
          check_nonnegative(r, l->ns[k], d.str() + "/blocks_ns/" + std::to_string(k), "block duration");
    } else {
      const auto& c = std::get<CostModel>(op.duration);
      for (const auto& [amount, key] : {std::pair{c.bytes, "bytes"}, std::pair{c.flops, "flops"}}) {
        if (!(std::isfinite(amount) && amount >= 0))
          r.fail(d.str() + "/" + key, std::string(key) + " must be a finite number >= 0");
        if (amount > kMaxCostAmount)
          r.fail(d.str() + "/" + key, std::string(key) + " " + detail::format_number(amount) +
                                    " is over the limit of 2^50 (about 1.1e15)");
      }
    }
  } else {
    if (!op.tasks) r.fail(p, kind_needs(op.kind));
    if (op.tasks->task_ns.empty()) r.fail(Place(p, "/tasks/ns"), "a task pool needs at least one task");
    for (std::size_t k = 0; k < op.tasks->task_ns.size(); ++k)
      if (op.tasks->task_ns[k] < 0 || op.tasks->task_ns[k] > kMaxOpNs)
        check_nonnegative(r, op.tasks->task_ns[k], p.str() + "/tasks/ns/" + std::to_string(k), "task duration");
  }
}

// Edit distance with early exit, for "did you mean" hints on dangling deps.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(const Workload& w, std::string_view missing) {
  constexpr std::size_t kMaxDistance = 2;
  std::size_t best = kMaxDistance + 1;
  const Op* match = nullptr;
  for (const auto& op : w.ops) {
    const std::size_t len_gap = op.id.size() > missing.size() ? op.id.size() - missing.size()
                                                              : missing.size() - op.id.size();
    if (len_gap >= best) continue;
    const std::size_t d = edit_distance(op.id, missing);
    if (d < best) {
      best = d;
      match = &op;
    }
  }
  return match == nullptr ? std::string() : " (did you mean '" + match->id + "'?)";
}

std::string label(const Op& op) {
  std::string s = "'" + op.id + "'";
  if (op.name != op.id && !op.name.empty()) s += " (" + op.name + ")";
  return s;
}

// Called only when Kahn's algorithm left ops unvisited: finds every strongly connected component among
// them with Boost.Graph and reports each as one concrete cycle (shortest one through its first op) plus
// the size of the component.
[[noreturn]] void report_cycles(const Workload& w, const std::vector<std::uint32_t>& indegree, Reader& r) {
  std::vector<OpIndex> members;  // compact vertex -> op
  std::vector<std::uint32_t> compact(w.size(), std::numeric_limits<std::uint32_t>::max());
  for (OpIndex v = 0; v < w.size(); ++v)
    if (indegree[v] > 0) {
      compact[v] = static_cast<std::uint32_t>(members.size());
      members.push_back(v);
    }
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph g(members.size());
  for (std::uint32_t c = 0; c < members.size(); ++c)
    for (OpIndex dep : w.deps(members[c]))
      if (compact[dep] != std::numeric_limits<std::uint32_t>::max()) boost::add_edge(compact[dep], c, g);
  std::vector<std::uint32_t> component(members.size());
  const auto ncomp = boost::strong_components(g, component.data());

  std::vector<std::vector<std::uint32_t>> comps(ncomp);
  for (std::uint32_t c = 0; c < members.size(); ++c) comps[component[c]].push_back(c);
  std::vector<std::vector<std::uint32_t>> cycles;
  for (auto& comp : comps)
    if (comp.size() > 1) cycles.push_back(std::move(comp));  // members ascend, so comp[0] is its first op
  std::sort(cycles.begin(), cycles.end(), [](const auto& a, const auto& b) { return a[0] < b[0]; });

  std::string msg = cycles.size() == 1 ? std::string("dependency cycle")
                                       : std::to_string(cycles.size()) + " dependency cycles";
  msg += " (x -> y: y depends on x): ";
  for (std::size_t ci = 0; ci < cycles.size(); ++ci) {
    const auto& comp = cycles[ci];
    // BFS from comp[0] inside the component until an edge leads back to it.
    const std::uint32_t start = comp[0];
    const auto cid = component[start];
    std::unordered_map<std::uint32_t, std::uint32_t> parent;
    std::deque<std::uint32_t> queue{start};
    parent[start] = start;
    std::uint32_t last = start;
    bool closed = false;
    while (!queue.empty() && !closed) {
      const std::uint32_t u = queue.front();
      queue.pop_front();
      for (auto [e, end] = boost::out_edges(u, g); e != end && !closed; ++e) {
        const auto v = static_cast<std::uint32_t>(boost::target(*e, g));
        if (component[v] != cid) continue;
        if (v == start) {
          last = u;
          closed = true;
        } else if (parent.emplace(v, u).second) {
          queue.push_back(v);
        }
      }
    }
    std::vector<std::uint32_t> path;
    for (std::uint32_t v = last;; v = parent[v]) {
      path.push_back(v);
      if (v == start) break;
    }
    std::reverse(path.begin(), path.end());
    if (cycles.size() > 1) msg += (ci == 0 ? "" : "; ") + std::string("[") + std::to_string(ci + 1) + "] ";
    for (auto v : path) msg += label(w.ops[members[v]]) + " -> ";
    msg += label(w.ops[members[start]]);
    if (comp.size() > path.size()) {
      msg += " (these are " + std::to_string(comp.size()) + " mutually dependent ops:";
      constexpr std::size_t kShown = 16;
      for (std::size_t k = 0; k < comp.size() && k < kShown; ++k) msg += " '" + w.ops[members[comp[k]]].id + "'";
      if (comp.size() > kShown) msg += " ...";
      msg += ")";
    }
  }
  const OpIndex first = members[cycles.front()[0]];
  r.set_op(w.ops[first].id);
  r.fail("/ops/" + std::to_string(first) + "/deps", msg);
}

// ---------------------------------------------------------------------------------------------------
// Writing.

// Written by hand rather than through a JSON DOM: hashing and saving a million-op workload must not
// build one. The text equals nlohmann's compact dump of the same object (key order as below). `Out` is
// TextOut (the text) or HashOut (its FNV-1a, without the text): canonical_out.hpp.

using detail::FnvLiteral;

template <class Out>
void append_dim3(Out& out, const Dim3& d) {
  if (d.y == 1 && d.z == 1) return out.integer(d.x);
  out.chr('[');
  out.integer(d.x);
  out.chr(',');
  out.integer(d.y);
  if (d.z != 1) {
    out.chr(',');
    out.integer(d.z);
  }
  out.chr(']');
}

// Integral values are written as integers (readable: "bytes":1048576), others with nlohmann's
// round-trip formatting.
template <class Out>
void append_number(Out& out, double v) {
  if (std::nearbyint(v) == v && std::fabs(v) < 9.007199254740992e15) return out.integer(static_cast<std::int64_t>(v));
  out.text(Json(v).dump());
}

template <class Out>
void append_ns_list(Out& out, const std::vector<Nanos>& ns) {
  out.chr('[');
  for (std::size_t i = 0; i < ns.size(); ++i) {
    if (i != 0) out.chr(',');
    out.integer(ns[i]);
  }
  out.chr(']');
}

// The fixed text between an op's values.
constexpr FnvLiteral kOpId(R"({"id":)");
constexpr FnvLiteral kName(R"(,"name":)");
constexpr FnvLiteral kKind(R"(,"kind":)");
constexpr FnvLiteral kPriority(R"(,"priority":)");
constexpr FnvLiteral kType(R"(,"type":)");
constexpr FnvLiteral kStream(R"(,"stream":)");
constexpr FnvLiteral kHostGap(R"(,"host_gap_ns":)");
constexpr FnvLiteral kGrid(R"(,"grid":)");
constexpr FnvLiteral kBlock(R"(,"block":)");
constexpr FnvLiteral kRegisters(R"(,"registers":)");
constexpr FnvLiteral kSharedMem(R"(,"shared_mem":)");
constexpr FnvLiteral kPerBlock(R"(,"duration":{"per_block_ns":)");
constexpr FnvLiteral kBlocksNs(R"(,"duration":{"blocks_ns":)");
constexpr FnvLiteral kCostBytes(R"(,"duration":{"bytes":)");
constexpr FnvLiteral kFlops(R"(,"flops":)");
constexpr FnvLiteral kTasks(R"(,"tasks":{"ns":)");
constexpr FnvLiteral kAssignment(R"(,"assignment":)");
constexpr FnvLiteral kBytes(R"(,"bytes":)");
constexpr FnvLiteral kHostMemory(R"(,"host_memory":)");
constexpr FnvLiteral kHostNs(R"(,"host_ns":)");
constexpr FnvLiteral kEvent(R"(,"event":)");
constexpr FnvLiteral kBlocking(R"(,"blocking":true)");
constexpr FnvLiteral kDeps(R"(,"deps":[)");
constexpr FnvLiteral kNoDeps(R"(,"deps":[]})");
constexpr FnvLiteral kDepsEnd(R"(]})");

/// The quoted name of each of an enum's `N` values (`"kernel"`), as FnvLiterals made on first use: a
/// name hashes in one step instead of one per byte. nullptr for a value past the table.
template <class Enum, std::size_t N>
const FnvLiteral* quoted_name(Enum v) {
  static const std::vector<FnvLiteral> table = [] {
    static std::array<std::string, N> texts;  // the literals' text, kept for the program's life
    std::vector<FnvLiteral> t;
    t.reserve(N);
    for (std::size_t i = 0; i < N; ++i) {
      texts[i] = '"' + std::string(to_string(static_cast<Enum>(i))) + '"';
      t.emplace_back(texts[i]);
    }
    return t;
  }();
  const auto i = static_cast<std::size_t>(v);
  return i < N ? &table[i] : nullptr;
}

/// An enum value as a JSON string (the names need no escaping): a literal where the table has it.
template <std::size_t N, class Out, class Enum>
void append_name(Out& out, Enum v) {
  if (const FnvLiteral* l = quoted_name<Enum, N>(v)) return out.lit(*l);
  out.str(to_string(v));
}

/// `dep_ids`: the op's deps as the ids to write (the ids of the ops they name), each a string_view or
/// a Text.
template <class Out, class Id>
void append_op(Out& out, const Op& op, std::span<const Id> dep_ids) {
  out.lit(kOpId);
  out.str(op.id);
  out.lit(kName);
  out.str(op.name);
  out.lit(kKind);
  append_name<14>(out, op.kind);
  out.lit(kPriority);
  append_name<5>(out, op.priority);
  out.lit(kType);
  append_name<4>(out, op.type);
  if (op.stream_hint) {
    out.lit(kStream);
    out.integer(*op.stream_hint);
  }
  if (op.host_gap_ns != 0) {  // programs only; absent keeps version 1 text (and hashes) unchanged
    out.lit(kHostGap);
    out.integer(op.host_gap_ns);
  }
  switch (op.kind) {
    case OpKind::kernel:
    case OpKind::task_pool: {
      const KernelShape s = op.shape.value_or(KernelShape{});
      out.lit(kGrid);
      append_dim3(out, s.grid);
      out.lit(kBlock);
      append_dim3(out, s.block);
      out.lit(kRegisters);
      out.integer(s.registers_per_thread);
      out.lit(kSharedMem);
      out.integer(s.shared_mem_bytes);
      if (op.kind == OpKind::kernel) {
        if (const auto* f = std::get_if<FixedPerBlock>(&op.duration)) {
          out.lit(kPerBlock);
          out.integer(f->ns);
        } else if (const auto* l = std::get_if<PerBlockList>(&op.duration)) {
          out.lit(kBlocksNs);
          append_ns_list(out, l->ns);
        } else {
          const auto& c = std::get<CostModel>(op.duration);
          out.lit(kCostBytes);
          append_number(out, c.bytes);
          out.lit(kFlops);
          append_number(out, c.flops);
        }
        out.chr('}');
      } else {
        const TaskList t = op.tasks.value_or(TaskList{});
        out.lit(kTasks);
        append_ns_list(out, t.task_ns);
        out.lit(kAssignment);
        append_name<2>(out, t.assignment);
        out.chr('}');
      }
      break;
    }
    case OpKind::h2d:
    case OpKind::d2h:
      out.lit(kBytes);
      out.integer(op.bytes);
      out.lit(kHostMemory);
      append_name<2>(out, op.host_memory);
      break;
    case OpKind::d2d:
    case OpKind::memset:
    case OpKind::prefetch:
      out.lit(kBytes);
      out.integer(op.bytes);
      break;
    case OpKind::host_func:
      out.lit(kHostNs);
      out.integer(op.host_ns);
      break;
    case OpKind::event_record:
    case OpKind::event_wait:
    case OpKind::event_sync:
      out.lit(kEvent);
      out.str(op.event);
      break;
    case OpKind::barrier:
    case OpKind::stream_sync:
    case OpKind::device_sync: break;
  }
  if (op.blocking) out.lit(kBlocking);
  if (dep_ids.empty()) return out.lit(kNoDeps);
  out.lit(kDeps);
  for (std::size_t k = 0; k < dep_ids.size(); ++k) {
    if (k != 0) out.chr(',');
    out.str(std::string_view(dep_ids[k]));
  }
  out.lit(kDepsEnd);
}

void append_stream(std::string& out, const StreamDecl& d) {
  out += "{\"id\":";
  append_int(out, d.id);
  out += ",\"priority\":";
  append_int(out, d.priority);
  out += ",\"kind\":";
  append_string(out, to_string(d.kind));
  out += ",\"label\":";
  append_string(out, d.label);
  out += '}';
}

/// Version 1 for a plain DAG (its canonical text, and so its hash, is what it was before version 2),
/// 2 when the workload is a program or declares streams.
int written_version(const Workload& w) { return w.program || !w.streams.empty() ? 2 : 1; }

// Op ids that number the ops: each id is a prefix and a decimal number (no leading zero, the prefix not
// ending in a digit), and the ops of one prefix form one run of consecutive ops with consecutive numbers
// (op_0, op_1, ...; or c0_k0 .. c0_k999, c1_k0, ...: every generator's ids, and those of tools that number
// their ops). Such ids are distinct, the op a dep names follows from the dep's text (its prefix's run and
// its number's place there), and an op's id from its index. Resolving then reads the deps' texts and a
// table of runs instead of a random slot of an index as large as the workload, and writing reads no
// other op's id for a dep: at ten million ops each of those reads was a cache and TLB miss, and both grew
// 15-19x from 1M to 10M ops. Workloads whose ids do not fit use IdIndex and read the ids.
class IdRuns {
 public:
  static constexpr OpIndex kNone = std::numeric_limits<OpIndex>::max();

  /// Runs of at most `max_runs` (add() ops one by one).
  explicit IdRuns(std::size_t max_runs) : max_runs_(max_runs) {}
  /// The runs of every op of `w` (valid() when they all fit).
  explicit IdRuns(const Workload& w) : max_runs_(max_runs_of(w.ops.size())) {
    for (OpIndex i = 0; i < w.ops.size(); ++i)
      if (add(w.ops[i].id, i) != Added::yes) return;
    valid_ = true;
  }
  /// Runs of ops added one by one become valid() when they are what IdRuns(w) makes of a workload of
  /// `ops` ops, those ops: every one of them added, in runs no more than it allows.
  void complete(std::size_t ops) noexcept {
    if (added_ == ops && runs_.size() <= max_runs_of(ops)) valid_ = true;
  }

  enum class Added { yes, no_number, refused };
  /// Puts op `i`, whose id is `id` (kept as long as this, or, with `keep`, its prefix copied there when
  /// it starts a run), in a run: the last one when it continues it, else a new one. Refused when its
  /// prefix has a run already (its numbers might repeat) or the runs are as many as allowed. Ops added
  /// must come in index order.
  Added add(std::string_view id, OpIndex i, StringTable* keep = nullptr) {
    const auto parts = split(id);
    if (!parts) return Added::no_number;
    if (!runs_.empty()) {
      Run& run = runs_.back();
      if (parts->first == run.prefix && parts->second == run.first_number + run.count && i == run.first_op + run.count) {
        ++run.count;
        ++added_;
        return Added::yes;
      }
    }
    if (runs_.size() >= max_runs_ || by_prefix_.contains(parts->first)) return Added::refused;
    const std::string_view prefix = keep != nullptr ? std::string_view(keep->intern(parts->first)) : parts->first;
    by_prefix_.emplace(prefix, runs_.size());
    runs_.push_back(Run{prefix, parts->second, i, 1});
    ++added_;
    return Added::yes;
  }

  /// Whether every op's id fits the scheme (find() and id() answer only then).
  [[nodiscard]] bool valid() const noexcept { return valid_; }

  /// The op whose id is `id`, or kNone when no op has it (of the ops added, when not valid()).
  [[nodiscard]] OpIndex find(std::string_view id) const {
    const auto parts = split(id);
    if (!parts) return kNone;
    if (last_ >= runs_.size() || runs_[last_].prefix != parts->first) {
      const auto it = by_prefix_.find(parts->first);  // deps often name ops of the run the previous one named
      if (it == by_prefix_.end()) return kNone;
      last_ = it->second;
    }
    const Run& run = runs_[last_];
    if (parts->second < run.first_number || parts->second - run.first_number >= run.count) return kNone;
    return run.first_op + static_cast<OpIndex>(parts->second - run.first_number);
  }

  /// (prefix, number) of an id that ends in a decimal number written without leading zeros.
  static std::optional<std::pair<std::string_view, std::uint64_t>> split(std::string_view id) noexcept {
    std::size_t start = id.size();
    while (start > 0 && id[start - 1] >= '0' && id[start - 1] <= '9') --start;
    const std::size_t digits = id.size() - start;
    if (digits == 0 || digits > kMaxDigits || (digits > 1 && id[start] == '0')) return std::nullopt;
    std::uint64_t number = 0;
    for (std::size_t k = start; k < id.size(); ++k) number = number * 10 + static_cast<std::uint64_t>(id[k] - '0');
    return std::pair{id.substr(0, start), number};
  }

  /// Appends op `i`'s id to `out` (i < the workload's size).
  void append_id(OpIndex i, std::string& out) const {
    if (last_ >= runs_.size() || i < runs_[last_].first_op || i - runs_[last_].first_op >= runs_[last_].count) {
      const auto after = std::upper_bound(runs_.begin(), runs_.end(), i,
                                          [](OpIndex v, const Run& run) { return v < run.first_op; });
      last_ = static_cast<std::size_t>(after - runs_.begin()) - 1;
    }
    const Run& run = runs_[last_];
    out += run.prefix;
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, run.first_number + (i - run.first_op)).ptr;
    out.append(digits, end);
  }

 private:
  static constexpr std::size_t kMaxDigits = 18;  // below 2^64
  /// Past this many runs they are no smaller than an IdIndex.
  static constexpr std::size_t max_runs_of(std::size_t ops) noexcept { return 16 + ops / 8; }

  struct Run {
    std::string_view prefix;  ///< a view of the first op's interned id
    std::uint64_t first_number;
    OpIndex first_op;
    std::uint32_t count;
  };
  std::size_t max_runs_;
  std::vector<Run> runs_;  ///< in op order
  std::unordered_map<std::string_view, std::size_t> by_prefix_;
  mutable std::size_t last_ = 0;  ///< the run the last lookup found
  std::size_t added_ = 0;         ///< ops added (Added::yes)
  bool valid_ = false;
};

/// The whitespace of the canonical text: none at all (compact, indent < 0), or the top-level keys one
/// per line, each stream and each op on one line (a workload of thousands of ops stays readable and
/// diffs line by line).
struct CanonicalLayout {
  std::string pad, nl, colon;
  explicit CanonicalLayout(int indent)
      : pad(indent < 0 ? std::string() : std::string(static_cast<std::size_t>(indent), ' ')),
        nl(indent < 0 ? std::string() : "\n"),
        colon(indent < 0 ? ":" : ": ") {}
  void key(std::string& s, std::string_view k, bool first = false) const {
    s += first ? "{" + nl : "," + nl;
    s += pad;
    s += '"';
    s += k;
    s += '"';
    s += colon;
  }
  void item(std::string& s, std::size_t i) const {
    s += i == 0 ? nl : "," + nl;
    s += pad;
    s += pad;
  }
  void close_list(std::string& s, bool empty) const { s += empty ? "]" : nl + pad + "]"; }
};

/// The canonical text before the first op: the top level's other members, then `"ops":[`.
std::string canonical_head(const Workload& w, const CanonicalLayout& l) {
  const int version = written_version(w);
  std::string head;
  l.key(head, "format_version", true);
  head += std::to_string(version);
  l.key(head, "name");
  append_string(head, w.name);
  l.key(head, "description");
  append_string(head, w.description);
  if (version >= 2) {
    l.key(head, "program");
    head += w.program ? "true" : "false";
    l.key(head, "streams");
    head += '[';
    for (std::size_t i = 0; i < w.streams.size(); ++i) {
      l.item(head, i);
      append_stream(head, w.streams[i]);
    }
    l.close_list(head, w.streams.empty());
  }
  l.key(head, "ops");
  head += '[';
  return head;
}

/// The canonical text after the last op.
std::string canonical_tail(const Workload& w, const CanonicalLayout& l) {
  std::string tail;
  l.close_list(tail, w.ops.empty());
  tail += l.nl + "}" + l.nl;
  return tail;
}

/// Writes the canonical text to `out`; indent < 0 gives the compact form.
template <class Out>
void write_canonical(const Workload& w, int indent, Out& out) {
  const CanonicalLayout layout(indent);
  // The document around the ops (small) is built as text; the ops go to `out` one by one.
  out.text(canonical_head(w, layout));
  std::string first_sep, sep;
  layout.item(first_sep, 0);
  layout.item(sep, 1);
  // A resolved workload writes each dep as its op's id (the id it was written as). Those ops lie
  // anywhere in the workload: looked up one dep at a time, nearly every one is a cache miss (most of the
  // time of hashing a million-op random DAG). So the ids are gathered a window of ops at a time, in the
  // order of the ops they name (the ops and their ids are read front to back), into one slot per edge in
  // edge order (written scattered, read front to back by the writer). The window grows with the workload
  // (a sixteenth of its ops): deps spread over more ops in a larger workload, and a fixed window would
  // read them ever more sparsely (a miss per id again at ten million ops).
  struct DepId {  // an id of up to 15 characters (the usual "op_1234567"); longer ones: kLong
    std::array<char, 15> chars;
    std::uint8_t size;
  };
  constexpr std::uint8_t kLong = 0xff;
  const std::size_t window = std::max<std::size_t>(32768, w.ops.size() / 16);
  std::vector<std::uint64_t> order;       // (dep op << 32 | edge in the window), sorted
  std::vector<DepId> slots;               // the window's deps, in edge order
  std::vector<std::string_view> long_ids;  // where a slot is kLong (sized on the window's first)
  std::vector<std::string_view> op_deps;   // one op's deps, as append_op takes them
  std::size_t window_end = 0, edge_base = 0;
  const auto gather = [&](std::size_t first) {
    window_end = std::min(w.ops.size(), first + window);
    order.clear();
    for (std::size_t v = first, e = 0; v < window_end; ++v)
      for (const OpIndex d : w.deps(static_cast<OpIndex>(v))) order.push_back(std::uint64_t{d} << 32 | e++);
    // By dep op, edges of one dep op in edge order (a stable radix sort on the op index).
    intervals::sort_by_time(order, [](std::uint64_t x) { return static_cast<Nanos>(x >> 32); });
    slots.resize(order.size());
    long_ids.clear();
    std::string_view id;
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (k == 0 || order[k] >> 32 != order[k - 1] >> 32) id = w.ops[static_cast<std::size_t>(order[k] >> 32)].id;
      DepId& slot = slots[order[k] & 0xffffffffu];
      if (id.size() <= slot.chars.size()) {
        std::memcpy(slot.chars.data(), id.data(), id.size());
        slot.size = static_cast<std::uint8_t>(id.size());
      } else {
        if (long_ids.empty()) long_ids.resize(order.size());
        long_ids[order[k] & 0xffffffffu] = id;
        slot.size = kLong;
      }
    }
    edge_base = 0;
  };
  // Ids that number the ops (IdRuns) are written from the deps' indices without reading other ops.
  const std::optional<IdRuns> runs = w.resolved() ? std::optional<IdRuns>(std::in_place, w) : std::nullopt;
  const bool numbered = runs && runs->valid();
  std::string dep_texts;
  std::vector<std::size_t> dep_ends;
  std::vector<std::string_view> unresolved;
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    out.text(i == 0 ? first_sep : sep);
    const auto v = static_cast<OpIndex>(i);
    if (numbered) {
      const auto deps = w.deps(v);
      dep_texts.clear();
      dep_ends.clear();
      for (const OpIndex d : deps) {
        runs->append_id(d, dep_texts);
        dep_ends.push_back(dep_texts.size());
      }
      op_deps.resize(deps.size());
      for (std::size_t k = 0, begin = 0; k < deps.size(); begin = dep_ends[k++])
        op_deps[k] = std::string_view(dep_texts).substr(begin, dep_ends[k] - begin);
      append_op(out, w.ops[v], std::span<const std::string_view>(op_deps));
    } else if (w.resolved()) {
      if (i == window_end) gather(i);
      const std::size_t count = w.deps(v).size();
      op_deps.resize(count);
      for (std::size_t k = 0; k < count; ++k) {
        const DepId& slot = slots[edge_base + k];
        op_deps[k] = slot.size == kLong ? long_ids[edge_base + k] : std::string_view(slot.chars.data(), slot.size);
      }
      append_op(out, w.ops[v], std::span<const std::string_view>(op_deps));
      edge_base += count;
    } else {
      unresolved = w.dep_ids(v);
      append_op(out, w.ops[v], std::span<const std::string_view>(unresolved));
    }
  }
  out.text(canonical_tail(w, layout));
}

// ---------------------------------------------------------------------------------------------------
// Program rules (format 2): declared streams, every op on a stream, events recorded somewhere, no deps.

/// Widest CUDA priority range streamlab accepts in a file (H100: 0 .. -5). Backends clamp a declared
/// priority into their own priority_range(), as cudaStreamCreateWithPriority does.
constexpr int kMinStreamPriority = -16;
constexpr int kMaxStreamPriority = 0;

std::string declared_ids(const Workload& w) {
  std::string s;
  for (const auto& d : w.streams) s += (s.empty() ? "" : ", ") + std::to_string(d.id);
  return s.empty() ? std::string("none") : s;
}

void check_stream_decls(const Workload& w, Reader& r) {
  r.set_op("");
  std::unordered_map<std::uint32_t, std::size_t> seen;
  const StreamDecl* per_thread = nullptr;
  for (std::size_t i = 0; i < w.streams.size(); ++i) {
    const StreamDecl& d = w.streams[i];
    const std::string p = "/streams/" + std::to_string(i);
    if (d.id == 0) r.fail(p + "/id", "stream 0 is the legacy NULL stream: ops name it without declaring it");
    if (const auto [it, fresh] = seen.emplace(d.id, i); !fresh)
      r.fail(p + "/id", "stream " + std::to_string(d.id) + " is declared twice (also at /streams/" +
                            std::to_string(it->second) + ")");
    if (d.priority < kMinStreamPriority || d.priority > kMaxStreamPriority)
      r.fail(p + "/priority", "priority " + std::to_string(d.priority) + " is outside " +
                                  std::to_string(kMinStreamPriority) + " .. " + std::to_string(kMaxStreamPriority) +
                                  " (CUDA convention: 0 is the lowest priority, negative numbers are higher)");
    if (d.kind == StreamKind::legacy_default)
      r.fail(p + "/kind",
             "only stream 0 is the legacy NULL stream; declare this one blocking, non-blocking or per-thread");
    if (d.kind == StreamKind::per_thread_default) {
      if (per_thread != nullptr)
        r.fail(p + "/kind", "a host thread has one per-thread default stream; stream " +
                                std::to_string(per_thread->id) + " already is it");
      if (d.priority != 0) r.fail(p + "/priority", "the per-thread default stream has priority 0 (CUDA cannot set it)");
      per_thread = &d;
    }
  }
}

/// A DAG workload carries none of a program's parts; each one found is named with how to fix it.
void check_dag_has_no_program_parts(const Workload& w, Reader& r) {
  if (!w.streams.empty()) {
    r.set_op("");
    r.fail("/streams", "streams are declared by programs only: add \"program\": true (format_version 2)");
  }
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    const Op& op = w.ops[i];
    if (!is_program_call(op.kind) && op.host_gap_ns == 0 && !op.blocking) continue;  // the usual case
    const std::string p = "/ops/" + std::to_string(i);
    r.set_op(op.id);
    if (is_program_call(op.kind))
      r.fail(p + "/kind", std::string(to_string(op.kind)) +
                              " is a program call: it exists only in a program (\"program\": true, format_version 2)");
    if (op.host_gap_ns != 0)
      r.fail(p + "/host_gap_ns", "host_gap_ns belongs to programs (\"program\": true): a DAG has no issue order");
    if (op.blocking)
      r.fail(p + "/blocking", "blocking copies belong to programs (\"program\": true): a DAG has no host thread");
  }
}

void check_program(const Workload& w, Reader& r) {
  check_stream_decls(w, r);
  std::unordered_map<std::uint32_t, const StreamDecl*> declared;
  for (const auto& d : w.streams) declared.emplace(d.id, &d);
  // Every event name a wait or sync uses must be recorded somewhere in the program (a name no op records
  // is a typo). Before its first record a wait or sync is a no-op, as in CUDA.
  std::unordered_map<std::string_view, std::size_t> recorded;
  for (std::size_t i = 0; i < w.ops.size(); ++i)
    if (w.ops[i].kind == OpKind::event_record) recorded.emplace(w.ops[i].event, i);

  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    const Op& op = w.ops[i];
    const std::string p = "/ops/" + std::to_string(i);
    r.set_op(op.id);
    if (!w.deps(static_cast<OpIndex>(i)).empty())
      r.fail(p + "/deps", "a program orders its streams only through event_record / event_wait ops; deps are "
                          "not written (remove \"deps\", or drop \"program\": true)");
    if (op.kind == OpKind::barrier)
      r.fail(p + "/kind", "barrier is a join of deps, which programs do not have (use event_record + event_wait)");
    if (op.kind == OpKind::device_sync) {
      if (op.stream_hint) r.fail(p + "/stream", "device_sync waits for every stream and names none");
    } else if (!op.stream_hint) {
      r.fail(p, "every op of a program names its stream (\"stream\": an id from \"streams\", or 0 for the legacy "
                "NULL stream)");
    } else if (*op.stream_hint != 0 && !declared.contains(*op.stream_hint)) {
      r.fail(p + "/stream", "stream " + std::to_string(*op.stream_hint) + " is not declared (declared: " +
                                declared_ids(w) + "; 0 is the legacy NULL stream)");
    }
    const bool names_event =
        op.kind == OpKind::event_record || op.kind == OpKind::event_wait || op.kind == OpKind::event_sync;
    if (names_event && op.event.empty())
      r.fail(p + "/event", std::string(to_string(op.kind)) + " names its event (\"event\": a name)");
    if (!names_event && !op.event.empty())
      r.fail(p + "/event", a_kind(op.kind) + " names no event");
    if ((op.kind == OpKind::event_wait || op.kind == OpKind::event_sync) && !recorded.contains(op.event))
      r.fail(p + "/event", "no event_record of this program records event '" + op.event + "'");
    if (op.blocking && op.kind != OpKind::h2d && op.kind != OpKind::d2h && op.kind != OpKind::d2d &&
        op.kind != OpKind::memset)
      r.fail(p + "/blocking", "only copies and memsets can be blocking");
  }
}

// Op ids -> their first op, for resolving millions of deps. Open addressing over one flat array of
// slots that hold the id itself when it is short (16 bytes or less, the usual case) and its length: a
// lookup reads one slot, one cache miss, and compares there. An earlier index kept the ids in a separate
// block and cost three misses per dep (slot, offsets, text), which is why resolving grew faster than the
// workload once its ids outgrew the cache (548 ns per op at 1M ops, 262 at 100k).
class IdIndex {
 public:
  static constexpr OpIndex kNone = std::numeric_limits<OpIndex>::max();

  explicit IdIndex(const Workload& w) {
    // Load at most 2/3: probes stay short, and the table (24 bytes a slot) is no larger than it must be.
    std::size_t capacity = 16;
    while (2 * capacity < 3 * w.ops.size()) capacity *= 2;
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    // Each op's slot starts loading kAhead ops before it is filled (the misses overlap).
    constexpr std::size_t kAhead = 16;
    std::array<std::uint64_t, kAhead> ahead{};
    const auto start_loading = [&](std::size_t i) {
      if (i >= w.ops.size()) return;
      ahead[i % kAhead] = hash(w.ops[i].id);
      prefetch(ahead[i % kAhead]);
    };
    for (std::size_t i = 0; i < kAhead; ++i) start_loading(i);
    for (OpIndex i = 0; i < w.ops.size(); ++i) {
      const std::string_view id = w.ops[i].id;
      std::size_t s = ahead[i % kAhead] & mask_;
      start_loading(std::size_t{i} + kAhead);
      while (slots_[s].op != kNone && !slots_[s].holds(id)) s = (s + 1) & mask_;
      if (slots_[s].op == kNone)
        slots_[s].set(i, id);
      else if (!duplicate_)
        duplicate_ = std::pair{slots_[s].op, i};  // a repeated id keeps its first op
    }
  }

  /// The first op (in order) whose id an earlier op already has, and that earlier op.
  [[nodiscard]] std::optional<std::pair<OpIndex, OpIndex>> first_duplicate() const noexcept { return duplicate_; }

  static std::uint64_t hash(std::string_view s) noexcept { return std::hash<std::string_view>{}(s); }
  /// The first op with this id (whose hash is `h`), or kNone.
  [[nodiscard]] OpIndex find(std::string_view id, std::uint64_t h) const noexcept {
    for (std::size_t s = h & mask_;; s = (s + 1) & mask_) {
      const Slot& slot = slots_[s];
      if (slot.op == kNone) return kNone;
      if (slot.holds(id)) return slot.op;
    }
  }
  [[nodiscard]] OpIndex find(std::string_view id) const noexcept { return find(id, hash(id)); }
  /// Starts loading the slot a lookup of hash `h` reads first (resolving overlaps the misses).
  void prefetch(std::uint64_t h) const noexcept { __builtin_prefetch(&slots_[h & mask_]); }

 private:
  static constexpr std::size_t kInline = 16;
  struct Slot {
    OpIndex op = kNone;
    std::uint32_t size = 0;
    union {
      char chars[kInline];
      const char* text;  ///< an id longer than kInline: the op's interned id
    } id{};
    void set(OpIndex i, std::string_view s) noexcept {
      op = i;
      size = static_cast<std::uint32_t>(s.size());
      if (s.size() <= kInline)
        std::memcpy(id.chars, s.data(), s.size());
      else
        id.text = s.data();
    }
    [[nodiscard]] bool holds(std::string_view s) const noexcept {
      if (s.size() != size) return false;
      return std::memcmp(s.size() <= kInline ? id.chars : id.text, s.data(), s.size()) == 0;
    }
  };

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::optional<std::pair<OpIndex, OpIndex>> duplicate_;
};

/// Kahn's algorithm over resolved deps: cheap when there is no cycle; a leftover triggers the SCC report.
void check_acyclic(const Workload& w, Reader& r) {
  const std::size_t n = w.ops.size();
  std::vector<std::uint32_t> indegree(n, 0);
  std::vector<std::uint32_t> succ_begin(n + 1, 0);  // successors in CSR form (edges < 2^32: Workload::append)
  for (OpIndex i = 0; i < n; ++i) {
    const auto deps = w.deps(i);
    indegree[i] = static_cast<std::uint32_t>(deps.size());
    for (const OpIndex d : deps) ++succ_begin[d + 1];
  }
  for (std::size_t v = 0; v < n; ++v) succ_begin[v + 1] += succ_begin[v];
  std::vector<OpIndex> succ(succ_begin.back());
  {
    std::vector<std::uint32_t> fill(succ_begin.begin(), succ_begin.end() - 1);
    for (OpIndex i = 0; i < n; ++i)
      for (const OpIndex d : w.deps(i)) succ[fill[d]++] = i;
  }
  std::vector<OpIndex> ready;
  for (OpIndex i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push_back(i);
  std::size_t visited = 0;
  while (!ready.empty()) {
    const OpIndex u = ready.back();
    ready.pop_back();
    ++visited;
    for (std::size_t e = succ_begin[u]; e < succ_begin[u + 1]; ++e)
      if (--indegree[succ[e]] == 0) ready.push_back(succ[e]);
  }
  if (visited != n) report_cycles(w, indegree, r);
}

/// A dep an op lists twice (the places of its first repeat in the list): pairwise for the usual handful,
/// sorted for a wide join.
std::optional<std::pair<std::size_t, std::size_t>> repeated_dep(std::span<const OpIndex> deps) {
  if (deps.size() <= 32) {
    for (std::size_t k = 1; k < deps.size(); ++k)
      for (std::size_t m = 0; m < k; ++m)
        if (deps[m] == deps[k]) return std::pair{m, k};
    return std::nullopt;
  }
  std::vector<std::pair<OpIndex, std::size_t>> sorted;
  sorted.reserve(deps.size());
  for (std::size_t k = 0; k < deps.size(); ++k) sorted.emplace_back(deps[k], k);
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k].first == sorted[k - 1].first) return std::pair{sorted[k - 1].second, sorted[k].second};
  return std::nullopt;
}

/// resolve_and_check's checks of each op in turn (check_op, the serial time so far, what only a program
/// may have). The line reader makes them as it adds each op, while the op is still in the cache: a pass
/// of their own over ten million ops (1.7 GB) read the ops back from memory, one miss after another.
class OpChecks {
 public:
  explicit OpChecks(const ShapeLimits& limits) : limits_(limits) {}
  /// Checks op `i`, the next one (ops are checked in order, from the first).
  void check(const Op& op, std::size_t i, Reader& r) {
    check_op(op, i, limits_, r);
    program_parts_ |= is_program_call(op.kind) || op.host_gap_ns != 0 || op.blocking;
    serial_ += serial_ns(op);
    work_items_ = add_work_items(work_items_, op_work_items(op));
    if (serial_ > kMaxWorkloadSerialNs)
      r.fail("/ops/" + std::to_string(i),
             "the ops up to this one add up to more than 2^58 ns (about 9 years) of work run serially at the "
             "slowest rates a device profile allows; times this large would overflow the simulated clock");
    checked_ = i + 1;
  }
  /// Whether every op of `w` was checked here.
  [[nodiscard]] bool covers(const Workload& w) const noexcept { return checked_ == w.ops.size(); }
  [[nodiscard]] std::size_t ops_checked() const noexcept { return checked_; }
  [[nodiscard]] bool program_parts() const noexcept { return program_parts_; }
  /// simulation_work_items of the ops checked.
  [[nodiscard]] std::uint64_t work_items() const noexcept { return work_items_; }

 private:
  const ShapeLimits& limits_;
  double serial_ = 0;
  std::uint64_t work_items_ = 0;
  bool program_parts_ = false;
  std::size_t checked_ = 0;
};

}  // namespace

/// A reader's look-up of the ops read so far by numbered ids (IdRuns' runs, made as the ops come): a dep
/// that names such an op is resolved as it is read, so its name is neither copied nor kept (at ten
/// million ops the copies of the deps' names were a third of reading's memory). Any other dep waits for
/// resolve_and_check. Every op read before the runs end (a prefix met again ends them) whose id is a
/// prefix and a number is in a run and the runs' ids are distinct, so a dep found here names the first
/// op with its id, as resolve_and_check's rule says, whatever ops come later.
class EarlierIds {
 public:
  /// Op `i`'s id (kept by the workload's table), once the op is added.
  void add(std::string_view id, OpIndex i) {
    if (!ended_) ended_ = runs_.add(id, i) == IdRuns::Added::refused;
  }
  /// The op read so far whose id is `name`, or IdRuns::kNone.
  [[nodiscard]] OpIndex find(std::string_view name) const { return runs_.find(name); }
  /// Once every op is added: the runs IdRuns(w) would make of them, or null when those are not these
  /// (resolve_and_check then makes its own; reading them again from the ops was a pass of its own).
  [[nodiscard]] const IdRuns* runs_of_all(std::size_t ops) {
    runs_.complete(ops);
    return runs_.valid() ? &runs_ : nullptr;
  }

 private:
  IdRuns runs_{std::size_t{1} << 20};  // a table that stays small next to the ops
  bool ended_ = false;
};

/// The readers' access to a workload under construction.
struct WorkloadBuilder {
  /// resolve_and_check, without its checks of each op where `checked` made them all (a reader's, as it
  /// added the ops), and with `runs`, when given, as IdRuns(w) (EarlierIds::runs_of_all).
  static void resolve(Workload& w, const std::string& source, const ShapeLimits& limits, const OpChecks* checked,
                      const IdRuns* runs);
  static void reserve(Workload& w, std::size_t ops) {
    w.ops.reserve(ops);
    w.dep_begin_.reserve(ops + 1);
  }
  /// Appends `op` (append interns its texts) with deps named by `deps`, which are kept as they are: their
  /// characters must live until resolve_and_check (a reader's parse buffers do).
  static void add(Workload& w, const Op& op, std::span<const Text> deps) {
    w.append(op, deps.size(), [&](std::size_t k) {
      w.dep_name_.resize(w.dep_index_.size());
      w.dep_index_.push_back(Workload::kUnresolved);
      w.dep_name_.push_back(deps[k]);
    });
  }
  /// Appends `op` with deps named by `names`, copied into `dep_ids`: a table the reader keeps until
  /// resolve_and_check has resolved them, then drops (the workload keeps indices, not the ids again).
  /// Deps that name ops `earlier` knows are resolved at once; `earlier` learns the new op.
  static void add_named(Workload& w, const Op& op, std::span<const Text> names, StringTable& dep_ids,
                        EarlierIds& earlier) {
    w.append(op, names.size(), [&](std::size_t k) {
      if (const OpIndex d = earlier.find(names[k]); d != IdRuns::kNone) {
        w.dep_index_.push_back(d);
        if (!w.dep_name_.empty()) w.dep_name_.emplace_back();  // dep_name_ is empty or one entry per dep
        return;
      }
      w.dep_name_.resize(w.dep_index_.size());
      w.dep_index_.push_back(Workload::kUnresolved);
      w.dep_name_.push_back(dep_ids.intern(names[k]));
    });
    earlier.add(w.ops.back().id, static_cast<OpIndex>(w.ops.size() - 1));
  }
  static std::size_t edge_capacity(const Workload& w) { return w.dep_index_.capacity(); }
  /// Room for `ops` ops and `edges` deps in all (an estimate: the arrays still grow past it).
  static void reserve_more(Workload& w, std::size_t ops, std::size_t edges) {
    if (ops > w.ops.capacity()) {
      w.ops.reserve(ops);
      w.dep_begin_.reserve(ops + 1);
    }
    if (edges > w.dep_index_.capacity()) {
      w.dep_index_.reserve(edges);
      if (!w.dep_name_.empty()) w.dep_name_.reserve(edges);  // deps resolved as read have no name
    }
  }
};


void resolve_and_check(Workload& w, const std::string& source, const ShapeLimits& limits) {
  WorkloadBuilder::resolve(w, source, limits, nullptr, nullptr);
}

void WorkloadBuilder::resolve(Workload& w, const std::string& source, const ShapeLimits& limits,
                              const OpChecks* checked, const IdRuns* read_runs) {
  Reader r(source);
  if (w.ops.size() > kMaxOps)
    r.fail("/ops", "too many ops (" + std::to_string(w.ops.size()) + "; at most " + std::to_string(kMaxOps) + ")");
  std::optional<OpChecks> here;
  if (checked == nullptr || !checked->covers(w)) {
    here.emplace(limits);
    for (std::size_t i = 0; i < w.ops.size(); ++i) here->check(w.ops[i], i, r);
    checked = &*here;
  }
  const bool program_parts = checked->program_parts();
  r.set_op("");
  if (w.program)
    check_program(w, r);
  else if (program_parts || !w.streams.empty())  // a second pass over the ops only to say where
    check_dag_has_no_program_parts(w, r);

  // Ids that number the ops resolve without an index (IdRuns); others through an IdIndex, which also
  // finds a repeated id (IdRuns' ids cannot repeat).
  std::optional<IdRuns> made;
  const IdRuns& runs = read_runs != nullptr ? *read_runs : made.emplace(w);
  std::optional<IdIndex> index;
  if (!runs.valid()) {
    index.emplace(w);
    if (const auto twice = index->first_duplicate()) {
      const auto [first, i] = *twice;
      r.set_op(w.ops[i].id);
      r.fail("/ops/" + std::to_string(i) + "/id", "duplicate op id (already used by /ops/" + std::to_string(first) + ")");
    }
  }

  w.pad_deps();
  const std::size_t n = w.ops.size();
  const bool named = !w.dep_name_.empty();
  // The id an edge was written with: its name until resolved, then its op's id.
  const auto dep_id = [&](std::size_t e) -> std::string_view {
    const OpIndex d = w.dep_index_[e];
    if (d == Workload::kUnresolved) return w.dep_name_[e];
    return d < n ? std::string_view(w.ops[d].id) : std::string_view();
  };
  // Unresolved deps are looked up kAhead edges after their slot starts loading: the hashes of the
  // edges in between wait in a ring.
  constexpr std::size_t kAhead = 16;
  std::array<std::uint64_t, kAhead> ahead{};
  const std::size_t edges = w.dep_index_.size();
  const auto start_loading = [&](std::size_t e) {
    if (!index || !named || e >= edges || w.dep_index_[e] != Workload::kUnresolved) return;
    ahead[e % kAhead] = IdIndex::hash(w.dep_name_[e]);
    index->prefetch(ahead[e % kAhead]);
  };
  for (std::size_t e = 0; e < kAhead; ++e) start_loading(e);
  // Whether every dep names an earlier op: then the ops' order is a topological order and there is no
  // cycle to look for (generated and saved workloads list ops after their deps). At ten million ops the
  // search below costs seconds of cache misses; this costs one comparison per edge.
  bool backward = true;
  for (OpIndex i = 0; i < n; ++i) {
    const std::uint32_t begin = w.dep_begin_[i];
    const std::uint32_t end = w.dep_begin_[i + 1];
    if (begin == end) continue;
    // The op's id goes into the messages only when there is one: reading every op's id here was one
    // more pass over the ops (at ten million of them, each read a miss).
    const auto fail = [&](const std::string& at, const std::string& why) {
      r.set_op(w.ops[i].id);
      r.fail(at, why);
    };
    for (std::uint32_t e = begin; e < end; ++e) {
      const auto ptr = [&] { return "/ops/" + std::to_string(i) + "/deps/" + std::to_string(e - begin); };
      OpIndex dep = w.dep_index_[e];
      if (dep == Workload::kUnresolved) {
        dep = index ? index->find(w.dep_name_[e], ahead[e % kAhead]) : runs.find(w.dep_name_[e]);
        start_loading(e + kAhead);
        if (dep == IdIndex::kNone)
          fail(ptr(), "dep '" + w.dep_name_[e] + "' names no op of this workload" + did_you_mean(w, w.dep_name_[e]));
        w.dep_index_[e] = dep;
      } else {
        start_loading(e + kAhead);
        if (dep >= n)
          fail(ptr(), "dep index " + std::to_string(dep) + " names no op (the workload has " + std::to_string(n) +
                          " ops)");
      }
      if (dep == i) fail(ptr(), "op depends on itself");
      backward = backward && dep < i;
    }
    const auto twice = repeated_dep(std::span<const OpIndex>(w.dep_index_).subspan(begin, end - begin));
    if (twice) {
      const std::string base = "/ops/" + std::to_string(i) + "/deps/";
      fail(base + std::to_string(twice->second), "dep '" + std::string(dep_id(begin + twice->second)) +
                                                   "' is listed twice (also at " + base +
                                                   std::to_string(twice->first) + ")");
    }
  }
  // Every id is resolved: the names (views of a reader's buffers, or interned) are no longer needed.
  std::vector<Text>().swap(w.dep_name_);
  if (!backward) check_acyclic(w, r);
}


namespace {

using detail::LineScanner;
using detail::NotByLines;
using detail::trim_line;

bool read_u32(LineScanner& in, std::uint32_t& v) {
  std::uint64_t u = 0;
  if (!in.uint(u) || u > std::numeric_limits<std::uint32_t>::max()) return false;
  v = static_cast<std::uint32_t>(u);
  return true;
}

// A dimension as append_dim3 writes it: x, [x, y] or [x, y, z].
bool read_dim3(LineScanner& in, Dim3& d) {
  if (!in.lit("[")) return read_u32(in, d.x);
  if (!read_u32(in, d.x) || !in.lit(",") || !read_u32(in, d.y)) return false;
  if (in.lit(",") && !read_u32(in, d.z)) return false;
  return in.lit("]");
}

/// An op exactly as append_op writes it, read straight from its line with LineScanner's plain values:
/// the common keys, then the kind's own in the writer's order (kernels with a fixed per-block time),
/// "blocking" where the kind takes it, then the deps. Returns false for anything else (task pools,
/// per-block lists, cost models, escapes, other layouts), which parse_op then reads. What it accepts,
/// parse_op accepts with the same values; the meaning is checked later for both (resolve_and_check).
bool read_op_line(std::string_view line, Op& op, std::vector<Text>& deps) {
  LineScanner in(line);
  std::string_view id, name, kind, priority, type;
  if (!(in.lit("{\"id\":") && in.str(id) && in.lit(",\"name\":") && in.str(name) && in.lit(",\"kind\":") &&
        in.str(kind) && in.lit(",\"priority\":") && in.str(priority) && in.lit(",\"type\":") && in.str(type)))
    return false;
  const auto k = parse_op_kind(kind);
  const auto pr = parse_priority(priority);
  const auto ty = parse_workload_type(type);
  if (!k || !pr || !ty) return false;
  op = Op{};
  op.id = Text::borrow(id);
  op.name = Text::borrow(name);
  op.kind = *k;
  op.priority = *pr;
  op.type = *ty;
  if (in.lit(",\"stream\":")) {
    std::uint32_t stream = 0;
    if (!read_u32(in, stream)) return false;
    op.stream_hint = stream;
  }
  if (in.lit(",\"host_gap_ns\":") && !in.integer(op.host_gap_ns)) return false;
  bool takes_blocking = false;
  switch (op.kind) {
    case OpKind::kernel: {
      KernelShape s;
      std::int64_t ns = 0;
      if (!(in.lit(",\"grid\":") && read_dim3(in, s.grid) && in.lit(",\"block\":") && read_dim3(in, s.block) &&
            in.lit(",\"registers\":") && read_u32(in, s.registers_per_thread) && in.lit(",\"shared_mem\":") &&
            read_u32(in, s.shared_mem_bytes) && in.lit(",\"duration\":{\"per_block_ns\":") && in.integer(ns) &&
            in.lit("}")))
        return false;
      op.shape = s;
      op.duration = FixedPerBlock{ns};
      break;
    }
    case OpKind::h2d:
    case OpKind::d2h: {
      std::string_view memory;
      if (!(in.lit(",\"bytes\":") && in.uint(op.bytes) && in.lit(",\"host_memory\":") && in.str(memory))) return false;
      const auto m = parse_host_memory(memory);
      if (!m) return false;
      op.host_memory = *m;
      takes_blocking = true;
      break;
    }
    case OpKind::d2d:
    case OpKind::memset:
      if (!(in.lit(",\"bytes\":") && in.uint(op.bytes))) return false;
      takes_blocking = true;
      break;
    case OpKind::prefetch:
      if (!(in.lit(",\"bytes\":") && in.uint(op.bytes))) return false;
      break;
    case OpKind::host_func:
      if (!(in.lit(",\"host_ns\":") && in.integer(op.host_ns))) return false;
      break;
    case OpKind::event_record:
    case OpKind::event_wait:
    case OpKind::event_sync: {
      std::string_view event;
      if (!(in.lit(",\"event\":") && in.str(event))) return false;
      op.event = Text::borrow(event);
      break;
    }
    case OpKind::barrier:
    case OpKind::stream_sync:
    case OpKind::device_sync: break;
    case OpKind::task_pool: return false;
  }
  if (takes_blocking && in.lit(",\"blocking\":true")) op.blocking = true;
  if (!in.lit(",\"deps\":[")) return false;
  deps.clear();
  if (!in.peek(']')) {
    do {
      std::string_view dep;
      if (!in.str(dep)) return false;
      deps.push_back(Text::borrow(dep));
    } while (in.lit(","));
  }
  return in.lit("]}") && in.at_end();
}

/// The ops of a workload laid out one per line, read one by one: each line straight (read_op_line) or,
/// for any other op, parsed as JSON and read as the whole-file reader reads an op.
struct OpLineReader {
  explicit OpLineReader(const std::string& source) : r(source), doc(std::string_view(), source) {}
  /// Op `i`, whose line is `element`; its deps' names go to `names` (views valid until the next op).
  Op read(std::string_view element, std::size_t i) {
    Op op;
    if (!read_op_line(element, op, names)) {
      doc.reset(element);
      op = parse_op(doc.build_root(arena), i, r, names);
    }
    return op;
  }
  detail::Reader r;
  detail::JsonDocument doc;
  detail::JsonArena arena;
  std::vector<Text> names;
};

/// Where the ops of a workload laid out one op per line are: the end of the text before them (after
/// the `[` that opens the ops) and the start of the first op's line. Nothing for any other layout.
std::optional<std::pair<std::size_t, std::size_t>> find_op_lines(std::string_view t) {
  // The line opening the ops array: `"ops": [` alone on its line (a raw newline is never inside a
  // string, so this is structure; that it is the top level's "ops" the head's own parse confirms).
  // Looked for near the top only: a file that has no such line there (a trace, say) costs little.
  constexpr std::size_t kHeadLimit = std::size_t{16} << 20;
  const std::string_view head = t.substr(0, kHeadLimit);
  for (std::size_t at = head.find("\"ops\""); at != std::string_view::npos; at = head.find("\"ops\"", at + 1)) {
    const std::size_t line_start = t.rfind('\n', at) == std::string_view::npos ? 0 : t.rfind('\n', at) + 1;
    const std::size_t line_end = t.find('\n', at);
    if (line_end == std::string_view::npos) break;
    if (!trim_line(t.substr(line_start, at - line_start)).empty()) continue;
    std::string_view rest = trim_line(t.substr(at + 5, line_end - at - 5));
    if (rest.empty() || rest.front() != ':') continue;
    rest = trim_line(rest.substr(1));
    if (rest != "[") continue;
    return std::pair{t.find('[', at) + 1, line_end + 1};
  }
  return std::nullopt;
}

/// The rest of the document (the ops array, closed at `close`, left empty): its top level read and
/// checked as always.
Workload read_top_level(std::string_view t, std::size_t head_end, std::size_t close, const std::string& source,
                        const ShapeLimits& limits) {
  std::string rest(t.substr(0, head_end));
  rest += ']';
  rest += t.substr(close + 1);
  detail::JsonDocument top_doc(rest, source);
  return detail::read_workload(top_doc, limits, nullptr);
}

}  // namespace

namespace detail {

std::optional<Workload> read_workload_by_lines(std::string_view t, const std::string& source, const PaddedText* mapped,
                                               const ShapeLimits& limits, ProgressCounter* progress,
                                               std::uint64_t* work_items, std::string* hash) {
  try {
    const auto layout = find_op_lines(t);
    if (!layout) return std::nullopt;
    // Plain variables, not a structured binding: the lambdas below capture them (clang 14 cannot).
    const std::size_t head_end = layout->first, lines = layout->second;

    Workload w;
    StringTable dep_ids;  // outlives resolve_and_check below
    EarlierIds earlier;
    OpLineReader reader(source);
    std::vector<Text>& names = reader.names;
    OpChecks checks(limits);
    // Workload::hash() of what is read, fed as the ops come (each op while it is in the cache; its deps
    // as their text, which is the id of the op each names: ids resolve only by equal text), from the
    // canonical head of the members before the ops. Kept only when the members read in the end give
    // that same head (a member after the ops, say, does not: hash() then runs as always).
    std::optional<HashOut> fused;
    const CanonicalLayout compact(-1);
    std::string hashed_head;
    if (hash != nullptr) {
      try {
        std::string head_text(t.substr(0, head_end));
        head_text += "]}";
        detail::JsonDocument head_doc(head_text, source);
        hashed_head = canonical_head(detail::read_workload(head_doc, limits, nullptr), compact);
        fused.emplace();
        fused->text(hashed_head);
      } catch (const InputError&) {
        // the head alone is not a workload (a member it needs comes after the ops): no fused hash
      }
    }
    const std::size_t close = for_each_element_line(
        t, lines, mapped, progress, [&](std::string_view element, std::size_t op_index, std::size_t next) {
          const Op op = reader.read(element, op_index);
          // Ops and deps yet to come, from the bytes, ops and deps so far: the ops reserved once (at
          // op 4096), the deps whenever they would outgrow their arrays (the first ops may have none),
          // by at least a quarter, instead of doubling and copying arrays of hundreds of megabytes.
          const auto estimate = [&](std::size_t so_far, double margin) {
            const double per_byte = static_cast<double>(so_far) / static_cast<double>(next - lines);
            return static_cast<std::size_t>(per_byte * static_cast<double>(t.size() - lines) * margin) + 16;
          };
          if (op_index + 1 == 4096) WorkloadBuilder::reserve_more(w, estimate(4096, 1.02), 0);
          if (const std::size_t edges = w.edge_count() + names.size(); edges > WorkloadBuilder::edge_capacity(w))
            WorkloadBuilder::reserve_more(w, 0, std::max(estimate(edges, 1.05), WorkloadBuilder::edge_capacity(w) / 4 * 5));
          if (fused) {
            if (op_index != 0) fused->chr(',');
            append_op(*fused, op, std::span<const Text>(names));
          }
          // The texts are copied into the workload's table (the line's, or the parse's, go away).
          WorkloadBuilder::add_named(w, op, names, dep_ids, earlier);
          checks.check(w.ops.back(), op_index, reader.r);  // while the op is in the cache
        });

    const Workload top = read_top_level(t, head_end, close, source, limits);
    w.name = top.name;
    w.description = top.description;
    w.program = top.program;
    w.streams = top.streams;
    WorkloadBuilder::resolve(w, source, limits, &checks, earlier.runs_of_all(w.ops.size()));
    if (work_items != nullptr) *work_items = checks.work_items();
    if (fused && canonical_head(w, compact) == hashed_head) {
      fused->text(canonical_tail(w, compact));
      *hash = hex64(fused->value());
    }
    if (progress != nullptr) progress->set_done(t.size());
    return w;
  } catch (const NotByLines&) {
    return std::nullopt;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::optional<Workload> read_workload_file_by_lines(const std::filesystem::path& file, const ShapeLimits& limits,
                                                    ProgressCounter* progress, std::uint64_t* work_items,
                                                    std::string* hash) {
  const auto mapped = PaddedText::map(file, /*populate=*/false);
  if (!mapped) return std::nullopt;
  return read_workload_by_lines(std::string_view(mapped->data(), mapped->size()), file.string(), &*mapped, limits,
                                progress, work_items, hash);
}

std::optional<WorkloadCounts> check_workload_by_lines(std::string_view t, const std::string& source,
                                                     const PaddedText* mapped, const ShapeLimits& limits,
                                                     ProgressCounter* progress) {
  // Thrown at the first op that needs more than this pass keeps (read_workload_by_lines then reads it).
  struct NeedsTheOps {};
  try {
    const auto layout = find_op_lines(t);
    if (!layout) return std::nullopt;
    // Plain variables, not a structured binding: the lambdas below capture them (clang 14 cannot).
    const std::size_t head_end = layout->first, lines = layout->second;
    StringTable prefixes;  // of the ids' runs (the ops' lines go away)
    IdRuns runs{std::size_t{1} << 20};
    OpLineReader reader(source);
    OpChecks checks(limits);
    std::vector<OpIndex> deps;
    std::uint64_t edges = 0;
    const std::size_t close = for_each_element_line(
        t, lines, mapped, progress, [&](std::string_view element, std::size_t op_index, std::size_t) {
          const Op op = reader.read(element, op_index);
          if (op_index >= kMaxOps) throw NeedsTheOps{};
          // resolve_and_check's checks of the deps, which here name earlier ops only (so there is no
          // cycle): each found among the ops before it, none listed twice.
          deps.clear();
          for (const Text& name : reader.names) {
            const OpIndex d = runs.find(name);
            if (d == IdRuns::kNone) throw NeedsTheOps{};
            deps.push_back(d);
          }
          if (repeated_dep(deps)) throw NeedsTheOps{};
          edges += deps.size();
          checks.check(op, op_index, reader.r);
          if (runs.add(op.id, static_cast<OpIndex>(op_index), &prefixes) != IdRuns::Added::yes) throw NeedsTheOps{};
        });
    const Workload top = read_top_level(t, head_end, close, source, limits);
    const std::size_t n = checks.ops_checked();
    runs.complete(n);
    // Programs and declared streams have checks of their own over every op (resolve_and_check).
    if (!runs.valid() || top.program || !top.streams.empty() || checks.program_parts() ||
        edges > std::numeric_limits<std::uint32_t>::max())
      return std::nullopt;
    if (progress != nullptr) progress->set_done(t.size());
    return WorkloadCounts{n, edges, checks.work_items()};
  } catch (const NeedsTheOps&) {
    return std::nullopt;
  } catch (const NotByLines&) {
    return std::nullopt;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::optional<WorkloadCounts> check_workload_file_by_lines(const std::filesystem::path& file, const ShapeLimits& limits,
                                                          ProgressCounter* progress) {
  const auto mapped = PaddedText::map(file, /*populate=*/false);
  if (!mapped) return std::nullopt;
  return check_workload_by_lines(std::string_view(mapped->data(), mapped->size()), file.string(), &*mapped, limits,
                                 progress);
}

Workload read_workload(JsonDocument& doc, const ShapeLimits& limits, ProgressCounter* progress) {
  Reader r(doc.source());
  // The top level in one pass: "ops" streams one op at a time into the workload; the other members
  // (small) are kept and checked once the pass is over, in the same order as always: format version,
  // keys, name, ... then the ops. A problem found in an op waits for those checks, so a file from a
  // newer streamlab reads "format_version 3 is not supported" wherever its version sits.
  JsonArena top;
  JsonArena element;
  Workload w;
  std::vector<Text> deps;
  bool have_ops = false;
  std::optional<InputError> ops_error;
  top.begin_object();
  doc.for_each_root_member(
      [&](std::string_view key, simdjson::ondemand::value& value) {
        if (key != "ops") return (void)doc.build(value, "/" + pointer_token(key), top, key);
        have_ops = true;
        doc.for_each_element(
            value, "/ops", element, [&](std::size_t n) { WorkloadBuilder::reserve(w, n); },
            [&](std::size_t i, JsonRef op) {
              if (ops_error) return;  // the rest is still read: a syntax error anywhere comes first
              try {
                const Op parsed = parse_op(op, i, r, deps);  // fills deps first
                WorkloadBuilder::add(w, parsed, deps);
              } catch (const InputError& e) {
                ops_error = e;
              }
            },
            [&](JsonRef not_array) {
              try {
                r.expect_array(not_array, "/ops");
              } catch (const InputError& e) {
                ops_error = e;
              }
            },
            progress);
      },
      top, [&](JsonRef root) { r.expect_object(root, ""); });
  top.end_object();
  const JsonRef doc_top = top.root();
  r.set_op("");

  // The version first: a newer file may legitimately have keys this reader does not know.
  const int version = static_cast<int>(r.get_int(r.required(doc_top, "", "format_version"), "/format_version"));
  if (version < 1 || version > kWorkloadFormatVersion)
    r.fail("/format_version", "format_version " + std::to_string(version) + " is not supported (this streamlab " +
                                  "reads versions 1 and " + std::to_string(kWorkloadFormatVersion) + ")");
  if (version == 1) {
    for (std::string_view key : {"program", "streams"})
      if (doc_top.contains(key))
        r.fail("/" + std::string(key), "key '" + std::string(key) + "' needs format_version 2 (this file says 1)");
  }
  r.check_keys(doc_top, "", {"format_version", "name", "description", "program", "streams", "ops"}, "a workload");
  w.name = r.get_string(r.required(doc_top, "", "name"), "/name");
  if (const auto d = doc_top.find("description")) w.description = r.get_string(*d, "/description");
  if (const auto program = doc_top.find("program")) w.program = r.get_bool(*program, "/program");
  if (const auto streams = doc_top.find("streams")) w.streams = parse_streams(*streams, r);
  if (!have_ops) r.fail("", "missing required key 'ops'");
  if (ops_error) throw *ops_error;
  resolve_and_check(w, doc.source(), limits);
  return w;
}

}  // namespace detail

Workload parse_workload(std::string_view json_text, const std::string& source, const ShapeLimits& limits) {
  if (auto w = detail::read_workload_by_lines(json_text, source, nullptr, limits, nullptr)) return std::move(*w);
  detail::JsonDocument doc(json_text, source);
  return detail::read_workload(doc, limits, nullptr);
}

Workload load_workload(const std::filesystem::path& file, const ShapeLimits& limits, ProgressCounter* progress,
                       std::string* hash) {
  std::string fused;
  auto w = with_step(file.string(), "parsing", [&] {
    return detail::read_workload_file_by_lines(file, limits, progress, nullptr, hash != nullptr ? &fused : nullptr);
  });
  if (!w)
    w = detail::read_json_file(file, [&](detail::JsonDocument& doc) { return detail::read_workload(doc, limits, progress); });
  if (hash != nullptr) *hash = fused.empty() ? w->hash() : std::move(fused);
  return std::move(*w);
}

std::string workload_to_json(const Workload& w, int indent) {
  std::string text;
  detail::TextOut out(text);
  write_canonical(w, indent, out);
  return text;
}

std::string Workload::hash() const {
  // FNV-1a of the compact canonical text, without building the text.
  detail::HashOut out;
  write_canonical(*this, -1, out);
  return detail::hex64(out.value());
}

void save_workload(const Workload& w, const std::filesystem::path& file) {
  write_file_atomically(file, workload_to_json(w));
}

}  // namespace streamlab::model
