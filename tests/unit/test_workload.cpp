// Workload JSON: round trips, defaults, and one test per validation error kind. Every error test checks
// that the message names the file, the JSON pointer (or line:column) and the op.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "streamlab/model/any_file.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/generators.hpp"
#include "streamlab/model/input_limits.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "workload_error_helpers.hpp"

using namespace streamlab::model;

namespace {

const std::string kFile = "bad.json";

std::string doc(const std::string& ops) {
  return R"({"format_version": 1, "name": "t", "ops": [)" + ops + "]}";
}

// A kernel with every field, valid on an H100.
const std::string kKernel =
    R"({"id": "k", "kind": "kernel", "grid": 4, "block": [128, 2], "duration": {"per_block_ns": 1000}})";

void expect_error(const std::string& text, const std::string& place, const std::string& op,
                  const std::string& reason) {
  streamlab::test::expect_workload_error(text, kFile, place, op, reason);
}

// Every kind with every optional field set to a non-default value.
const std::string kAllKinds = R"({
  "format_version": 1, "name": "all", "description": "every kind",
  "ops": [
    {"id": "up", "name": "upload", "kind": "h2d", "priority": "high", "stream": 1, "bytes": 1048576,
     "host_memory": "pageable"},
    {"id": "set", "kind": "memset", "bytes": 4096, "priority": "low"},
    {"id": "pf", "kind": "prefetch", "bytes": 65536, "type": "mixed"},
    {"id": "k1", "kind": "kernel", "grid": [2, 3], "block": [32, 4, 2], "registers": 64, "shared_mem": 16384,
     "duration": {"blocks_ns": [1, 2, 3, 4, 5, 6]}, "deps": ["up", "set", "pf"]},
    {"id": "k2", "kind": "kernel", "grid": 132, "block": 256, "duration": {"bytes": 1e9, "flops": 2.5e9},
     "deps": ["k1"]},
    {"id": "tp", "kind": "task_pool", "grid": 8, "block": 128, "tasks": {"ns": [10, 20, 30], "assignment": "static"},
     "deps": ["k1"]},
    {"id": "cp", "kind": "d2d", "bytes": 100, "deps": ["k2"]},
    {"id": "join", "kind": "barrier", "deps": ["cp", "tp"], "priority": "critical"},
    {"id": "down", "kind": "d2h", "bytes": 1048576, "deps": ["join"], "priority": "cleanup"},
    {"id": "cb", "kind": "host_func", "host_ns": 5000, "deps": ["down"]}
  ]})";

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Reading, defaults and round trips.

TEST(Workload, ParsesEveryKind) {
  const Workload w = parse_workload(kAllKinds, "all.json");
  ASSERT_EQ(w.size(), 10u);
  EXPECT_EQ(w.name, "all");
  EXPECT_EQ(w.description, "every kind");
  EXPECT_EQ(w.edge_count(), 10u);

  const Op& up = w.ops[w.index_of("up")];
  EXPECT_EQ(up.kind, OpKind::h2d);
  EXPECT_EQ(up.name, "upload");
  EXPECT_EQ(up.priority, Priority::high);
  EXPECT_EQ(up.type, WorkloadType::memory);  // default for copies
  EXPECT_EQ(up.stream_hint, 1u);
  EXPECT_EQ(up.bytes, 1048576u);
  EXPECT_EQ(up.host_memory, HostMemory::pageable);

  const Op& k1 = w.ops[w.index_of("k1")];
  EXPECT_EQ(k1.name, "k1");  // defaults to the id
  ASSERT_TRUE(k1.shape.has_value());
  EXPECT_EQ(k1.shape->grid, (Dim3{2, 3, 1}));
  EXPECT_EQ(k1.shape->block, (Dim3{32, 4, 2}));
  EXPECT_EQ(k1.shape->registers_per_thread, 64u);
  EXPECT_EQ(k1.shape->shared_mem_bytes, 16384u);
  EXPECT_EQ(std::get<PerBlockList>(k1.duration).ns, (std::vector<Nanos>{1, 2, 3, 4, 5, 6}));
  const auto k1_deps = w.deps(w.index_of("k1"));
  EXPECT_EQ(std::vector<OpIndex>(k1_deps.begin(), k1_deps.end()), (std::vector<OpIndex>{0, 1, 2}));
  EXPECT_EQ(k1.type, WorkloadType::compute);

  const Op& k2 = w.ops[w.index_of("k2")];
  EXPECT_EQ(k2.shape->registers_per_thread, 32u);  // default
  EXPECT_EQ(std::get<CostModel>(k2.duration).flops, 2.5e9);

  const Op& tp = w.ops[w.index_of("tp")];
  ASSERT_TRUE(tp.tasks.has_value());
  EXPECT_EQ(tp.tasks->assignment, TaskAssignment::static_index);
  EXPECT_EQ(tp.tasks->task_ns, (std::vector<Nanos>{10, 20, 30}));

  EXPECT_EQ(w.ops[w.index_of("join")].type, WorkloadType::coordination);
  EXPECT_EQ(w.ops[w.index_of("cb")].host_ns, 5000);
  EXPECT_EQ(w.ops[w.index_of("pf")].type, WorkloadType::mixed);
  EXPECT_THROW((void)w.index_of("nope"), std::out_of_range);
}

