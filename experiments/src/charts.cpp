// Runs scripts/plot/experiment_charts.py (charts.hpp) with posix_spawn: arguments are passed as they are,
// no shell, and the child's output goes straight to ours.
#include "streamlab/experiments/charts.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

extern char** environ;

namespace streamlab::experiments {

namespace fs = std::filesystem;

namespace {

constexpr const char* kScript = "experiment_charts.py";
constexpr int kExitInput = 2;         // scripts/plot/streamlab_style.py EXIT_INPUT
constexpr int kExitNoMatplotlib = 3;  // scripts/plot/streamlab_style.py EXIT_NO_MATPLOTLIB

bool has_script(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_regular_file(dir / kScript, ec);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

fs::path plot_script_dir() {
  if (const std::string d = env("STREAMLAB_PLOT_DIR"); !d.empty()) return has_script(d) ? fs::path(d) : fs::path();
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "streamlab" / "plot";
    if (has_script(installed)) return installed;
  }
  const fs::path source = STREAMLAB_SOURCE_PLOT_DIR;
  return has_script(source) ? source : fs::path();
}

ChartsRun run_chart_script(const std::string& script, const std::vector<std::string>& script_args, bool quiet) {
  const fs::path scripts = plot_script_dir();
  if (scripts.empty())
    return {ChartsOutcome::no_script, std::string("scripts/plot/") + kScript +
                                          " not found (install streamlab, or set STREAMLAB_PLOT_DIR to the folder)"};
  std::string python = env("STREAMLAB_PYTHON");
  if (python.empty()) python = ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";

  std::vector<std::string> args = {python, (scripts / script).string()};
  args.insert(args.end(), script_args.begin(), script_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  if (quiet) ::posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int err = ::posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (err != 0)
    return {ChartsOutcome::no_python, "cannot start " + python + ": " + std::strerror(err) +
                                          " (charts need Python 3 with matplotlib: apt install python3-matplotlib)"};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return {ChartsOutcome::failed, std::string("waiting for the chart script: ") + std::strerror(errno)};
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitNoMatplotlib)
    return {ChartsOutcome::no_matplotlib, python + " has no matplotlib (Debian: apt install python3-matplotlib, or "
                                                   "set STREAMLAB_PYTHON to an interpreter that has it)"};
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitInput)
    return {ChartsOutcome::bad_input, "the chart script " + script + " could not read its input (exit 2)"};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return {ChartsOutcome::no_python, "cannot start " + python + " (charts need Python 3 with matplotlib)"};
  return {ChartsOutcome::failed, "the chart script " + (scripts / script).string() + " failed" +
                                     (WIFEXITED(status) ? " (exit " + std::to_string(WEXITSTATUS(status)) + ")"
                                                        : " (killed by a signal)")};
}

ChartsRun draw_charts(const fs::path& dir, const std::vector<std::string>& only) {
  std::vector<std::string> args = {dir.string(), "--quiet-if-no-matplotlib"};
  for (const auto& name : only) args.insert(args.end(), {"--only", name});
  ChartsRun r = run_chart_script(kScript, args);
  if (r.outcome == ChartsOutcome::failed || r.outcome == ChartsOutcome::bad_input) r.detail += " in " + dir.string();
  return r;
}

}  // namespace streamlab::experiments
