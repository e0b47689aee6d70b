// The `streamlab` command. Each subcommand lives in its own cmd_*.cpp and registers itself.
#include <cstdio>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "command.hpp"
#include "streamlab/model/errors.hpp"

namespace streamlab::cli {
std::vector<Command>& command_registry() {
  static std::vector<Command> commands;
  return commands;
}
bool register_command(Command c) {
  command_registry().push_back(std::move(c));
  return true;
}
}  // namespace streamlab::cli

int main(int argc, char** argv) {
  CLI::App app{"streamlab: predict (simulate) and measure CUDA stream/event scheduling policies"};
  app.set_version_flag("--version", std::string(STREAMLAB_VERSION));
  app.require_subcommand(1);
  for (auto& cmd : streamlab::cli::command_registry()) {
    CLI::App* sub = app.add_subcommand(cmd.name, cmd.description);
    cmd.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const streamlab::model::InputError& e) {
    std::cerr << "streamlab: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "streamlab: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