TEST(Workload, RoundTripIsExactAndCanonical) {
  const Workload w = parse_workload(kAllKinds, "all.json");
  const std::string text = workload_to_json(w);
  const Workload back = parse_workload(text, "roundtrip.json");
  EXPECT_EQ(back, w);
  EXPECT_EQ(workload_to_json(back), text);  // canonical: a fixed point
  // The compact form reads back to the same workload.
  EXPECT_EQ(parse_workload(workload_to_json(w, -1), "compact.json"), w);
  // Canonical text starts with the version and has one op per line.
  EXPECT_EQ(text.rfind("{\n  \"format_version\": 1,", 0), 0u) << text;
  // {, 3 header lines, "ops": [, 10 ops, ], }
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7 + 10) << text;
}

TEST(Workload, CompactTextIsWhatAJsonLibraryWouldWrite) {
  // The writer is hand-rolled for speed; nlohmann's own dump of the same document must be identical,
  // including string escapes and number formatting.
  Workload w = parse_workload(kAllKinds, "all.json");
  w.name = "quote \" backslash \\ tab \t nl \n bell \x07 utf8 \xc3\xa9";
  w.ops[4].duration = CostModel{0.1, 1e-300};  // exponent notation (huge amounts are over the input limits)
  const std::string text = workload_to_json(w, -1);
  EXPECT_EQ(nlohmann::ordered_json::parse(text).dump(), text);
  EXPECT_EQ(parse_workload(text, "x"), w);
}

TEST(Workload, NonIntegralCostSurvivesRoundTrip) {
  const Workload w = parse_workload(
      doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 1, "duration": {"bytes": 0.1, "flops": 3}})"), "c");
  const Workload back = parse_workload(workload_to_json(w), "c");
  EXPECT_EQ(std::get<CostModel>(back.ops[0].duration).bytes, 0.1);
  EXPECT_EQ(std::get<CostModel>(back.ops[0].duration).flops, 3.0);
}

TEST(Workload, EmptyWorkloadIsValid) {
  const Workload w = parse_workload(doc(""), "empty.json");
  EXPECT_EQ(w.size(), 0u);
  EXPECT_EQ(parse_workload(workload_to_json(w), "e"), w);
}

