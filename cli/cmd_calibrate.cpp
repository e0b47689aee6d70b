// `streamlab calibrate -o profile.json`: measures every device-profile parameter on the GPU and writes the
// profile (each field with its unit and how it was measured). Without CUDA or a device: one line, exit 1.
#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <vector>
#include <stdexcept>
#include <string>

#include "command.hpp"

#ifdef STREAMLAB_HAVE_CUDA
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "streamlab/executor/calibrate.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/experiments/child_process.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/file_io.hpp"
#endif

namespace streamlab::cli {
namespace {

struct CalibrateOptions {
  std::string output;
  int device = 0;
  int repetitions = 41;
  int rounds = 9;
  double host_seconds = 90;
  int host_processes = 32;
  bool host_probe = false;
  bool quick = false;
  bool quiet = false;
};

#ifdef STREAMLAB_HAVE_CUDA
/// The host-speed probes: this executable again, `host_processes` times one after another (before this
/// process makes its own context), each `calibrate --host-probe` writing its HostProbe to a file.
std::vector<executor::HostProbe> run_host_probes(const CalibrateOptions& o, double seconds_each,
                                                 const std::function<void(const std::string&)>& log) {
  namespace fs = std::filesystem;
  const fs::path self = fs::read_symlink("/proc/self/exe");
  const fs::path dir = fs::temp_directory_path();
  const std::string stem = "streamlab-host-probe-" + std::to_string(::getpid()) + "-";
  std::vector<executor::HostProbe> probes;
  for (int k = 0; k < o.host_processes; ++k) {
    const fs::path out = dir / (stem + std::to_string(k) + ".json");
    const fs::path log_file = dir / (stem + std::to_string(k) + ".log");
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f", seconds_each);
    const std::vector<std::string> argv{self.string(), "calibrate", "--host-probe", "-o", out.string(),
                                        "--device", std::to_string(o.device), "--host-seconds", secs};
    const double limit = seconds_each + 120;  // context creation, two sets of streams, the passes
    const int rc = experiments::run_child(argv, experiments::current_environment(), log_file,
                                          std::chrono::duration<double>(limit));
    std::string text;
    try {
      text = model::read_text_file(log_file);
    } catch (const std::exception&) {
    }
    std::error_code ec;
    fs::remove(log_file, ec);
    if (rc != 0) {
      fs::remove(out, ec);
      throw std::runtime_error("calibrate: host-speed probe " + std::to_string(k + 1) + "/" +
                               std::to_string(o.host_processes) + " (a fresh process) " +
                               (rc < 0 ? "ran past " + std::to_string(static_cast<int>(limit)) + " s and was stopped"
                                       : "exited with " + std::to_string(rc) + ": " + experiments::last_line(text)));
    }
    probes.push_back(executor::parse_host_probe(model::read_text_file(out), out.string()));
    fs::remove(out, ec);
    const executor::HostProbe& p = probes.back();
    const auto launches = p.samples.find("kernel_launch_ns");
    if (log && launches != p.samples.end() && !launches->second.empty()) {
      std::vector<double> v = launches->second;
      log("host probe " + std::to_string(k + 1) + "/" + std::to_string(o.host_processes) + ": " +
          std::to_string(p.passes) + " passes, kernel launch " + std::to_string(static_cast<int>(executor::median(v))) +
          " ns, stream first use " + std::to_string(static_cast<int>(p.stream_first_use_ns)) + " ns (recycled streams " +
          std::to_string(static_cast<int>(p.stream_first_use_recycled_ns)) + " ns)");
    }
  }
  return probes;
}
#endif

const bool registered = register_command(
    {"calibrate", "Measure the GPU's stream/event/copy/SM parameters; writes a device profile", [](CLI::App& app) {
       auto o = std::make_shared<CalibrateOptions>();
       app.add_option("-o,--output", o->output, "Device profile JSON to write")->required();
       app.add_option("--device", o->device, "CUDA device ordinal")->capture_default_str();
       app.add_option("--repetitions", o->repetitions, "Repetitions per measurement (medians are reported)")
           ->check(CLI::Range(5, 10000))
           ->capture_default_str();
       app.add_option("--rounds", o->rounds,
                      "Whole measurement rounds; each parameter is their median, its spread stored beside it "
                      "(host API call costs: see --host-seconds)")
           ->check(CLI::Range(1, 100))
           ->capture_default_str();
       app.add_option("--host-seconds", o->host_seconds,
                      "Sample the host API call costs for this long more, in --host-processes fresh processes "
                      "(the host's own speed moves; each cost becomes the median sample, with its 5th-95th "
                      "percentile as its range)")
           ->check(CLI::Range(0.0, 3600.0))
           ->capture_default_str();
       app.add_option("--host-processes", o->host_processes,
                      "Take the --host-seconds samples in this many fresh processes, one after another, before the "
                      "rounds (a program runs in a process of its own, and the host's speed moves from process to "
                      "process); 0: in this process after the rounds")
           ->check(CLI::Range(0, 64))
           ->capture_default_str();
       // Internal: this process is one of those probes; -o names the probe's JSON.
       app.add_flag("--host-probe", o->host_probe)->group("");
       app.add_flag("--quick", o->quick, "Fewer sizes and repetitions (a rough profile in seconds)");
       app.add_flag("-q,--quiet", o->quiet, "No progress lines");
       app.callback([o] {
#ifdef STREAMLAB_HAVE_CUDA
         if (executor::device_count() == 0) {
           throw streamlab::cli::NoGpu("no CUDA device: the driver reports none (calibration measures a GPU)");
         }
         executor::CalibrationOptions c;
         c.device = o->device;
         c.repetitions = o->repetitions;
         c.rounds = o->rounds;
         c.host_seconds = o->host_seconds;
         c.quick = o->quick;
         if (!o->quiet && !o->host_probe) c.log = [](const std::string& line) { std::cout << "  " << line << std::endl; };
         if (o->host_probe) {
           const executor::HostProbe probe = executor::probe_host(c, o->host_seconds);
           model::write_file_atomically(o->output, executor::host_probe_to_json(probe));
           return;
         }
         const double host_seconds = o->quick ? std::min(o->host_seconds, 2.0) : o->host_seconds;
         if (o->host_processes > 0 && host_seconds > 0)
           c.process_probes = run_host_probes(*o, host_seconds / o->host_processes, c.log);
         const model::DeviceProfile p = executor::calibrate(c);
         model::save_device_profile(p, o->output);
         std::cout << "wrote " << o->output << " (" << p.name << ", driver " << p.driver << ", CUDA " << p.cuda_version
                   << ")\n";
#else
         (void)o;
         throw streamlab::cli::NoGpu("built without CUDA: `streamlab calibrate` needs the CUDA executor (configure with "
                                  "-DSTREAMLAB_CUDA=ON on a machine with nvcc)");
#endif
       });
     }});

}  // namespace
}  // namespace streamlab::cli
