// The table of DeviceProfile's parameters: JSON I/O and validation iterate it, so adding a field is one
// line here plus the member in device_profile.hpp (and a value in model/profiles/h100-sxm.json).
#include <array>

#include "streamlab/model/device_profile.hpp"

namespace streamlab::model {

std::span<const ParamField> device_profile_fields() noexcept {
  static const std::array kFields{
      ParamField{"sm_count", "count", &DeviceProfile::sm_count},
      ParamField{"max_threads_per_sm", "threads", &DeviceProfile::max_threads_per_sm},
      ParamField{"max_blocks_per_sm", "blocks", &DeviceProfile::max_blocks_per_sm},
      ParamField{"registers_per_sm", "registers", &DeviceProfile::registers_per_sm},
      ParamField{"shared_mem_per_sm_bytes", "bytes", &DeviceProfile::shared_mem_per_sm_bytes},
      ParamField{"max_shared_mem_per_block_bytes", "bytes", &DeviceProfile::max_shared_mem_per_block_bytes},
      ParamField{"max_threads_per_block", "threads", &DeviceProfile::max_threads_per_block},
      ParamField{"max_resident_grids", "grids", &DeviceProfile::max_resident_grids},
      ParamField{"connections", "queues", &DeviceProfile::connections},
      ParamField{"priority_least", "priority", &DeviceProfile::priority_least},
      ParamField{"priority_greatest", "priority", &DeviceProfile::priority_greatest},
      ParamField{"kernel_launch_ns", "ns", &DeviceProfile::kernel_launch_ns, true},
      ParamField{"memcpy_async_issue_ns", "ns", &DeviceProfile::memcpy_async_issue_ns, true},
      ParamField{"event_create_ns", "ns", &DeviceProfile::event_create_ns, true},
      ParamField{"event_record_timed_ns", "ns", &DeviceProfile::event_record_timed_ns, true},
      ParamField{"event_record_untimed_ns", "ns", &DeviceProfile::event_record_untimed_ns, true},
      ParamField{"event_query_ns", "ns", &DeviceProfile::event_query_ns, true},
      ParamField{"stream_query_ns", "ns", &DeviceProfile::stream_query_ns, true},
      ParamField{"stream_wait_event_ns", "ns", &DeviceProfile::stream_wait_event_ns, true},
      ParamField{"host_func_issue_ns", "ns", &DeviceProfile::host_func_issue_ns, true},
      ParamField{"stream_first_use_ns", "ns", &DeviceProfile::stream_first_use_ns, false, false, false, false, true},
      ParamField{"sync_wakeup_ns", "ns", &DeviceProfile::sync_wakeup_ns},
      ParamField{"host_func_roundtrip_ns", "ns", &DeviceProfile::host_func_roundtrip_ns},
      ParamField{"kernel_start_latency_ns", "ns", &DeviceProfile::kernel_start_latency_ns},
      ParamField{"block_dispatch_ns", "ns", &DeviceProfile::block_dispatch_ns},
      ParamField{"event_wait_latency_ns", "ns", &DeviceProfile::event_wait_latency_ns},
      ParamField{"copy_engines", "engines", &DeviceProfile::copy_engines},
      ParamField{"h2d_latency_ns", "ns", &DeviceProfile::h2d_latency_ns},
      ParamField{"h2d_pinned_gbps", "GB/s", &DeviceProfile::h2d_pinned_gbps},
      ParamField{"h2d_pageable_gbps", "GB/s", &DeviceProfile::h2d_pageable_gbps, false, true},
      ParamField{"d2h_latency_ns", "ns", &DeviceProfile::d2h_latency_ns},
      ParamField{"d2h_pinned_gbps", "GB/s", &DeviceProfile::d2h_pinned_gbps},
      ParamField{"d2h_pageable_gbps", "GB/s", &DeviceProfile::d2h_pageable_gbps, false, true},
      ParamField{"d2d_latency_ns", "ns", &DeviceProfile::d2d_latency_ns},
      ParamField{"d2d_gbps", "GB/s", &DeviceProfile::d2d_gbps},
      ParamField{"h2d_bidirectional_factor", "ratio", &DeviceProfile::h2d_bidirectional_factor, false, false, false, true},
      ParamField{"d2h_bidirectional_factor", "ratio", &DeviceProfile::d2h_bidirectional_factor, false, false, false, true},
      ParamField{"memset_gbps", "GB/s", &DeviceProfile::memset_gbps},
      ParamField{"dram_gbps", "GB/s", &DeviceProfile::dram_gbps},
      ParamField{"fp32_gflops", "GFLOP/s", &DeviceProfile::fp32_gflops},
      ParamField{"warp_launch_ns", "ns/warp", &DeviceProfile::warp_launch_ns},
      ParamField{"same_stream_gap_ns", "ns", &DeviceProfile::same_stream_gap_ns},
      ParamField{"task_fetch_ns", "ns", &DeviceProfile::task_fetch_ns},
      ParamField{"block_dispatch_per_warp_ns", "ns/warp", &DeviceProfile::block_dispatch_per_warp_ns},
      ParamField{"traced_launch_overhead_ns", "ns", &DeviceProfile::traced_launch_overhead_ns, false, false, false, false, true},
      ParamField{"traced_warp_launch_ns", "ns/warp", &DeviceProfile::traced_warp_launch_ns},
      ParamField{"traced_block_dispatch_per_warp_ns", "ns/warp", &DeviceProfile::traced_block_dispatch_per_warp_ns},
      ParamField{"traced_block_dispatch_per_warp_long_ns", "ns/warp", &DeviceProfile::traced_block_dispatch_per_warp_long_ns},
      ParamField{"traced_dispatch_short_block_ns", "ns", &DeviceProfile::traced_dispatch_short_block_ns},
      ParamField{"traced_dispatch_long_block_ns", "ns", &DeviceProfile::traced_dispatch_long_block_ns},
      ParamField{"traced_warp_launch_half_fill_ns", "ns/warp", &DeviceProfile::traced_warp_launch_half_fill_ns},
      ParamField{"traced_span_pad_ns", "ns", &DeviceProfile::traced_span_pad_ns},
      ParamField{"traced_same_stream_gap_ns", "ns", &DeviceProfile::traced_same_stream_gap_ns},
      ParamField{"cupti_kernel_pad_ns", "ns", &DeviceProfile::cupti_kernel_pad_ns, false, false, true},
      ParamField{"same_stream_gap_per_busy_queue_ns", "ns", &DeviceProfile::same_stream_gap_per_busy_queue_ns, false, false, true},
      ParamField{"first_call_after_sync_ns", "ns", &DeviceProfile::first_call_after_sync_ns, false, false, true, false, true},
      ParamField{"kernel_launch_per_busy_queue_ns", "ns", &DeviceProfile::kernel_launch_per_busy_queue_ns, false, false, true, false, true},
      ParamField{"kernel_launch_queue_switch_ns", "ns", &DeviceProfile::kernel_launch_queue_switch_ns, false, false, true, false, true},
      ParamField{"queue_first_use_ns", "ns", &DeviceProfile::queue_first_use_ns, false, false, true, false, true},
      ParamField{"program_first_call_ns", "ns", &DeviceProfile::program_first_call_ns, false, false, true, false, true},
      ParamField{"completion_seen_ns", "ns", &DeviceProfile::completion_seen_ns, false, false, true},
      ParamField{"event_destroy_ns", "ns", &DeviceProfile::event_destroy_ns, true, false, true},
      ParamField{"h2d_bidirectional_streaming_factor", "ratio", &DeviceProfile::h2d_bidirectional_streaming_factor, false, false, true, true},
      ParamField{"d2h_bidirectional_streaming_factor", "ratio", &DeviceProfile::d2h_bidirectional_streaming_factor, false, false, true, true},
      ParamField{"traced_copy_record_ns", "ns", &DeviceProfile::traced_copy_record_ns, false, false, true},
      ParamField{"traced_copy_issue_overhead_ns", "ns", &DeviceProfile::traced_copy_issue_overhead_ns, false, false, true},
      ParamField{"shared_mem_alloc_unit_bytes", "bytes", &DeviceProfile::shared_mem_alloc_unit_bytes, false, false, true},
      ParamField{"carveout_32_threads_bytes", "bytes", &DeviceProfile::carveout_32_threads_bytes, false, false, true},
      ParamField{"carveout_64_threads_bytes", "bytes", &DeviceProfile::carveout_64_threads_bytes, false, false, true},
      ParamField{"carveout_128_threads_bytes", "bytes", &DeviceProfile::carveout_128_threads_bytes, false, false, true},
      ParamField{"carveout_256_threads_bytes", "bytes", &DeviceProfile::carveout_256_threads_bytes, false, false, true},
      ParamField{"carveout_512_threads_bytes", "bytes", &DeviceProfile::carveout_512_threads_bytes, false, false, true},
      ParamField{"carveout_1024_threads_bytes", "bytes", &DeviceProfile::carveout_1024_threads_bytes, false, false, true},
  };
  return kFields;
}

std::span<const ParamField> carveout_fields() noexcept {
  static const std::span<const ParamField> rows = [] {
    const auto all = device_profile_fields();
    std::size_t first = 0;
    while (all[first].name != "carveout_32_threads_bytes") ++first;
    return all.subspan(first, 6);
  }();
  return rows;
}

}  // namespace streamlab::model