TEST(Workload, HashIsStableHexAndContentSensitive) {
  const Workload w = parse_workload(kAllKinds, "all.json");
  const std::string h = w.hash();
  EXPECT_EQ(h.size(), 16u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(parse_workload(workload_to_json(w), "x").hash(), h);
  Workload changed = w;
  changed.ops[0].bytes += 1;
  EXPECT_NE(changed.hash(), h);
}

namespace {

// FNV-1a 64 byte by byte: the definition Workload::hash must keep giving (traces carry its values).
std::string reference_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

// The hash is computed without building the canonical text (fixed pieces stepped over by table): it must
// equal FNV-1a over that text for every kind, field, escape and layout the writer has.
TEST(Workload, HashIsFnv1aOfTheCompactCanonicalText) {
  std::vector<Workload> cases;
  cases.push_back(parse_workload(kAllKinds, "all.json"));
  cases.push_back(load_workload(std::filesystem::path(STREAMLAB_SOURCE_DIR) / "tests" / "fuzz" / "corpus" /
                                "workload" / "imported-multistream.json"));
  cases.push_back(load_workload(std::filesystem::path(STREAMLAB_SOURCE_DIR) / "tests" / "fuzz" / "corpus" /
                                "workload" / "program-fg-after-bg.json"));
  // Escapes, non-ASCII text, empty names, long ids, numbers at their limits.
  Workload odd;
  odd.name = "quote \" backslash \\ tab \t bell \x07 é 日本";
  odd.description = "";
  Op a;
  a.id = odd.intern("a \"quoted\" id\n");
  a.name = odd.intern("naïve ☃");
  a.kind = OpKind::kernel;
  a.shape = KernelShape{Dim3{65535, 65535, 1}, Dim3{8, 4, 2}, 255, 232448};
  a.duration = FixedPerBlock{1234};
  odd.add(a);
  Op b;
  b.id = odd.intern(std::string(100, 'x'));
  b.kind = OpKind::h2d;
  b.bytes = std::uint64_t{1} << 44;
  b.stream_hint = 4294967295u;
  odd.add(b, {std::string_view("a \"quoted\" id\n")});
  Op c;
  c.id = "c";
  c.kind = OpKind::kernel;
  c.shape = KernelShape{};
  c.duration = CostModel{0.1, 1.5e14};
  odd.add(c, {std::string_view(std::string(100, 'x')), std::string_view("a \"quoted\" id\n")});
  cases.push_back(odd);  // deps named by id, not yet resolved
  resolve_and_check(odd, "odd");
  cases.push_back(odd);
  cases.push_back(gen::random_dag(gen::RandomDag{.ops = 5000}));
  for (const Workload& w : cases) {
    SCOPED_TRACE(w.name);
    EXPECT_EQ(w.hash(), reference_hash(workload_to_json(w, -1)));
  }
}

// The values already committed: every experiment's workload beside the traces of its runs, whose metadata
// carries the hash of the workload they ran.
TEST(Workload, HashesOfCommittedResultsAreUnchanged) {
  const auto root = std::filesystem::path(STREAMLAB_SOURCE_DIR) / "experiments" / "results";
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string file = entry.path().string();
    const std::string suffix = ".workload.json";
    if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string predicted = file.substr(0, file.size() - suffix.size()) + ".predicted.json";
    if (!std::filesystem::exists(predicted)) continue;
    SCOPED_TRACE(file);
    EXPECT_EQ(load_workload(entry.path()).hash(), load_trace(predicted).meta.workload_hash);
    ++n;
  }
  EXPECT_GE(n, 100u) << "committed workloads under " << root;
}

TEST(Workload, SaveAndLoadFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("streamlab_wl_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "w.json";
  const Workload w = parse_workload(kAllKinds, "all.json");
  save_workload(w, file);
  EXPECT_EQ(load_workload(file), w);
  // No temporary left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator{}), 1);
  std::filesystem::remove_all(dir);
}

TEST(Workload, SaveWhereNoFolderCanBeMadeNamesTheFile) {
  // Missing folders are created (one rule for every output); a path through a regular file cannot be.
  const auto file = std::filesystem::path("/proc/version/w.json");
  try {
    save_workload(parse_workload(doc(""), "e"), file);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file.string());
    EXPECT_NE(std::string(e.what()).find("cannot create the folder"), std::string::npos) << e.what();
  }
}

TEST(Workload, LoadMissingFileNamesTheFile) {
  const std::string file = "/nonexistent-streamlab-dir/missing.json";
  try {
    (void)load_workload(file);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST(Workload, ErrorsInLoadedFilesNameThePath) {
  const auto file = std::filesystem::temp_directory_path() / ("streamlab_bad_" + std::to_string(::getpid()) + ".json");
  write_file_atomically(file, doc(R"({"id": "a", "kind": "barrier", "deps": ["zz"]})"));
  try {
    (void)load_workload(file);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file.string());
    EXPECT_EQ(e.place(), "/ops/0/deps/0");
  }
  std::filesystem::remove(file);
}

// Interned texts stay put as the table grows, a workload's add() keeps its own copies of borrowed
// texts, and a copy of a workload keeps the texts alive after the original is gone.
TEST(Workload, TextsLiveAsLongAsTheirWorkload) {
  StringTable table;
  std::vector<Text> kept;
  for (int i = 0; i < 200'000; ++i) kept.push_back(table.intern("id-" + std::to_string(i)));  // many blocks
  for (int i = 0; i < 200'000; i += 9973) EXPECT_EQ(kept[static_cast<std::size_t>(i)], "id-" + std::to_string(i));
  const Text fresh = table.intern("fresh");
  EXPECT_EQ(table.adopt(fresh).data(), fresh.data());  // just interned: kept as it is
  const std::string elsewhere = "elsewhere";
  const Text copied = table.adopt(Text::borrow(elsewhere));
  EXPECT_NE(copied.data(), elsewhere.data());
  EXPECT_EQ(copied, "elsewhere");

  std::optional<Workload> copy;
  {
    Workload w;
    std::string id = "borrowed-id", dep = "first";
    Op first;
    first.id = "first";
    first.kind = OpKind::barrier;
    w.add(first);
    Op op;
    op.id = Text::borrow(id);
    op.name = Text::borrow(id);
    op.kind = OpKind::barrier;
    w.add(op, {dep});
    id.assign(id.size(), 'x');  // the caller's characters change: the workload has its own
    dep.assign(dep.size(), 'y');
    resolve_and_check(w, "test");
    EXPECT_EQ(w.ops[1].id, "borrowed-id");
    EXPECT_EQ(w.dep_ids(1), (std::vector<std::string_view>{"first"}));
    copy = w;
  }
  EXPECT_EQ(copy->ops[1].name, "borrowed-id");  // the original is gone; the shared table is not
  EXPECT_EQ(workload_to_json(*copy, -1).find("\"deps\":[\"first\"]") != std::string::npos, true);
}

// A file laid out one op per line is read piece by piece (1 MiB at a time): a workload spanning many
// pieces reads back equal to the one saved, and any problem in such a file reads exactly as the
// whole-text parse reports it (message, place, op), wherever it sits.
TEST(Workload, OpPerLineFilesReadInPiecesAsTheWholeTextDoes) {
  const auto file = std::filesystem::temp_directory_path() / ("streamlab_lines_" + std::to_string(::getpid()) + ".json");
  gen::RandomDag p;
  p.ops = 30'000;  // about 7 MB: seven pieces
  const Workload w = gen::random_dag(p);
  save_workload(w, file);
  const Workload back = load_workload(file);
  EXPECT_EQ(back, w);
  EXPECT_EQ(back.hash(), w.hash());
  EXPECT_EQ(workload_to_json(back), workload_to_json(w));

  const std::string text = workload_to_json(w);
  const auto expect_same_error = [&](const std::string& bad, const std::string& what) {
    write_file_atomically(file, bad);
    std::string whole, pieces;
    try {
      (void)parse_workload(bad, file.string());
    } catch (const InputError& e) {
      whole = std::string(e.what()) + " @" + e.place() + " op " + e.op();
    }
    try {
      (void)load_workload(file);
    } catch (const InputError& e) {
      pieces = std::string(e.what()) + " @" + e.place() + " op " + e.op();
    }
    EXPECT_FALSE(whole.empty()) << what;
    EXPECT_EQ(pieces, whole) << what;
  };
  const std::size_t late = text.find("\"id\":\"op_29000\"");  // in the last piece
  ASSERT_NE(late, std::string::npos);
  std::string bad = text;
  bad.replace(bad.find("\"kind\":\"kernel\"", late), 17, "\"kind\":\"kernal\"");
  expect_same_error(bad, "unknown kind late in the file");
  bad = text;
  bad.replace(bad.find("\"deps\":[\"", late), 9, "\"deps\":[\"op_x\",\"");
  expect_same_error(bad, "dangling dep");
  bad = text;
  bad.insert(bad.find('}', late), ",}");
  expect_same_error(bad, "syntax error inside an op");
  bad = text;
  bad.replace(bad.find("\"format_version\": 1"), 19, "\"format_version\": 3");
  expect_same_error(bad + "", "newer version");
  bad = text;
  bad.replace(bad.find("\"id\":\"op_29000\""), 16, "\"id\":\"op_28999\"");
  expect_same_error(bad, "duplicate id");
  bad = text;
  bad.insert(bad.rfind(']'), "  ,\n");
  expect_same_error(bad, "comma after the last op");
  std::filesystem::remove(file);
}

// validate's check of a file without keeping its ops gives a good workload's counts, and nothing for a
// bad one (whose message load_workload gives) or one whose checks need the ops.
TEST(Workload, CheckedWithoutOpsOnlyWhenGood) {
  const auto file = std::filesystem::temp_directory_path() / ("streamlab_check_" + std::to_string(::getpid()) + ".json");
  const Workload w = gen::random_dag(gen::RandomDag{.ops = 3000});
  const std::string text = workload_to_json(w);
  write_file_atomically(file, text);
  const std::optional<WorkloadCounts> good = check_workload_file(file, ShapeLimits{});
  ASSERT_TRUE(good.has_value());
  EXPECT_EQ(good->ops, w.ops.size());
  EXPECT_EQ(good->edges, w.edge_count());
  EXPECT_EQ(good->work_items, simulation_work_items(w));

  const std::size_t late = text.find("\"id\":\"op_2900\"");
  ASSERT_NE(late, std::string::npos);
  const std::size_t deps = text.find("\"deps\":[\"", late) + 8;  // the first dep of an op near the end
  const std::size_t owner = text.rfind("{\"id\":", deps) + 6;
  const std::string own_id = text.substr(owner, text.find(',', owner) - owner);  // quoted
  const auto with = [&](std::size_t at, std::size_t erase, const std::string& insert) {
    std::string t = text;
    return t.replace(at, erase, insert);
  };
  struct Case {
    std::string text;
    const char* what;
    bool good;  // a good workload whose checks need its ops
  };
  const Case cases[] = {
      {with(deps, 0, "\"op_12\",\"op_12\","), "repeated dep", false},
      {with(deps, 0, own_id + ","), "dep on itself", false},
      {with(deps, 0, "\"op_x\","), "dep on no op", false},
      {with(text.find("\"block\":128", late) + 8, 3, "4096"), "block over the limit", false},
      {with(text.find("\"format_version\": 1"), 19, "\"format_version\": 3"), "newer version", false},
      {with(text.find("\"ops\": ["), 0, "\"streams\": [],\n  "), "version 1 with streams", false},
      {with(deps, 0, "\"op_2999\","), "dep on a later op", true},
      {with(late + 5, 9, "\"zz\""), "an id that is not numbered", true},
  };
  for (const auto& c : cases) {
    write_file_atomically(file, c.text);
    EXPECT_FALSE(check_workload_file(file, ShapeLimits{}).has_value()) << c.what;
    if (c.good) {
      EXPECT_NO_THROW((void)load_workload(file)) << c.what;
    } else {
      EXPECT_THROW((void)load_workload(file), InputError) << c.what;
    }
  }
  std::filesystem::remove(file);
}

// load_workload's hash, computed as a file's ops are read (one op per line, members before the ops) or
// after (any other file), is the workload's hash(): for every kind and escape, programs, ops the line
// reader hands to the JSON parser, and members placed after the ops.
TEST(Workload, HashReadWithTheOpsIsTheWorkloadsHash) {
  const auto file = std::filesystem::temp_directory_path() / ("streamlab_hash_" + std::to_string(::getpid()) + ".json");
  const auto corpus = std::filesystem::path(STREAMLAB_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / "workload";
  std::vector<std::string> texts;
  for (const Workload& w : {parse_workload(kAllKinds, "all.json"), load_workload(corpus / "imported-multistream.json"),
                            load_workload(corpus / "program-fg-after-bg.json"), gen::random_dag(gen::RandomDag{.ops = 3000})})
    texts.push_back(workload_to_json(w));
  Workload odd;
  odd.name = "quote \" backslash \\ tab \t é";
  Op a;
  a.id = odd.intern("a \"quoted\" id");
  a.name = odd.intern("naïve ☃");
  a.kind = OpKind::barrier;
  odd.add(a);
  Op b;
  b.id = "b";
  b.kind = OpKind::barrier;
  odd.add(b, {std::string_view("a \"quoted\" id")});
  texts.push_back(workload_to_json(odd));
  std::string spaced = texts[0];  // an op line with spaces: read by the JSON parser, the others by lines
  spaced.replace(spaced.find("{\"id\":"), 6, "{ \"id\" :");
  texts.push_back(spaced);
  const auto move_after_ops = [](std::string text, const std::string& key) {
    const std::size_t at = text.find("\n  \"" + key + "\":");
    const std::size_t end = text.find("\n  \"", at + 1);  // the next member
    std::string member = text.substr(at + 1, end - at - 1);
    if (member.back() == ',') member.pop_back();
    text.erase(at, end - at);
    text.insert(text.rfind('}'), ",\n" + member + "\n");
    return text;
  };
  texts.push_back(move_after_ops(texts[0], "description"));
  texts.push_back(move_after_ops(texts[0], "name"));
  texts.push_back(move_after_ops(texts[2], "streams"));
  for (const std::string& text : texts) {
    SCOPED_TRACE(text.substr(0, 200));
    write_file_atomically(file, text);
    std::string hash;
    const Workload w = load_workload(file, {}, nullptr, &hash);
    EXPECT_EQ(hash, w.hash());
    EXPECT_EQ(hash, parse_workload(text, "text").hash());
  }
  std::filesystem::remove(file);
}

// Files are mapped with simdjson's padding after their last byte: sizes at and around page boundaries
// (the padding then falls in the next page) read like any other, and a text cut short there is still
// refused with its place.
TEST(Workload, FilesEndingAtPageBoundariesRead) {
  const auto file = std::filesystem::temp_directory_path() / ("streamlab_page_" + std::to_string(::getpid()) + ".json");
  const std::string text = doc(R"({"id": "a", "kind": "barrier"})");
  for (const std::size_t size : {std::size_t{4096}, std::size_t{4095}, std::size_t{4033}, std::size_t{8192},
                                 std::size_t{65536 - 64}}) {
    ASSERT_LT(text.size(), size);
    write_file_atomically(file, text + std::string(size - text.size(), ' '));
    ASSERT_EQ(std::filesystem::file_size(file), size);
    EXPECT_EQ(load_workload(file).ops.size(), 1u) << size;
    // The same bytes with the closing brace replaced: cut short where the page ends.
    std::string cut = text + std::string(size - text.size(), ' ');
    cut[text.size() - 1] = ' ';
    write_file_atomically(file, cut);
    try {
      (void)load_workload(file);
      ADD_FAILURE() << "no error at size " << size;
    } catch (const InputError& e) {
      EXPECT_NE(e.place().find("line"), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(file);
}

// ---------------------------------------------------------------------------------------------------
// One test per error kind.

TEST(WorkloadErrors, MalformedJsonGivesLineAndColumn) {
  expect_error("{\n  \"format_version\": 1,\n  \"name\": \"t\",,\n}", "line 3, column 15", "", "malformed JSON");
  expect_error("", "line 1, column 1", "", "malformed JSON");
  expect_error("{\"a\": 1", "line 1, column 8", "", "unexpected end of input");
}

TEST(WorkloadErrors, DuplicateKeyInOneObject) {
  expect_error(doc(R"({"id": "a", "kind": "barrier"}, {"id": "b", "kind": "barrier", "deps": [], "deps": ["a"]})"),
               "/ops/1/deps", "", "appears twice");
}

TEST(WorkloadErrors, UnknownTopLevelKey) {
  expect_error(R"({"format_version": 1, "name": "t", "ops": [], "opz": []})", "/opz", "", "unknown key 'opz'");
}

TEST(WorkloadErrors, UnknownOpKey) {
  expect_error(doc(R"({"id": "a", "kind": "barrier", "dependencies": ["x"]})"), "/ops/0/dependencies", "a",
               "unknown key 'dependencies'");
}

TEST(WorkloadErrors, KeyOfAnotherKind) {
  expect_error(doc(R"({"id": "c", "kind": "d2d", "bytes": 1, "host_memory": "pinned"})"), "/ops/0/host_memory", "c",
               "does not apply to a d2d op");
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 1, "duration": {"per_block_ns": 1},
                       "bytes": 4})"),
               "/ops/0/bytes", "k", "does not apply to a kernel op");
}

TEST(WorkloadErrors, UnknownDurationKey) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 1, "duration": {"ns": 5}})"),
               "/ops/0/duration/ns", "k", "unknown key 'ns'");
}

TEST(WorkloadErrors, WrongTypes) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": "4", "block": 1, "duration": {"per_block_ns": 1}})"),
               "/ops/0/grid", "k", "expected an integer or an array");
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": [1, "2"], "block": 1, "duration": {"per_block_ns": 1}})"),
               "/ops/0/grid/1", "k", "expected an integer >= 0, got a string");
  expect_error(doc(R"({"id": "c", "kind": "h2d", "bytes": -1})"), "/ops/0/bytes", "c", "expected an integer >= 0");
  expect_error(doc(R"({"id": "c", "kind": "h2d", "bytes": 1.5})"), "/ops/0/bytes", "c", "a number with a fraction");
  expect_error(doc(R"({"id": "c", "kind": "h2d", "bytes": 1, "stream": 4294967296})"), "/ops/0/stream", "c",
               "expected an integer <= 4294967295");
  expect_error(doc(R"({"id": "a", "kind": "barrier", "deps": "b"})"), "/ops/0/deps", "a", "expected an array");
  expect_error(doc(R"({"id": 7, "kind": "barrier"})"), "/ops/0/id", "", "expected a string, got an integer");
  expect_error(doc(R"(["barrier"])"), "/ops/0", "", "expected an object");
  expect_error(R"({"format_version": 1, "name": "t", "ops": {}})", "/ops", "", "expected an array");
  expect_error("[1]", "top level", "", "expected an object");
}

