// Program workloads (format 2): parse / write round trips, every program check with its place and op,
// version 1 files unchanged, and the DAG view a policy sees (stream order, record/wait edges, the legacy
// NULL stream's barrier, host synchronization).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/program.hpp"
#include "streamlab/model/workload.hpp"

using namespace streamlab::model;

namespace {

const std::string kFile = "prog.json";

const std::string kStreams =
    R"([{"id": 1, "priority": 0, "kind": "non-blocking", "label": "bg"},
        {"id": 2, "priority": -5, "kind": "non-blocking", "label": "fg"}])";

std::string program(const std::string& ops, const std::string& streams = kStreams) {
  return R"({"format_version": 2, "name": "p", "program": true, "streams": )" + streams + R"(, "ops": [)" + ops +
         "]}";
}

std::string kernel(const std::string& id, int stream, const std::string& extra = "") {
  return R"({"id": ")" + id + R"(", "kind": "kernel", "stream": )" + std::to_string(stream) +
         R"(, "grid": 1, "block": 32, "duration": {"per_block_ns": 1000})" + extra + "}";
}

void expect_error(const std::string& text, const std::string& place, const std::string& op,
                  const std::string& reason) {
  try {
    (void)parse_workload(text, kFile);
    ADD_FAILURE() << "no error; expected " << place << ": " << reason;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), kFile) << what;
    EXPECT_EQ(e.place(), place) << what;
    EXPECT_EQ(e.op(), op) << what;
    EXPECT_NE(what.find(reason), std::string::npos) << what;
  }
}

// The example of docs/formats.md, section 1.9.
const std::string kExample = program(R"(
    {"id": "up",  "kind": "h2d", "stream": 1, "bytes": 8388608, "host_gap_ns": 5000},
    {"id": "bg",  "kind": "kernel", "stream": 1, "grid": 264, "block": 1024, "duration": {"per_block_ns": 50000}},
    {"id": "r",   "kind": "event_record", "stream": 1, "event": "bg_done"},
    {"id": "w",   "kind": "event_wait", "stream": 2, "event": "bg_done"},
    {"id": "fg",  "kind": "kernel", "stream": 2, "grid": 132, "block": 256, "duration": {"per_block_ns": 20000}},
    {"id": "cp",  "kind": "d2h", "stream": 2, "bytes": 4096, "blocking": true},
    {"id": "s",   "kind": "stream_sync", "stream": 1},
    {"id": "all", "kind": "device_sync", "host_gap_ns": 1000})");

std::map<std::string, std::vector<std::string>> deps_of(const Workload& w) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& op : w.ops) out[op.id] = op.deps;
  return out;
}

}  // namespace

TEST(ProgramFormat, ParsesTheDocumentedExample) {
  const Workload w = parse_workload(kExample, kFile);
  EXPECT_TRUE(w.program);
  ASSERT_EQ(w.streams.size(), 2u);
  EXPECT_EQ(w.streams[1], (StreamDecl{2, -5, StreamKind::non_blocking, "fg"}));
  ASSERT_EQ(w.ops.size(), 8u);
  EXPECT_EQ(w.ops[0].host_gap_ns, 5000);
  EXPECT_EQ(w.ops[2].kind, OpKind::event_record);
  EXPECT_EQ(w.ops[2].event, "bg_done");
  EXPECT_EQ(w.ops[3].kind, OpKind::event_wait);
  EXPECT_TRUE(w.ops[5].blocking);
  EXPECT_EQ(w.ops[6].stream_hint, 1u);
  EXPECT_FALSE(w.ops[7].stream_hint.has_value());
  EXPECT_EQ(w.ops[7].host_gap_ns, 1000);
  EXPECT_EQ(w.ops[7].type, WorkloadType::coordination);
}

