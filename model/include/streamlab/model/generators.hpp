#pragma once
/// \file generators.hpp
/// Seeded, deterministic workload generators (same parameters + seed = identical workload, on every
/// platform: randomness comes from std::mt19937_64 with our own distribution code, because the standard
/// distributions differ between standard libraries).
///
/// Stream hints are 1-based (stream 0 is CUDA's legacy default stream, which synchronizes with every
/// blocking stream; no generator asks for it). Every generator returns a workload that passed
/// resolve_and_check; impossible parameters throw InputError naming the parameter (e.g. "--streams").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "streamlab/model/workload.hpp"

namespace streamlab::model::gen {

/// Research note §1.4: `chunks` x (h2d -> kernel -> d2h), chunk i hinted to stream 1 + i % streams.
/// Uploads are high priority (they feed the compute), downloads low (they only drain results).
struct ChunkedCopyCompute {
  std::uint32_t chunks = 8;
  std::uint32_t streams = 3;
  std::uint64_t bytes_per_chunk = 8u << 20;
  Nanos kernel_ns_per_block = 100'000;
  std::uint32_t blocks = 132, threads = 256;
};
[[nodiscard]] Workload chunked_copy_compute(const ChunkedCopyCompute& p);

/// Triple-buffered pipeline: per iteration upload -> compute -> download on buffer i % buffers, hinted to
/// stream 1 + i % buffers. The upload of iteration i also waits for the download of iteration i - buffers
/// (the buffer is reused). Copy sizes are upload_ns / download_ns at `copy_gbps` (pinned memory); the
/// compute kernel is one wave of `blocks` blocks of compute_ns each.
struct Pipeline {
  std::uint32_t iterations = 10;
  std::uint32_t buffers = 3;
  Nanos upload_ns = 2'000'000, compute_ns = 5'000'000, download_ns = 2'000'000;
  double copy_gbps = 25.0;  ///< GB/s (= bytes/ns) that turns upload_ns/download_ns into bytes
  std::uint32_t blocks = 132, threads = 256;
};
[[nodiscard]] Workload pipeline(const Pipeline& p);

/// `stages` x (fork into `width` independent kernels -> join barrier). Kernel per-block durations are
/// uniform in [kernel_ns / 2, 3 * kernel_ns / 2]; no stream hints (the policy decides).
struct ForkJoin {
  std::uint32_t width = 8, stages = 4;
  Nanos kernel_ns = 50'000;
  std::uint64_t seed = 1;
  std::uint32_t blocks = 16, threads = 128;
};
[[nodiscard]] Workload fork_join(const ForkJoin& p);

/// Random layered DAG of kernels: `ops` ops split evenly over `layers`. Every op past layer 0 depends on
/// one random op of the previous layer (so its depth is its layer) plus each op of any earlier layer
/// with probability edge_probability, at most max_deps deps in all. Per-block durations uniform in
/// [min_ns, max_ns], 1..264 blocks of 128 threads; about 10% high, 10% low priority, the rest normal;
/// types about 70% compute, 20% memory, 10% mixed.
struct RandomDag {
  std::uint32_t ops = 100, layers = 10;
  double edge_probability = 0.2;  ///< between consecutive-or-earlier layers
  std::uint32_t max_deps = 4;
  Nanos min_ns = 10'000, max_ns = 200'000;
  std::uint64_t seed = 1;
};
[[nodiscard]] Workload random_dag(const RandomDag& p);

enum class TaskDistribution : std::uint8_t { uniform, heavy_tailed };
[[nodiscard]] std::string_view to_string(TaskDistribution) noexcept;  ///< "uniform", "heavy-tailed"
[[nodiscard]] std::optional<TaskDistribution> parse_task_distribution(std::string_view) noexcept;

/// One task_pool op with `tasks` variable-length tasks: uniform in [min_ns, max_ns], or heavy-tailed
/// (bounded Pareto on [min_ns, max_ns], alpha 1.5: most tasks short, a few near max_ns).
struct TaskBatch {
  std::uint32_t tasks = 4096;
  TaskDistribution distribution = TaskDistribution::uniform;
  Nanos min_ns = 5'000, max_ns = 50'000;
  std::uint32_t workers = 132;  ///< persistent blocks
  TaskAssignment assignment = TaskAssignment::dynamic_queue;
  std::uint64_t seed = 1;
  std::uint32_t threads = 128;  ///< per worker block
};
[[nodiscard]] Workload task_batch(const TaskBatch& p);

/// `chains` independent chains of `length` kernels, chain c hinted to stream c + 1.
struct StreamChains {
  std::uint32_t chains = 16, length = 8;
  Nanos kernel_ns = 20'000;
  std::uint32_t blocks = 1, threads = 64;
};
[[nodiscard]] Workload stream_chains(const StreamChains& p);

// Programs (format 2) ---------------------------------------------------------------------------------------
// Each is a CUDA host program as written: declared streams, calls in issue order, one device synchronize at
// the end. They are the validation scenarios a plain CUDA program reproduces call for call.

/// How a program walks its streams' work: all of stream 1's ops, then stream 2's, ... (depth-first), or
/// step k of every stream before step k + 1 (breadth-first).
enum class IssueOrder : std::uint8_t { depth_first, breadth_first };
[[nodiscard]] std::string_view to_string(IssueOrder) noexcept;  ///< "depth-first", "breadth-first"
[[nodiscard]] std::optional<IssueOrder> parse_issue_order(std::string_view) noexcept;

/// `chunks` x (h2d -> kernel -> d2h), chunk i on stream 1 + i % streams (non-blocking, priority 0).
/// Depth-first issues each chunk's three calls together; breadth-first issues every upload, then every
/// kernel, then every download (stream order keeps each chunk's three in sequence either way).
struct ChunkedProgram {
  std::uint32_t chunks = 8;
  std::uint32_t streams = 4;
  std::uint64_t bytes_per_chunk = 8u << 20;
  Nanos kernel_ns_per_block = 100'000;
  std::uint32_t blocks = 132, threads = 256;
  IssueOrder order = IssueOrder::depth_first;
  HostMemory host_memory = HostMemory::pinned;
};
[[nodiscard]] Workload chunked_program(const ChunkedProgram& p);

/// `streams` chains of `length` kernels (1 block of `threads` by default), chain c on stream c + 1.
struct ChainsProgram {
  std::uint32_t streams = 8, length = 4;
  Nanos kernel_ns = 20'000;
  std::uint32_t blocks = 1, threads = 64;
  IssueOrder order = IssueOrder::depth_first;
};
[[nodiscard]] Workload chains_program(const ChainsProgram& p);

/// Background grids on `background_streams` streams of priority `background_priority` (each stream
/// gets `background_kernels` kernels of `background_blocks` blocks), issued first; then, after
/// `foreground_gap_ns` of host time, one foreground kernel on its own stream of priority
/// `foreground_priority` (H100: 0 = lowest .. -5 = highest).
struct PriorityProgram {
  std::uint32_t background_streams = 4, background_kernels = 2;
  std::uint32_t background_blocks = 264, background_threads = 1024;
  Nanos background_ns = 200'000;
  int background_priority = 0;
  std::uint32_t foreground_blocks = 132, foreground_threads = 256;
  Nanos foreground_ns = 50'000;
  int foreground_priority = -5;
  Nanos foreground_gap_ns = 0;
};
[[nodiscard]] Workload priority_program(const PriorityProgram& p);

/// The legacy NULL stream among blocking streams: `streams` blocking streams each issue `rounds` kernels
/// breadth-first; after round `legacy_after`, one kernel on stream 0 (which waits for every blocking
/// stream's earlier work, and holds back their later work). `blocking = false` makes the streams
/// non-blocking (exempt from the barrier), the comparison case.
struct LegacyProgram {
  std::uint32_t streams = 4, rounds = 4, legacy_after = 2;
  Nanos kernel_ns = 50'000, legacy_ns = 50'000;
  std::uint32_t blocks = 1, threads = 64;
  bool blocking = true;
};
[[nodiscard]] Workload legacy_program(const LegacyProgram& p);

}  // namespace streamlab::model::gen