TEST(WorkloadErrors, MissingFields) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 1})"), "/ops/0", "k",
               "missing required key 'duration' (a kernel op needs grid, block, duration)");
  expect_error(doc(R"({"id": "c", "kind": "d2h"})"), "/ops/0", "c", "missing required key 'bytes'");
  expect_error(doc(R"({"id": "t", "kind": "task_pool", "grid": 1, "block": 1})"), "/ops/0", "t",
               "missing required key 'tasks'");
  expect_error(doc(R"({"id": "h", "kind": "host_func"})"), "/ops/0", "h", "missing required key 'host_ns'");
  expect_error(doc(R"({"kind": "barrier"})"), "/ops/0", "", "missing required key 'id'");
  expect_error(doc(R"({"id": "a"})"), "/ops/0", "a", "missing required key 'kind'");
  expect_error(R"({"format_version": 1, "ops": []})", "top level", "", "missing required key 'name'");
  expect_error(R"({"name": "t", "ops": []})", "top level", "", "missing required key 'format_version'");
}

TEST(WorkloadErrors, BadEnumStrings) {
  expect_error(doc(R"({"id": "a", "kind": "kernal"})"), "/ops/0/kind", "a", "unknown op kind 'kernal' (one of: kernel");
  expect_error(doc(R"({"id": "a", "kind": "barrier", "priority": "urgent"})"), "/ops/0/priority", "a",
               "unknown priority 'urgent'");
  expect_error(doc(R"({"id": "a", "kind": "barrier", "type": "io"})"), "/ops/0/type", "a",
               "unknown workload type 'io'");
  expect_error(doc(R"({"id": "c", "kind": "h2d", "bytes": 1, "host_memory": "mapped"})"), "/ops/0/host_memory", "c",
               "unknown host memory 'mapped'");
  expect_error(doc(R"({"id": "t", "kind": "task_pool", "grid": 1, "block": 1, "tasks": {"ns": [1], "assignment": "x"}})"),
               "/ops/0/tasks/assignment", "t", "unknown task assignment 'x'");
}

