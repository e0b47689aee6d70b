// Device profile I/O: the bundled profile parses, round trips, and every kind of bad field is named.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"

using namespace streamlab::model;

namespace {

nlohmann::ordered_json bundled_json() {
  return nlohmann::ordered_json::parse(device_profile_to_json(bundled_h100_profile()));
}

void expect_error(const nlohmann::ordered_json& j, const std::string& place, const std::string& reason) {
  try {
    (void)parse_device_profile(j.dump(2), "p.json");
    ADD_FAILURE() << "no error; expected " << place;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), "p.json") << what;
    EXPECT_EQ(e.place(), place) << what;
    EXPECT_NE(what.find(reason), std::string::npos) << what;
  }
}

}  // namespace

TEST(Profile, BundledH100Parses) {
  const DeviceProfile p = bundled_h100_profile();
  EXPECT_EQ(p.sm_count.value, 132);
  EXPECT_EQ(p.max_threads_per_sm.value, 2048);
  EXPECT_EQ(p.max_blocks_per_sm.value, 32);
  EXPECT_EQ(p.registers_per_sm.value, 65536);
  EXPECT_EQ(p.max_resident_grids.value, 128);
  EXPECT_EQ(p.priority_greatest.value, -5);
  EXPECT_EQ(p.copy_engines.value, 3);
  EXPECT_FALSE(p.sm_count.source.empty());
  for (const auto& f : device_profile_fields()) {
    if (f.optional) continue;
    EXPECT_FALSE((p.*(f.member)).source.empty()) << f.name;
  }
}

TEST(Profile, BundledMatchesTheRepositoryFile) {
  const auto file = std::filesystem::path(STREAMLAB_SOURCE_DIR) / "model" / "profiles" / "h100-sxm.json";
  EXPECT_EQ(load_device_profile(file), bundled_h100_profile());
}

TEST(Profile, RoundTrip) {
  DeviceProfile p = bundled_h100_profile();
  p.h2d_bidirectional_factor.value = 0.8125;
  p.d2h_bidirectional_factor.value = 0.9375;
  p.h2d_pinned_gbps = Param{24.7, "measured: calibrate 2026-11-21"};
  const std::string text = device_profile_to_json(p);
  EXPECT_EQ(parse_device_profile(text, "x"), p);
  EXPECT_EQ(device_profile_to_json(parse_device_profile(text, "x")), text);

  const auto file = std::filesystem::temp_directory_path() / ("streamlab_prof_" + std::to_string(::getpid()) + ".json");
  save_device_profile(p, file);
  EXPECT_EQ(load_device_profile(file), p);
  std::filesystem::remove(file);
}

TEST(Profile, ShapeLimitsComeFromTheProfile) {
  DeviceProfile p = bundled_h100_profile();
  p.max_shared_mem_per_block_bytes.value = 49152;
  const ShapeLimits l = shape_limits(p);
  EXPECT_EQ(l.max_threads_per_block, 1024u);
  EXPECT_EQ(l.max_shared_mem_per_block, 49152u);
  EXPECT_EQ(l.max_registers_per_block, 65536u);
}

TEST(ProfileErrors, MissingField) {
  auto j = bundled_json();
  j["params"].erase("sm_count");
  expect_error(j, "/params", "missing required key 'sm_count'");
  j = bundled_json();
  j.erase("date");
  expect_error(j, "top level", "missing required key 'date'");
}

TEST(ProfileErrors, UnknownKeys) {
  auto j = bundled_json();
  j["params"]["sm_cout"] = {{"value", 1}, {"unit", "count"}, {"source", "x"}};
  expect_error(j, "/params/sm_cout", "unknown parameter 'sm_cout'");
  j = bundled_json();
  j["params"]["sm_count"]["note"] = "x";
  expect_error(j, "/params/sm_count/note", "unknown key 'note'");
  j = bundled_json();
  j["gpu"] = "x";
  expect_error(j, "/gpu", "unknown key 'gpu'");
}

TEST(ProfileErrors, NonNumericValue) {
  auto j = bundled_json();
  j["params"]["dram_gbps"]["value"] = "3350";
  expect_error(j, "/params/dram_gbps/value", "expected a number, got a string");
}

