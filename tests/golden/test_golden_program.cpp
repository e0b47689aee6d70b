// Golden program scenarios: a program workload replayed through the Dispatcher (policy `replay`) on the
// synthetic device, its device spans and host API call spans compared with
// tests/golden/expected/<scenario>.txt, computed by hand there.
#include <map>
#include <string>

#include "streamlab/model/errors.hpp"

#include "golden_support.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::golden {
namespace {

/// A 1-block kernel of 256 threads running `ns` on `stream`, as one op of a program's JSON.
std::string kernel(const std::string& id, int stream, std::uint32_t blocks, std::uint32_t threads, Nanos ns,
                   Nanos gap = 0) {
  return R"({"id": ")" + id + R"(", "kind": "kernel", "stream": )" + std::to_string(stream) + R"(, "grid": )" +
         std::to_string(blocks) + R"(, "block": )" + std::to_string(threads) + R"(, "duration": {"per_block_ns": )" +
         std::to_string(ns) + "}, \"host_gap_ns\": " + std::to_string(gap) + "}";
}

std::string program(const std::string& name, const std::string& streams, const std::string& ops) {
  return R"({"format_version": 2, "name": ")" + name + R"(", "program": true, "streams": )" + streams +
         R"(, "ops": [)" + ops + "]}";
}

/// Replays `json` on `profile` and returns the trace.
model::Trace replay_trace(const std::string& json, std::optional<std::uint32_t> connections,
                          const model::DeviceProfile& profile) {
  const model::Workload w = model::parse_workload(json, "golden");
  sim::SimOptions o;
  o.date = "2026-01-01";
  o.warp_launch_ns = 0.0;
  o.connections = connections;
  sim::SimBackend be(profile, o);
  auto policy = policies::make_policy(policies::kReplayPolicy, {});
  return policies::dispatch(be, w, *policy).trace;
}

/// Replays `json` on the test device; device spans as Scenario::render does, then one line per host call.
std::string replay(const std::string& json, std::optional<std::uint32_t> connections, const std::string& prefix) {
  const model::Trace trace = replay_trace(json, connections, test_profile());
  std::string out;
  for (const model::Span& s : trace.spans) {
    out += prefix + (s.host_call ? "call " + s.name + " " : std::string()) + s.op_id +
           " stream=" + std::to_string(s.stream) + " engine=" + std::string(model::to_string(s.engine)) +
           " start=" + std::to_string(s.start_ns) + " end=" + std::to_string(s.end_ns) + "\n";
  }
  return out;
}

void check(const std::string& name, const std::string& actual) {
  Scenario sc(name);
  sc.add_text(actual);
  sc.check();
}

const std::string kTwoStreams = R"([{"id": 1, "label": "A"}, {"id": 2, "label": "B"}])";

TEST(GoldenProgram, DepthVsBreadthFirstUnderOneConnection) {
  const std::string a1 = kernel("A1", 1, 1, 256, 10000), a2 = kernel("A2", 1, 1, 256, 10000);
  const std::string b1 = kernel("B1", 2, 1, 256, 10000), b2 = kernel("B2", 2, 1, 256, 10000);
  std::string out = replay(program("depth", kTwoStreams, a1 + "," + a2 + "," + b1 + "," + b2), 1, "depth ");
  out += replay(program("breadth", kTwoStreams, a1 + "," + b1 + "," + a2 + "," + b2), 1, "breadth ");
  out += replay(program("depth8", kTwoStreams, a1 + "," + a2 + "," + b1 + "," + b2), 8, "depth8 ");
  check("program_depth_vs_breadth", out);
}

TEST(GoldenProgram, HighPriorityStreamIssuedAfterBackgroundWork) {
  const auto streams = [](int fg_priority) {
    return R"([{"id": 1, "priority": 0, "label": "bg1"}, {"id": 2, "priority": 0, "label": "bg2"},
               {"id": 3, "priority": )" +
           std::to_string(fg_priority) + R"(, "label": "fg"}])";
  };
  const std::string ops = kernel("BG1", 1, 8, 1024, 10000) + "," + kernel("BG2", 2, 8, 1024, 10000) + "," +
                          kernel("FG", 3, 4, 1024, 10000);
  std::string out = replay(program("fg-high", streams(-5), ops), std::nullopt, "high ");
  out += replay(program("fg-low", streams(0), ops), std::nullopt, "low ");
  check("program_priority_after_background", out);
}

TEST(GoldenProgram, HostGapsAndHostSynchronize) {
  const std::string ops = kernel("K1", 1, 1, 256, 10000, 5000) + R"(,
      {"id": "C1", "kind": "d2h", "stream": 1, "bytes": 10000},
      {"id": "S1", "kind": "stream_sync", "stream": 1, "host_gap_ns": 2000},)" +
                          kernel("K2", 2, 1, 256, 10000, 1000) + R"(,
      {"id": "H2", "kind": "h2d", "stream": 2, "bytes": 10000, "blocking": true},
      {"id": "ALL", "kind": "device_sync", "host_gap_ns": 500})";
  check("program_host_gaps_and_sync", replay(program("host", kTwoStreams, ops), std::nullopt, ""));
}

