// `streamlab gen KIND [--param value ...] -o FILE`: writes a generated workload (model/generators.hpp).
// One sub-subcommand per generator, one option per parameter, defaults shown in --help.
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"
#include "streamlab/model/generators.hpp"
#include "streamlab/model/input_limits.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::cli {
namespace {

namespace gen = model::gen;

/// Adds the -o option and the callback that writes `make()`'s workload there ("-" = stdout).
template <class Make>
void add_output(CLI::App& sub, Make make) {
  auto out = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  sub.add_option("-o,--output", *out, "Workload JSON file to write (\"-\" for stdout)")->required();
  sub.add_option("--name", *name, "Workload name (default: the generator's)");
  sub.callback([out, name, make] {
    model::Workload w = make();
    if (!name->empty()) w.name = *name;
    if (*out == "-") {
      std::cout << model::workload_to_json(w);
      return;
    }
    model::save_workload(w, *out);
    std::cout << *out << ": " << w.size() << " ops, " << w.edge_count() << " deps (" << w.name << ", hash "
              << w.hash() << ")\n";
  });
}

void setup_chunked(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand("chunked", "chunks x (h2d -> kernel -> d2h) over k streams (the E1 workload)");
  auto p = std::make_shared<gen::ChunkedCopyCompute>();
  sub->add_option("--chunks", p->chunks, "Number of chunks");
  sub->add_option("--streams", p->streams, "Streams; chunk i is hinted to stream 1 + i % streams");
  // CLI11 saturates an out-of-range integer (2^64 reads as 2^64 - 1): the range check refuses it.
  sub->add_option("--bytes-per-chunk", p->bytes_per_chunk, "Bytes of each upload and download")
      ->check(CLI::Range(std::uint64_t{1}, model::kMaxOpBytes));
  sub->add_option("--kernel-ns-per-block", p->kernel_ns_per_block, "Run time of each kernel block, ns");
  sub->add_option("--blocks", p->blocks, "Blocks per kernel");
  sub->add_option("--threads", p->threads, "Threads per block");
  add_output(*sub, [p] { return gen::chunked_copy_compute(*p); });
}

void setup_pipeline(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand(
      "pipeline", "multi-buffered upload -> compute -> download pipeline; an upload waits for its buffer's last download");
  auto p = std::make_shared<gen::Pipeline>();
  sub->add_option("--iterations", p->iterations, "Iterations");
  sub->add_option("--buffers", p->buffers, "Buffers (3 = triple buffering); iteration i uses buffer i % buffers");
  sub->add_option("--upload-ns", p->upload_ns, "Upload time at --copy-gbps, ns (sets its bytes)");
  sub->add_option("--compute-ns", p->compute_ns, "Run time of each compute block, ns");
  sub->add_option("--download-ns", p->download_ns, "Download time at --copy-gbps, ns (sets its bytes)");
  sub->add_option("--copy-gbps", p->copy_gbps, "Bandwidth that turns copy times into bytes, GB/s");
  sub->add_option("--blocks", p->blocks, "Blocks of the compute kernel");
  sub->add_option("--threads", p->threads, "Threads per block");
  add_output(*sub, [p] { return gen::pipeline(*p); });
}

void setup_fork_join(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand("fork-join", "stages of (fork into width kernels -> join barrier)");
  auto p = std::make_shared<gen::ForkJoin>();
  sub->add_option("--width", p->width, "Kernels per stage");
  sub->add_option("--stages", p->stages, "Stages");
  sub->add_option("--kernel-ns", p->kernel_ns, "Mean per-block run time, ns (uniform in [x/2, 3x/2])");
  sub->add_option("--blocks", p->blocks, "Blocks per kernel");
  sub->add_option("--threads", p->threads, "Threads per block");
  sub->add_option("--seed", p->seed, "Random seed");
  add_output(*sub, [p] { return gen::fork_join(*p); });
}

void setup_random_dag(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand("random-dag", "random layered DAG of kernels");
  auto p = std::make_shared<gen::RandomDag>();
  sub->add_option("--ops", p->ops, "Ops");
  sub->add_option("--layers", p->layers, "Layers (an op's depth is its layer)");
  sub->add_option("--edge-probability", p->edge_probability,
                  "Probability of each extra edge from an earlier layer")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--max-deps", p->max_deps, "Most deps per op");
  sub->add_option("--min-ns", p->min_ns, "Shortest per-block run time, ns");
  sub->add_option("--max-ns", p->max_ns, "Longest per-block run time, ns");
  sub->add_option("--seed", p->seed, "Random seed");
  add_output(*sub, [p] { return gen::random_dag(*p); });
}

void setup_task_batch(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand("task-batch", "one persistent task pool with variable-length tasks");
  auto p = std::make_shared<gen::TaskBatch>();
  auto distribution = std::make_shared<std::string>(gen::to_string(p->distribution));
  auto assignment = std::make_shared<std::string>(model::to_string(p->assignment));
  sub->add_option("--tasks", p->tasks, "Tasks");
  sub->add_option("--distribution", *distribution, "Task lengths: uniform, or heavy-tailed (bounded Pareto, alpha 1.5)")
      ->check(CLI::IsMember({"uniform", "heavy-tailed"}));
  sub->add_option("--min-ns", p->min_ns, "Shortest task, ns");
  sub->add_option("--max-ns", p->max_ns, "Longest task, ns");
  sub->add_option("--workers", p->workers, "Persistent blocks");
  sub->add_option("--threads", p->threads, "Threads per worker block");
  sub->add_option("--assignment", *assignment, "static (block b takes tasks b, b+B, ...) or dynamic (shared queue)")
      ->check(CLI::IsMember({"static", "dynamic"}));
  sub->add_option("--seed", p->seed, "Random seed");
  add_output(*sub, [p, distribution, assignment] {
    gen::TaskBatch params = *p;
    params.distribution = *gen::parse_task_distribution(*distribution);
    params.assignment = *model::parse_task_assignment(*assignment);
    return gen::task_batch(params);
  });
}

void setup_stream_chains(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand("stream-chains", "many independent chains of kernels, chain c hinted to stream c+1");
  auto p = std::make_shared<gen::StreamChains>();
  sub->add_option("--chains", p->chains, "Chains");
  sub->add_option("--length", p->length, "Kernels per chain");
  sub->add_option("--kernel-ns", p->kernel_ns, "Per-block run time, ns");
  sub->add_option("--blocks", p->blocks, "Blocks per kernel");
  sub->add_option("--threads", p->threads, "Threads per block");
  add_output(*sub, [p] { return gen::stream_chains(*p); });
}

/// --order depth-first|breadth-first, parsed when the generator runs.
std::shared_ptr<std::string> add_order(CLI::App& sub) {
  auto order = std::make_shared<std::string>("depth-first");
  sub.add_option("--order", *order, "Issue order: depth-first (stream by stream) or breadth-first (step by step)")
      ->check(CLI::IsMember({"depth-first", "breadth-first"}));
  return order;
}

void setup_chunked_program(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand("chunked-program",
                                     "program: chunks x (h2d -> kernel -> d2h) over k streams, issued depth- or breadth-first");
  auto p = std::make_shared<gen::ChunkedProgram>();
  auto memory = std::make_shared<std::string>(model::to_string(p->host_memory));
  sub->add_option("--chunks", p->chunks, "Number of chunks");
  sub->add_option("--streams", p->streams, "Streams; chunk i goes to stream 1 + i % streams");
  sub->add_option("--bytes-per-chunk", p->bytes_per_chunk, "Bytes of each upload and download");
  sub->add_option("--kernel-ns-per-block", p->kernel_ns_per_block, "Run time of each kernel block, ns");
  sub->add_option("--blocks", p->blocks, "Blocks per kernel");
  sub->add_option("--threads", p->threads, "Threads per block");
  sub->add_option("--host-memory", *memory, "Host buffers: pinned or pageable")->check(CLI::IsMember({"pinned", "pageable"}));
  auto order = add_order(*sub);
  add_output(*sub, [p, order, memory] {
    gen::ChunkedProgram params = *p;
    params.order = *gen::parse_issue_order(*order);
    params.host_memory = *model::parse_host_memory(*memory);
    return gen::chunked_program(params);
  });
}

void setup_chains_program(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand("chains-program",
                                     "program: chains of short kernels, one per stream, issued depth- or breadth-first");
  auto p = std::make_shared<gen::ChainsProgram>();
  sub->add_option("--streams", p->streams, "Streams (one chain each)");
  sub->add_option("--length", p->length, "Kernels per chain");
  sub->add_option("--kernel-ns", p->kernel_ns, "Per-block run time, ns");
  sub->add_option("--blocks", p->blocks, "Blocks per kernel");
  sub->add_option("--threads", p->threads, "Threads per block");
  auto order = add_order(*sub);
  add_output(*sub, [p, order] {
    gen::ChainsProgram params = *p;
    params.order = *gen::parse_issue_order(*order);
    return gen::chains_program(params);
  });
}

void setup_priority_program(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand(
      "priority-program", "program: background grids on low-priority streams, then a foreground kernel at a given priority");
  auto p = std::make_shared<gen::PriorityProgram>();
  sub->add_option("--background-streams", p->background_streams, "Background streams");
  sub->add_option("--background-kernels", p->background_kernels, "Kernels per background stream");
  sub->add_option("--background-blocks", p->background_blocks, "Blocks per background kernel");
  sub->add_option("--background-threads", p->background_threads, "Threads per background block");
  sub->add_option("--background-ns", p->background_ns, "Per-block run time of background kernels, ns");
  sub->add_option("--background-priority", p->background_priority, "CUDA priority of the background streams");
  sub->add_option("--foreground-blocks", p->foreground_blocks, "Blocks of the foreground kernel");
  sub->add_option("--foreground-threads", p->foreground_threads, "Threads per foreground block");
  sub->add_option("--foreground-ns", p->foreground_ns, "Per-block run time of the foreground kernel, ns");
  sub->add_option("--foreground-priority", p->foreground_priority,
                  "CUDA priority of the foreground stream (H100: 0 lowest .. -5 highest)");
  sub->add_option("--foreground-gap-ns", p->foreground_gap_ns, "Host time before the foreground launch, ns");
  add_output(*sub, [p] { return gen::priority_program(*p); });
}

void setup_legacy_program(CLI::App& gen_app) {
  auto* sub = gen_app.add_subcommand("legacy-program",
                                     "program: one kernel on the legacy NULL stream among blocking (or non-blocking) streams");
  auto p = std::make_shared<gen::LegacyProgram>();
  auto kind = std::make_shared<std::string>("blocking");
  sub->add_option("--streams", p->streams, "Worker streams");
  sub->add_option("--rounds", p->rounds, "Kernels per worker stream (issued breadth-first)");
  sub->add_option("--legacy-after", p->legacy_after, "The legacy-stream kernel is issued after this many rounds");
  sub->add_option("--kernel-ns", p->kernel_ns, "Per-block run time of worker kernels, ns");
  sub->add_option("--legacy-ns", p->legacy_ns, "Per-block run time of the legacy-stream kernel, ns");
  sub->add_option("--blocks", p->blocks, "Blocks per kernel");
  sub->add_option("--threads", p->threads, "Threads per block");
  sub->add_option("--stream-kind", *kind, "Worker streams: blocking (barrier applies) or non-blocking (exempt)")
      ->check(CLI::IsMember({"blocking", "non-blocking"}));
  add_output(*sub, [p, kind] {
    gen::LegacyProgram params = *p;
    params.blocking = *kind == "blocking";
    return gen::legacy_program(params);
  });
}

const bool registered = register_command(
    {"gen", "Generate a seeded, deterministic workload (same parameters and seed = same file)", [](CLI::App& app) {
       app.require_subcommand(1);
       // Every parameter's default appears in --help.
       app.option_defaults()->always_capture_default();
       setup_chunked(app);
       setup_pipeline(app);
       setup_fork_join(app);
       setup_random_dag(app);
       setup_task_batch(app);
       setup_stream_chains(app);
       setup_chunked_program(app);
       setup_chains_program(app);
       setup_priority_program(app);
       setup_legacy_program(app);
     }});

}  // namespace
}  // namespace streamlab::cli
