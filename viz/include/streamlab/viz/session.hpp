#pragma once
/// \file session.hpp
/// Opening what the command line names: the predicted trace, optionally the measured trace and the
/// workload. Nothing here throws for bad input: every problem becomes one line a person can act on (the
/// app shows them in a banner and prints them on stderr) and the session keeps what could be used.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "streamlab/model/trace.hpp"
#include "streamlab/viz/dependencies.hpp"
#include "streamlab/viz/trace_pair.hpp"

namespace streamlab::viz {

struct SessionFiles {
  std::filesystem::path predicted;
  std::optional<std::filesystem::path> measured;
  std::optional<std::filesystem::path> workload;
};

struct Session {
  std::shared_ptr<const TracePair> pair;           ///< null when the predicted trace could not be read
  std::shared_ptr<const DependencyOverlay> overlay;  ///< with a usable --workload
  std::vector<std::string> errors;                 ///< one line each; empty = everything opened
};

/// Why two traces cannot be compared (different workload hash, or no (op id, engine) in common), or
/// nullopt when they can. The files name the traces in the message.
[[nodiscard]] std::optional<std::string> mismatch_reason(const model::Trace& predicted,
                                                         const std::string& predicted_file,
                                                         const model::Trace& measured,
                                                         const std::string& measured_file);

/// Reads the files. A missing, malformed or mismatched measured trace is reported and left out (the
/// predicted one is still shown); a bad predicted trace leaves `pair` null; a bad workload leaves
/// `overlay` null.
[[nodiscard]] Session open_session(const SessionFiles& files);

}  // namespace streamlab::viz
