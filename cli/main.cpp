// The `streamlab` command. Each subcommand lives in its own cmd_*.cpp and registers itself; this file
// parses, runs and turns every failure into one `streamlab: error: ...` line and a documented exit code
// (command.hpp, README.md "Exit codes").
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

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

namespace {

namespace cli = streamlab::cli;

int fail(const std::string& message, int code) {
  std::cerr << "streamlab: error: " << message << "\n";
  return code;
}

// "sim" or "experiment report": the subcommands the parser had entered when it failed, for the message.
std::string subcommand_path(const CLI::App& app) {
  std::string path;
  const CLI::App* at = &app;
  for (;;) {
    const auto subs = at->get_subcommands();
    if (subs.empty()) break;
    at = subs.front();
    path += (path.empty() ? "" : " ") + at->get_name();
  }
  return path;
}

// The first argument names the subcommand; name an unknown one before CLI11 reports something vaguer.
std::string unknown_subcommand(int argc, char** argv) {
  if (argc < 2) return "";
  const std::string_view first = argv[1];
  if (first.empty() || first.front() == '-') return "";
  const auto& registry = cli::command_registry();
  const bool known = std::any_of(registry.begin(), registry.end(), [&](const cli::Command& c) { return c.name == first; });
  if (known) return "";
  std::string names;
  for (const auto& c : registry) names += (names.empty() ? "" : ", ") + c.name;
  return "unknown command '" + std::string(first) + "' (commands: " + names + "; `streamlab --help` describes them)";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"streamlab: predict (simulate) and measure CUDA stream/event scheduling policies"};
  app.set_version_flag("--version", std::string(STREAMLAB_VERSION));
  app.require_subcommand(1);
  std::sort(cli::command_registry().begin(), cli::command_registry().end(),
            [](const cli::Command& a, const cli::Command& b) { return a.name < b.name; });
  for (auto& cmd : cli::command_registry()) {
    CLI::App* sub = app.add_subcommand(cmd.name, cmd.description);
    cmd.setup(*sub);
  }
  if (const std::string unknown = unknown_subcommand(argc, argv); !unknown.empty())
    return fail(unknown, cli::exit_code::input);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command that already printed its findings and chose its code
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::string where = subcommand_path(app);
    const std::string help = where.empty() ? "streamlab --help" : "streamlab " + where + " --help";
    return fail((where.empty() ? "" : where + ": ") + e.what() + " (see `" + help + "`)", cli::exit_code::input);
  } catch (const streamlab::model::InputError& e) {
    return fail(e.what(), cli::exit_code::input);
  } catch (const cli::NoGpu& e) {
    return fail(e.what(), cli::exit_code::no_gpu);
  } catch (const cli::MissingDependency& e) {
    return fail(e.what(), cli::exit_code::missing_dependency);
  } catch (const std::exception& e) {
    return fail(e.what(), cli::exit_code::failure);
  }
  return cli::exit_code::ok;
}