TEST(ProfileErrors, UnitMismatch) {
  auto j = bundled_json();
  j["params"]["h2d_latency_ns"]["unit"] = "us";
  expect_error(j, "/params/h2d_latency_ns/unit", "h2d_latency_ns is in ns, not 'us'");
}

TEST(ProfileErrors, NonsensicalValues) {
  auto j = bundled_json();
  j["params"]["sm_count"]["value"] = 0;
  expect_error(j, "/params/sm_count/value", "sm_count must be a whole number > 0");
  j = bundled_json();
  j["params"]["sm_count"]["value"] = 13.5;
  expect_error(j, "/params/sm_count/value", "sm_count must be a whole number > 0");
  j = bundled_json();
  j["params"]["d2h_pinned_gbps"]["value"] = 0;
  expect_error(j, "/params/d2h_pinned_gbps/value", "d2h_pinned_gbps must be > 0 GB/s");
  j = bundled_json();
  j["params"]["kernel_launch_ns"]["value"] = -1;
  expect_error(j, "/params/kernel_launch_ns/value", "kernel_launch_ns must be >= 0 ns");
  j = bundled_json();
  j["params"]["connections"]["value"] = 64;
  expect_error(j, "/params/connections/value", "connections must be in 1..32");
  j = bundled_json();
  j["params"]["priority_greatest"]["value"] = 1;
  expect_error(j, "/params/priority_greatest/value", "priority_greatest must be a whole number <= 0");
  j = bundled_json();
  j["params"]["max_threads_per_block"]["value"] = 4096;
  expect_error(j, "/params/max_threads_per_block/value", "exceeds max_threads_per_sm");
}

TEST(ProfileErrors, BidirectionalFactorsAreRatiosInZeroToOne) {
  // Each direction's factor on its own: 0 (a copy that never ends), above 1 (a copy sped up by the opposite
  // direction), or negative is rejected with the field's own name; exactly 1 (no slow-down) is valid.
  const std::pair<std::string, Param DeviceProfile::*> fields[] = {
      {"h2d_bidirectional_factor", &DeviceProfile::h2d_bidirectional_factor},
      {"d2h_bidirectional_factor", &DeviceProfile::d2h_bidirectional_factor}};
  for (const auto& [field, member] : fields) {
    for (const double bad : {0.0, 1.5, -0.5}) {
      auto j = bundled_json();
      j["params"][field]["value"] = bad;
      expect_error(j, "/params/" + field + "/value", field + " must be in (0, 1]");
    }
    auto j = bundled_json();
    j["params"][field].erase("range");  // a measured range would not hold the new value
    j["params"][field]["value"] = 1;
    EXPECT_EQ((parse_device_profile(j.dump(), "p.json").*member).value, 1.0) << field;
  }
  // The single factor of older profiles is gone: a profile that still has it names it.
  auto j = bundled_json();
  j["params"]["bidirectional_factor"] = {{"value", 0.9}, {"unit", "ratio"}, {"source", "x"}};
  expect_error(j, "/params/bidirectional_factor", "unknown parameter 'bidirectional_factor'");
}

TEST(ProfileErrors, MissingSource) {
  auto j = bundled_json();
  j["params"]["fp32_gflops"]["source"] = "";
  expect_error(j, "/params/fp32_gflops/source", "fp32_gflops needs a source");
}

TEST(ProfileErrors, FormatVersion) {
  auto j = bundled_json();
  j["format_version"] = 3;
  expect_error(j, "/format_version", "format_version 3 is not supported");
}

TEST(ProfileErrors, MissingFileNamesIt) {
  try {
    (void)load_device_profile("/nonexistent-streamlab/p.json");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent-streamlab/p.json");
  }
}

