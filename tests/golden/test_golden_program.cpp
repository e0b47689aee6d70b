// Golden program scenarios: a program workload replayed through the Dispatcher (policy `replay`) on the
// synthetic device, its device spans and host API call spans compared with
// tests/golden/expected/<scenario>.txt, computed by hand there.
#include <string>

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

/// Replays `json` on the test device; device spans as Scenario::render does, then one line per host call.
std::string replay(const std::string& json, std::optional<std::uint32_t> connections, const std::string& prefix) {
  const model::Workload w = model::parse_workload(json, "golden");
  sim::SimOptions o;
  o.date = "2026-01-01";
  o.warp_launch_ns = 0.0;
  o.connections = connections;
  sim::SimBackend be(test_profile(), o);
  auto policy = policies::make_policy(policies::kReplayPolicy, {});
  const policies::DispatchResult r = policies::dispatch(be, w, *policy);
  std::string out;
  for (const model::Span& s : r.trace.spans) {
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

}  // namespace
}  // namespace streamlab::golden
