// Nsight Systems SQLite export reader. Column names and CUPTI enum values as nsys writes them
// (CUPTI_ACTIVITY_MEMCPY_KIND_*, CUPTI_ACTIVITY_MEMORY_KIND_*, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_*).
#include "streamlab/import/nsys.hpp"

#include <simdjson.h>
#include <sqlite3.h>

#include <array>
#include <charconv>
#include <fstream>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/input_limits.hpp"

namespace streamlab::import {
namespace {

struct DbCloser {
  void operator()(sqlite3* db) const noexcept { sqlite3_close(db); }
};
struct StmtCloser {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtCloser>;

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(source_.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    db_.reset(raw);
    if (rc != SQLITE_OK) fail("", std::string("cannot open as SQLite: ") + sqlite3_errstr(rc));
  }

  [[noreturn]] void fail(const std::string& place, const std::string& why) const {
    throw model::InputError(source_, place, "", why);
  }

  Stmt prepare(const std::string& sql) const {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      fail("", std::string("query failed (") + sqlite3_errmsg(db_.get()) + "): " + sql.substr(0, 120));
    return Stmt(s);
  }

  /// The table's column names, empty when the table does not exist.
  std::set<std::string> columns(const std::string& table) const {
    std::set<std::string> cols;
    Stmt s = prepare("PRAGMA table_info(\"" + table + "\")");
    int rc = 0;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW)
      cols.emplace(reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 1)));
    if (rc != SQLITE_DONE) fail(table, std::string("cannot read the schema: ") + sqlite3_errmsg(db_.get()));
    return cols;
  }

  /// Checks that `table` has every column in `need`; returns false when the table is absent and optional.
  bool require(const std::string& table, std::initializer_list<const char*> need, bool optional) const {
    const auto cols = columns(table);
    if (cols.empty()) {
      if (optional) return false;
      fail(table, "missing table (every export this reader knows has it)");
    }
    std::string missing;
    for (const char* c : need)
      if (!cols.contains(c)) missing += std::string(missing.empty() ? "" : ", ") + c;
    if (!missing.empty()) fail(table, "missing column(s) " + missing);
    return true;
  }

  void check_schema_version() const {
    for (const char* table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
      if (columns(table).empty()) continue;
      Stmt s = prepare(std::string("SELECT value FROM ") + table + " WHERE name = 'EXPORT_SCHEMA_VERSION'");
      if (sqlite3_step(s.get()) != SQLITE_ROW) fail(table, "no EXPORT_SCHEMA_VERSION row");
      const auto* v = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
      const std::string version = v != nullptr ? v : "";
      int major = -1;
      std::from_chars(version.data(), version.data() + version.size(), major);
      if (major < kNsysSchemaMajorMin || major > kNsysSchemaMajorMax)
        fail(table, "unknown export schema version '" + version + "' (this reader knows " +
                        std::to_string(kNsysSchemaMajorMin) + ".x to " + std::to_string(kNsysSchemaMajorMax) + ".x)");
      return;
    }
    fail("", "no META_DATA_EXPORT table: not an Nsight Systems SQLite export (nsys export --type sqlite)");
  }

  template <class Row>
  void each(const std::string& sql, Row&& row) const {
    Stmt s = prepare(sql);
    int rc = 0;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) row(s.get());
    if (rc != SQLITE_DONE) fail("", std::string("reading failed (") + sqlite3_errmsg(db_.get()) + ")");
  }

 private:
  std::string source_;
  Db db_;
};

std::int64_t i64(sqlite3_stmt* s, int col) { return sqlite3_column_int64(s, col); }
std::string text(sqlite3_stmt* s, int col) {
  const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s, col));
  return t != nullptr ? t : "";
}

constexpr std::int64_t kMaxU32 = 0xffffffffLL;
constexpr auto kMaxBytes = static_cast<std::int64_t>(model::kMaxOpBytes);

