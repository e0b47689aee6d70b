#pragma once
/// \file device_profile.hpp
/// Measured (or, until calibrated, published) parameters of one GPU, each with its unit and source.
/// `streamlab calibrate` writes it on a real GPU; the simulator reads it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamlab/model/workload.hpp"

namespace streamlab::model {

/// One number of the profile with the provenance a researcher needs to trust it.
struct Param {
  double value = 0;
  std::string source;  ///< e.g. "measured: calibrate 2026-11-21" or "public: H100 whitepaper"
  /// How much the value moved over calibrate's repeated rounds: (max - min) / |median| of the rounds'
  /// values (0 = every round read the same); negative = not measured in rounds (optional in JSON).
  double spread = -1;
  /// Where repeated measurements fell, for a parameter the machine itself moves from run to run: host API
  /// costs follow the host's speed, which on a shared or virtual machine changes for seconds at a time.
  /// `streamlab calibrate` writes the 5th and 95th percentile of its samples (optional in JSON as
  /// "range": [low, high], low <= value <= high). Predictions of a fast or slow host use the ends
  /// (at_host_speed).
  struct Range {
    double low = 0;
    double high = 0;
    friend bool operator==(const Range&, const Range&) = default;
  };
  std::optional<Range> range = std::nullopt;
  /// False only for an optional parameter (ParamField::optional) that the profile does not have: it has
  /// no source then. Required parameters always have one.
  [[nodiscard]] bool present() const noexcept { return !source.empty(); }
  friend bool operator==(const Param&, const Param&) = default;
};

/// Device parameters. Every field but the optional ones (ParamField::optional) is required in the JSON; a
/// missing or invalid one is an InputError naming it. Units are in the field names.
struct DeviceProfile {
  std::string name;          ///< e.g. "NVIDIA H100 80GB HBM3"
  std::string driver;        ///< driver version, where measured
  std::string cuda_version;  ///< runtime version, where measured
  std::string date;          ///< when it was made
  /// The file it was read from, for errors (not written to JSON, and not part of the profile's value:
  /// two profiles with the same parameters compare equal whatever file they came from).
  struct Source {
    std::string path;
    friend bool operator==(const Source&, const Source&) noexcept { return true; }
  } source;

  // SMs and occupancy limits.
  Param sm_count;
  Param max_threads_per_sm;
  Param max_blocks_per_sm;
  Param registers_per_sm;
  Param shared_mem_per_sm_bytes;
  Param max_shared_mem_per_block_bytes;
  Param max_threads_per_block;
  Param max_resident_grids;
  Param connections;  ///< CUDA_DEVICE_MAX_CONNECTIONS default
  Param priority_least;     ///< numerically largest (lowest) stream priority, 0
  Param priority_greatest;  ///< numerically smallest (highest), -5 on H100

  // Host API costs (host time per call), ns.
  Param kernel_launch_ns;
  Param memcpy_async_issue_ns;
  Param event_create_ns;
  Param event_record_timed_ns;
  Param event_record_untimed_ns;
  Param event_query_ns;
  Param stream_query_ns;
  Param stream_wait_event_ns;
  Param host_func_issue_ns;
  /// Extra host time of the first call that puts work into a newly created stream (the driver binds the
  /// stream to a hardware queue lazily); charged once per stream on top of that call's own cost.
  Param stream_first_use_ns;
  Param sync_wakeup_ns;           ///< blocking synchronize: device done -> host thread running again
  Param host_func_roundtrip_ns;   ///< device reaches the host func -> it runs -> stream continues

  // Device-side latencies, ns.
  Param kernel_start_latency_ns;  ///< launch call returned -> first block running, idle device
  Param block_dispatch_ns;        ///< gap between a block finishing and the next one starting on its SM
  Param event_wait_latency_ns;    ///< event complete -> waiting stream's next op may start

  // Copy engines.
  Param copy_engines;             ///< async copy engines
  Param h2d_latency_ns;
  Param h2d_pinned_gbps;          ///< GB/s = bytes per ns
  Param h2d_pageable_gbps;
  Param d2h_latency_ns;
  Param d2h_pinned_gbps;
  Param d2h_pageable_gbps;
  Param d2d_latency_ns;
  Param d2d_gbps;
  /// This direction's copy rate while the opposite direction's engine also runs / its rate alone, in
  /// (0, 1]. Two fields because PCIe loads the directions unevenly: an H2D is the GPU's DMA reads of host
  /// memory, whose read requests go GPU -> host behind the D2H's write data, while D2H writes are posted and
  /// wait for nothing coming back; so H2D usually slows more.
  Param h2d_bidirectional_factor;
  Param d2h_bidirectional_factor;  ///< as h2d_bidirectional_factor, for D2H under a concurrent H2D
  Param memset_gbps;

