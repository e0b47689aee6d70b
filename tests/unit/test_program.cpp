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
#include "workload_error_helpers.hpp"

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
  streamlab::test::expect_workload_error(text, kFile, place, op, reason);
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
  for (OpIndex i = 0; i < w.ops.size(); ++i) {
    const auto ids = w.dep_ids(i);
    out[w.ops[i].id] = std::vector<std::string>(ids.begin(), ids.end());
  }
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

// Program generators -------------------------------------------------------------------------------------

#include "streamlab/model/generators.hpp"

namespace {
std::vector<std::string> ids(const Workload& w) {
  std::vector<std::string> out;
  for (const auto& op : w.ops) out.push_back(op.id);
  return out;
}
}  // namespace

TEST(ProgramGenerators, ChunkedDepthVsBreadthFirst) {
  gen::ChunkedProgram p;
  p.chunks = 3;
  p.streams = 2;
  const Workload depth = gen::chunked_program(p);
  EXPECT_TRUE(depth.program);
  ASSERT_EQ(depth.streams.size(), 2u);
  EXPECT_EQ(ids(depth), (std::vector<std::string>{"h2d_0", "kernel_0", "d2h_0", "h2d_1", "kernel_1", "d2h_1", "h2d_2",
                                                  "kernel_2", "d2h_2", "sync"}));
  EXPECT_EQ(depth.ops[3].stream_hint, 2u);
  EXPECT_EQ(depth.ops[6].stream_hint, 1u);  // chunk 2 on stream 1 + 2 % 2
  p.order = gen::IssueOrder::breadth_first;
  const Workload breadth = gen::chunked_program(p);
  EXPECT_EQ(ids(breadth), (std::vector<std::string>{"h2d_0", "h2d_1", "h2d_2", "kernel_0", "kernel_1", "kernel_2",
                                                    "d2h_0", "d2h_1", "d2h_2", "sync"}));
  // With more chunks than streams the order changes the program itself: breadth-first puts chunk 2's
  // upload on stream 1 ahead of chunk 0's kernel.
  EXPECT_EQ(deps_of(program_dag(breadth)).at("kernel_0"), std::vector<std::string>{"h2d_2"});
  EXPECT_EQ(deps_of(program_dag(depth)).at("kernel_0"), std::vector<std::string>{"h2d_0"});
  // One chunk per stream: only the issue order differs, and the DAG views are the same graph.
  p.streams = 3;
  gen::ChunkedProgram q = p;
  q.order = gen::IssueOrder::depth_first;
  EXPECT_EQ(deps_of(program_dag(gen::chunked_program(p))), deps_of(program_dag(gen::chunked_program(q))));
  EXPECT_EQ(parse_workload(workload_to_json(breadth), "x"), breadth);
}

TEST(ProgramGenerators, ChainsBreadthFirstInterleavesStreams) {
  gen::ChainsProgram p;
  p.streams = 2;
  p.length = 2;
  p.order = gen::IssueOrder::breadth_first;
  const Workload w = gen::chains_program(p);
  EXPECT_EQ(ids(w), (std::vector<std::string>{"c0_k0", "c1_k0", "c0_k1", "c1_k1", "sync"}));
  EXPECT_EQ(w.ops[1].stream_hint, 2u);
  EXPECT_EQ(w.ops[1].shape->blocks(), 1u);
}

TEST(ProgramGenerators, PriorityProgramDeclaresTheForegroundPriority) {
  gen::PriorityProgram p;
  p.background_streams = 2;
  p.background_kernels = 1;
  p.foreground_priority = -5;
  p.foreground_gap_ns = 7000;
  const Workload w = gen::priority_program(p);
  ASSERT_EQ(w.streams.size(), 3u);
  EXPECT_EQ(w.streams[2], (StreamDecl{3, -5, StreamKind::non_blocking, "foreground"}));
  EXPECT_EQ(ids(w), (std::vector<std::string>{"bg1_k0", "bg2_k0", "fg", "sync"}));
  EXPECT_EQ(w.ops[2].host_gap_ns, 7000);
  p.foreground_priority = -20;
  EXPECT_THROW((void)gen::priority_program(p), InputError);  // outside the format's range
}

TEST(ProgramGenerators, LegacyProgramPutsOneKernelOnStreamZero) {
  gen::LegacyProgram p;
  p.streams = 2;
  p.rounds = 2;
  p.legacy_after = 1;
  const Workload w = gen::legacy_program(p);
  EXPECT_EQ(ids(w), (std::vector<std::string>{"s1_r0", "s2_r0", "legacy", "s1_r1", "s2_r1", "sync"}));
  EXPECT_EQ(w.ops[2].stream_hint, 0u);
  EXPECT_EQ(w.streams[0].kind, StreamKind::blocking);
  // The barrier shows in the DAG view: the legacy kernel follows both blocking streams, and both follow it.
  const auto d = deps_of(program_dag(w));
  EXPECT_EQ(d.at("legacy"), (std::vector<std::string>{"s1_r0", "s2_r0"}));
  EXPECT_EQ(d.at("s2_r1"), (std::vector<std::string>{"s2_r0", "legacy"}));
  p.legacy_after = 3;
  EXPECT_THROW((void)gen::legacy_program(p), InputError);
}
