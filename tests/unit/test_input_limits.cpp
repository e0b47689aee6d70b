// Hostile numbers: each finding of the hardening review as a test with its input. Values that would
// overflow a derived time (the block start, the estimate, the float-to-integer conversion, metrics, the
// trace writer) are refused where they are read, naming the file, the place and the op; a simulation too
// large for its budget stops with a clear error instead of running for minutes.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/estimate.hpp"
#include "streamlab/model/input_limits.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace streamlab::model {
namespace {

const std::string kFile = "limits.json";

std::string doc(const std::string& ops) { return R"({"format_version": 1, "name": "t", "ops": [)" + ops + "]}"; }

void expect_refused(const std::string& text, const std::string& place, const std::string& op,
                    const std::string& reason) {
  try {
    (void)parse_workload(text, kFile);
    ADD_FAILURE() << "accepted; expected " << place << ": " << reason;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), kFile) << e.what();
    EXPECT_EQ(e.place(), place) << e.what();
    EXPECT_EQ(e.op(), op) << e.what();
    EXPECT_NE(e.reason().find(reason), std::string::npos) << e.what();
  }
}

// Finding: per_block_ns or host_ns near 2^63 simulated to "makespan 0" (signed overflow in the block start).
TEST(InputLimits, DurationsNear2To63AreRefused) {
  expect_refused(doc(R"({"id": "k", "kind": "kernel", "grid": 2, "block": 32,
                        "duration": {"per_block_ns": 9223372036854775000}})"),
                 "/ops/0/duration/per_block_ns", "k", "over the limit");
  expect_refused(doc(R"({"id": "h", "kind": "host_func", "host_ns": 9223372036854775807})"), "/ops/0/host_ns", "h",
                 "over the limit");
  expect_refused(doc(R"({"id": "k", "kind": "kernel", "grid": 2, "block": 32,
                        "duration": {"blocks_ns": [1, 9223372036854775807]}})"),
                 "/ops/0/duration/blocks_ns/1", "k", "over the limit");
  expect_refused(doc(R"({"id": "t", "kind": "task_pool", "grid": 1, "block": 32,
                        "tasks": {"ns": [4611686018427387904]}})"),
                 "/ops/0/tasks/ns/0", "t", "over the limit");
}

// Finding: per_block_ns 1e18 passed validate, then sim failed with a 60 s simulated-timeout message.
TEST(InputLimits, PerBlock1e18IsRefusedByTheReader) {
  expect_refused(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 32,
                        "duration": {"per_block_ns": 1000000000000000000}})"),
                 "/ops/0/duration/per_block_ns", "k", "2^40");
  // The largest accepted value still reads.
  EXPECT_NO_THROW((void)parse_workload(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 32,
                                               "duration": {"per_block_ns": 1099511627776}})"),
                                       kFile));
}

// Finding: a cost of 1e308 bytes simulated to "makespan 0" (float-to-integer conversion overflow).
TEST(InputLimits, HugeCostModelAmountsAreRefused) {
  expect_refused(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 32, "duration": {"bytes": 1e308}})"),
                 "/ops/0/duration/bytes", "k", "over the limit of 2^50");
  expect_refused(doc(R"({"id": "k", "kind": "kernel", "grid": 1, "block": 32, "duration": {"flops": 1e20}})"),
                 "/ops/0/duration/flops", "k", "over the limit of 2^50");
}

// Finding: copy sizes near 2^63 passed validate, then sim failed with a simulated-timeout message.
TEST(InputLimits, CopySizesNear2To63AreRefused) {
  expect_refused(doc(R"({"id": "c", "kind": "h2d", "bytes": 9223372036854775807})"), "/ops/0/bytes", "c",
                 "over the limit");
  expect_refused(doc(R"({"id": "m", "kind": "memset", "bytes": 18446744073709551615})"), "/ops/0/bytes", "m",
                 "over the limit");
}

// Each value within its own limit, but together more work than the 64-bit clock can hold.
TEST(InputLimits, WorkloadSerialWorkIsBounded) {
  // 2^31 - 1 blocks x 2^30 ns = 2^61 ns of serial block time.
  expect_refused(doc(R"({"id": "k", "kind": "kernel", "grid": 2147483647, "block": 32,
                        "duration": {"per_block_ns": 1073741824}})"),
                 "/ops/0", "k", "more than 2^58 ns");
  // 2^44-byte copies at the slowest allowed rate, summed over ops: the op that crosses is named.
  std::string ops;
  for (int i = 0; i < 300; ++i)
    ops += std::string(i ? "," : "") + R"({"id": "c)" + std::to_string(i) + R"(", "kind": "d2h", "bytes": 17592186044416})";
  expect_refused(doc(ops), "/ops/163", "c163", "more than 2^58 ns");
}

TEST(InputLimits, GridsOver2To32BlocksAreRefused) {
  expect_refused(doc(R"({"id": "k", "kind": "kernel", "grid": [2147483647, 65535, 2], "block": 32,
                        "duration": {"per_block_ns": 1}})"),
                 "/ops/0/grid", "k", "at most 4294967295");
}

