#pragma once
/// \file command.hpp
/// Subcommands register themselves here (one file per subcommand), so the CLI stays thin: parse
/// arguments, call the libraries, print.

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace streamlab::cli {

/// `setup` receives the subcommand's App: it adds options and a callback that does the work.
struct Command {
  std::string name;
  std::string description;
  std::function<void(CLI::App&)> setup;
};

std::vector<Command>& command_registry();

/// The exit codes of every subcommand (README.md, "Exit codes"). main() maps exceptions to them:
/// CLI::ParseError and model::InputError -> input, NoGpu -> no_gpu, MissingDependency ->
/// missing_dependency, any other std::exception -> failure.
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int failure = 1;             ///< not the input's fault: I/O, CUDA error, internal error
inline constexpr int input = 2;               ///< bad arguments or input files, or a check that found problems
inline constexpr int no_gpu = 3;              ///< the command needs a CUDA GPU and there is none (or no CUDA build)
inline constexpr int missing_dependency = 4;  ///< an optional tool it needs is missing (charts: matplotlib)
}  // namespace exit_code

/// Thrown when a command needs a CUDA device (or a CUDA-enabled build) and has none.
struct NoGpu : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Thrown when a command needs an optional outside tool that is not installed.
struct MissingDependency : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Registers a command at static-initialization time: `const bool registered = register_command({...});`
bool register_command(Command c);

}  // namespace streamlab::cli