/// A pinned copy of `bytes` on `stream`, as one op of a program's JSON.
std::string copy(const std::string& id, const char* kind, int stream, std::uint64_t bytes) {
  return R"({"id": ")" + id + R"(", "kind": ")" + kind + R"(", "stream": )" + std::to_string(stream) +
         R"(, "bytes": )" + std::to_string(bytes) + "}";
}

TEST(GoldenProgram, CopyQueues) {
  // Breadth-first copies of two streams: the H2D engine runs stream 1's two copies back to back, then
  // stream 2's, as the H100 did (it stays with a copy queue while that queue has a copy waiting).
  std::string out = replay(program("breadth", kTwoStreams,
                                   copy("A1", "h2d", 1, 100000) + "," + copy("B1", "h2d", 2, 100000) + "," +
                                       copy("A2", "h2d", 1, 100000) + "," + copy("B2", "h2d", 2, 100000)),
                           std::nullopt, "breadth ");
  // One connection: a D2H waiting for its stream's kernel holds neither the H2D issued after it on another
  // stream (copies of each engine have their own queues) nor that stream's kernel.
  out += replay(program("one-connection", kTwoStreams,
                        kernel("K1", 1, 1, 256, 10000) + "," + copy("D1", "d2h", 1, 10000) + "," +
                            copy("H2", "h2d", 2, 10000) + "," + kernel("K2", 2, 1, 256, 10000)),
                1, "conn1 ");
  check("program_copy_queues", out);
}

/// The test device with a measured shared-memory carveout: 128-byte allocation unit; a running grid of
/// 32/64-thread blocks leaves its SMs configured for 32 KiB, 128: 16 KiB, 256/512: 8 KiB, 1024: 4 KiB.
model::DeviceProfile carveout_profile() {
  model::DeviceProfile d = test_profile();
  d.shared_mem_alloc_unit_bytes = p(128);
  d.carveout_32_threads_bytes = p(32768);
  d.carveout_64_threads_bytes = p(32768);
  d.carveout_128_threads_bytes = p(16384);
  d.carveout_256_threads_bytes = p(8192);
  d.carveout_512_threads_bytes = p(8192);
  d.carveout_1024_threads_bytes = p(4096);
  return d;
}

/// When FG (stream 2, one 256-thread block with `shared` bytes, 10 us) starts, issued right after BG
/// (stream 1, `bg_blocks` x `bg_threads`, 10 us a block, no shared memory).
Nanos fg_start(const model::DeviceProfile& profile, std::uint32_t bg_blocks, std::uint32_t bg_threads, int shared) {
  const std::string fg = R"({"id": "FG", "kind": "kernel", "stream": 2, "grid": 1, "block": 256, "shared_mem": )" +
                         std::to_string(shared) + R"(, "duration": {"per_block_ns": 10000}})";
  const model::Trace t =
      replay_trace(program("carveout", kTwoStreams, kernel("BG", 1, bg_blocks, bg_threads, 10000) + "," + fg),
                   std::nullopt, profile);
  for (const model::Span& s : t.spans)
    if (!s.host_call && s.op_id == "FG") return s.start_ns;
  ADD_FAILURE() << "no FG span";
  return -1;
}

