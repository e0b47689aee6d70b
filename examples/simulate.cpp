// Using streamlab as a library: load a workload, predict its timeline on the simulator under a scheduling
// policy, print the makespan and write the trace (open it in streamlab-viz or chrome://tracing).
//
//   simulate WORKLOAD.json [POLICY] [TRACE.json]      e.g. simulate pipeline.json load-balanced out.json
#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/metrics.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/units.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/sim_backend.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: simulate WORKLOAD.json [POLICY] [TRACE.json]\n";
    return 2;
  }
  const std::string policy_name = argc > 2 ? argv[2] : "round-robin";
  const std::string trace_file = argc > 3 ? argv[3] : "predicted.json";
  try {
    using namespace streamlab;
    // The H100 SXM profile built into the library; model::load_device_profile reads a calibrated one.
    const model::DeviceProfile profile = model::bundled_h100_profile();
    // Strict: a malformed workload throws model::InputError naming the file, the place and the op.
    const model::Workload workload = model::load_workload(argv[1], model::shape_limits(profile));

    policies::PolicyConfig config;
    config.streams = 4;
    const std::unique_ptr<policies::Policy> policy = policies::make_policy(policy_name, config);

    sim::SimBackend backend(profile);
    policies::DispatchOptions options;
    options.profile = &profile;
    options.source = argv[1];
    const policies::DispatchResult result = policies::dispatch(backend, workload, *policy, options);

    const model::TraceMetrics metrics = model::compute_metrics(result.trace);
    std::cout << workload.name << " under " << policy_name << ": makespan "
              << model::format_duration(static_cast<double>(metrics.makespan_ns)) << ", copy/compute overlap "
              << metrics.copy_compute_overlap << "\n";
    model::save_trace(result.trace, trace_file);
    std::cout << "wrote " << trace_file << "\n";
  } catch (const streamlab::model::InputError& e) {
    std::cerr << "simulate: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "simulate: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
