// Calibration: the least-squares fit, and a quick calibration whose profile passes the model's checks.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "streamlab/executor/calibrate.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"

namespace ex = streamlab::executor;

TEST(Calibrate, FitRecoversLatencyAndBandwidth) {
  std::vector<double> bytes, ns;
  for (double b = 4096; b <= 256.0 * (1 << 20); b *= 4) {
    bytes.push_back(b);
    ns.push_back(2500 + b / 25.0);  // 2.5 us + 25 GB/s
  }
  const ex::LatencyBandwidthFit f = ex::fit_latency_bandwidth(bytes, ns);
  EXPECT_NEAR(f.latency_ns, 2500, 1e-6);
  EXPECT_NEAR(f.gbps, 25, 1e-9);
  EXPECT_LT(f.rms_relative_residual, 1e-12);
  EXPECT_EQ(f.points, bytes.size());
  ns[3] *= 1.1;  // one noisy point shows in the residual
  EXPECT_GT(ex::fit_latency_bandwidth(bytes, ns).rms_relative_residual, 0.01);
  EXPECT_DOUBLE_EQ(ex::median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(ex::median({4, 1, 3, 2}), 2.5);
}

TEST(Calibrate, RoundsCombineToTheirMedianAndNameTheOutliers) {
  // Five rounds of the bundled profile with their own sync wake-ups and kernel start latencies: every
  // parameter is the median round but the wake-up, the rounds' lower quartile (neither the lowest round,
  // which can be an outlier, nor the median, which a slow spell of the host moves); the spread is
  // (max - min) / median, and an outlying round is named.
  std::vector<streamlab::model::DeviceProfile> rounds(5, streamlab::model::bundled_h100_profile());
  const double wake[] = {3000, 2500, 4100, 3100, 4000}, start[] = {2400, 2450, 4000, 2420, 2440};
  for (int k = 0; k < 5; ++k) {
    rounds[static_cast<std::size_t>(k)].sync_wakeup_ns.value = wake[k];
    rounds[static_cast<std::size_t>(k)].kernel_start_latency_ns.value = start[k];
  }
  const streamlab::model::DeviceProfile p = ex::combine_rounds(rounds, {});
  EXPECT_DOUBLE_EQ(p.sync_wakeup_ns.value, 3000);  // sorted 2500 3000 3100 4000 4100: a quarter up
  EXPECT_NEAR(p.sync_wakeup_ns.spread, 1600.0 / 3100, 1e-12);
  EXPECT_NE(p.sync_wakeup_ns.source.find("value: lower quartile of 5 calibrate rounds"), std::string::npos)
      << p.sync_wakeup_ns.source;
  EXPECT_DOUBLE_EQ(p.kernel_start_latency_ns.value, 2440);
  EXPECT_NE(p.kernel_start_latency_ns.source.find("outliers: round 3"), std::string::npos)
      << p.kernel_start_latency_ns.source;
}

TEST(Calibrate, HostProbeRoundTripsAndRejectsBadInput) {
  ex::HostProbe p;
  p.samples["kernel_launch_ns"] = {4100.5, 3900};
  p.samples["event_query_ns"] = {410};
  p.contention["kernel_launch_queue_switch_ns"] = {412.5, -30};
  p.contention["kernel_launch_per_busy_queue_ns"] = {-12};
  p.per_process["same_stream_gap_ns"] = 2048;
  p.per_process["same_stream_gap_per_busy_queue_ns"] = -3;
  p.stream_first_use_ns = 2400;
  p.stream_first_use_recycled_ns = 600;
  p.queue_first_use_ns = 1900;
  p.program_first_call_ns = 2700;
  p.connections = 32;
  p.passes = 2;
  p.seconds = 0.25;
  const ex::HostProbe q = ex::parse_host_probe(ex::host_probe_to_json(p), "probe.json");
  EXPECT_EQ(q.samples, p.samples);
  EXPECT_EQ(q.contention, p.contention);  // slopes and differences may be negative
  EXPECT_EQ(q.per_process, p.per_process);
  EXPECT_DOUBLE_EQ(q.stream_first_use_ns, 2400);
  EXPECT_DOUBLE_EQ(q.stream_first_use_recycled_ns, 600);
  EXPECT_EQ(q.queue_first_use_ns, std::optional<double>(1900));
  EXPECT_DOUBLE_EQ(q.program_first_call_ns, 2700);
  EXPECT_EQ(q.connections, 32);
  p.queue_first_use_ns.reset();  // fewer than 3 connections: not measurable, so not written
  EXPECT_FALSE(ex::parse_host_probe(ex::host_probe_to_json(p), "probe.json").queue_first_use_ns.has_value());
  p.queue_first_use_ns = 1900;
  EXPECT_EQ(q.passes, 2);
  EXPECT_DOUBLE_EQ(q.seconds, 0.25);
  const auto error_of = [](const std::string& text) {
    try {
      (void)ex::parse_host_probe(text, "probe.json");
    } catch (const streamlab::model::InputError& e) {
      return e.file() + " " + e.place() + ": " + e.reason();
    }
    return std::string("accepted");
  };
  std::string good = ex::host_probe_to_json(p);
  EXPECT_NE(error_of("{"), "accepted");
  EXPECT_EQ(error_of("[]"), "probe.json /: expected an object");
  EXPECT_NE(error_of(R"({"format":"other"})").find("/format"), std::string::npos);
  std::string extra = good;
  extra.insert(1, R"("surprise":1,)");
  EXPECT_EQ(error_of(extra), "probe.json /surprise: unknown key");
  std::string not_host = good;
  not_host.replace(not_host.find("event_query_ns"), 14, "sm_count");
  EXPECT_EQ(error_of(not_host), "probe.json /samples/sm_count: not a host-call parameter");
  std::string conn = good;
  conn.replace(conn.find("\"connections\":32"), 16, "\"connections\":33");
  EXPECT_EQ(error_of(conn), "probe.json /connections: not a connection count in [1, 32]");
  std::string negative = good;
  negative.replace(negative.find("[410"), 4, "[-41");
  EXPECT_EQ(error_of(negative), "probe.json /samples/event_query_ns/0: expected a finite non-negative number");
  std::string not_contention = good;
  not_contention.replace(not_contention.find("kernel_launch_per_busy_queue_ns"), 31, "event_query_ns");
  EXPECT_EQ(error_of(not_contention), "probe.json /contention/event_query_ns: not a launch-contention parameter");
  std::string not_per_process = good;
  not_per_process.replace(not_per_process.find("\"same_stream_gap_ns\""), 20, "\"kernel_launch_ns\"");
  EXPECT_EQ(error_of(not_per_process), "probe.json /per_process/kernel_launch_ns: not a per-process parameter");
  std::string text = good;
  text.replace(text.find("[-12.0]"), 7, "[\"a\"]");
  EXPECT_EQ(error_of(text), "probe.json /contention/kernel_launch_per_busy_queue_ns/0: expected a finite number");
}

TEST(Calibrate, RepetitionsGiveTheMedianOnlyWhereItIsToldApartFromZero) {
  // 9 repetitions around 400 ns: median 400, MAD 20 -> standard error 1.2533 x 1.4826 x 20 / 3 = 12.39 ns.
  const std::vector<double> clear{360, 380, 380, 400, 400, 410, 420, 420, 460};
  const streamlab::model::Param a = ex::param_from_repetitions(clear, "method");
  const double se = 1.2533 * 1.4826 * 20 / 3;
  EXPECT_DOUBLE_EQ(a.value, 400);
  EXPECT_NEAR(a.spread, 2 * 1.96 * se / 400, 1e-12);
  EXPECT_EQ(a.source.rfind("method; median of 9 repetitions 400.0 ns, standard error 12.4 ns", 0), 0u) << a.source;
  // Slopes of -40..47 ns around a median of 3: within two standard errors of 0, so 0 (spread 0).
  const std::vector<double> noise{3, 43, -4, -20, -25, 22, 12, 1, 15, -32, 26, 47, -40};
  const streamlab::model::Param b = ex::param_from_repetitions(noise, "slope");
  EXPECT_DOUBLE_EQ(b.value, 0);
  EXPECT_DOUBLE_EQ(b.spread, 0);
  EXPECT_NE(b.source.find("within two standard errors of 0, so not told apart from 0: value 0"), std::string::npos)
      << b.source;
  // The same spread over 100 times the repetitions is told apart: the standard error falls tenfold.
  std::vector<double> many;
  for (int k = 0; k < 100; ++k) many.insert(many.end(), noise.begin(), noise.end());
  EXPECT_DOUBLE_EQ(ex::param_from_repetitions(many, "slope").value, 3);
  // A negative median is never a cost.
  EXPECT_DOUBLE_EQ(ex::param_from_repetitions({-300, -310, -290}, "x").value, 0);
  EXPECT_NE(ex::param_from_repetitions({-300, -310, -290}, "x").source.find("not above 0"), std::string::npos);
  EXPECT_THROW((void)ex::param_from_repetitions({}, "x"), std::invalid_argument);
}

TEST(Calibrate, HostProbeMeasuresEveryHostCall) {
  if (streamlab::test::under_sanitizer()) GTEST_SKIP() << "calibration timing is meaningless under compute-sanitizer";
  const ex::HostProbe p = ex::probe_host({}, 0.2);
  EXPECT_GE(p.passes, 1);
  for (const auto& f : streamlab::model::device_profile_fields()) {
    if (!f.host_call) continue;
    const auto it = p.samples.find(std::string(f.name));
    ASSERT_NE(it, p.samples.end()) << f.name;
    ASSERT_EQ(it->second.size(), static_cast<std::size_t>(p.passes)) << f.name;
    for (double v : it->second) EXPECT_GT(v, 0.0) << f.name;
  }
  // Every pass adds one busy-queue slope and two queue-switch differences (finite; either sign).
  ASSERT_EQ(p.contention.at("kernel_launch_per_busy_queue_ns").size(), static_cast<std::size_t>(p.passes));
  ASSERT_EQ(p.contention.at("kernel_launch_queue_switch_ns").size(), 2 * static_cast<std::size_t>(p.passes));
  for (const auto& [name, v] : p.contention)
    for (double x : v) EXPECT_TRUE(std::isfinite(x)) << name;
  // The device-side gaps, the sync wake-up, the kernel start latency and the completion seen by a query,
  // once in the probe's process: positive and under 1 ms (the busy-queue slope and the traced launch
  // overhead, a difference of two host timings, may read either sign); the traced overhead only where
  // CUPTI is available.
  EXPECT_GE(p.per_process.size(), 7u);
  EXPECT_LE(p.per_process.size(), 8u);
  EXPECT_EQ(p.per_process.count("kernel_start_latency_ns"), 1u);
  EXPECT_EQ(p.per_process.count("completion_seen_ns"), 1u);
  for (const auto& [name, v] : p.per_process) {
    EXPECT_TRUE(std::isfinite(v)) << name;
    EXPECT_LT(std::abs(v), 1'000'000.0) << name;
    if (name != "same_stream_gap_per_busy_queue_ns" && name != "traced_launch_overhead_ns") {
      EXPECT_GT(v, 0.0) << name;
    }
  }
  // One launch into each of 64 streams: the first pass costs more than the second, by well under 100 us.
  EXPECT_TRUE(std::isfinite(p.stream_first_use_ns));
  EXPECT_LT(std::abs(p.stream_first_use_ns), 100'000.0);
  EXPECT_TRUE(std::isfinite(p.program_first_call_ns));
  EXPECT_LT(std::abs(p.program_first_call_ns), 1'000'000.0);
  if (p.connections >= 3) {
    ASSERT_TRUE(p.queue_first_use_ns.has_value());
    EXPECT_LT(std::abs(*p.queue_first_use_ns), 100'000.0);
  }
}

TEST(Calibrate, QuickProfileIsCompleteAndValid) {
  if (streamlab::test::under_sanitizer()) GTEST_SKIP() << "calibration timing is meaningless under compute-sanitizer";
  ex::CalibrationOptions o;
  o.quick = true;
  const streamlab::model::DeviceProfile p = ex::calibrate(o);
  const ex::DeviceInfo d = ex::query_device(0);
  EXPECT_EQ(p.name, d.name);
  EXPECT_EQ(p.sm_count.value, d.props.multiProcessorCount);
  EXPECT_EQ(p.cuda_version, d.cuda_runtime);
  for (const auto& f : streamlab::model::device_profile_fields()) {
    const auto& param = p.*(f.member);
    EXPECT_EQ(param.source.rfind("measured: streamlab calibrate on ", 0), 0u) << f.name << ": " << param.source;
  }
  // The model's strict parser accepts what calibrate writes.
  const auto round = streamlab::model::parse_device_profile(streamlab::model::device_profile_to_json(p), "<calibrated>");
  EXPECT_EQ(round.sm_count.value, p.sm_count.value);
  EXPECT_GT(p.h2d_pinned_gbps.value, 1.0);
  EXPECT_GT(p.kernel_launch_ns.value, 0.0);
  EXPECT_GE(p.max_resident_grids.value, 32.0);
  // Every host API call cost comes from samples of the host's speed: a median with its 5th-95th percentile.
  // The pageable copy rates, which the host's CPU sets, get the range of their rounds.
  for (const auto& f : streamlab::model::device_profile_fields()) {
    if (!f.host_call && !f.host_rate) continue;
    const auto& param = p.*(f.member);
    ASSERT_TRUE(param.range.has_value()) << f.name;
    EXPECT_LE(param.range->low, param.value) << f.name;
    EXPECT_GE(param.range->high, param.value) << f.name;
    if (f.host_call) {
      EXPECT_NE(param.source.find("samples of the host's speed"), std::string::npos) << f.name << ": " << param.source;
    }
  }
  EXPECT_EQ(round, p) << "ranges round-trip through JSON";
  EXPECT_NO_THROW((void)streamlab::model::at_host_speed(p, streamlab::model::HostSpeed::slow));
}