TEST(GoldenProgram, CarveoutKeepsAKernelOffBusySmsConfiguredTooSmall) {
  // Host: BG's launch call [0, 1000], FG's [1000, 2000]; each kernel reaches the SMs 2000 after its call
  // returns: BG runs [3000, 13000], one 1024-thread block on each of the 4 SMs, and sets their carveout to
  // 4 KiB (its own need, 2 blocks x 0 bytes, is less). FG is ready at 4000. Its need at full occupancy is
  // 8 blocks (threads and registers allow 8) x its shared memory rounded up to 128 bytes.
  const model::DeviceProfile c = carveout_profile();
  EXPECT_EQ(fg_start(c, 4, 1024, 512), 4000) << "8 x 512 = 4096 fits the 4 KiB configuration: starts beside";
  EXPECT_EQ(fg_start(c, 4, 1024, 500), 4000) << "500 bytes are allocated as 512";
  EXPECT_EQ(fg_start(c, 4, 1024, 513), 13000) << "513 -> 640 bytes, 8 x 640 = 5120 > 4096: waits for an idle SM";
  EXPECT_EQ(fg_start(test_profile(), 4, 1024, 513), 4000) << "without a measured carveout any room will do";
  EXPECT_EQ(fg_start(c, 2, 1024, 513), 4000) << "two SMs are idle: FG configures one of them itself";
  EXPECT_EQ(fg_start(c, 4, 64, 2048), 4000) << "64-thread blocks leave 32 KiB: 8 x 2048 = 16384 fits";
  EXPECT_EQ(fg_start(c, 4, 64, 4097), 13000) << "4097 -> 4224 bytes, 8 x 4224 = 33792 > 32768";
}

TEST(GoldenProgram, CarveoutNeedsAllItsFields) {
  model::DeviceProfile d = carveout_profile();
  d.carveout_512_threads_bytes = model::Param{};
  try {
    sim::SimBackend be(d, sim::SimOptions{});
    FAIL() << "a partial carveout was accepted";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("carveout_512_threads_bytes"), std::string::npos) << e.what();
  }
}

/// Start of each of the six kernels of three same-stream pairs (A on stream 1: 10 us each; B and C on
/// streams 2 and 3: 30 us then 10 us), issued A1 A2 B1 B2 C1 C2, each stream on a queue of its own.
std::map<std::string, Nanos> busy_queue_starts(const model::DeviceProfile& profile) {
  const std::string streams = R"([{"id": 1, "label": "A"}, {"id": 2, "label": "B"}, {"id": 3, "label": "C"}])";
  const std::string ops = kernel("A1", 1, 1, 256, 10000) + "," + kernel("A2", 1, 1, 256, 10000) + "," +
                          kernel("B1", 2, 1, 256, 30000) + "," + kernel("B2", 2, 1, 256, 10000) + "," +
                          kernel("C1", 3, 1, 256, 30000) + "," + kernel("C2", 3, 1, 256, 10000);
  std::map<std::string, Nanos> starts;
  for (const model::Span& s : replay_trace(program("busy", streams, ops), 8, profile).spans)
    if (!s.host_call) starts[s.op_id] = s.start_ns;
  return starts;
}

TEST(GoldenProgram, SameStreamGapGrowsWithBusyQueues) {
  // Host: six launch calls of 1000 from 0; each kernel reaches the SMs 2000 after its call returns: A1
  // runs [3000, 13000], B1 [5000, 35000], C1 [7000, 37000]; A2, B2 and C2 wait in their queues.
  model::DeviceProfile d = test_profile();
  d.same_stream_gap_ns = p(1000);
  std::map<std::string, Nanos> s = busy_queue_starts(d);
  EXPECT_EQ(s["A2"], 14000) << "without the field: the gap alone";
  EXPECT_EQ(s["B2"], 36000);
  EXPECT_EQ(s["C2"], 38000);
  d.same_stream_gap_per_busy_queue_ns = p(500);
  s = busy_queue_starts(d);
  EXPECT_EQ(s["A1"], 3000);
  EXPECT_EQ(s["A2"], 15000) << "A1 ends at 13000 with B2 and C2 queued: 1000 + 2 x 500";
  EXPECT_EQ(s["B2"], 36500) << "B1 ends at 35000 with C2 queued (A's queue is empty): 1000 + 500";
  EXPECT_EQ(s["C2"], 38000) << "C1 ends at 37000 with B2 already started: no other queue holds a command";
}