TEST(ProfileHostSpeed, SamplesGiveTheMedianAndThe5thTo95thPercentile) {
  std::vector<double> samples;
  for (int i = 100; i >= 0; --i) samples.push_back(1000.0 + 10.0 * i);  // 1000..2000 in steps of 10, reversed
  const Param p = param_from_samples(samples, "measured: test");
  EXPECT_DOUBLE_EQ(p.value, 1500.0);
  ASSERT_TRUE(p.range.has_value());
  EXPECT_DOUBLE_EQ(p.range->low, 1050.0);   // rank 5 of 0..100
  EXPECT_DOUBLE_EQ(p.range->high, 1950.0);  // rank 95
  EXPECT_DOUBLE_EQ(p.spread, 900.0 / 1500.0);
  EXPECT_EQ(p.source, "measured: test");
  // Between ranks: 4 samples, the 5th percentile sits 0.15 of the way from the first to the second.
  const Param q = param_from_samples({10, 20, 30, 40}, "s");
  EXPECT_DOUBLE_EQ(q.value, 25.0);
  EXPECT_DOUBLE_EQ(q.range->low, 11.5);
  EXPECT_DOUBLE_EQ(q.range->high, 38.5);
  const Param one = param_from_samples({7}, "s");
  EXPECT_DOUBLE_EQ(one.value, 7.0);
  EXPECT_DOUBLE_EQ(one.range->low, 7.0);
  EXPECT_DOUBLE_EQ(one.spread, 0.0);
  EXPECT_THROW((void)param_from_samples({}, "s"), std::invalid_argument);
}

TEST(ProfileHostSpeed, RangesRoundTripAndMoveOnlyWhatTheHostSets) {
  DeviceProfile p = bundled_h100_profile();
  p.h2d_bidirectional_factor.range.reset();  // the copy directions' sharing without a range: it stays
  int host_calls = 0, host_rates = 0;
  for (const auto& f : device_profile_fields()) {
    if (!f.host_call && !f.host_rate) continue;
    (f.host_call ? host_calls : host_rates) += 1;
    Param& x = p.*(f.member);
    if (f.optional && !x.present()) continue;  // event_destroy_ns, absent from older profiles: stays absent
    x.range = Param::Range{x.value * 0.9, x.value * 1.5};
  }
  EXPECT_EQ(host_calls, 10);
  EXPECT_EQ(host_rates, 2) << "the pageable copy rates";
  const std::string text = device_profile_to_json(p);
  EXPECT_NE(text.find("\"range\""), std::string::npos);
  EXPECT_EQ(parse_device_profile(text, "x"), p);
  EXPECT_EQ(device_profile_to_json(parse_device_profile(text, "x")), text);

  const DeviceProfile slow = at_host_speed(p, HostSpeed::slow);
  const DeviceProfile fast = at_host_speed(p, HostSpeed::fast);
  EXPECT_EQ(at_host_speed(p, HostSpeed::typical), p);
  EXPECT_DOUBLE_EQ(slow.kernel_launch_ns.value, p.kernel_launch_ns.value * 1.5);
  EXPECT_DOUBLE_EQ(fast.memcpy_async_issue_ns.value, p.memcpy_async_issue_ns.value * 0.9);
  // A slow host copies pageable memory at the low end of its rate, a fast one at the high end.
  EXPECT_DOUBLE_EQ(slow.h2d_pageable_gbps.value, p.h2d_pageable_gbps.value * 0.9);
  EXPECT_DOUBLE_EQ(fast.d2h_pageable_gbps.value, p.d2h_pageable_gbps.value * 1.5);
  // Between the ends: that fraction of the way from the value to the end, rates the other way.
  const DeviceProfile half_slow = at_host_speed(p, HostSpeed{0.5}), quarter_fast = at_host_speed(p, HostSpeed{-0.25});
  EXPECT_DOUBLE_EQ(half_slow.kernel_launch_ns.value, p.kernel_launch_ns.value * 1.25);
  EXPECT_DOUBLE_EQ(quarter_fast.kernel_launch_ns.value, p.kernel_launch_ns.value * 0.975);
  EXPECT_DOUBLE_EQ(half_slow.h2d_pageable_gbps.value, p.h2d_pageable_gbps.value * 0.95);
  EXPECT_DOUBLE_EQ(half_slow.kernel_launch_queue_switch_ns.value, p.kernel_launch_queue_switch_ns.value * 1.25);
  EXPECT_EQ(half_slow.sync_wakeup_ns, p.sync_wakeup_ns);
  // The names and positions the command line takes.
  EXPECT_EQ(parse_host_speed("slow"), HostSpeed::slow);
  EXPECT_EQ(parse_host_speed("typical"), HostSpeed::typical);
  EXPECT_EQ(parse_host_speed("-0.25"), HostSpeed{-0.25});
  EXPECT_EQ(parse_host_speed("1"), HostSpeed::slow);
  EXPECT_FALSE(parse_host_speed("1.5"));
  EXPECT_FALSE(parse_host_speed("nan"));
  EXPECT_FALSE(parse_host_speed("0.5x"));
  EXPECT_FALSE(parse_host_speed(""));
  EXPECT_EQ(to_string(HostSpeed{-0.25}), "-0.25");
  EXPECT_EQ(to_string(HostSpeed::fast), "fast");
  // A launch's extras (measured as differences of launch timings) move by the launch's own factor.
  ASSERT_GT(p.kernel_launch_queue_switch_ns.value, 0);
  ASSERT_GT(p.queue_first_use_ns.value, 0);
  EXPECT_DOUBLE_EQ(slow.kernel_launch_queue_switch_ns.value, p.kernel_launch_queue_switch_ns.value * 1.5);
  EXPECT_DOUBLE_EQ(fast.kernel_launch_per_busy_queue_ns.value, p.kernel_launch_per_busy_queue_ns.value * 0.9);
  EXPECT_DOUBLE_EQ(fast.queue_first_use_ns.value, p.queue_first_use_ns.value * 0.9);
  EXPECT_DOUBLE_EQ(slow.stream_first_use_ns.value, p.stream_first_use_ns.value * 1.5);
  EXPECT_DOUBLE_EQ(slow.traced_launch_overhead_ns.value, p.traced_launch_overhead_ns.value * 1.5);
  // Device-side and copy parameters, and the host costs that are not API call batches, stay.
  EXPECT_EQ(slow.kernel_start_latency_ns, p.kernel_start_latency_ns);
  EXPECT_EQ(slow.same_stream_gap_per_busy_queue_ns, p.same_stream_gap_per_busy_queue_ns);
  EXPECT_EQ(slow.sync_wakeup_ns, p.sync_wakeup_ns);
  EXPECT_EQ(fast.h2d_pinned_gbps, p.h2d_pinned_gbps);
  EXPECT_EQ(fast.h2d_bidirectional_factor, p.h2d_bidirectional_factor);
}