TEST(WorkloadErrors, FormatVersionMismatch) {
  expect_error(R"({"format_version": 3, "name": "t", "ops": [], "future": 1})", "/format_version", "",
               "format_version 3 is not supported");
}

TEST(WorkloadErrors, DuplicateIds) {
  expect_error(doc(R"({"id": "a", "kind": "barrier"}, {"id": "b", "kind": "barrier"}, {"id": "a", "kind": "barrier"})"),
               "/ops/2/id", "a", "duplicate op id (already used by /ops/0)");
}

TEST(WorkloadErrors, EmptyId) {
  expect_error(doc(R"({"id": "", "kind": "barrier"})"), "/ops/0/id", "", "must not be empty");
}

TEST(WorkloadErrors, DanglingDep) {
  expect_error(doc(R"({"id": "a", "kind": "barrier"}, {"id": "b", "kind": "barrier", "deps": ["a", "c"]})"),
               "/ops/1/deps/1", "b", "dep 'c' names no op");
  expect_error(doc(R"({"id": "load", "kind": "barrier"}, {"id": "gemm", "kind": "barrier", "deps": ["lod"]})"),
               "/ops/1/deps/0", "gemm", "dep 'lod' names no op of this workload (did you mean 'load'?)");
}

// Ids that number the ops (a prefix and a number, one run of consecutive numbers per prefix) resolve
// without an index; every other set of ids through one. Both must give what the plain rule gives: a
// repeated id is an error at its second op, a dep names the first op with its id or is an error.
//
// validate's check_workload_file, which keeps no op, answers for the one-op-per-line texts only what
// parse_workload answers: the same counts for a good workload, nothing for a bad one.
TEST(WorkloadErrors, NumberedAndOtherIdsResolveByTheSameRule) {
  std::mt19937 rng(15);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  int numbered = 0, errors = 0, counted = 0, not_counted = 0;
  const auto file = std::filesystem::temp_directory_path() / ("streamlab_ids_" + std::to_string(::getpid()) + ".json");
  for (int round = 0; round < 800; ++round) {
    const std::size_t n = 1 + pick(40);
    std::vector<std::string> ids(n);
    const std::size_t scheme = pick(4);
    for (std::size_t i = 0; i < n; ++i) {
      if (scheme == 0) ids[i] = "op_" + std::to_string(i);
      if (scheme == 1) ids[i] = "c" + std::to_string(i / 7) + "_k" + std::to_string(i % 7);
      if (scheme == 2) ids[i] = "n" + std::to_string(i + 95);
      if (scheme == 3) ids[i] = std::string(1, static_cast<char>('a' + pick(3))) + std::to_string(pick(4));
    }
    // Now and then one id broken: repeated, a leading zero, no number, a number too long, a prefix that
    // ends a run and starts another.
    if (pick(3) == 0) {
      const std::size_t i = pick(n);
      const std::string broken[] = {ids[pick(n)], "op_0" + std::to_string(i), "op_", "op_1234567890123456789",
                                    "c0_k" + std::to_string(i), "7"};
      ids[i] = broken[pick(6)];
    }
    std::map<std::string, std::size_t> first;
    std::optional<std::pair<std::size_t, std::size_t>> duplicate;  // (first op, op)
    for (std::size_t i = 0; i < n; ++i) {
      const auto [it, added] = first.try_emplace(ids[i], i);
      if (!added && !duplicate) duplicate = std::pair{it->second, i};
    }
    // Each op's deps: distinct earlier ops by id, and now and then a name no op may have.
    std::string ops;
    std::vector<std::vector<std::string>> deps(n);
    std::optional<std::tuple<std::size_t, std::size_t, std::string>> dangling;  // (op, dep, name)
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<bool> used(n, false);
      for (std::size_t k = 0, count = i == 0 ? 0 : pick(4); k < count; ++k) {
        const std::size_t d = pick(i);
        if (used[d] || first.at(ids[d]) != d) continue;  // a repeated id names its first op
        used[d] = true;
        deps[i].push_back(ids[d]);
      }
      if (pick(12) == 0) {
        const std::string odd[] = {"op_0" + std::to_string(i), "op_" + std::to_string(n + pick(3)), "op_", "x",
                                   "c0_k" + std::to_string(7 + pick(3)), "n" + std::to_string(90 + pick(10)), "00"};
        const std::string name = odd[pick(7)];
        if (std::count(deps[i].begin(), deps[i].end(), name) == 0) deps[i].insert(deps[i].begin(), name);
      }
      std::string list;
      for (std::size_t k = 0; k < deps[i].size(); ++k) {
        list += (k ? ", \"" : "\"") + deps[i][k] + "\"";
        const auto it = first.find(deps[i][k]);
        if (!dangling && (it == first.end() || it->second >= i)) dangling = std::tuple{i, k, deps[i][k]};
      }
      ops += (i ? ", " : "") + std::string(R"({"id": ")") + ids[i] + R"(", "kind": "barrier", "deps": [)" + list + "]}";
    }
    // On one line (the JSON reader), and one op per line (the line reader, which resolves deps that name
    // numbered ops as it reads them).
    std::string by_lines = ops;
    for (std::size_t at = by_lines.find("}, {"); at != std::string::npos; at = by_lines.find("}, {", at))
      by_lines.replace(at, 4, "},\n{");
    for (const std::string& text : {doc(ops), "{\"format_version\": 1, \"name\": \"t\",\n\"ops\": [\n" + by_lines + "\n]}"}) {
      SCOPED_TRACE(text);
      write_file_atomically(file, text);
      const std::optional<WorkloadCounts> counts = check_workload_file(file, ShapeLimits{});
      if (counts) {
        ++counted;
        const Workload w = parse_workload(text, kFile);  // throws for a bad workload: a failure here
        EXPECT_EQ(counts->ops, w.ops.size());
        EXPECT_EQ(counts->edges, w.edge_count());
        EXPECT_EQ(counts->work_items, simulation_work_items(w));
      } else {
        not_counted += !duplicate && !dangling;
      }
      if (duplicate) {
        ++errors;
        expect_error(text, "/ops/" + std::to_string(duplicate->second) + "/id", ids[duplicate->second],
                     "duplicate op id (already used by /ops/" + std::to_string(duplicate->first) + ")");
      } else if (dangling) {
        const auto& [i, k, name] = *dangling;
        const auto it = first.find(name);
        if (it != first.end()) continue;  // names a later op or itself: other checks' errors
        ++errors;
        expect_error(text, "/ops/" + std::to_string(i) + "/deps/" + std::to_string(k), ids[i],
                     "dep '" + name + "' names no op of this workload");
      } else {
        numbered += scheme < 3;
        const Workload w = parse_workload(text, kFile);
        for (std::size_t i = 0; i < n; ++i) {
          std::vector<std::string> named;
          for (const OpIndex d : w.deps(static_cast<OpIndex>(i))) named.push_back(ids[d]);
          EXPECT_EQ(named, deps[i]) << "op " << i;
        }
      }
    }
  }
  EXPECT_GT(numbered, 100);  // both ways were taken, and errors met
  EXPECT_GT(errors, 50);
  EXPECT_GT(counted, 50);  // good workloads checked without their ops, and others left to the readers
  EXPECT_GT(not_counted, 50);
  std::filesystem::remove(file);
}

