// The `streamlab` command. Each subcommand lives in its own cmd_*.cpp and registers itself; this file
// parses, runs and turns every failure into one `streamlab: error: ...` line and a documented exit code
// (command.hpp, README.md "Exit codes").
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

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

// The first option the command line gives that the subcommands it names do not know (CLI11 reports a
// missing required argument first, which hides the real mistake), or "".
std::string unknown_option(const CLI::App& app, int argc, char** argv) {
  std::vector<const CLI::App*> chain = {&app};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.size() > 1 && arg.front() == '-') {
      std::string name(arg.substr(0, arg.find('=')));
      if (name.size() > 2 && name[1] != '-') name.resize(2);  // -ofile, -abc
      const bool known = std::any_of(chain.begin(), chain.end(), [&](const CLI::App* a) {
        return a->get_option_no_throw(name) != nullptr || name == "-h" || name == "--help";
      });
      if (!known) return name;
      continue;
    }
    const auto subs = chain.back()->get_subcommands([&](const CLI::App* a) { return a->get_name() == arg; });
    if (!subs.empty()) chain.push_back(subs.front());
  }
  return "";
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
    const std::string bad = unknown_option(app, argc, argv);
    const std::string what = bad.empty() ? std::string(e.what()) : "unknown option '" + bad + "'";
    return fail((where.empty() ? "" : where + ": ") + what + " (see `" + help + "`)", cli::exit_code::input);
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