  // Cost model for CostModel durations (per whole device).
  Param dram_gbps;
  Param fp32_gflops;

  // Added after the first H100 comparison (experiments/REPORT.md): the effects the first fields missed.
  /// Work distributor's device-wide launch time per warp: a block starts no earlier than the warps of every
  /// block launched before it have gone out, so a grid ramps up over (its warps x this). Fractional.
  Param warp_launch_ns;
  /// Gap between a device op's end and the start of the next device op of the same stream that was
  /// already waiting for it (kernel/copy/memset back to back in one stream).
  Param same_stream_gap_ns;
  /// Extra time per task of a dynamic task pool (the shared atomic counter fetch), over a static pool.
  Param task_fetch_ns;
  /// Block replacement gap's growth per warp of the block: a block placed into room freed by a finishing
  /// block starts block_dispatch_ns + warps x this later. Fractional.
  Param block_dispatch_per_warp_ns;
  /// Extra host time per kernel launch (+ its event record) while CUPTI activity tracing is on, as in
  /// measured runs; the simulator charges it only for predictions of traced runs (SimOptions::traced).
  Param traced_launch_overhead_ns;
  /// With CUPTI activity tracing on (what a measured run includes): the work distributor's launch time per
  /// warp and the extra block-replacement time per warp, which tracing makes much larger for big blocks.
  Param traced_warp_launch_ns;
  /// Traced block replacement per warp grows with the block's run time (the kernel ends with its slowest
  /// slot, and longer blocks spread more): measured for blocks of traced_dispatch_short_block_ns and
  /// traced_dispatch_long_block_ns; a kernel gets the value at its mean block time, linear in between and
  /// the nearer end's value outside.
  Param traced_block_dispatch_per_warp_ns;       ///< at traced_dispatch_short_block_ns
  Param traced_block_dispatch_per_warp_long_ns;  ///< at traced_dispatch_long_block_ns
  Param traced_dispatch_short_block_ns;
  Param traced_dispatch_long_block_ns;
  /// Traced warp launch time per warp for a grid whose first wave fills at most half of every SM's thread
  /// slots (traced_warp_launch_ns is the full-wave value). With tracing on, a first wave that fills the SMs
  /// starts some of its blocks many microseconds late; a half-full one starts them all at once. The
  /// simulator interpolates linearly in the wave's fill between one half and one.
  Param traced_warp_launch_half_fill_ns;
  /// CUPTI's kernel span minus the kernel's own span (first block start to last block end, %globaltimer):
  /// a traced kernel's record opens before its first block and closes after its last. The simulator widens
  /// a traced kernel's reported span by it, before its first block (its end stays the completion the host
  /// and later work see); device timing is not changed.
  Param traced_span_pad_ns;
  /// same_stream_gap_ns measured with CUPTI tracing on (the simulator's traced runs use it instead).
  Param traced_same_stream_gap_ns;
  /// Optional: CUPTI's kernel activity record span minus the kernel's own span, with kernel records on
  /// (traced_span_pad_ns is 0 where the executor takes kernel spans from the blocks themselves). Importers
  /// of profiler traces (CUPTI kernel records) take a kernel's blocks from its span less this pad; absent,
  /// they use traced_span_pad_ns (profiles from before the two were told apart).
  Param cupti_kernel_pad_ns;
  /// Optional: how much longer same_stream_gap_ns gets for every other hardware queue (connection) that
  /// holds work when a device op ends: the GPU's front end serves the queues in turn, so a stream's next
  /// op starts later the more queues are busy. Absent (older profiles): 0.
  Param same_stream_gap_per_busy_queue_ns;
  /// Optional: extra host time of the first API call after the host waited for the device (a synchronize
  /// returned), and of a program's first call (programs start after their set-up's synchronize): it costs
  /// several microseconds more than the same call a moment later. Absent (older profiles): 0.
  Param first_call_after_sync_ns;
  /// Optional: extra host time of a kernel launch for every other hardware queue (connection) that has a
  /// stream with unfinished work when the call is made: the driver's launch costs more the more queues
  /// are active. Absent (older profiles): 0.
  Param kernel_launch_per_busy_queue_ns;
  /// Optional: extra host time of a kernel launch into another hardware queue than the previous launch's
  /// while other queues have unfinished work (launches rotating over streams with kernels in flight cost
  /// more than launches into one stream). Absent (older profiles): 0.
  Param kernel_launch_queue_switch_ns;
  /// Optional: extra host time of the first call that puts work into a stream whose hardware queue
  /// (connection) has had no work yet in the process, on top of stream_first_use_ns: the driver sets the
  /// queue up then. A process's streams take the queues in the order they are made, the first after the
  /// legacy NULL stream's, so with N connections the first N - 1 streams each open one. Absent: 0.
  Param queue_first_use_ns;
  /// Optional: extra host time of a fresh process's first call that issues work, after its set-up ended
  /// with a synchronize, beyond what that call pays as a first use of its stream and queue. It replaces
  /// first_call_after_sync_ns for that one call. Absent: the first call pays first_call_after_sync_ns.
  Param program_first_call_ns;
  /// Optional: how long after a device op's last work ends the host's queries see it complete
  /// (cudaEventQuery of an event recorded after it, cudaStreamQuery of its stream return cudaSuccess from
  /// then on): the GPU's front end and the completion write to the host take this long. Absent: 0 (a
  /// query sees the op complete as soon as it ends).
  Param completion_seen_ns;
  /// Optional: host time of one cudaEventDestroy of an event that has completed (a host API cost like
  /// event_create_ns, sampled with them over the host's speed). Absent: 0.
  Param event_destroy_ns;
  /// Optional: the bidirectional factors for copies streamed in chunks (several MiB back to back on each
  /// side, as chunked copy/compute programs issue them): the rate while the other direction's engine runs
  /// over the rate alone. They move from run to run (range over calibrate's runs). The simulator takes them
  /// in place of h2d_/d2h_bidirectional_factor where present.
  Param h2d_bidirectional_streaming_factor;
  Param d2h_bidirectional_streaming_factor;
  /// Optional, for runs traced with CUPTI's copy and memset activity records (streamlab run's default):
  /// the copy engine's extra time per copy or memset (the record's timestamp write after the transfer,
  /// which the stream's next op waits for), and the host's extra time per copy or memset call. Absent: 0.
  Param traced_copy_record_ns;
  Param traced_copy_issue_overhead_ns;