TEST(WorkloadErrors, SelfDep) {
  expect_error(doc(R"({"id": "a", "kind": "barrier", "deps": ["a"]})"), "/ops/0/deps/0", "a", "depends on itself");
}

TEST(WorkloadErrors, RepeatedDep) {
  expect_error(doc(R"({"id": "a", "kind": "barrier"}, {"id": "b", "kind": "barrier", "deps": ["a", "a"]})"),
               "/ops/1/deps/1", "b", "listed twice");
}

TEST(WorkloadErrors, CycleReportsEveryCycle) {
  // Two disjoint cycles (b <-> c, and d -> e -> f -> d) plus an op downstream of a cycle.
  const std::string text = doc(R"(
    {"id": "a", "kind": "barrier"},
    {"id": "b", "name": "load", "kind": "barrier", "deps": ["a", "c"]},
    {"id": "c", "kind": "barrier", "deps": ["b"]},
    {"id": "d", "kind": "barrier", "deps": ["f"]},
    {"id": "e", "kind": "barrier", "deps": ["d"]},
    {"id": "f", "kind": "barrier", "deps": ["e"]},
    {"id": "g", "kind": "barrier", "deps": ["c", "f"]})");
  expect_error(text, "/ops/1/deps", "b", "2 dependency cycles");
  expect_error(text, "/ops/1/deps", "b", "[1] 'b' (load) -> 'c' -> 'b' (load)");
  expect_error(text, "/ops/1/deps", "b", "[2] 'd' -> 'e' -> 'f' -> 'd'");
  try {
    (void)parse_workload(text, kFile);
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("'g'"), std::string::npos) << "g is downstream, not in a cycle";
    EXPECT_EQ(std::string(e.what()).find("'a'"), std::string::npos) << "a is upstream, not in a cycle";
  }
}

