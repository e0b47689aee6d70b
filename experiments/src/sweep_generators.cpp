// The generators of model/generators.hpp, addressed by name from a sweep spec.
#include "streamlab/experiments/sweep_generators.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>

#include "streamlab/model/generators.hpp"

namespace streamlab::experiments {
namespace {

namespace gen = model::gen;

/// One parameter: its description and how its value lands in the generator's struct.
template <class P>
struct Param {
  GenParamInfo info;
  std::function<void(P&, const GenValue&)> set;
};

template <class T>
T as_int(const GenValue& v) {
  return static_cast<T>(std::llround(v.number));
}

template <class P, class T>
Param<P> integer(std::string_view name, T P::*field) {
  return {{name, GenParamType::integer, {}}, [field](P& p, const GenValue& v) { p.*field = as_int<T>(v); }};
}
template <class P>
Param<P> real(std::string_view name, double P::*field) {
  return {{name, GenParamType::real, {}}, [field](P& p, const GenValue& v) { p.*field = v.number; }};
}

/// A generator: its parameter table and its function.
template <class P>
struct Generator {
  std::vector<Param<P>> params;
  std::function<model::Workload(const P&)> make;

  [[nodiscard]] std::vector<GenParamInfo> infos() const {
    std::vector<GenParamInfo> out;
    for (const auto& p : params) out.push_back(p.info);
    return out;
  }
  [[nodiscard]] model::Workload run(std::span<const GenValue> values) const {
    P p;
    for (const GenValue& v : values)
      for (const auto& def : params)
        if (def.info.name == v.name) def.set(p, v);
    return make(p);
  }
};

const Generator<gen::ChunkedCopyCompute>& chunked() {
  using P = gen::ChunkedCopyCompute;
  static const Generator<P> g{{integer("chunks", &P::chunks), integer("streams", &P::streams),
                               integer("bytes-per-chunk", &P::bytes_per_chunk),
                               integer("kernel-ns-per-block", &P::kernel_ns_per_block),
                               integer("blocks", &P::blocks), integer("threads", &P::threads)},
                              gen::chunked_copy_compute};
  return g;
}
const Generator<gen::Pipeline>& pipeline() {
  using P = gen::Pipeline;
  static const Generator<P> g{{integer("iterations", &P::iterations), integer("buffers", &P::buffers),
                               integer("upload-ns", &P::upload_ns), integer("compute-ns", &P::compute_ns),
                               integer("download-ns", &P::download_ns), real("copy-gbps", &P::copy_gbps),
                               integer("blocks", &P::blocks), integer("threads", &P::threads)},
                              gen::pipeline};
  return g;
}
const Generator<gen::ForkJoin>& fork_join() {
  using P = gen::ForkJoin;
  static const Generator<P> g{{integer("width", &P::width), integer("stages", &P::stages),
                               integer("kernel-ns", &P::kernel_ns), integer("blocks", &P::blocks),
                               integer("threads", &P::threads), integer("seed", &P::seed)},
                              gen::fork_join};
  return g;
}
const Generator<gen::RandomDag>& random_dag() {
  using P = gen::RandomDag;
  static const Generator<P> g{{integer("ops", &P::ops), integer("layers", &P::layers),
                               real("edge-probability", &P::edge_probability), integer("max-deps", &P::max_deps),
                               integer("min-ns", &P::min_ns), integer("max-ns", &P::max_ns),
                               integer("seed", &P::seed)},
                              gen::random_dag};
  return g;
}
const Generator<gen::TaskBatch>& task_batch() {
  using P = gen::TaskBatch;
  static const Generator<P> g{
      {integer("tasks", &P::tasks),
       {{"distribution", GenParamType::text, {"uniform", "heavy-tailed"}},
        [](P& p, const GenValue& v) { p.distribution = *gen::parse_task_distribution(v.text); }},
       integer("min-ns", &P::min_ns), integer("max-ns", &P::max_ns), integer("workers", &P::workers),
       integer("threads", &P::threads),
       {{"assignment", GenParamType::text, {"static", "dynamic"}},
        [](P& p, const GenValue& v) { p.assignment = *model::parse_task_assignment(v.text); }},
       integer("seed", &P::seed)},
      gen::task_batch};
  return g;
}
const Generator<gen::StreamChains>& stream_chains() {
  using P = gen::StreamChains;
  static const Generator<P> g{{integer("chains", &P::chains), integer("length", &P::length),
                               integer("kernel-ns", &P::kernel_ns), integer("blocks", &P::blocks),
                               integer("threads", &P::threads)},
                              gen::stream_chains};
  return g;
}

/// Calls `f(generator)` for the named generator; false when there is none.
template <class F>
bool with_generator(std::string_view name, F&& f) {
  if (name == "chunked") return f(chunked()), true;
  if (name == "pipeline") return f(pipeline()), true;
  if (name == "fork-join") return f(fork_join()), true;
  if (name == "random-dag") return f(random_dag()), true;
  if (name == "task-batch") return f(task_batch()), true;
  if (name == "stream-chains") return f(stream_chains()), true;
  return false;
}

}  // namespace

std::vector<std::string_view> generator_names() {
  return {"chunked", "pipeline", "fork-join", "random-dag", "task-batch", "stream-chains"};
}

std::vector<GenParamInfo> generator_params(std::string_view generator) {
  std::vector<GenParamInfo> out;
  with_generator(generator, [&](const auto& g) { out = g.infos(); });
  return out;
}

model::Workload generate_workload(std::string_view generator, std::span<const GenValue> params) {
  model::Workload w;
  if (!with_generator(generator, [&](const auto& g) { w = g.run(params); }))
    throw std::invalid_argument("unknown generator '" + std::string(generator) + "'");
  return w;
}

}  // namespace streamlab::experiments
