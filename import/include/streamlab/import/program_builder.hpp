#pragma once
/// \file program_builder.hpp
/// Turns a Capture into a program workload (the host's calls in issue order, each on its stream) and the
/// trace's own GPU timeline in streamlab's trace format.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "streamlab/import/capture.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::import {

/// What an op's host_gap_ns holds.
enum class HostGaps : std::uint8_t {
  /// The program's own time: this call's start minus the previous call's return.
  own,
  /// Replay timing: this call's start minus the previous call's start minus the host cost the device
  /// profile charges for the previous call, so a replay issues each call when the trace did (the traced
  /// calls' extra time, e.g. a profiler's, stays in the program). After a blocking call: as `own`.
  trace_timing,
};

/// How a kernel's measured span becomes its block time.
enum class KernelTime : std::uint8_t {
  /// (span - pad) / waves, with the wait for SM room that earlier kernels held taken out (block_time.hpp).
  replay,
  /// (span - pad) / waves as measured: cheaper on traces where most kernels overlap, wrong where a kernel
  /// waited for SMs (a replay then counts the wait twice).
  span,
};

struct BuildOptions {
  std::optional<std::uint32_t> device;   ///< required when the trace has GPU work on several devices
  std::optional<std::uint32_t> process;  ///< required when API calls come from several processes
  /// Turns a kernel's measured span into a per-block duration (waves, CUPTI's span pad, SM room held by
  /// earlier kernels: block_time.hpp).
  const model::DeviceProfile* profile = nullptr;
  std::map<std::uint32_t, int> stream_priority;  ///< overrides what the trace shows
  std::string name;                             ///< workload name (default: the file's stem)
  HostGaps host_gaps = HostGaps::trace_timing;
  KernelTime kernel_time = KernelTime::replay;
  /// trace_timing: the replay models a run traced by streamlab's tracer (`sim --traced`: kernel launches
  /// cost traced_launch_overhead_ns more). Off: a plain `sim` / `run` replay.
  bool traced = false;
};

/// What the import did beyond the ops themselves, for the command's summary and for tests.
struct ImportStats {
  std::size_t kernels = 0, copies = 0, memsets = 0;
  std::size_t event_records = 0, event_waits = 0, host_syncs = 0;
  std::size_t waits_linked = 0;    ///< waits whose record the trace names
  std::size_t waits_inferred = 0;  ///< waits bound to a record by the timeline (the trace names none)
  std::size_t waits_dropped = 0;   ///< waits on events recorded before the trace began (no-ops)
  std::size_t activities_without_call = 0;  ///< GPU work issued outside the traced calls
  std::size_t kernels_contended = 0;     ///< kernels whose span included waiting for SMs (block_time.hpp)
  std::size_t kernels_inconsistent = 0;  ///< kernels the SM-room replay could not explain (kept span / waves)
  std::size_t kernels_uncorrected = 0;   ///< grids of several waves that met earlier kernels' blocks (kept span / waves)
  std::vector<std::string> notes;
};

struct Imported {
  model::Workload workload;  ///< a program (Workload::program), checked
  model::Trace measured;     ///< the trace's own timeline, op ids as in `workload`
  ImportStats stats;
};

/// Builds the program. Throws InputError naming the capture's file for: no GPU activity, several devices
/// or processes without a choice (the message lists them), a chosen one that is absent, and a launch /
/// copy / memset call whose GPU work is missing. Op order, streams and times: import/README.md.
[[nodiscard]] Imported build_program(const Capture& capture, const BuildOptions& options);

/// Per-block duration (ns) that reproduces a kernel's measured CUPTI span under `profile`:
/// (span - cupti_kernel_pad_ns) / waves, waves = ceil(blocks / (blocks_per_sm x SMs)), at least 1 ns.
[[nodiscard]] model::Nanos per_block_ns_for_span(const model::KernelShape& shape, model::Nanos span,
                                                 const model::DeviceProfile& profile);

}  // namespace streamlab::import
