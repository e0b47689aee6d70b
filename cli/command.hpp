#pragma once
/// \file command.hpp
/// Subcommands register themselves here (one file per subcommand), so the CLI stays thin: parse
/// arguments, call the libraries, print.

#include <functional>
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

/// Registers a command at static-initialization time: `const bool registered = register_command({...});`
bool register_command(Command c);

}  // namespace streamlab::cli
