#include "device_params.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <limits>
#include <string_view>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/input_limits.hpp"

namespace streamlab::sim::detail {
namespace {

// A number for a message: never cast to an integer first (1e300 printed as a negative 64-bit value).
std::string shown(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

class Reader {
 public:
  explicit Reader(const model::DeviceProfile& p) : p_(p) {}

  /// Whether an optional field is in the profile.
  bool has(std::string_view field) const { return find(field).present(); }
  double any(std::string_view field) const {
    const model::Param& param = find(field);
    if (!std::isfinite(param.value)) fail(field, "is not a finite number");
    return param.value;
  }
  /// A whole number in [lo, hi].
  std::int64_t integer(std::string_view field, std::int64_t lo, std::int64_t hi) const {
    const double v = any(field);
    if (v != std::floor(v)) fail(field, "must be a whole number, got " + shown(v));
    if (v < static_cast<double>(lo) || v > static_cast<double>(hi))
      fail(field, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                      shown(v));
    return static_cast<std::int64_t>(v);
  }
  /// A duration in ns, in [0, kMaxProfileNs] as the profile reader requires (anything larger is a unit
  /// mistake). Measured profiles carry fractions (means of many samples); the model's clock is integer
  /// ns, so they round to the nearest.
  Nanos ns(std::string_view field) const {
    const double v = any(field);
    if (v < 0 || v > model::kMaxProfileNs) fail(field, "must be in [0, 1e10] ns, got " + shown(v));
    return static_cast<Nanos>(std::llround(v));
  }
  /// A fractional per-warp time in [0, 1e6] ns (not rounded: it is multiplied by a warp count first).
  double per_warp(std::string_view field) const {
    const double v = any(field);
    if (v < 0 || v > model::kMaxProfileNsPerWarp) fail(field, "must be in [0, 1e6] ns per warp, got " + shown(v));
    return v;
  }
  /// A rate in [kMinProfileRate, kMaxProfileRate], as the profile reader requires.
  double positive(std::string_view field) const {
    const double v = any(field);
    if (!(v >= model::kMinProfileRate && v <= model::kMaxProfileRate))
      fail(field, "must be in [0.01, 1e9], got " + shown(v));
    return v;
  }
  /// A ratio in (0, 1].
  double ratio(std::string_view field) const {
    const double v = any(field);
    if (!(v > 0 && v <= 1)) fail(field, "must be in (0, 1], got " + shown(v));
    return v;
  }
  [[noreturn]] void fail(std::string_view field, const std::string& why) const {
    const std::string& file = !p_.source.path.empty() ? p_.source.path : !p_.name.empty() ? p_.name : kUnnamed;
    throw model::InputError(file, "/params/" + std::string(field), "",
                            "device profile field '" + std::string(field) + "' " + why);
  }

 private:
  const model::Param& find(std::string_view field) const {
    for (const model::ParamField& f : model::device_profile_fields())
      if (f.name == field) return p_.*(f.member);
    fail(field, "is not a known field");
  }
  const model::DeviceProfile& p_;
  inline static const std::string kUnnamed = "<device profile>";
};

}  // namespace

Nanos ceil_ns(double x) noexcept {
  if (!(x > 0)) return 0;
  const double r = std::nearbyint(x);
  // Within a relative 1e-9 of a whole number: that number (floating-point noise, not time).
  if (std::abs(x - r) <= 1e-9 * std::max(1.0, x)) return static_cast<Nanos>(r);
  return static_cast<Nanos>(std::ceil(x));
}

namespace {
/// y0 up to x0, y1 from x1 on, linear in between (y0 everywhere when x1 <= x0).
double ramp(double x, double x0, double x1, double y0, double y1) noexcept {
  if (!(x1 > x0) || x <= x0) return y0;
  if (x >= x1) return y1;
  return y0 + (x - x0) / (x1 - x0) * (y1 - y0);
}
}  // namespace

double dispatch_per_warp_at(const DeviceParams& p, double block_ns) noexcept {
  return ramp(block_ns, static_cast<double>(p.dispatch_short_block), static_cast<double>(p.dispatch_long_block),
              p.block_dispatch_per_warp_ns, p.block_dispatch_per_warp_long_ns);
}

double launch_rate_at(const DeviceParams& p, double fill) noexcept {
  return ramp(fill, 0.5, 1.0, p.warp_launch_half_fill_ns, p.warp_launch_ns);
}

DeviceParams derive_params(const model::DeviceProfile& p) {
  const Reader r(p);
  constexpr std::int64_t kBig = std::numeric_limits<std::int32_t>::max();
  DeviceParams d;
  d.sm_count = static_cast<std::uint32_t>(r.integer("sm_count", 1, 100'000));
  d.threads_per_sm = static_cast<std::int32_t>(r.integer("max_threads_per_sm", 32, kBig));
  d.blocks_per_sm = static_cast<std::int32_t>(r.integer("max_blocks_per_sm", 1, kBig));
  d.registers_per_sm = static_cast<std::int32_t>(r.integer("registers_per_sm", 1, kBig));
  d.smem_per_sm = static_cast<std::int32_t>(r.integer("shared_mem_per_sm_bytes", 0, kBig));
  d.smem_per_block_max = static_cast<std::int32_t>(r.integer("max_shared_mem_per_block_bytes", 0, kBig));
  if (d.smem_per_block_max > d.smem_per_sm)
    r.fail("max_shared_mem_per_block_bytes", "must not exceed shared_mem_per_sm_bytes");
  d.smem_reserved_per_block = d.smem_per_sm - d.smem_per_block_max;
  d.threads_per_block_max = static_cast<std::int32_t>(r.integer("max_threads_per_block", 1, kBig));
  // The carveout: all seven fields or none.
  const auto rows = model::carveout_fields();
  d.carveout = r.has("shared_mem_alloc_unit_bytes");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (r.has(rows[i].name) != d.carveout)
      r.fail(rows[i].name, d.carveout ? "is missing: the carveout needs shared_mem_alloc_unit_bytes and all six carveout_*_threads_bytes"
                                       : "needs shared_mem_alloc_unit_bytes (the carveout is all seven fields or none)");
    if (d.carveout)
      d.carveout_by_threads[i] = static_cast<std::int32_t>(r.integer(rows[i].name, 1, d.smem_per_sm));
  }
  if (d.carveout) d.smem_alloc_unit = static_cast<std::int32_t>(r.integer("shared_mem_alloc_unit_bytes", 1, 65536));
  d.max_resident_grids = static_cast<std::uint32_t>(r.integer("max_resident_grids", 1, 1'000'000));
  d.connections = static_cast<std::uint32_t>(r.integer("connections", 1, 32));
  d.priority_least = static_cast<int>(r.integer("priority_least", -1000, 1000));
  d.priority_greatest = static_cast<int>(r.integer("priority_greatest", -1000, 1000));
  if (d.priority_greatest > d.priority_least)
    r.fail("priority_greatest", "must be <= priority_least (CUDA: lower number = higher priority)");

  d.kernel_launch = r.ns("kernel_launch_ns");
  d.memcpy_issue = r.ns("memcpy_async_issue_ns");
  d.event_create = r.ns("event_create_ns");
  d.record_timed = r.ns("event_record_timed_ns");
  d.record_untimed = r.ns("event_record_untimed_ns");
  d.event_query = r.ns("event_query_ns");
  d.stream_query = r.ns("stream_query_ns");
  d.stream_wait = r.ns("stream_wait_event_ns");
  d.host_func_issue = r.ns("host_func_issue_ns");
  d.stream_first_use = r.ns("stream_first_use_ns");
  if (r.has("first_call_after_sync_ns")) d.first_call_after_sync = r.ns("first_call_after_sync_ns");
  if (r.has("kernel_launch_per_busy_queue_ns"))
    d.kernel_launch_per_busy_queue = r.ns("kernel_launch_per_busy_queue_ns");
  if (r.has("kernel_launch_queue_switch_ns")) d.kernel_launch_queue_switch = r.ns("kernel_launch_queue_switch_ns");
  if (r.has("queue_first_use_ns")) d.queue_first_use = r.ns("queue_first_use_ns");
  if (r.has("program_first_call_ns")) d.program_first_call = r.ns("program_first_call_ns");
  if (r.has("completion_seen_ns")) d.completion_seen = r.ns("completion_seen_ns");
  if (r.has("event_destroy_ns")) d.event_destroy = r.ns("event_destroy_ns");
  d.sync_wakeup = r.ns("sync_wakeup_ns");
  d.host_func_roundtrip = r.ns("host_func_roundtrip_ns");
  d.kernel_start_latency = r.ns("kernel_start_latency_ns");
  d.block_dispatch = r.ns("block_dispatch_ns");
  d.event_wait_latency = r.ns("event_wait_latency_ns");
  d.warp_launch_ns = r.per_warp("warp_launch_ns");
  d.warp_launch_half_fill_ns = d.warp_launch_ns;  // untraced: one rate measured
  d.block_dispatch_per_warp_ns = r.per_warp("block_dispatch_per_warp_ns");
  d.block_dispatch_per_warp_long_ns = d.block_dispatch_per_warp_ns;  // untraced: no growth measured
  d.same_stream_gap = r.ns("same_stream_gap_ns");
  if (r.has("same_stream_gap_per_busy_queue_ns")) d.same_stream_gap_per_busy_queue = r.ns("same_stream_gap_per_busy_queue_ns");
  d.task_fetch = r.ns("task_fetch_ns");
  d.traced_launch_overhead = r.ns("traced_launch_overhead_ns");
  if (r.has("traced_copy_record_ns")) d.traced_copy_record = r.ns("traced_copy_record_ns");
  if (r.has("traced_copy_issue_overhead_ns")) d.traced_copy_issue_overhead = r.ns("traced_copy_issue_overhead_ns");
  d.traced_warp_launch_ns = r.per_warp("traced_warp_launch_ns");
  d.traced_block_dispatch_per_warp_ns = r.per_warp("traced_block_dispatch_per_warp_ns");
  d.traced_block_dispatch_per_warp_long_ns = r.per_warp("traced_block_dispatch_per_warp_long_ns");
  d.traced_dispatch_short_block = r.ns("traced_dispatch_short_block_ns");
  d.traced_dispatch_long_block = r.ns("traced_dispatch_long_block_ns");
  d.traced_warp_launch_half_fill_ns = r.per_warp("traced_warp_launch_half_fill_ns");
  d.traced_span_pad = r.ns("traced_span_pad_ns");
  d.traced_same_stream_gap = r.ns("traced_same_stream_gap_ns");
  if (d.traced_dispatch_long_block < d.traced_dispatch_short_block)
    r.fail("traced_dispatch_long_block_ns", "must be >= traced_dispatch_short_block_ns");

  d.copy_engines = static_cast<std::uint32_t>(r.integer("copy_engines", 1, 64));
  d.h2d_latency = r.ns("h2d_latency_ns");
  d.h2d_pinned = r.positive("h2d_pinned_gbps");
  d.h2d_pageable = r.positive("h2d_pageable_gbps");
  d.d2h_latency = r.ns("d2h_latency_ns");
  d.d2h_pinned = r.positive("d2h_pinned_gbps");
  d.d2h_pageable = r.positive("d2h_pageable_gbps");
  d.d2d_latency = r.ns("d2d_latency_ns");
  d.d2d = r.positive("d2d_gbps");
  d.bidirectional_factor[0] = r.ratio(r.has("h2d_bidirectional_streaming_factor") ? "h2d_bidirectional_streaming_factor"
                                                                                 : "h2d_bidirectional_factor");
  d.bidirectional_factor[1] = r.ratio(r.has("d2h_bidirectional_streaming_factor") ? "d2h_bidirectional_streaming_factor"
                                                                                 : "d2h_bidirectional_factor");
  d.memset = r.positive("memset_gbps");
  d.dram_bytes_per_ns = r.positive("dram_gbps");
  d.fp32_flops_per_ns = r.positive("fp32_gflops");
  return d;
}

}  // namespace streamlab::sim::detail