TEST(WorkloadErrors, CycleInsideLargerComponentNamesTheComponent) {
  // a->b->c->a and b->a: one SCC of 3; the reported cycle is a shortest one through 'a'.
  expect_error(doc(R"({"id": "a", "kind": "barrier", "deps": ["c", "b"]},
                      {"id": "b", "kind": "barrier", "deps": ["a"]},
                      {"id": "c", "kind": "barrier", "deps": ["b"]},
                      {"id": "x", "kind": "barrier", "deps": ["c"]})"),
               "/ops/0/deps", "a", "dependency cycle (x -> y: y depends on x): 'a' -> 'b' -> 'a' (these are 3 mutually");
}

TEST(WorkloadErrors, TooManyThreadsPerBlock) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 2048, "duration": {"per_block_ns": 1}})"),
               "/ops/0/block", "k", "block 2048x1x1 has 2048 threads; at most 1024");
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": [64, 32], "duration": {"per_block_ns": 1}})"),
               "/ops/0/block", "k", "has 2048 threads");
}

TEST(WorkloadErrors, BlockZOverLimit) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": [1, 1, 128], "duration": {"per_block_ns": 1}})"),
               "/ops/0/block", "k", "the z dimension is at most 64");
}

TEST(WorkloadErrors, ZeroSizedGridAndBlock) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": [4, 0], "block": 1, "duration": {"per_block_ns": 1}})"),
               "/ops/0/grid", "k", "zero-sized grid 4x0x1");
  expect_error(doc(R"({"id": "t", "kind": "task_pool", "grid": 1, "block": 0, "tasks": {"ns": [1]}})"),
               "/ops/0/block", "t", "zero-sized block");
}

