#pragma once
/// \file child_process.hpp
/// Running another process (usually this executable again) with a time limit: the sweep's measured units
/// and calibrate's host-speed probes each run in a fresh process of their own.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace streamlab::experiments {

/// Runs `argv` (argv[0] a path) with `env` (the full environment), its stdout and stderr to `log`; returns
/// its exit status (128 + signal when a signal ended it), or -1 when it ran past `limit` (it is then
/// killed). Throws std::runtime_error when it cannot be started.
[[nodiscard]] int run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                            const std::filesystem::path& log, std::chrono::duration<double> limit);

/// This process's environment, one "NAME=value" per entry (for run_child).
[[nodiscard]] std::vector<std::string> current_environment();

/// The last non-empty line of `text` (a child's log can be long; an error report keeps one line).
[[nodiscard]] std::string last_line(const std::string& text);

}  // namespace streamlab::experiments