// Finding: a trace with start_ns at -2^63, or spans whose duration overflows, validated and compared
// with nonsense (overflow in metrics and the trace writer).
TEST(InputLimits, TraceTimesAreBounded) {
  // A valid one-span trace whose span times are replaced by the given JSON numbers.
  const auto span = [](const std::string& start, const std::string& end) {
    Trace t;
    Span s;
    s.op_id = s.name = "k";
    s.end_ns = 10;
    t.spans.push_back(s);
    auto j = nlohmann::ordered_json::parse(trace_to_chrome_json(t));
    for (auto& e : j["traceEvents"])
      if (e["ph"] == "X") {
        e["args"]["start_ns"] = nlohmann::ordered_json::parse(start);
        e["args"]["end_ns"] = nlohmann::ordered_json::parse(end);
      }
    return j.dump();
  };
  for (const auto& [start, end, place] :
       {std::tuple{"-9223372036854775808", "0", "/args/start_ns"},
        std::tuple{"-4611686018427387904", "4611686018427387904", "/args/start_ns"},
        std::tuple{"0", "9223372036854775807", "/args/end_ns"}}) {
    try {
      (void)parse_chrome_trace(span(start, end), kFile);
      ADD_FAILURE() << "accepted " << start << ".." << end;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), kFile) << e.what();
      EXPECT_TRUE(e.place().starts_with("/traceEvents/") && e.place().ends_with(place)) << e.what();
      EXPECT_EQ(e.op(), "k") << e.what();
    }
  }
  // At the limits the metrics and the writer stay exact.
  const Trace t = parse_chrome_trace(span("-2305843009213693952", "2305843009213693952"), kFile);
  EXPECT_EQ(compute_metrics(t).makespan_ns, Nanos{1} << 62);
  EXPECT_EQ(parse_chrome_trace(trace_to_chrome_json(t), kFile).spans, t.spans);
}

// Finding (adversarial set, tr-blocks-bad.json): block placements' times were read without the spans'
// bounds, so a block starting at -2^63 validated, compared and was drawn.
TEST(InputLimits, BlockPlacementTimesAreBounded) {
  Trace t;
  Span s;
  s.op_id = s.name = "k";
  s.end_ns = 10;
  t.spans.push_back(s);
  t.blocks.push_back(BlockPlacement{0, 0, 0, 0, 10});
  const std::string good = trace_to_chrome_json(t);
  ASSERT_EQ(parse_chrome_trace(good, kFile).blocks, t.blocks);
  const std::string row = "[0,0,0,0,10]";
  const auto at = good.find(row);
  ASSERT_NE(at, std::string::npos) << good;
  for (const auto& [bad, place] : {std::pair{"[0, 0, 0, -9223372036854775808, 0]", "/streamlabBlocks/0/3"},
                                   std::pair{"[0, 0, 0, 0, 4611686018427387904]", "/streamlabBlocks/0/4"}}) {
    std::string text = good;
    text.replace(at, row.size(), bad);
    try {
      (void)parse_chrome_trace(text, kFile);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), kFile) << e.what();
      EXPECT_EQ(e.place(), place) << e.what();
    }
  }
}

// Traces built in code are not bounded by the reader: metrics saturate and the writer prints the true
// duration instead of wrapping.
TEST(InputLimits, ExtremeTraceBuiltInCodeDoesNotWrap) {
  Trace t;
  Span s;
  s.op_id = "k";
  s.name = "k";
  s.start_ns = std::numeric_limits<Nanos>::min();
  s.end_ns = std::numeric_limits<Nanos>::max();
  t.spans.push_back(s);
  EXPECT_EQ(compute_metrics(t).makespan_ns, std::numeric_limits<Nanos>::max());
  const std::string text = trace_to_chrome_json(t);
  EXPECT_NE(text.find("\"dur\":18446744073709551.615"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":-9223372036854775.808"), std::string::npos) << text;
}

// An op built in code past the limits (not through resolve_and_check) gets a saturated estimate.
TEST(InputLimits, EstimateSaturatesInsteadOfOverflowing) {
  Op op;
  op.id = "k";
  op.kind = OpKind::kernel;
  op.shape = KernelShape{{0x7fffffffu, 65535, 1}, {1, 1, 1}, 0, 0};
  op.duration = FixedPerBlock{Nanos{1} << 62};
  EXPECT_EQ(estimate_duration(op, bundled_h100_profile()), std::numeric_limits<Nanos>::max());
  op.duration = CostModel{1e308, 0};
  EXPECT_EQ(estimate_duration(op, bundled_h100_profile()), std::numeric_limits<Nanos>::max());
  Op host;
  host.id = "h";
  host.kind = OpKind::host_func;
  host.host_ns = std::numeric_limits<Nanos>::max();
  EXPECT_EQ(estimate_duration(host, bundled_h100_profile()), std::numeric_limits<Nanos>::max());
}

nlohmann::ordered_json bundled_json() { return nlohmann::ordered_json::parse(device_profile_to_json(bundled_h100_profile())); }