TEST(ProgramFormat, RoundTripsThroughTheCanonicalWriter) {
  const Workload w = parse_workload(kExample, kFile);
  const std::string text = workload_to_json(w);
  EXPECT_NE(text.find("\"format_version\": 2"), std::string::npos);
  EXPECT_EQ(parse_workload(text, kFile), w);
  EXPECT_EQ(parse_workload(workload_to_json(w, -1), kFile), w);
  EXPECT_EQ(workload_to_json(parse_workload(text, kFile)), text);
}

TEST(ProgramFormat, DagWorkloadsStillWriteVersion1) {
  // A DAG's canonical text (and so its hash, which traces carry) is what it was before programs existed.
  const std::string v1 =
      R"({"format_version": 1, "name": "d", "ops": [{"id": "k", "kind": "kernel", "grid": 1, "block": 32,)"
      R"( "duration": {"per_block_ns": 5}, "stream": 3}]})";
  const Workload w = parse_workload(v1, kFile);
  EXPECT_EQ(workload_to_json(w, -1),
            R"({"format_version":1,"name":"d","description":"","ops":[{"id":"k","name":"k","kind":"kernel",)"
            R"("priority":"normal","type":"compute","stream":3,"grid":1,"block":32,"registers":32,"shared_mem":0,)"
            R"("duration":{"per_block_ns":5},"deps":[]}]})");
  // A version 2 file holding a plain DAG is accepted and written back as version 1.
  std::string v2 = v1;
  v2.replace(v2.find("1,"), 2, "2,");
  EXPECT_EQ(parse_workload(v2, kFile), w);
}

TEST(ProgramFormat, RefusesVersion2KeysInVersion1Files) {
  expect_error(R"({"format_version": 1, "name": "x", "program": true, "ops": []})", "/program", "",
               "needs format_version 2");
  expect_error(R"({"format_version": 1, "name": "x", "streams": [], "ops": []})", "/streams", "",
               "needs format_version 2");
  expect_error(R"({"format_version": 3, "name": "x", "ops": []})", "/format_version", "", "not supported");
}

TEST(ProgramFormat, RefusesProgramPartsInADag) {
  const std::string head = R"({"format_version": 2, "name": "x", "ops": [)";
  expect_error(head + R"({"id": "r", "kind": "event_record", "stream": 1, "event": "e"}]})", "/ops/0/kind", "r",
               "is a program call");
  expect_error(head + kernel("k", 1, R"(, "host_gap_ns": 5)") + "]}", "/ops/0/host_gap_ns", "k",
               "belongs to programs");
  expect_error(head + R"({"id": "c", "kind": "h2d", "bytes": 4, "blocking": true}]})", "/ops/0/blocking", "c",
               "belong to programs");
  expect_error(R"({"format_version": 2, "name": "x", "streams": [{"id": 1}], "ops": []})", "/streams", "",
               "declared by programs only");
}

TEST(ProgramFormat, StreamDeclarationChecks) {
  expect_error(program("", R"([{"id": 1}, {"id": 1}])"), "/streams/1/id", "", "declared twice");
  expect_error(program("", R"([{"id": 0}])"), "/streams/0/id", "", "legacy NULL stream");
  expect_error(program("", R"([{"id": 1, "priority": -17}])"), "/streams/0/priority", "", "outside -16 .. 0");
  expect_error(program("", R"([{"id": 1, "priority": 2}])"), "/streams/0/priority", "", "outside -16 .. 0");
  expect_error(program("", R"([{"id": 1, "kind": "legacy"}])"), "/streams/0/kind", "", "only stream 0");
  expect_error(program("", R"([{"id": 1, "kind": "sideways"}])"), "/streams/0/kind", "", "unknown stream kind");
  expect_error(program("", R"([{"id": 1, "kind": "per-thread"}, {"id": 2, "kind": "per-thread"}])"),
               "/streams/1/kind", "", "one per-thread default stream");
  expect_error(program("", R"([{"id": 1, "kind": "per-thread", "priority": -1}])"), "/streams/0/priority", "",
               "priority 0");
  expect_error(program("", R"([{"id": 1, "colour": "red"}])"), "/streams/0/colour", "", "unknown key");
  expect_error(program("", R"([{"priority": 0}])"), "/streams/0", "", "id");
}

