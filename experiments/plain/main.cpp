// streamlab-plain: the validation suite's scenarios as plain CUDA programs (see program.hpp).
//   streamlab-plain SCENARIO [key=value ...] --emit FILE   write the equivalent program workload
//   streamlab-plain SCENARIO [key=value ...]               run it once; print when each synchronize returned
//   ... --completion-records   also record an event after every work call (the Dispatcher's completion
//                              tracking for non-replay policies), to measure whether that changes the run
//   ... --call-times           also print when each call started (a clock read per call; diagnostic)
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "program.hpp"

using namespace streamlab::plain;

int main(int argc, char** argv) {
  const std::map<std::string, std::function<void(Program&, const Params&)>> scenarios{
      {"chunked", chunked}, {"chains", chains},     {"triple-buffer", triple_buffer},
      {"legacy-null", legacy_null}, {"priority", priority}, {"task-pool", task_pool},
      {"beside", beside}};
  if (argc < 2 || scenarios.count(argv[1]) == 0) {
    std::fprintf(stderr, "usage: streamlab-plain {chunked|chains|triple-buffer|legacy-null|priority|task-pool|beside} "
                         "[key=value ...] [--emit FILE] [--name NAME] [--completion-records] [--call-times]\n");
    return 2;
  }
  const std::string scenario = argv[1];
  Params params;
  std::string emit, name = scenario;
  bool records = false, call_times = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--emit" && i + 1 < argc) emit = argv[++i];
    else if (a == "--completion-records") records = true;
    else if (a == "--call-times") call_times = true;
    else if (a == "--name" && i + 1 < argc) name = argv[++i];
    else if (auto eq = a.find('='); eq != std::string::npos) params.values[a.substr(0, eq)] = a.substr(eq + 1);
    else {
      std::fprintf(stderr, "streamlab-plain: error: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  std::string desc = "plain program '" + scenario + "'";
  for (const auto& [k, v] : params.values) desc += " " + k + "=" + v;
  Program p(name, desc);
  const auto& run = scenarios.at(scenario);
  run(p, params);
  if (!emit.empty()) {
    std::ofstream(emit) << p.workload_json() << '\n';
    return 0;
  }
  p.set_completion_records(records);
  p.set_call_times(call_times);
  p.prepare_run();
  run(p, params);
  std::printf("{\"scenario\":\"%s\",\"sync_ns\":{", name.c_str());
  bool first = true;
  for (const auto& [id, ns] : p.sync_times()) {
    std::printf("%s\"%s\":%lld", first ? "" : ",", id.c_str(), static_cast<long long>(ns));
    first = false;
  }
  std::printf("}");
  if (call_times) {
    std::printf(",\"call_start_ns\":[");
    const auto times = p.call_times();
    for (std::size_t i = 0; i < times.size(); ++i) std::printf("%s%lld", i == 0 ? "" : ",", static_cast<long long>(times[i]));
    std::printf("]");
  }
  std::printf("}\n");
  return 0;
}
