#pragma once
/// \file session.hpp
/// Opening what the command line names: two or more traces of one workload (the first is the reference)
/// and optionally the workload. Nothing here throws for bad input: every problem becomes one line a
/// person can act on (the app shows them in a banner and prints them on stderr) and the session keeps
/// what could be used.

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "streamlab/model/resource_usage.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/viz/dependencies.hpp"
#include "streamlab/viz/trace_set.hpp"

namespace streamlab::viz {

struct SessionFiles {
  std::vector<std::filesystem::path> traces;  ///< the first is the reference
  std::optional<std::filesystem::path> workload;
};

/// What each step of opening used: CPU time (user, system) and minor faults (the viewer's --timing).
struct OpenTimes {
  model::ResourceUsage read;     ///< reading and checking the trace and workload files (model readers)
  model::ResourceUsage prepare;  ///< op matching, occupancy, dependency overlay
};

struct Session {
  std::shared_ptr<const TraceSet> set;               ///< null when no trace could be read
  std::shared_ptr<const DependencyOverlay> overlay;  ///< with a usable --workload
  std::vector<std::string> errors;                   ///< one line each; empty = everything opened
  OpenTimes times;
};

/// Why two traces cannot be compared (different workload hash, or no (op id, engine) in common), or
/// nullopt when they can. The files name the traces in the message.
[[nodiscard]] std::optional<std::string> mismatch_reason(const model::Trace& reference,
                                                         const std::string& reference_file,
                                                         const model::Trace& other, const std::string& other_file);

/// Reads the files. A missing, malformed or mismatched trace is reported and left out (the others are
/// still shown; a trace that does not match the first one readable is the one left out); a bad workload
/// leaves `overlay` null.
[[nodiscard]] Session open_session(const SessionFiles& files);

/// CPU time of this process so far, in seconds.
[[nodiscard]] double process_cpu_seconds() noexcept;

}  // namespace streamlab::viz