InputError profile_error(const nlohmann::ordered_json& j) {
  try {
    (void)parse_device_profile(j.dump(), "p.json");
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "profile accepted";
  return InputError("", "", "", "");
}

// Findings: profile counts of 1e10 were cast to 32 bits ("at most 0 threads per block"); sm_count 1e300
// printed a negative number; validate accepted profiles sim refused.
TEST(InputLimits, ProfileValuesAreInSaneRanges) {
  auto j = bundled_json();
  j["params"]["max_threads_per_block"]["value"] = 1e10;
  InputError e = profile_error(j);
  EXPECT_EQ(e.place(), "/params/max_threads_per_block/value") << e.what();
  EXPECT_NE(e.reason().find("at most 2147483647"), std::string::npos) << e.what();

  j = bundled_json();
  j["params"]["sm_count"]["value"] = 1e300;
  e = profile_error(j);
  EXPECT_EQ(e.place(), "/params/sm_count/value") << e.what();
  EXPECT_NE(e.reason().find("1e+300"), std::string::npos) << e.what();
  EXPECT_EQ(e.reason().find("got -"), std::string::npos) << e.what();

  // What the simulator used to refuse after the reader accepted it: the reader refuses it now.
  for (const auto& [field, value] : {std::pair{"sm_count", 200000.0}, std::pair{"copy_engines", 100.0},
                                     std::pair{"kernel_launch_ns", 5e12}, std::pair{"warp_launch_ns", 2e6},
                                     std::pair{"dram_gbps", 1e-300}, std::pair{"max_resident_grids", 2e6},
                                     std::pair{"priority_greatest", -5000.0}}) {
    j = bundled_json();
    j["params"][field]["value"] = value;
    e = profile_error(j);
    EXPECT_EQ(e.place(), "/params/" + std::string(field) + "/value") << e.what();
  }
}

// Finding: profile errors from the simulator named the profile's name instead of its file.
TEST(InputLimits, SimulatorProfileErrorsNameTheFile) {
  DeviceProfile p = parse_device_profile(device_profile_to_json(bundled_h100_profile()), "my-profile.json");
  p.kernel_launch_ns.value = -1;  // changed in code after reading
  try {
    sim::SimBackend b(p, {});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "my-profile.json") << e.what();
    EXPECT_EQ(e.place(), "/params/kernel_launch_ns") << e.what();
  }
}

Workload one_kernel(std::uint32_t grid, Nanos per_block) {
  return parse_workload(doc(R"({"id": "k", "kind": "kernel", "grid": )" + std::to_string(grid) +
                            R"(, "block": 32, "duration": {"per_block_ns": )" + std::to_string(per_block) + "}}"),
                        kFile);
}

// Finding: a 137-byte workload with 2^31 - 1 blocks passed validation and simulated for 3.5 minutes.
// Now the size check (shared by validate and sim) refuses it before anything runs.
TEST(SimBudget, TooManyBlocksAreRefusedBeforeSimulating) {
  const Workload w = one_kernel(0x7fffffffu, 1);
  try {
    check_simulation_size(w, kFile, kDefaultMaxSimEvents);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.place(), "/ops/0/grid") << e.what();
    EXPECT_EQ(e.op(), "k") << e.what();
    EXPECT_NE(e.reason().find("--max-events"), std::string::npos) << e.what();
  }
  sim::SimOptions so;
  so.source = kFile;
  sim::SimBackend b(bundled_h100_profile(), so);
  EXPECT_THROW(b.prepare(w), InputError);
}

// The event budget also holds while simulating, and the wall-clock budget stops a long run.
TEST(SimBudget, EventAndWallClockBudgetsStopTheRun) {
  const Workload w = one_kernel(200'000, 1000);
  const auto policy = policies::make_policy("round-robin", policies::PolicyConfig{});
  {
    sim::SimOptions so;
    so.source = kFile;
    so.budget.max_events = 200'001;  // the size check passes (200,001 items); the run needs 200,002 events
    sim::SimBackend b(bundled_h100_profile(), so);
    try {
      (void)policies::dispatch(b, w, *policy);
      ADD_FAILURE() << "no budget error";
    } catch (const sim::SimBudgetExceeded& e) {
      EXPECT_NE(std::string(e.what()).find(kFile + ": simulation: stopped"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--max-events"), std::string::npos) << e.what();
    }
  }
  {
    sim::SimOptions so;
    so.source = kFile;
    so.budget.wall_seconds = 1e-9;
    sim::SimBackend b(bundled_h100_profile(), so);
    try {
      (void)policies::dispatch(b, w, *policy);
      ADD_FAILURE() << "no budget error";
    } catch (const sim::SimBudgetExceeded& e) {
      EXPECT_NE(std::string(e.what()).find("--time-limit"), std::string::npos) << e.what();
    }
  }
  // Within budget the same run completes.
  sim::SimOptions so;
  so.budget.max_events = 1'000'000;
  so.budget.wall_seconds = 600;
  sim::SimBackend b(bundled_h100_profile(), so);
  EXPECT_GT(compute_metrics(policies::dispatch(b, w, *policy).trace).makespan_ns, 0);
}

}  // namespace
}  // namespace streamlab::model