/// One row of a GPU activity or API call table, for range checks that name the table, the row's
/// correlation id and the column: SQLite stores whatever a file says, and a value the program would
/// truncate (a grid of 2^32 + 1 blocks read as 1) or a span that ends before it starts is a corrupt export.
class Row {
 public:
  Row(const Reader& db, const char* table, sqlite3_stmt* s, int correlation_col)
      : db_(db), table_(table), s_(s), correlation_(i64(s, correlation_col)) {}

  /// Column `col` as an integer in [lo, hi]; NULL, text, a fraction or a value outside is refused.
  std::int64_t get(int col, const char* column, std::int64_t lo, std::int64_t hi) const {
    const int type = sqlite3_column_type(s_, col);
    const std::int64_t v = i64(s_, col);
    const bool integral = type == SQLITE_INTEGER ||
                          (type == SQLITE_FLOAT && sqlite3_column_double(s_, col) == static_cast<double>(v));
    if (!integral || v < lo || v > hi)
      db_.fail(table_, "correlationId " + std::to_string(correlation_) + ": " + column + " " +
                           (type == SQLITE_NULL ? std::string("NULL") : text(s_, col)) + " is not an integer in [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }

  /// Start and end (columns 0 and 1): profiler time stamps, end not before start.
  std::pair<Nanos, Nanos> interval() const {
    const Nanos start = get(0, "start", 0, model::kMaxTraceNs);
    const Nanos end = get(1, "end", 0, model::kMaxTraceNs);
    if (end < start)
      db_.fail(table_, "correlationId " + std::to_string(correlation_) + ": ends (" + std::to_string(end) +
                           " ns) before it starts (" + std::to_string(start) + " ns)");
    return {start, end};
  }

  std::uint64_t correlation() const { return static_cast<std::uint64_t>(correlation_); }

 private:
  const Reader& db_;
  const char* table_;
  sqlite3_stmt* s_;
  std::int64_t correlation_;
};

/// nsys packs the process id into globalTid / globalPid bits 24..47 and the thread id into bits 0..23.
std::uint32_t pid_of(std::int64_t global) { return static_cast<std::uint32_t>((global >> 24) & 0xFFFFFF); }
std::uint32_t tid_of(std::int64_t global) { return static_cast<std::uint32_t>(global & 0xFFFFFF); }

/// Columns 0..4 of every GPU activity query: start, end, deviceId, streamId, correlationId.
void read_placement(const Row& row, GpuActivity& a) {
  std::tie(a.start, a.end) = row.interval();
  a.device = static_cast<std::uint32_t>(row.get(2, "deviceId", 0, kMaxU32));
  a.stream = static_cast<std::uint32_t>(row.get(3, "streamId", 0, kMaxU32));
  a.correlation = row.correlation();
}

void copy_kind(std::int64_t kind, std::int64_t src, std::int64_t dst, GpuActivity& a, Capture& cap) {
  constexpr std::int64_t kHtoD = 1, kDtoH = 2, kPageable = 1;
  a.copy_kind = kind == kHtoD ? model::OpKind::h2d : kind == kDtoH ? model::OpKind::d2h : model::OpKind::d2d;
  a.host_memory = (src == kPageable || dst == kPageable) ? model::HostMemory::pageable : model::HostMemory::pinned;
  static constexpr std::array<const char*, 11> kKinds{"?",    "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                                      "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  static constexpr std::array<const char*, 8> kMem{"Unknown", "Pageable", "Pinned", "Device",
                                                   "Array",   "Managed",  "Device Static", "Managed Static"};
  auto at = [](const auto& arr, std::int64_t i) { return arr[i >= 0 && i < std::ssize(arr) ? i : 0]; };
  a.name = cap.intern(std::string("Memcpy ") + at(kKinds, kind) + " (" + at(kMem, src) + " -> " + at(kMem, dst) + ")");
}

}  // namespace

bool is_sqlite_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::array<char, 16> head{};
  in.read(head.data(), head.size());
  return in.gcount() == 16 && std::string_view(head.data(), 15) == "SQLite format 3";
}

Capture read_nsys(const std::filesystem::path& file) {
  const std::string source = file.string();
  if (!std::filesystem::exists(file)) throw model::InputError(source, "", "", "no such file");
  if (!is_sqlite_file(file)) throw model::InputError(source, "", "", "not an SQLite database");
  Reader db(source);
  Capture cap;
  cap.source = source;
  cap.format = "nsys";
  db.check_schema_version();
  db.require("StringIds", {"id", "value"}, false);
  db.require("CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "end", "globalTid", "correlationId", "nameId"}, false);
  const bool kernels = db.require("CUPTI_ACTIVITY_KIND_KERNEL",
                                  {"start", "end", "deviceId", "streamId", "correlationId", "gridX", "gridY", "gridZ",
                                   "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
                                   "dynamicSharedMemory", "shortName"},
                                  true);
  const bool copies = db.require("CUPTI_ACTIVITY_KIND_MEMCPY",
                                 {"start", "end", "deviceId", "streamId", "correlationId", "bytes", "copyKind",
                                  "srcKind", "dstKind"},
                                 true);
  const bool memsets = db.require("CUPTI_ACTIVITY_KIND_MEMSET",
                                  {"start", "end", "deviceId", "streamId", "correlationId", "bytes"}, true);
  if (!kernels && !copies && !memsets)
    db.fail("", "missing tables CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and _MEMSET: the export has no GPU activity");
  const bool driver = db.require("CUPTI_ACTIVITY_KIND_DRIVER", {"start", "end", "globalTid", "correlationId", "nameId"}, true);
  const auto sync_cols = db.columns("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
  if (!sync_cols.empty())
    db.require("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", {"start", "end", "streamId", "correlationId", "syncType", "eventId"},
               false);

  std::unordered_map<std::int64_t, std::string> names;
  // Names go into JSON (the program, the measured trace): SQLite keeps whatever bytes a file holds.
  auto utf8 = [&](sqlite3_stmt* s, int col, const std::string& place) {
    std::string t = text(s, col);
    if (!simdjson::validate_utf8(t.data(), t.size())) db.fail(place, "text is not valid UTF-8");
    return t;
  };
  db.each("SELECT id, value FROM StringIds", [&](sqlite3_stmt* s) {
    names.emplace(i64(s, 0), utf8(s, 1, "StringIds id " + std::to_string(i64(s, 0))));
  });
  auto name_of = [&](std::int64_t id) {
    const auto it = names.find(id);
    return it == names.end() ? std::string("string ") + std::to_string(id) : it->second;
  };

  auto read_calls = [&](const char* table) {
    db.each(std::string("SELECT start, end, globalTid, correlationId, nameId FROM ") + table, [&](sqlite3_stmt* s) {
      const Row row(db, table, s, 3);
      ApiCall c;
      std::tie(c.start, c.end) = row.interval();
      c.process = pid_of(i64(s, 2));
      c.thread = tid_of(i64(s, 2));
      c.correlation = row.correlation();
      c.name = cap.intern(name_of(i64(s, 4)));
      c.kind = classify_call(c.name);
      cap.calls.push_back(std::move(c));
    });
  };
  read_calls("CUPTI_ACTIVITY_KIND_RUNTIME");
  if (driver) read_calls("CUPTI_ACTIVITY_KIND_DRIVER");

  if (kernels)
    db.each("SELECT start, end, deviceId, streamId, correlationId, gridX, gridY, gridZ, blockX, blockY, blockZ, "
            "registersPerThread, staticSharedMemory + dynamicSharedMemory, shortName FROM CUPTI_ACTIVITY_KIND_KERNEL",
            [&](sqlite3_stmt* s) {
              const Row row(db, "CUPTI_ACTIVITY_KIND_KERNEL", s, 4);
              GpuActivity a;
              a.kind = ActivityKind::kernel;
              read_placement(row, a);
              static constexpr std::array<const char*, 6> kDims{"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"};
              auto dim = [&](int c) {
                return static_cast<std::uint32_t>(row.get(c, kDims[static_cast<std::size_t>(c - 5)], 1, kMaxU32));
              };
              a.shape.grid = {dim(5), dim(6), dim(7)};
              a.shape.block = {dim(8), dim(9), dim(10)};
              a.shape.registers_per_thread = static_cast<std::uint32_t>(row.get(11, "registersPerThread", 0, kMaxU32));
              a.shape.shared_mem_bytes =
                  static_cast<std::uint32_t>(row.get(12, "staticSharedMemory + dynamicSharedMemory", 0, kMaxU32));
              a.name = cap.intern(name_of(i64(s, 13)));
              cap.activities.push_back(std::move(a));
            });
  if (copies)
    db.each("SELECT start, end, deviceId, streamId, correlationId, bytes, copyKind, srcKind, dstKind "
            "FROM CUPTI_ACTIVITY_KIND_MEMCPY",
            [&](sqlite3_stmt* s) {
              const Row row(db, "CUPTI_ACTIVITY_KIND_MEMCPY", s, 4);
              GpuActivity a;
              a.kind = ActivityKind::memcpy;
              read_placement(row, a);
              a.bytes = static_cast<std::uint64_t>(row.get(5, "bytes", 0, kMaxBytes));
              copy_kind(i64(s, 6), i64(s, 7), i64(s, 8), a, cap);
              cap.activities.push_back(std::move(a));
            });
  if (memsets)
    db.each("SELECT start, end, deviceId, streamId, correlationId, bytes FROM CUPTI_ACTIVITY_KIND_MEMSET",
            [&](sqlite3_stmt* s) {
              const Row row(db, "CUPTI_ACTIVITY_KIND_MEMSET", s, 4);
              GpuActivity a;
              a.kind = ActivityKind::memset;
              read_placement(row, a);
              a.bytes = static_cast<std::uint64_t>(row.get(5, "bytes", 0, kMaxBytes));
              a.name = cap.intern("Memset (Device)");
              cap.activities.push_back(std::move(a));
            });
  if (!sync_cols.empty()) {
    const std::string device = sync_cols.contains("deviceId") ? "deviceId" : "0";
    db.each("SELECT streamId, correlationId, syncType, eventId, " + device + " FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
            [&](sqlite3_stmt* s) {
              SyncRecord r;
              // CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_: 1 event synchronize, 2 stream wait event,
              // 3 stream synchronize, 4 context synchronize.
              switch (i64(s, 2)) {
                case 1: r.kind = SyncKind::event_sync; break;
                case 2: r.kind = SyncKind::stream_wait_event; break;
                case 3: r.kind = SyncKind::stream_sync; break;
                case 4: r.kind = SyncKind::context_sync; break;
                default: return;
              }
              // CUPTI writes 0xffffffff for "no stream" / "no event".
              const std::int64_t stream = i64(s, 0), event = i64(s, 3);
              r.stream = (stream < 0 || stream == 0xffffffffLL) ? -1 : stream;
              r.correlation = static_cast<std::uint64_t>(i64(s, 1));
              r.event_id = (event < 0 || event == 0xffffffffLL) ? -1 : event;
              r.device = static_cast<std::uint32_t>(i64(s, 4));
              cap.syncs.push_back(r);
            });
  }
  const auto stream_cols = db.columns("TARGET_INFO_CUDA_STREAM");
  if (stream_cols.contains("streamId") && stream_cols.contains("priority"))
    db.each("SELECT streamId, priority FROM TARGET_INFO_CUDA_STREAM", [&](sqlite3_stmt* s) {
      cap.stream_priorities.emplace_back(static_cast<std::uint32_t>(i64(s, 0)), static_cast<int>(i64(s, 1)));
    });
  const auto gpu_cols = db.columns("TARGET_INFO_GPU");
  if (gpu_cols.contains("name"))
    db.each("SELECT name FROM TARGET_INFO_GPU LIMIT 1", [&](sqlite3_stmt* s) { cap.device_name = utf8(s, 0, "TARGET_INFO_GPU"); });
  return cap;
}

}  // namespace streamlab::import
