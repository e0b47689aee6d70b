#pragma once
/// \file generators.hpp
/// Seeded, deterministic workload generators (same parameters + seed = identical workload).

#include <cstdint>
#include <string>

#include "streamlab/model/workload.hpp"

namespace streamlab::model::gen {

/// Research note §1.4: `chunks` x (h2d -> kernel -> d2h), chunk i hinted to stream i % streams.
struct ChunkedCopyCompute {
  std::uint32_t chunks = 8;
  std::uint32_t streams = 3;
  std::uint64_t bytes_per_chunk = 8u << 20;
  Nanos kernel_ns_per_block = 100'000;
  std::uint32_t blocks = 132, threads = 256;
};
[[nodiscard]] Workload chunked_copy_compute(const ChunkedCopyCompute& p);

/// Triple-buffered pipeline: per iteration upload -> compute -> download, buffer i % 3 reused after its
/// previous download.
struct Pipeline {
  std::uint32_t iterations = 10;
  std::uint32_t buffers = 3;
  Nanos upload_ns = 2'000'000, compute_ns = 5'000'000, download_ns = 2'000'000;
};
[[nodiscard]] Workload pipeline(const Pipeline& p);

struct ForkJoin {
  std::uint32_t width = 8, stages = 4;
  Nanos kernel_ns = 50'000;
  std::uint64_t seed = 1;
};
[[nodiscard]] Workload fork_join(const ForkJoin& p);

struct RandomDag {
  std::uint32_t ops = 100, layers = 10;
  double edge_probability = 0.2;  ///< between consecutive-or-earlier layers
  std::uint32_t max_deps = 4;
  Nanos min_ns = 10'000, max_ns = 200'000;
  std::uint64_t seed = 1;
};
[[nodiscard]] Workload random_dag(const RandomDag& p);

enum class TaskDistribution : std::uint8_t { uniform, heavy_tailed };
/// One task_pool op with `tasks` variable-length tasks (uniform in [min,max] or Pareto, alpha 1.5).
struct TaskBatch {
  std::uint32_t tasks = 4096;
  TaskDistribution distribution = TaskDistribution::uniform;
  Nanos min_ns = 5'000, max_ns = 50'000;
  std::uint32_t workers = 132;  ///< persistent blocks
  TaskAssignment assignment = TaskAssignment::dynamic_queue;
  std::uint64_t seed = 1;
};
[[nodiscard]] Workload task_batch(const TaskBatch& p);

/// `chains` independent chains of `length` kernels, chain c hinted to stream c.
struct StreamChains {
  std::uint32_t chains = 16, length = 8;
  Nanos kernel_ns = 20'000;
  std::uint32_t blocks = 1, threads = 64;
};
[[nodiscard]] Workload stream_chains(const StreamChains& p);

}  // namespace streamlab::model::gen
