#pragma once
/// \file any_file.hpp
/// Reading a file whose kind (workload, trace or device profile) its content tells: the file is parsed
/// once, asked what it holds, and read by that kind's reader (`streamlab validate --as auto`).

#include <cstdint>
#include <filesystem>
#include <optional>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/progress.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::model {

enum class FileKind : std::uint8_t { workload, trace, profile };

/// One file read as its kind: exactly one of the three is set.
struct AnyFile {
  FileKind kind = FileKind::workload;
  std::optional<Workload> workload;
  std::optional<Trace> trace;
  std::optional<DeviceProfile> profile;
  /// A workload's simulation_work_items (input_limits.hpp), counted as it was read: at ten million ops
  /// a pass of its own read 1.7 GB of ops again.
  std::uint64_t work_items = 0;
};

/// What `streamlab validate` says of a good workload file.
struct WorkloadCounts {
  std::size_t ops = 0;
  std::uint64_t edges = 0;
  std::uint64_t work_items = 0;  ///< simulation_work_items (input_limits.hpp)
};

/// Checks a workload file as load_any (and load_workload) would, keeping none of its ops: a checker
/// that needs only the counts then neither faults in nor fills the workload's arrays (at ten million
/// ops, 1.9 GB of them). Nothing when it cannot tell so: a file laid out otherwise than one op per line,
/// a problem (whose message load_any gives), or a workload whose checks need all its ops (a dep on a
/// later op, ids that are not a prefix and a number in runs, a program, declared streams); load_any then
/// reads it.
[[nodiscard]] std::optional<WorkloadCounts> check_workload_file(const std::filesystem::path& file,
                                                                const ShapeLimits& limits,
                                                                ProgressCounter* progress = nullptr);

/// Reads `file` as `kind`, or, without one, as what its top level says: a trace when it has
/// "traceEvents", a device profile when it has "params" and no "ops", a workload otherwise (malformed
/// text included, which the workload reader reports with line and column). Workloads are checked
/// against `limits`. Errors are InputErrors naming the file, as the kind's own load_* gives them.
[[nodiscard]] AnyFile load_any(const std::filesystem::path& file, const ShapeLimits& limits,
                               std::optional<FileKind> kind = std::nullopt, ProgressCounter* progress = nullptr);

}  // namespace streamlab::model