TEST(ProfileHostSpeed, RunToRunRatiosMoveWithTheRatesWhereTheyHaveARange) {
  DeviceProfile p = bundled_h100_profile();
  int run_to_run = 0;
  for (const auto& f : device_profile_fields()) run_to_run += f.run_to_run ? 1 : 0;
  EXPECT_EQ(run_to_run, 4) << "h2d_ and d2h_bidirectional_factor, and their streaming forms";
  for (const auto& f : device_profile_fields())
    if (f.host_call || f.host_rate) (p.*(f.member)).range = Param::Range{(p.*(f.member)).value, (p.*(f.member)).value};
  p.h2d_bidirectional_factor = Param{0.75, "test", 0.3, Param::Range{0.6, 0.9}};
  p.d2h_bidirectional_factor.range.reset();
  EXPECT_DOUBLE_EQ(at_host_speed(p, HostSpeed::fast).h2d_bidirectional_factor.value, 0.9) << "less contention";
  EXPECT_DOUBLE_EQ(at_host_speed(p, HostSpeed::slow).h2d_bidirectional_factor.value, 0.6) << "more contention";
  EXPECT_EQ(at_host_speed(p, HostSpeed::slow).d2h_bidirectional_factor, p.d2h_bidirectional_factor) << "no range";
}

TEST(ProfileHostSpeed, NoRangeNoFastOrSlowHost) {
  DeviceProfile p = bundled_h100_profile();
  for (const auto& f : device_profile_fields()) (p.*(f.member)).range.reset();
  try {
    (void)at_host_speed(p, HostSpeed::slow);
    FAIL() << "the bundled profile has no measured ranges";
  } catch (const InputError& e) {
    EXPECT_EQ(e.place(), "/params/kernel_launch_ns") << e.what();
    EXPECT_NE(std::string(e.what()).find("no measured range"), std::string::npos) << e.what();
  }
}

