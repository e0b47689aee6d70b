// `streamlab import TRACE -o workload.json [--measured measured.json]`: a PyTorch profiler (Kineto) trace
// or an Nsight Systems SQLite export becomes a program workload (replayed by `sim` / `run`) and, with
// --measured, the trace's own GPU timeline in streamlab's trace format (paired with a replay by `compare`
// and the viewer). What the import keeps and infers: import/README.md.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "streamlab/import/import.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::cli {
namespace {

struct Options {
  std::string trace, output, measured, device, name;
  std::optional<std::uint32_t> gpu, process;
  std::vector<std::string> priorities;
  std::string host_gaps = "trace";
  std::string kernel_time = "replay";
};

std::map<std::uint32_t, int> parse_priorities(const std::vector<std::string>& specs) {
  std::map<std::uint32_t, int> out;
  for (const auto& s : specs) {
    const auto eq = s.find('=');
    try {
      if (eq == std::string::npos) throw std::invalid_argument(s);
      std::size_t used = 0;
      const unsigned long stream = std::stoul(s.substr(0, eq), &used);
      if (used != eq) throw std::invalid_argument(s);
      const int prio = std::stoi(s.substr(eq + 1), &used);
      if (used != s.size() - eq - 1) throw std::invalid_argument(s);
      out[static_cast<std::uint32_t>(stream)] = prio;
    } catch (const std::logic_error&) {
      throw model::InputError("--stream-priority", "", "", "'" + s + "' is not STREAM=PRIORITY (e.g. 13=-5)");
    }
  }
  return out;
}

void run(const Options& o) {
  const model::DeviceProfile profile =
      o.device.empty() ? model::bundled_h100_profile() : model::load_device_profile(o.device);
  import::BuildOptions bo;
  bo.device = o.gpu;
  bo.process = o.process;
  bo.profile = &profile;
  bo.stream_priority = parse_priorities(o.priorities);
  bo.name = o.name;
  bo.host_gaps = o.host_gaps == "own" ? import::HostGaps::own : import::HostGaps::trace_timing;
  bo.kernel_time = o.kernel_time == "span" ? import::KernelTime::span : import::KernelTime::replay;
  const import::Imported imp = import::import_trace(o.trace, bo);
  // Serialize both before writing either, then write atomically; a failed second write removes the first.
  const std::string workload_json = model::workload_to_json(imp.workload);
  const std::string measured_json = o.measured.empty() ? std::string() : model::trace_to_chrome_json(imp.measured);
  model::write_file_atomically(o.output, workload_json);
  if (!o.measured.empty()) {
    try {
      model::write_file_atomically(o.measured, measured_json);
    } catch (...) {
      std::error_code ec;
      std::filesystem::remove(o.output, ec);
      throw;
    }
  }
  const auto& s = imp.stats;
  std::cout << "imported " << o.trace << " -> " << o.output << ": " << imp.workload.ops.size() << " ops (" << s.kernels
            << " kernels, " << s.copies << " copies, " << s.memsets << " memsets, " << s.event_records
            << " event records, " << s.event_waits << " waits, " << s.host_syncs << " host syncs) on "
            << imp.workload.streams.size() << " streams\n";
  if (s.waits_inferred > 0)
    std::cout << "  " << s.waits_inferred << " of " << (s.waits_linked + s.waits_inferred)
              << " event waits bound to their record by the timeline (the trace does not link them)\n";
  if (s.waits_dropped > 0)
    std::cout << "  " << s.waits_dropped << " waits/event syncs on events recorded before the trace began left out\n";
  if (s.kernels_contended > 0)
    std::cout << "  " << s.kernels_contended << " of " << s.kernels
              << " kernels started while earlier kernels held SMs: their block time excludes that wait\n";
  if (s.kernels_inconsistent > 0)
    std::cout << "  " << s.kernels_inconsistent
              << " kernels ended sooner than the SMs' room allows under the profile: kept span / waves\n";
  if (s.kernels_uncorrected > 0)
    std::cout << "  " << s.kernels_uncorrected
              << " kernels of more than 64 waves met earlier kernels' blocks: kept span / waves\n";
  if (s.activities_without_call > 0)
    std::cout << "  " << s.activities_without_call << " GPU activities without a traced API call, ordered by start\n";
  for (const auto& note : s.notes) std::cout << "  note: " << note << "\n";
  if (!o.measured.empty()) std::cout << "  measured timeline -> " << o.measured << "\n";
}

const bool registered = register_command(
    {"import", "Turn a PyTorch profiler (Kineto) trace or an Nsight Systems SQLite export into a program workload",
     [](CLI::App& app) {
       auto o = std::make_shared<Options>();
       app.add_option("trace", o->trace, "Kineto .json / .json.gz, or nsys export --type sqlite output")->required();
       app.add_option("-o,--output", o->output, "Program workload JSON to write")->required();
       app.add_option("--measured", o->measured,
                      "Also write the trace's own GPU timeline as a streamlab trace (for compare and the viewer)");
       app.add_option("--gpu", o->gpu, "Device index to import when the trace has GPU work on several");
       app.add_option("--process", o->process, "Process id to import when several processes issued GPU work");
       app.add_option("--device", o->device,
                      "Device profile JSON for kernel waves and CUPTI's span pad (default: the bundled H100 SXM profile)");
       app.add_option("--stream-priority", o->priorities,
                      "STREAM=PRIORITY, repeatable: a stream's priority where the trace does not record it");
       app.add_option("--kernel-time", o->kernel_time,
                      "Kernel block time: replay (span over waves, less the wait for SMs that earlier kernels "
                      "held) or span (span over waves as measured)")
           ->check(CLI::IsMember({"replay", "span"}));
       app.add_option("--name", o->name, "Workload name (default: the trace file's name)");
       app.add_option("--host-gaps", o->host_gaps,
                      "trace: replay issues each call when the trace did (default); own: the program's time "
                      "between calls only (import/README.md)")
           ->check(CLI::IsMember({"trace", "own"}));
       app.callback([o] { run(*o); });
     }});

}  // namespace
}  // namespace streamlab::cli
