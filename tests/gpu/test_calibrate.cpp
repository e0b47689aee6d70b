// Calibration: the least-squares fit, and a quick calibration whose profile passes the model's checks.
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "streamlab/executor/calibrate.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/model/device_profile.hpp"

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