TEST(GoldenProgram, FirstCallAfterASynchronize) {
  // K1, a device synchronize after 2000 of host work, K2, then K3 right after it.
  const std::string ops = kernel("K1", 1, 1, 256, 10000) + R"(,
      {"id": "S", "kind": "device_sync", "host_gap_ns": 2000},)" + kernel("K2", 1, 1, 256, 10000, 500) + "," +
                          kernel("K3", 1, 1, 256, 10000);
  model::DeviceProfile d = test_profile();
  d.stream_query_ns = p(100);
  d.first_call_after_sync_ns = p(3000);
  std::map<std::string, std::pair<Nanos, Nanos>> call;
  for (const model::Span& s : replay_trace(program("first", kTwoStreams, ops), std::nullopt, d).spans)
    if (s.host_call) call[s.op_id] = {s.start_ns, s.end_ns};
  // The program's first call pays 3000 more than its launch (1000): [0, 4000]; K1 runs [6000, 16000].
  EXPECT_EQ(call["K1"], std::make_pair(Nanos{0}, Nanos{4000}));
  // 2000 of host work is not a call; the synchronize then polls (100) at [6000, 6100], waits for K1's end
  // and wakes 5000 after it: returns at 21000.
  EXPECT_EQ(call["S"], std::make_pair(Nanos{6000}, Nanos{21000}));
  // 500 of host work, then the first call after the wait: 1000 + 3000; the next call is back to 1000.
  EXPECT_EQ(call["K2"], std::make_pair(Nanos{21500}, Nanos{25500}));
  EXPECT_EQ(call["K3"], std::make_pair(Nanos{25500}, Nanos{26500}));
}

TEST(GoldenProgram, LaunchCostGrowsWithBusyQueues) {
  // K1 (stream 1), K2 (stream 2), K3 (stream 1), 10 us kernels issued back to back.
  const std::string ops =
      kernel("K1", 1, 1, 256, 10000) + "," + kernel("K2", 2, 1, 256, 10000) + "," + kernel("K3", 1, 1, 256, 10000);
  model::DeviceProfile d = test_profile();
  d.kernel_launch_per_busy_queue_ns = p(500);
  const auto calls = [&](std::optional<std::uint32_t> connections) {
    std::map<std::string, std::pair<Nanos, Nanos>> call;
    for (const model::Span& s : replay_trace(program("busy-launch", kTwoStreams, ops), connections, d).spans)
      if (s.host_call) call[s.op_id] = {s.start_ns, s.end_ns};
    return call;
  };
  auto c = calls(8);
  EXPECT_EQ(c["K1"], std::make_pair(Nanos{0}, Nanos{1000})) << "nothing else is in flight";
  EXPECT_EQ(c["K2"], std::make_pair(Nanos{1000}, Nanos{2500})) << "stream 1's queue holds K1: 1000 + 500";
  EXPECT_EQ(c["K3"], std::make_pair(Nanos{2500}, Nanos{4000})) << "stream 2's queue holds K2";
  c = calls(1);
  EXPECT_EQ(c["K2"], std::make_pair(Nanos{1000}, Nanos{2000})) << "one connection: both streams share the queue";
  EXPECT_EQ(c["K3"], std::make_pair(Nanos{2000}, Nanos{3000}));
}