TEST(WorkloadErrors, GridOverLimit) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": [1, 65536], "block": 1, "duration": {"per_block_ns": 1}})"),
               "/ops/0/grid", "k", "exceeds the device limit");
}

TEST(WorkloadErrors, SharedMemoryOverLimit) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 32, "shared_mem": 300000,
                       "duration": {"per_block_ns": 1}})"),
               "/ops/0/shared_mem", "k", "300000 bytes of shared memory per block; at most 232448");
  // The limit comes from the caller (a device profile), not a constant.
  ShapeLimits small;
  small.max_shared_mem_per_block = 48 * 1024;
  EXPECT_THROW((void)parse_workload(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 32, "shared_mem": 65536,
                                         "duration": {"per_block_ns": 1}})"),
                                    kFile, small),
               InputError);
}

TEST(WorkloadErrors, RegistersOverLimits) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 1024, "registers": 128,
                       "duration": {"per_block_ns": 1}})"),
               "/ops/0/registers", "k", "128 registers x 1024 threads = 131072 registers per block; at most 65536");
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 32, "registers": 256,
                       "duration": {"per_block_ns": 1}})"),
               "/ops/0/registers", "k", "256 registers per thread; at most 255");
}

TEST(WorkloadErrors, PerBlockListLengthMismatch) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": [2, 2], "block": 32, "duration": {"blocks_ns": [1, 2, 3]}})"),
               "/ops/0/duration/blocks_ns", "k", "blocks_ns has 3 entries but the grid 2x2x1 has 4 blocks");
}

TEST(WorkloadErrors, NegativeDurations) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 1, "duration": {"per_block_ns": -5}})"),
               "/ops/0/duration/per_block_ns", "k", "must be >= 0 ns, got -5");
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 2, "block": 1, "duration": {"blocks_ns": [3, -1]}})"),
               "/ops/0/duration/blocks_ns/1", "k", "block duration must be >= 0 ns");
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 2, "block": 1, "duration": {"bytes": -1}})"),
               "/ops/0/duration/bytes", "k", "finite number >= 0");
  expect_error(doc(R"({"id": "t", "kind": "task_pool", "grid": 1, "block": 1, "tasks": {"ns": [1, -2]}})"),
               "/ops/0/tasks/ns/1", "t", "task duration must be >= 0 ns");
  expect_error(doc(R"({"id": "h", "kind": "host_func", "host_ns": -1})"), "/ops/0/host_ns", "h", "must be >= 0 ns");
}

TEST(WorkloadErrors, DurationMustUseOneForm) {
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 1, "duration": {}})"), "/ops/0/duration", "k",
               "empty duration");
  expect_error(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 1, "duration": {"per_block_ns": 1, "flops": 2}})"),
               "/ops/0/duration", "k", "duration mixes forms");
}

TEST(WorkloadErrors, EmptyTaskList) {
  expect_error(doc(R"({"id": "t", "kind": "task_pool", "grid": 1, "block": 1, "tasks": {"ns": []}})"), "/ops/0/tasks/ns",
               "t", "at least one task");
}

TEST(WorkloadErrors, ProgrammaticWorkloadsGetTheSameChecks) {
  Workload w;
  w.name = "code";
  Op k;
  k.id = "k";
  k.kind = OpKind::kernel;
  k.shape = KernelShape{Dim3{0, 1, 1}, Dim3{32, 1, 1}};
  w.ops.push_back(k);
  try {
    resolve_and_check(w, "generator");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "generator");
    EXPECT_EQ(e.place(), "/ops/0/grid");
    EXPECT_EQ(e.op(), "k");
  }
  w.ops[0].shape->grid = Dim3{1, 1, 1};
  Op c;
  c.id = "c";
  c.kind = OpKind::h2d;
  c.bytes = 8;
  w.add(c, {"k"});
  resolve_and_check(w, "generator");
  EXPECT_EQ(std::vector<OpIndex>(w.deps(1).begin(), w.deps(1).end()), (std::vector<OpIndex>{0}));
}

TEST(Workload, BundledSampleWorkloadsAreValid) {
  const std::filesystem::path dir = std::filesystem::path(STREAMLAB_SOURCE_DIR) / "experiments" / "workloads";
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    const Workload w = load_workload(entry.path());
    EXPECT_GT(w.size(), 0u);
    ++n;
  }
  EXPECT_GE(n, 1u) << "no sample workloads under " << dir;
}
