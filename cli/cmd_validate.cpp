// `streamlab validate FILE...`: strict checks of workloads (and traces and device profiles), one line per
// file; exit 2 when any file is bad. Nothing runs.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "budget_options.hpp"
#include "command.hpp"
#include "progress_bar.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/input_limits.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::cli {
namespace {

enum class FileKind { workload, trace, profile };

// Traces carry "traceEvents", profiles "params"; anything else (including malformed JSON, which the
// workload reader reports with line and column) is read as a workload.
// Reads only the top-level keys through nlohmann's SAX interface: no DOM of the file is built (a large
// file is parsed once more by its reader, not twice in memory), and nesting costs nothing here.
class TopLevelKeys : public nlohmann::json::json_sax_t {
 public:
  bool trace = false, params = false, ops = false;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth_, true; }
  bool end_object() override { return --depth_, true; }
  bool start_array(std::size_t) override { return ++depth_, true; }
  bool end_array() override { return --depth_, true; }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      trace = trace || k == "traceEvents";
      params = params || k == "params";
      ops = ops || k == "ops";
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception&) override { return false; }

 private:
  long depth_ = 0;
};

FileKind sniff(const std::string& text) {
  TopLevelKeys keys;
  if (!nlohmann::json::sax_parse(text, &keys)) return FileKind::workload;  // its reader says what is wrong
  if (keys.trace) return FileKind::trace;
  if (keys.params && !keys.ops) return FileKind::profile;
  return FileKind::workload;
}

struct Options {
  std::vector<std::string> files;
  std::string profile;
  std::string as = "auto";
  bool quiet = false;
  sim::SimBudget budget;  // only max_events: the same size limit sim applies before simulating
};

std::string check_file(const Options& o, const model::ShapeLimits& limits, const std::string& file) {
  const std::string text = model::with_step(file, "reading", [&] { return model::read_text_file(file); });
  FileKind kind = FileKind::workload;
  if (o.as == "auto") kind = sniff(text);
  if (o.as == "trace") kind = FileKind::trace;
  if (o.as == "profile") kind = FileKind::profile;
  switch (kind) {
    case FileKind::workload: {
      const model::Workload w = model::parse_workload(text, file, limits);
      model::check_simulation_size(w, file, o.budget.max_events);
      return "ok (" + std::to_string(w.size()) + " ops, " + std::to_string(w.edge_count()) + " deps)";
    }
    case FileKind::trace: {
      const model::Trace t = model::parse_chrome_trace(text, file);
      return "ok (trace: " + std::to_string(t.spans.size()) + " spans, " + std::to_string(t.blocks.size()) +
             " block placements, backend '" + t.meta.backend + "')";
    }
    case FileKind::profile: {
      const model::DeviceProfile p = model::parse_device_profile(text, file);
      return "ok (device profile '" + p.name + "')";
    }
  }
  return {};
}

const bool registered = register_command(
    {"validate", "Check workload files strictly (also traces and device profiles); nothing runs", [](CLI::App& app) {
       auto o = std::make_shared<Options>();
       app.add_option("files", o->files, "Files to check")->required();
       app.add_option("--profile", o->profile,
                      "Device profile whose kernel-shape limits workloads must meet (default: bundled H100 SXM)");
       add_budget_options(app, o->budget, /*wall_clock=*/false);
       app.add_option("--as", o->as, "File type: auto (by content), workload, trace or profile")
           ->check(CLI::IsMember({"auto", "workload", "trace", "profile"}))
           ->capture_default_str();
       add_quiet_flag(app, o->quiet);
       app.callback([o] {
         const model::DeviceProfile profile =
             o->profile.empty() ? model::bundled_h100_profile() : model::load_device_profile(o->profile);
         const model::ShapeLimits limits = model::shape_limits(profile);
         bool failed = false;
         ProgressBar bar(!o->quiet);
         for (const auto& file : o->files) {
           try {
             bar.phase("validating " + file);
             const std::string verdict =
                 model::with_step(file, "checking", [&] { return check_file(*o, limits, file); });  // throws before printing anything
             bar.println(file + ": " + verdict);
           } catch (const model::InputError& e) {
             bar.hide();
             std::cout.flush();
             std::cerr << "streamlab: error: " << e.what() << "\n";
             failed = true;
           }
         }
         if (failed) throw CLI::RuntimeError(2);  // main exits 2 without printing more
       });
     }});

}  // namespace
}  // namespace streamlab::cli