TEST(GoldenProgram, LaunchIntoAnotherQueueWhileQueuesHaveWork) {
  // K1 (stream 1), K2 (stream 2), K3 (stream 2), K4 (stream 1), 10 us kernels issued back to back.
  const std::string ops = kernel("K1", 1, 1, 256, 10000) + "," + kernel("K2", 2, 1, 256, 10000) + "," +
                          kernel("K3", 2, 1, 256, 10000) + "," + kernel("K4", 1, 1, 256, 10000);
  model::DeviceProfile d = test_profile();
  d.kernel_launch_queue_switch_ns = p(700);
  const auto calls = [&](std::optional<std::uint32_t> connections) {
    std::map<std::string, std::pair<Nanos, Nanos>> call;
    for (const model::Span& s : replay_trace(program("switch", kTwoStreams, ops), connections, d).spans)
      if (s.host_call) call[s.op_id] = {s.start_ns, s.end_ns};
    return call;
  };
  auto c = calls(8);
  EXPECT_EQ(c["K1"], std::make_pair(Nanos{0}, Nanos{1000})) << "the first launch";
  EXPECT_EQ(c["K2"], std::make_pair(Nanos{1000}, Nanos{2700})) << "another queue, K1's queue busy: 1000 + 700";
  EXPECT_EQ(c["K3"], std::make_pair(Nanos{2700}, Nanos{3700})) << "the same queue again";
  EXPECT_EQ(c["K4"], std::make_pair(Nanos{3700}, Nanos{5400})) << "back to stream 1's queue while K2 and K3 wait";
  c = calls(1);
  EXPECT_EQ(c["K4"], std::make_pair(Nanos{3000}, Nanos{4000})) << "one connection: every launch goes to one queue";
}

TEST(GoldenProgram, FirstUseOfAStreamItsQueueAndTheProgram) {
  // K1 (stream 1), K2 (stream 2), K3 (stream 3), a device synchronize, K4 (stream 1). Stream n takes
  // hardware queue n % connections; the legacy stream's queue 0 counts as used before the program starts.
  const std::string streams = R"([{"id": 1}, {"id": 2}, {"id": 3}])";
  const std::string ops = kernel("K1", 1, 1, 256, 10000) + "," + kernel("K2", 2, 1, 256, 10000) + "," +
                          kernel("K3", 3, 1, 256, 10000) + R"(, {"id": "S", "kind": "device_sync"},)" +
                          kernel("K4", 1, 1, 256, 10000);
  model::DeviceProfile d = test_profile();
  d.stream_first_use_ns = p(200);
  d.queue_first_use_ns = p(800);
  d.first_call_after_sync_ns = p(3000);
  d.program_first_call_ns = p(2500);
  const auto calls = [&](const model::DeviceProfile& profile, std::optional<std::uint32_t> connections) {
    std::map<std::string, std::pair<Nanos, Nanos>> call;
    for (const model::Span& s : replay_trace(program("first-use", streams, ops), connections, profile).spans)
      if (s.host_call) call[s.op_id] = {s.start_ns, s.end_ns};
    return call;
  };
  auto c = calls(d, 2);
  EXPECT_EQ(c["K1"], std::make_pair(Nanos{0}, Nanos{4500}))
      << "launch 1000 + the program's first call 2500 + stream 1's first use 200 + queue 1's 800";
  EXPECT_EQ(c["K2"], std::make_pair(Nanos{4500}, Nanos{5700})) << "stream 2 is on queue 0, used: 1000 + 200";
  EXPECT_EQ(c["K3"], std::make_pair(Nanos{5700}, Nanos{6900})) << "stream 3 is on queue 1, opened by K1: 1000 + 200";
  EXPECT_EQ(c["K4"].second - c["K4"].first, 4000) << "after the synchronize: 1000 + 3000, the stream is used";
  c = calls(d, 8);
  EXPECT_EQ(c["K2"], std::make_pair(Nanos{4500}, Nanos{6500})) << "8 connections: stream 2 opens queue 2";
  EXPECT_EQ(c["K3"], std::make_pair(Nanos{6500}, Nanos{8500})) << "and stream 3 queue 3";
  c = calls(d, 1);
  EXPECT_EQ(c["K1"], std::make_pair(Nanos{0}, Nanos{3700})) << "1 connection: every stream is on queue 0";
  model::DeviceProfile older = d;
  older.program_first_call_ns = model::Param{};
  c = calls(older, 2);
  EXPECT_EQ(c["K1"], std::make_pair(Nanos{0}, Nanos{5000})) << "without the field the first call pays 3000";
}

}  // namespace
}  // namespace streamlab::golden