TEST(ProfileErrors, BadRangesAreNamed) {
  auto j = bundled_json();
  j["params"]["kernel_launch_ns"]["value"] = 3589;
  j["params"]["kernel_launch_ns"]["range"] = {1.0};
  expect_error(j, "/params/kernel_launch_ns/range", "a range is [low, high]");
  j["params"]["kernel_launch_ns"]["range"] = {4000.0, 5000.0};  // does not hold the value (3589)
  expect_error(j, "/params/kernel_launch_ns/range", "must hold its value");
  j["params"]["kernel_launch_ns"]["range"] = {-1.0, 5000.0};
  expect_error(j, "/params/kernel_launch_ns/range/0", "must be >= 0");
  j["params"]["kernel_launch_ns"]["range"] = {1.0, "x"};
  expect_error(j, "/params/kernel_launch_ns/range/1", "");
  j["params"]["kernel_launch_ns"]["range"] = "wide";
  expect_error(j, "/params/kernel_launch_ns/range", "");
}

TEST(Profile, TheSampledH100CalibrationCarriesTheHostsRanges) {
  // model/profiles/h100-sxm-2026-11-24.json: streamlab calibrate --rounds 30 --host-seconds 120 on the H100
  // (executor/validation/h100-2026-11-24/run18). Every parameter the host's speed sets has a range.
  const auto file = std::filesystem::path(STREAMLAB_SOURCE_DIR) / "model" / "profiles" / "h100-sxm-2026-11-24.json";
  const DeviceProfile p = load_device_profile(file);
  EXPECT_EQ(p.sm_count.value, 132);
  for (const auto& f : device_profile_fields()) {
    if ((f.host_call || f.host_rate) && !(f.optional && !(p.*(f.member)).present())) {
      EXPECT_TRUE((p.*(f.member)).range.has_value()) << f.name;
    }
  }
  const DeviceProfile slow = at_host_speed(p, HostSpeed::slow), fast = at_host_speed(p, HostSpeed::fast);
  EXPECT_GT(slow.kernel_launch_ns.value, p.kernel_launch_ns.value);
  EXPECT_LT(fast.kernel_launch_ns.value, p.kernel_launch_ns.value);
  EXPECT_LT(slow.h2d_pageable_gbps.value, fast.h2d_pageable_gbps.value);
}

TEST(ProfileOptional, AbsentFieldsStayAbsentAndPresentOnesRoundTrip) {
  // Profiles from before the carveout and the CUPTI record pad were measured (this one: calibrated on
  // 2026-11-21, bundled until 2026-11-24): absent, not written back.
  DeviceProfile p = load_device_profile(std::filesystem::path(STREAMLAB_SOURCE_DIR) / "model" / "profiles" /
                                        "h100-sxm-2026-11-21.json");
  for (const auto& f : device_profile_fields()) {
    if (!f.optional) continue;
    EXPECT_FALSE((p.*(f.member)).present()) << f.name;
  }
  const std::string without = device_profile_to_json(p);
  EXPECT_EQ(without.find("carveout_"), std::string::npos);
  EXPECT_EQ(without.find("cupti_kernel_pad_ns"), std::string::npos);
  EXPECT_EQ(parse_device_profile(without, "x"), p);
  // The import's pad falls back to traced_span_pad_ns, then follows the new field.
  EXPECT_EQ(cupti_kernel_pad_ns(p), p.traced_span_pad_ns.value);
  p.cupti_kernel_pad_ns = Param{640, "test"};
  p.carveout_256_threads_bytes = Param{16384, "test"};
  const std::string with = device_profile_to_json(p);
  EXPECT_NE(with.find("\"carveout_256_threads_bytes\""), std::string::npos);
  EXPECT_EQ(parse_device_profile(with, "x"), p);
  EXPECT_EQ(cupti_kernel_pad_ns(p), 640);
  // Present, an optional field is checked like any other.
  std::string bad = with;
  bad.replace(bad.find("16384"), 5, "-3");
  try {
    (void)parse_device_profile(bad, "bad.json");
    FAIL() << "a negative byte count was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/params/carveout_256_threads_bytes/value"), std::string::npos) << e.what();
  }
}

TEST(ProfileOptional, CarveoutRowsAreInBlockSizeOrder) {
  const auto rows = carveout_fields();
  ASSERT_EQ(rows.size(), 6u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].name, "carveout_" + std::to_string(32u << i) + "_threads_bytes");
    EXPECT_TRUE(rows[i].optional);
  }
}