TEST(ProgramFormat, OpChecksNameTheOp) {
  expect_error(program(kernel("k", 7)), "/ops/0/stream", "k", "stream 7 is not declared (declared: 1, 2;");
  expect_error(program(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 32, "duration": {"per_block_ns": 1}})"),
               "/ops/0", "k", "names its stream");
  expect_error(program(kernel("a", 1) + "," + kernel("b", 1, R"(, "deps": ["a"])")), "/ops/1/deps", "b",
               "deps are not written");
  expect_error(program(R"({"id": "j", "kind": "barrier", "stream": 1})"), "/ops/0/kind", "j", "barrier");
  expect_error(program(R"({"id": "d", "kind": "device_sync", "stream": 1})"), "/ops/0/stream", "d", "names none");
  expect_error(program(R"({"id": "w", "kind": "event_wait", "stream": 1, "event": "nope"})"), "/ops/0/event", "w",
               "no event_record of this program records event 'nope'");
  expect_error(program(R"({"id": "r", "kind": "event_record", "stream": 1})"), "/ops/0", "r", "event");
  expect_error(program(R"({"id": "r", "kind": "event_record", "stream": 1, "event": ""})"), "/ops/0/event", "r",
               "names its event");
  expect_error(program(R"({"id": "s", "kind": "stream_sync", "stream": 1, "event": "e"})"), "/ops/0/event", "s",
               "does not apply");
  expect_error(program(kernel("k", 1, R"(, "blocking": true)")), "/ops/0/blocking", "k", "does not apply");
  expect_error(program(kernel("k", 1, R"(, "host_gap_ns": -1)")), "/ops/0/host_gap_ns", "k", ">= 0");
  expect_error(program(R"({"id": "c", "kind": "h2d", "stream": 1, "bytes": 4, "blocking": 1})"), "/ops/0/blocking",
               "c", "true or false");
}

TEST(ProgramFormat, WaitOrSyncBeforeTheFirstRecordIsAllowed) {
  // CUDA: waiting on / synchronizing with a never-recorded event returns at once. Only a name that no op
  // of the program ever records is refused (a typo).
  const Workload w = parse_workload(program(R"({"id": "w", "kind": "event_wait", "stream": 2, "event": "e"},
      {"id": "s", "kind": "event_sync", "stream": 2, "event": "e"},
      {"id": "r", "kind": "event_record", "stream": 1, "event": "e"})"),
                                    kFile);
  EXPECT_EQ(w.ops.size(), 3u);
}

TEST(ProgramFormat, LegacyStreamNeedsNoDeclaration) {
  const Workload w = parse_workload(program(kernel("k", 0), "[]"), kFile);
  EXPECT_EQ(w.ops[0].stream_hint, 0u);
}

TEST(ProgramEvents, DenseIndicesInOrderOfFirstUse) {
  const Workload w = parse_workload(kExample, kFile);
  const ProgramEvents e = program_events(w);
  ASSERT_EQ(e.names, std::vector<std::string>{"bg_done"});
  EXPECT_EQ(e.of_op[2], 0u);
  EXPECT_EQ(e.of_op[3], 0u);
  EXPECT_EQ(e.of_op[0], ProgramEvents::kNone);
}

TEST(ProgramDag, StreamOrderAndRecordWaitEdges) {
  const Workload dag = program_dag(parse_workload(kExample, kFile));
  EXPECT_FALSE(dag.program);
  EXPECT_TRUE(dag.streams.empty());
  const auto d = deps_of(dag);
  ASSERT_EQ(d.size(), 4u);  // up, bg, fg, cp: the calls are gone
  EXPECT_EQ(d.at("up"), std::vector<std::string>{});
  EXPECT_EQ(d.at("bg"), std::vector<std::string>{"up"});
  EXPECT_EQ(d.at("fg"), std::vector<std::string>{"bg"});  // through r / w
  EXPECT_EQ(d.at("cp"), std::vector<std::string>{"fg"});
  EXPECT_EQ(dag.ops[0].host_gap_ns, 0);
  EXPECT_FALSE(dag.ops[3].blocking);
  EXPECT_EQ(dag.ops[2].stream_hint, 2u);  // the program's stream stays as the hint
}

