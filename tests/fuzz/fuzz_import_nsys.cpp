// libFuzzer target: the Nsight Systems SQLite importer. The input is SQL, applied to a fresh in-memory
// database that already has the export's tables (tests/support/nsys_export_schema.hpp); the database is
// then written out as a file, which the importer reads as it would `nsys export --type sqlite`'s. SQL
// rather than raw database bytes: a mutated SQLite file almost never gets past SQLite's own page checks
// (SQLite is fuzzed upstream), while mutated statements reach every path of our reader: rows of any type
// and range, dropped or altered tables and columns, views in place of tables, other schema versions.
// Properties: as for the Kineto importer (an accepted capture builds a checked program or is refused with
// an InputError; the program's canonical text reads back to it; the measured timeline survives the trace
// writer; the program simulates).
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "../support/nsys_export_schema.hpp"
#include "fuzz_import.hpp"
#include "streamlab/import/nsys.hpp"

using namespace streamlab;

namespace {

/// Only statements that shape the database's content; nothing that reaches outside it (ATTACH, and so
/// VACUUM INTO), changes SQLite's own settings (PRAGMA) or loads code.
int authorize(void*, int action, const char*, const char*, const char*, const char*) {
  switch (action) {
    case SQLITE_INSERT: case SQLITE_UPDATE: case SQLITE_DELETE: case SQLITE_READ: case SQLITE_SELECT:
    case SQLITE_FUNCTION: case SQLITE_RECURSIVE: case SQLITE_CREATE_TABLE: case SQLITE_DROP_TABLE:
    case SQLITE_ALTER_TABLE: case SQLITE_CREATE_VIEW: case SQLITE_DROP_VIEW: case SQLITE_CREATE_INDEX:
    case SQLITE_DROP_INDEX: case SQLITE_TRANSACTION: case SQLITE_SAVEPOINT:
      return SQLITE_OK;
    default:
      return SQLITE_DENY;
  }
}

/// Stops a statement after this many virtual-machine steps (a recursive CTE can run forever).
int stop_long_statements(void* steps) { return ++*static_cast<int*>(steps) > 2000 ? 1 : 0; }

struct DbCloser {
  void operator()(sqlite3* db) const noexcept { sqlite3_close(db); }
};

/// The export the input describes, as database bytes; empty when the schema itself fails (never expected).
std::string build_database(const std::string& sql) {
  sqlite3* raw = nullptr;
  if (sqlite3_open(":memory:", &raw) != SQLITE_OK) fuzz::property_failed("sqlite3_open(:memory:)", "");
  const std::unique_ptr<sqlite3, DbCloser> db(raw);
  if (sqlite3_exec(db.get(), testing::kNsysExportSchema, nullptr, nullptr, nullptr) != SQLITE_OK)
    fuzz::property_failed("the export schema applies", sqlite3_errmsg(db.get()));
  sqlite3_limit(db.get(), SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(db.get(), SQLITE_LIMIT_LENGTH, 1 << 20);
  sqlite3_limit(db.get(), SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
  sqlite3_set_authorizer(db.get(), authorize, nullptr);
  int steps = 0;
  sqlite3_progress_handler(db.get(), 1000, stop_long_statements, &steps);
  // Statements run until the first that fails; what ran so far stays (autocommit), like a partial export.
  sqlite3_exec(db.get(), sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_progress_handler(db.get(), 0, nullptr, nullptr);
  sqlite3_set_authorizer(db.get(), nullptr, nullptr);  // serializing runs a PRAGMA of its own
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db.get(), "main", &size, 0);
  if (bytes == nullptr) fuzz::property_failed("sqlite3_serialize", sqlite3_errmsg(db.get()));
  std::string out(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(size));
  sqlite3_free(bytes);
  return out;
}

/// One file per fuzzing process, rewritten for every input (in /dev/shm where there is one: no disk I/O).
const std::filesystem::path& database_file() {
  static const std::filesystem::path file = [] {
    const std::filesystem::path shm("/dev/shm");
    const auto dir = std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path();
    return dir / ("streamlab-fuzz-nsys-" + std::to_string(::getpid()) + ".sqlite");
  }();
  return file;
}

void remove_database_file() {
  std::error_code ignored;
  std::filesystem::remove(database_file(), ignored);
}

void write_database_file(const std::string& bytes) {
  static const bool cleanup_registered = std::atexit(remove_database_file) == 0;
  (void)cleanup_registered;
  std::FILE* f = std::fopen(database_file().c_str(), "wb");
  if (f == nullptr) fuzz::property_failed("the database file opens", database_file().string());
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !written) fuzz::property_failed("the database file is written", database_file().string());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string sql(reinterpret_cast<const char*>(data), size);
  write_database_file(build_database(sql));
  static const model::DeviceProfile profile = model::bundled_h100_profile();
  import::Imported imported;
  try {
    const import::Capture capture = import::read_nsys(database_file());
    import::BuildOptions options;
    options.profile = &profile;
    options.name = "fuzz";
    imported = import::build_program(capture, options);
  } catch (const model::InputError& e) {
    const std::string message = e.what();
    fuzz::require(message.find(database_file().string()) != std::string::npos, "a refusal names the file", message);
    return 0;
  }
  fuzz::check_imported(imported, profile);
  return 0;
}
