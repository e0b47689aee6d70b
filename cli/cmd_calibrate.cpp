// `streamlab calibrate -o profile.json`: measures every device-profile parameter on the GPU and writes the
// profile (each field with its unit and how it was measured). Without CUDA or a device: one line, exit 1.
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "command.hpp"

#ifdef STREAMLAB_HAVE_CUDA
#include "streamlab/executor/calibrate.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/model/device_profile.hpp"
#endif

namespace streamlab::cli {
namespace {

struct CalibrateOptions {
  std::string output;
  int device = 0;
  int repetitions = 41;
  int rounds = 9;
  double host_seconds = 60;
  bool quick = false;
  bool quiet = false;
};

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
                      "After the rounds, sample the host API call costs for this long more (the host's own speed "
                      "moves; each cost becomes the median sample, with its 5th-95th percentile as its range)")
           ->check(CLI::Range(0.0, 3600.0))
           ->capture_default_str();
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
         if (!o->quiet) c.log = [](const std::string& line) { std::cout << "  " << line << std::endl; };
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
