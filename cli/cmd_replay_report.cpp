// `streamlab replay-report TRACE... -o report.md [--capture-info FILE] [--what-if-connections BASE MEASURED N]`:
// imports each real trace, replays the program on the simulator (policy `replay`) and compares with the
// trace's own GPU timeline; a what-if row predicts BASE under N hardware connections and compares with
// MEASURED, a trace of the same program run that way. Writes a markdown section (experiments/results/).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "streamlab/experiments/replay_accuracy.hpp"
#include "streamlab/import/import.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/trace.hpp"

namespace streamlab::cli {
namespace {

struct Options {
  std::vector<std::string> traces;
  std::string output, capture_info, device;
  std::vector<std::string> what_if;  // BASE MEASURED N, repeated
  bool traced = false;
};

/// "Recorded by scripts/capture/capture_kineto.py on <device> (driver, CUDA, PyTorch), <date>" from the
/// capture script's capture-info.json.
std::string capture_note(const std::string& file) {
  if (file.empty()) return "Capture details: not given.";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(model::read_text_file(file));
  } catch (const nlohmann::json::exception& e) {
    throw model::InputError(file, "", "", std::string("not JSON: ") + e.what());
  }
  std::string note = "Traces recorded with the PyTorch profiler by `" + j.value("capture_script", std::string("?")) + "`";
  for (const auto& run : j.value("runs", nlohmann::json::array())) {
    std::string files;
    for (const auto& f : run.value("files", nlohmann::json::array())) files += (files.empty() ? "" : ", ") + f.get<std::string>();
    note += "; " + files + ": " + run.value("device", std::string("?")) + ", driver " + run.value("driver", std::string("?")) +
            ", CUDA " + run.value("cuda", std::string("?")) + ", PyTorch " + run.value("pytorch", std::string("?")) +
            ", CUDA_DEVICE_MAX_CONNECTIONS " + run.value("cuda_device_max_connections", std::string("default")) + ", " +
            run.value("date", std::string("?"));
  }
  return note + ".";
}

/// A measured timeline: a streamlab trace (e.g. `streamlab run` of the imported program; `own` set), or
/// else a trace another tool wrote, imported.
model::Trace load_measured(const std::string& file, const import::BuildOptions& bo, bool& own) {
  try {
    model::Trace t = model::load_trace(file);
    own = true;
    return t;
  } catch (const model::InputError&) {
    own = false;
    return import::import_trace(file, bo).measured;
  }
}

void run(const Options& o) {
  const model::DeviceProfile profile =
      o.device.empty() ? model::bundled_h100_profile() : model::load_device_profile(o.device);
  experiments::ReplaySettings settings;
  settings.profile = &profile;
  settings.profile_label = o.device.empty() ? "bundled:h100-sxm" : o.device;
  settings.traced = o.traced;
  import::BuildOptions bo;
  bo.profile = &profile;
  bo.traced = settings.traced;  // host gaps against the call costs the replay will charge
  const std::string note = capture_note(o.capture_info);
  std::vector<experiments::ReplayAccuracy> replays, what_ifs;
  for (const auto& t : o.traces) {
    const import::Imported imp = import::import_trace(t, bo);
    replays.push_back(experiments::replay_against(imp.workload, imp.measured, settings,
                                                  std::filesystem::path(t).filename().string()));
  }
  for (std::size_t i = 0; i + 3 <= o.what_if.size(); i += 3) {
    const std::string& base = o.what_if[i];
    const std::string& measured = o.what_if[i + 1];
    std::uint32_t n = 0;
    try {
      n = static_cast<std::uint32_t>(std::stoul(o.what_if[i + 2]));
    } catch (const std::logic_error&) {
      throw model::InputError("--what-if-connections", "", "", "'" + o.what_if[i + 2] + "' is not a connection count");
    }
    const import::Imported b = import::import_trace(base, bo);
    bool own = false;
    const model::Trace m = load_measured(measured, bo, own);
    experiments::ReplaySettings s = settings;
    s.connections = n;
    // `streamlab run` measures with its CUPTI tracer on: its rows are predicted as traced runs
    // (`sim --traced`); an application's own trace as the replays above.
    const auto timing = m.meta.extra.find("cuda_timing");
    const bool traced_run = own && m.meta.backend == "cuda" && timing != m.meta.extra.end() && timing->second == "cupti";
    if (traced_run) s.traced = true;
    what_ifs.push_back(experiments::replay_against(
        b.workload, m, s,
        std::filesystem::path(base).filename().string() + " at CUDA_DEVICE_MAX_CONNECTIONS=" + std::to_string(n) +
            " (measured: " + std::filesystem::path(measured).filename().string() +
            (traced_run ? "; predicted as a traced run" : "") + ")"));
  }
  const std::string md = experiments::replay_accuracy_markdown(replays, what_ifs, note);
  model::write_file_atomically(o.output, md);
  std::cout << md;
}

const bool registered = register_command(
    {"replay-report", "Replay imported real traces on the simulator and report the error against their own timelines",
     [](CLI::App& app) {
       auto o = std::make_shared<Options>();
       app.add_option("traces", o->traces, "Kineto or nsys SQLite traces")->required();
       app.add_option("-o,--output", o->output, "Markdown report to write")->required();
       app.add_option("--capture-info", o->capture_info, "capture-info.json of the capture script (device, versions, date)");
       app.add_option("--what-if-connections", o->what_if,
                      "BASE MEASURED N: predict BASE's program at N connections, compare with MEASURED (a streamlab "
                      "trace of the program run that way, or a trace of the application run that way); repeatable")
           ->expected(3)
           ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
           ->allow_extra_args(false);
       app.add_option("--device", o->device, "Device profile JSON (default: the bundled H100 SXM profile)");
       app.add_flag("--traced", o->traced,
                    "Replay with the profile's traced_* costs (streamlab's own CUPTI tracer; default: untraced)");
       app.callback([o] { run(*o); });
     }});

}  // namespace
}  // namespace streamlab::cli