TEST(ProgramDag, WaitUsesTheLatestRecordAtTheTimeOfTheCall) {
  const Workload p = parse_workload(program(kernel("a", 1) + R"(,
      {"id": "r1", "kind": "event_record", "stream": 1, "event": "e"},
      {"id": "w0", "kind": "event_wait", "stream": 2, "event": "late"},)" +
                                                kernel("b", 1) + R"(,
      {"id": "w", "kind": "event_wait", "stream": 2, "event": "e"},
      {"id": "r2", "kind": "event_record", "stream": 1, "event": "e"},
      {"id": "r3", "kind": "event_record", "stream": 1, "event": "late"},)" +
                                                kernel("c", 2)),
                                        kFile);
  const auto d = deps_of(program_dag(p));
  EXPECT_EQ(d.at("c"), std::vector<std::string>{"a"});  // not b: r2 came after the wait; w0 was a no-op
  EXPECT_EQ(d.at("b"), std::vector<std::string>{"a"});
}

TEST(ProgramDag, HostSyncOrdersLaterWorkOnEveryStream) {
  const Workload p = parse_workload(program(kernel("a", 1) + "," + kernel("b", 2) + R"(,
      {"id": "s", "kind": "stream_sync", "stream": 1},)" + kernel("c", 2) + "," +
                                                kernel("d", 2) + "," + kernel("e", 1) + R"(,
      {"id": "x", "kind": "h2d", "stream": 2, "bytes": 64, "blocking": true},)" + kernel("f", 1) + R"(,
      {"id": "all", "kind": "device_sync"},)" + kernel("g", 2)),
                                        kFile);
  const auto d = deps_of(program_dag(p));
  EXPECT_EQ(d.at("c"), (std::vector<std::string>{"a", "b"}));  // after the sync on stream 1
  EXPECT_EQ(d.at("d"), std::vector<std::string>{"c"});         // host set added once per stream
  EXPECT_EQ(d.at("e"), std::vector<std::string>{"a"});
  EXPECT_EQ(d.at("x"), std::vector<std::string>{"d"});
  // The blocking copy held the host. The view may carry implied edges (a -> f is implied by a -> e -> f);
  // they order nothing more, and the Dispatcher inserts waits only for the transitive reduction.
  EXPECT_EQ(d.at("f"), (std::vector<std::string>{"a", "e", "x"}));
  EXPECT_EQ(d.at("g"), (std::vector<std::string>{"x", "f"}));  // device_sync: every stream's last op
}

TEST(ProgramDag, LegacyNullStreamBarrierWithBlockingStreamsOnly) {
  const Workload p = parse_workload(program(kernel("b1", 1) + "," + kernel("n1", 2) + "," + kernel("z", 0) + "," +
                                                kernel("b2", 1) + "," + kernel("n2", 2),
                                            R"([{"id": 1, "kind": "blocking"}, {"id": 2, "kind": "non-blocking"}])"),
                                    kFile);
  const auto d = deps_of(program_dag(p));
  EXPECT_EQ(d.at("z"), std::vector<std::string>{"b1"});  // waits for the blocking stream, not stream 2
  EXPECT_EQ(d.at("b2"), (std::vector<std::string>{"b1", "z"}));
  EXPECT_EQ(d.at("n2"), std::vector<std::string>{"n1"});
}

TEST(ProgramDag, ADagIsItsOwnView) {
  const Workload w = parse_workload(
      R"({"format_version": 1, "name": "d", "ops": [{"id": "k", "kind": "kernel", "grid": 1, "block": 32,
          "duration": {"per_block_ns": 5}}]})",
      kFile);
  EXPECT_EQ(program_dag(w), w);
}