  // Optional: the shared-memory carveout (profiles from before it was measured have none, and the
  // simulator then lets any kernel share an SM that has room). An SM's L1/shared storage is split by a
  // configuration the first kernel placed on an idle SM sets; another kernel's block starts on an SM
  // that runs blocks only when its own full-occupancy shared-memory need fits that configuration.
  /// Granularity of a block's shared memory (static + dynamic, rounded up to it, plus the per-block
  /// reservation).
  Param shared_mem_alloc_unit_bytes;
  /// The configuration a running grid of 32 / 64 / ... / 1024-thread blocks without shared memory leaves
  /// on its SMs: the largest per-SM need of another kernel that still starts beside it.
  Param carveout_32_threads_bytes;
  Param carveout_64_threads_bytes;
  Param carveout_128_threads_bytes;
  Param carveout_256_threads_bytes;
  Param carveout_512_threads_bytes;
  Param carveout_1024_threads_bytes;

  friend bool operator==(const DeviceProfile&, const DeviceProfile&) = default;
};

/// Name and member of every Param field, in file order; JSON I/O and validation iterate it.
struct ParamField {
  std::string_view name;
  std::string_view unit;
  Param DeviceProfile::*member;
  /// A host API call's own cost, measured as batches of that call on the host clock: it follows the
  /// host's speed (calibrate samples it over time; at_host_speed moves it to its range's ends).
  bool host_call = false;
  /// A rate the host's CPU sets (pageable copies go through the CPU's copy into staging buffers): lower
  /// on a slow host. at_host_speed moves it to its range's ends too (slow = low).
  bool host_rate = false;
  /// May be absent from a profile (Param::present() false): measured only by newer calibrations.
  bool optional = false;
  /// A device-side ratio that moves from run to run on its own (how the two copy directions share the
  /// link): calibrate stores the range of its runs, and at_host_speed moves it with the host-set rates
  /// (fast = high) where it has one.
  bool run_to_run = false;
  /// An extra host cost of a kernel launch, measured as the difference of two launch timings (a switch
  /// of hardware queue, busy queues, a stream's or queue's first use, tracing): the same driver path
  /// on the same CPU, so at_host_speed scales it by the factor it moves kernel_launch_ns.
  bool launch_extra = false;
};
[[nodiscard]] std::span<const ParamField> device_profile_fields() noexcept;
/// The six carveout_*_threads_bytes fields, row i for blocks of 32 << i threads.
[[nodiscard]] std::span<const ParamField> carveout_fields() noexcept;

/// Strict parse: unknown keys, a missing field, a wrong type or a value out of range throw InputError
/// naming the field. JSON shape: {"format_version":1,"name":..,"params":{"sm_count":{"value":132,
/// "unit":"count","source":"..","spread":0.01},..}} ("spread" optional, see Param).
[[nodiscard]] DeviceProfile parse_device_profile(std::string_view json_text, const std::string& source);
[[nodiscard]] DeviceProfile load_device_profile(const std::filesystem::path& file);
[[nodiscard]] std::string device_profile_to_json(const DeviceProfile& p);
void save_device_profile(const DeviceProfile& p, const std::filesystem::path& file);

/// The kernel-shape limits of this device, for validating workloads against it (parse_workload's
/// `limits`); limits the profile does not carry (block z, grid size, registers per thread) keep CUDA's.
[[nodiscard]] ShapeLimits shape_limits(const DeviceProfile& p);

/// Which host a prediction is for, as a position in the ranges calibrate measured: 0 the typical host
/// (each parameter's value), -1 a fast spell (the host-call parameters at the low end of their range), +1
/// a slow one (the high end); in between, each parameter moves that fraction of the way from its value to
/// the end. The simulator is not monotonic in the host's speed (a dynamic policy places work by when it
/// sees completions), so a predicted range samples positions between the ends too.
struct HostSpeed {
  double position = 0;  ///< -1 (fast end) .. 0 (typical) .. +1 (slow end)
  static const HostSpeed typical, fast, slow;
  friend bool operator==(HostSpeed, HostSpeed) = default;
};
inline constexpr HostSpeed HostSpeed::typical{0.0};
inline constexpr HostSpeed HostSpeed::fast{-1.0};
inline constexpr HostSpeed HostSpeed::slow{1.0};
/// "typical", "fast", "slow", or the position (e.g. "-0.333").
[[nodiscard]] std::string to_string(HostSpeed s);
/// Parses to_string's forms (a position must lie in [-1, 1]); nullopt for anything else.
[[nodiscard]] std::optional<HostSpeed> parse_host_speed(std::string_view text);

/// `p` with every host-call cost (ParamField::host_call) moved toward its range's low end (fast, position
/// < 0) or high end (slow, > 0) by |position| of the way, and every host-set rate (ParamField::host_rate)
/// toward the other end; the run-to-run ratios (ParamField::run_to_run) follow the rates where they have a
/// range; a launch's extras (ParamField::launch_extra) move by kernel_launch_ns's factor; `typical` returns
/// `p` unchanged. Throws InputError naming the profile and the parameter when one of them has no
/// measured range (profiles from before calibrate sampled the host's speed).
[[nodiscard]] DeviceProfile at_host_speed(const DeviceProfile& p, HostSpeed speed);

/// A parameter measured as many samples of a quantity the machine itself moves: value = the median
/// sample, range = the 5th..95th percentile (linear between ranks), spread = (high - low) / value.
/// `samples` must not be empty.
[[nodiscard]] Param param_from_samples(std::vector<double> samples, std::string source);

/// The pad of CUPTI's kernel activity records (what an imported profiler trace's kernel spans carry):
/// cupti_kernel_pad_ns where the profile has it, else traced_span_pad_ns (older profiles measured the
/// pad with kernel records on under that name).
[[nodiscard]] double cupti_kernel_pad_ns(const DeviceProfile& p) noexcept;

/// The bundled H100 SXM profile (model/profiles/h100-sxm.json, baked in at build time).
[[nodiscard]] DeviceProfile bundled_h100_profile();

}  // namespace streamlab::model
