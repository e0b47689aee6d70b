#include "streamlab/model/generators.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "streamlab/model/errors.hpp"

namespace streamlab::model::gen {
namespace {

// Portable randomness: the engine is fully specified by the standard, the distributions below are ours.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in [0, 1).
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [lo, hi] without modulo bias (rejection of the incomplete last bucket).
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) {
    const std::uint64_t span = hi - lo;
    if (span == ~std::uint64_t{0}) return engine_();
    const std::uint64_t n = span + 1;
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
    std::uint64_t x = 0;
    do x = engine_();
    while (x >= limit);
    return lo + x % n;
  }
  Nanos uniform_ns(Nanos lo, Nanos hi) {
    return lo + static_cast<Nanos>(uniform(0, static_cast<std::uint64_t>(hi - lo)));
  }
  /// Bounded Pareto on [lo, hi] with shape alpha, by inverting its CDF.
  Nanos bounded_pareto_ns(Nanos lo, Nanos hi, double alpha) {
    if (lo == hi) return lo;
    const double l = static_cast<double>(lo), h = static_cast<double>(hi);
    const double u = uniform01();
    const double ratio = std::pow(l / h, alpha);
    const double x = l / std::pow(1.0 - u * (1.0 - ratio), 1.0 / alpha);
    return std::clamp(static_cast<Nanos>(std::llround(x)), lo, hi);
  }

 private:
  std::mt19937_64 engine_;
};

[[noreturn]] void bad_param(std::string_view generator, std::string_view option, const std::string& why) {
  throw InputError("gen " + std::string(generator), "--" + std::string(option), "", why);
}
void require_positive(std::string_view generator, std::string_view option, std::uint64_t v) {
  if (v == 0) bad_param(generator, option, "must be >= 1");
}
void require_range(std::string_view generator, std::string_view lo_name, Nanos lo, std::string_view hi_name,
                   Nanos hi) {
  if (lo < 0) bad_param(generator, lo_name, "must be >= 0");
  if (hi < lo) bad_param(generator, hi_name, "must be >= --" + std::string(lo_name));
}

Op kernel(Workload& w, std::string_view id, std::string_view name, std::uint32_t blocks, std::uint32_t threads,
          Nanos per_block_ns) {
  Op op;
  op.id = w.intern(id);
  op.name = w.intern(name);
  op.kind = OpKind::kernel;
  op.type = WorkloadType::compute;
  op.shape = KernelShape{Dim3{blocks, 1, 1}, Dim3{threads, 1, 1}};
  op.duration = FixedPerBlock{per_block_ns};
  return op;
}

Op copy(Workload& w, std::string_view id, std::string_view name, OpKind kind, std::uint64_t bytes) {
  Op op;
  op.id = w.intern(id);
  op.name = w.intern(name);
  op.kind = kind;
  op.type = WorkloadType::memory;
  op.bytes = bytes;
  op.host_memory = HostMemory::pinned;
  return op;
}

std::string idx(std::uint32_t i) { return std::to_string(i); }

// Concatenation by append: GCC 12 reports a false -Wrestrict on `"literal" + std::string(...)`.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(parts), ...);
  return s;
}

// Shortest text that reads back as the same double ("25", "0.2").
std::string format_number(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

Workload finish(Workload w, std::string_view generator) {
  resolve_and_check(w, "gen " + std::string(generator));
  return w;
}

}  // namespace

std::string_view to_string(TaskDistribution d) noexcept {
  return d == TaskDistribution::uniform ? "uniform" : "heavy-tailed";
}

std::optional<TaskDistribution> parse_task_distribution(std::string_view s) noexcept {
  if (s == "uniform") return TaskDistribution::uniform;
  if (s == "heavy-tailed") return TaskDistribution::heavy_tailed;
  return std::nullopt;
}

Workload chunked_copy_compute(const ChunkedCopyCompute& p) {
  constexpr std::string_view kGen = "chunked";
  require_positive(kGen, "streams", p.streams);
  require_positive(kGen, "chunks", p.chunks);
  Workload w;
  w.name = "chunked";
  w.description = "chunked copy/compute (research note 1.4): " + std::to_string(p.chunks) + " chunks of " +
                  std::to_string(p.bytes_per_chunk) + " B over " + std::to_string(p.streams) +
                  " streams, kernels of " + std::to_string(p.blocks) + "x" + std::to_string(p.threads) +
                  " threads, " + std::to_string(p.kernel_ns_per_block) + " ns per block";
  w.ops.reserve(std::size_t{p.chunks} * 3);
  for (std::uint32_t i = 0; i < p.chunks; ++i) {
    const std::uint32_t stream = 1 + i % p.streams;
    Op up = copy(w, "h2d_" + idx(i), "upload chunk " + idx(i), OpKind::h2d, p.bytes_per_chunk);
    up.priority = Priority::high;
    Op k = kernel(w, "kernel_" + idx(i), "compute chunk " + idx(i), p.blocks, p.threads, p.kernel_ns_per_block);
    Op down = copy(w, "d2h_" + idx(i), "download chunk " + idx(i), OpKind::d2h, p.bytes_per_chunk);
    down.priority = Priority::low;
    for (Op* op : {&up, &k, &down}) op->stream_hint = stream;
    const OpIndex u = w.add_resolved(up, {});
    const OpIndex c = w.add_resolved(k, std::array{u});
    w.add_resolved(down, std::array{c});
  }
  return finish(std::move(w), kGen);
}

Workload pipeline(const Pipeline& p) {
  constexpr std::string_view kGen = "pipeline";
  require_positive(kGen, "iterations", p.iterations);
  require_positive(kGen, "buffers", p.buffers);
  if (p.upload_ns < 0) bad_param(kGen, "upload-ns", "must be >= 0");
  if (p.compute_ns < 0) bad_param(kGen, "compute-ns", "must be >= 0");
  if (p.download_ns < 0) bad_param(kGen, "download-ns", "must be >= 0");
  if (!(p.copy_gbps > 0) || !std::isfinite(p.copy_gbps)) bad_param(kGen, "copy-gbps", "must be > 0");
  const auto bytes_for = [&](Nanos ns) {
    return static_cast<std::uint64_t>(std::llround(static_cast<double>(ns) * p.copy_gbps));
  };
  Workload w;
  w.name = "pipeline";
  w.description = std::to_string(p.buffers) + "-buffered pipeline: " + std::to_string(p.iterations) +
                  " iterations of upload (" + std::to_string(p.upload_ns) + " ns) -> compute (" +
                  std::to_string(p.compute_ns) + " ns per block, " + std::to_string(p.blocks) + "x" +
                  std::to_string(p.threads) + ") -> download (" + std::to_string(p.download_ns) + " ns), copies at " +
                  format_number(p.copy_gbps) + " GB/s; an upload waits for its buffer's previous download";
  w.ops.reserve(std::size_t{p.iterations} * 3);
  for (std::uint32_t i = 0; i < p.iterations; ++i) {
    const std::uint32_t buffer = i % p.buffers;
    const std::string tag = idx(i) + " (buffer " + idx(buffer) + ")";
    Op up = copy(w, "upload_" + idx(i), "upload " + tag, OpKind::h2d, bytes_for(p.upload_ns));
    Op k = kernel(w, "compute_" + idx(i), "compute " + tag, p.blocks, p.threads, p.compute_ns);
    Op down = copy(w, "download_" + idx(i), "download " + tag, OpKind::d2h, bytes_for(p.download_ns));
    // The download frees the buffer the next upload is waiting for: it is on the critical path.
    down.priority = Priority::high;
    for (Op* op : {&up, &k, &down}) op->stream_hint = 1 + buffer;
    // Iteration i's ops are 3i (upload), 3i + 1 (compute), 3i + 2 (download).
    const OpIndex u = i >= p.buffers ? w.add_resolved(up, std::array{static_cast<OpIndex>(3 * (i - p.buffers) + 2)})
                                     : w.add_resolved(up, {});
    const OpIndex c = w.add_resolved(k, std::array{u});
    w.add_resolved(down, std::array{c});
  }
  return finish(std::move(w), kGen);
}

Workload fork_join(const ForkJoin& p) {
  constexpr std::string_view kGen = "fork-join";
  require_positive(kGen, "width", p.width);
  require_positive(kGen, "stages", p.stages);
  if (p.kernel_ns < 0) bad_param(kGen, "kernel-ns", "must be >= 0");
  Rng rng(p.seed);
  Workload w;
  w.name = "fork-join";
  w.description = std::to_string(p.stages) + " stages of fork (" + std::to_string(p.width) +
                  " kernels, per-block time uniform in [" + std::to_string(p.kernel_ns / 2) + ", " +
                  std::to_string(p.kernel_ns * 3 / 2) + "] ns, " + std::to_string(p.blocks) + "x" +
                  std::to_string(p.threads) + ") -> join barrier; seed " + std::to_string(p.seed);
  w.ops.reserve(std::size_t{p.stages} * (p.width + 1));
  std::optional<OpIndex> previous_join;
  std::vector<OpIndex> branches;
  for (std::uint32_t s = 0; s < p.stages; ++s) {
    Op join;
    join.id = w.intern("join_" + idx(s));
    join.name = w.intern("join stage " + idx(s));
    join.kind = OpKind::barrier;
    join.type = WorkloadType::coordination;
    // Everything after this stage waits on the join: give it the highest priority.
    join.priority = Priority::critical;
    for (std::uint32_t b = 0; b < p.width; ++b) {
      Op k = kernel(w, cat("s", idx(s), "_k", idx(b)), cat("stage ", idx(s), " branch ", idx(b)), p.blocks, p.threads,
                    rng.uniform_ns(p.kernel_ns / 2, p.kernel_ns * 3 / 2));
      branches.push_back(previous_join ? w.add_resolved(k, std::array{*previous_join}) : w.add_resolved(k, {}));
    }
    previous_join = w.add_resolved(join, branches);
    branches.clear();
  }
  return finish(std::move(w), kGen);
}

Workload random_dag(const RandomDag& p) {
  constexpr std::string_view kGen = "random-dag";
  require_positive(kGen, "layers", p.layers);
  if (p.ops < p.layers) bad_param(kGen, "ops", "must be >= --layers (" + std::to_string(p.layers) + ")");
  if (!(p.edge_probability >= 0 && p.edge_probability <= 1))
    bad_param(kGen, "edge-probability", "must be in [0, 1]");
  require_positive(kGen, "max-deps", p.max_deps);
  require_range(kGen, "min-ns", p.min_ns, "max-ns", p.max_ns);
  Rng rng(p.seed);
  Workload w;
  w.name = "random-dag";
  w.description = "random layered DAG: " + std::to_string(p.ops) + " kernels in " + std::to_string(p.layers) +
                  " layers, edge probability " + format_number(p.edge_probability) + ", at most " +
                  std::to_string(p.max_deps) + " deps, per-block time uniform in [" + std::to_string(p.min_ns) +
                  ", " + std::to_string(p.max_ns) + "] ns; seed " + std::to_string(p.seed);
  w.ops.reserve(p.ops);
  // Layer l holds ops [first[l], first[l + 1]).
  std::vector<std::uint32_t> first(p.layers + 1);
  for (std::uint32_t l = 0; l <= p.layers; ++l)
    first[l] = static_cast<std::uint32_t>(std::uint64_t{p.ops} * l / p.layers);
  const double log_q = std::log1p(-p.edge_probability);  // for geometric skips; -inf when p == 1
  for (std::uint32_t l = 0; l < p.layers; ++l) {
    for (std::uint32_t i = first[l]; i < first[l + 1]; ++i) {
      const auto blocks = static_cast<std::uint32_t>(rng.uniform(1, 264));
      Op k = kernel(w, "op_" + idx(i), "layer " + idx(l) + " op " + idx(i), blocks, 128,
                    rng.uniform_ns(p.min_ns, p.max_ns));
      const double pr = rng.uniform01();
      k.priority = pr < 0.1 ? Priority::high : pr < 0.2 ? Priority::low : Priority::normal;
      const double ty = rng.uniform01();
      k.type = ty < 0.7 ? WorkloadType::compute : ty < 0.9 ? WorkloadType::memory : WorkloadType::mixed;
      if (l > 0) {
        // One edge from the previous layer fixes the op's depth; extra edges from any earlier layer.
        const auto anchor = static_cast<std::uint32_t>(rng.uniform(first[l - 1], first[l] - 1));
        std::vector<std::uint32_t> deps{anchor};
        const std::uint32_t candidates = first[l];
        if (p.edge_probability > 0 && candidates > 1) {
          // Visit candidates from a random offset, jumping geometric gaps: O(deps), not O(candidates).
          const auto offset = static_cast<std::uint32_t>(rng.uniform(0, candidates - 1));
          std::uint64_t pos = 0;
          while (deps.size() < p.max_deps) {
            if (p.edge_probability < 1) {
              const double u = 1.0 - rng.uniform01();  // (0, 1]
              pos += static_cast<std::uint64_t>(std::floor(std::log(u) / log_q));
            }
            if (pos >= candidates) break;
            const auto c = static_cast<std::uint32_t>((offset + pos) % candidates);
            if (std::find(deps.begin(), deps.end(), c) == deps.end()) deps.push_back(c);
            ++pos;
          }
        }
        std::sort(deps.begin(), deps.end());
        w.add_resolved(k, deps);  // op_<i> is op i
      } else {
        w.add_resolved(k, {});
      }
    }
  }
  return finish(std::move(w), kGen);
}

Workload task_batch(const TaskBatch& p) {
  constexpr std::string_view kGen = "task-batch";
  require_positive(kGen, "tasks", p.tasks);
  require_positive(kGen, "workers", p.workers);
  require_range(kGen, "min-ns", p.min_ns, "max-ns", p.max_ns);
  // A bounded Pareto's scale is its minimum: 0 makes every task 0 ns, whatever --max-ns says.
  if (p.distribution == TaskDistribution::heavy_tailed && p.min_ns == 0)
    bad_param(kGen, "min-ns", "must be >= 1 for heavy-tailed tasks (a Pareto with minimum 0 gives only 0 ns tasks)");
  Rng rng(p.seed);
  Workload w;
  w.name = "task-batch";
  w.description = std::to_string(p.tasks) + " tasks, " + std::string(to_string(p.distribution)) + " in [" +
                  std::to_string(p.min_ns) + ", " + std::to_string(p.max_ns) + "] ns" +
                  (p.distribution == TaskDistribution::heavy_tailed ? " (bounded Pareto, alpha 1.5)" : "") +
                  ", on " + std::to_string(p.workers) + " persistent blocks of " + std::to_string(p.threads) +
                  " threads, " + std::string(model::to_string(p.assignment)) + " assignment; seed " +
                  std::to_string(p.seed);
  Op pool;
  pool.id = "tasks";
  pool.name = "task pool";
  pool.kind = OpKind::task_pool;
  pool.type = WorkloadType::compute;
  pool.shape = KernelShape{Dim3{p.workers, 1, 1}, Dim3{p.threads, 1, 1}};
  TaskList list;
  list.assignment = p.assignment;
  list.task_ns.reserve(p.tasks);
  for (std::uint32_t t = 0; t < p.tasks; ++t)
    list.task_ns.push_back(p.distribution == TaskDistribution::uniform
                               ? rng.uniform_ns(p.min_ns, p.max_ns)
                               : rng.bounded_pareto_ns(p.min_ns, p.max_ns, 1.5));
  pool.tasks = std::move(list);
  w.ops.push_back(std::move(pool));
  return finish(std::move(w), kGen);
}

Workload stream_chains(const StreamChains& p) {
  constexpr std::string_view kGen = "stream-chains";
  require_positive(kGen, "chains", p.chains);
  require_positive(kGen, "length", p.length);
  if (p.kernel_ns < 0) bad_param(kGen, "kernel-ns", "must be >= 0");
  Workload w;
  w.name = "stream-chains";
  w.description = std::to_string(p.chains) + " independent chains of " + std::to_string(p.length) +
                  " kernels (" + std::to_string(p.blocks) + "x" + std::to_string(p.threads) + ", " +
                  std::to_string(p.kernel_ns) + " ns per block), chain c hinted to stream c + 1";
  w.ops.reserve(std::size_t{p.chains} * p.length);
  for (std::uint32_t c = 0; c < p.chains; ++c) {
    for (std::uint32_t k = 0; k < p.length; ++k) {
      Op op = kernel(w, cat("c", idx(c), "_k", idx(k)), cat("chain ", idx(c), " kernel ", idx(k)), p.blocks, p.threads,
                     p.kernel_ns);
      op.stream_hint = c + 1;
      if (k > 0)
        w.add_resolved(op, std::array{static_cast<OpIndex>(w.ops.size() - 1)});
      else
        w.add_resolved(op, {});
    }
  }
  return finish(std::move(w), kGen);
}

namespace {

Workload new_program(std::string name, std::string description) {
  Workload w;
  w.name = std::move(name);
  w.description = std::move(description);
  w.program = true;
  return w;
}

void declare(Workload& w, std::uint32_t id, int priority, StreamKind kind, std::string label) {
  w.streams.push_back(StreamDecl{id, priority, kind, std::move(label)});
}

Op on_stream(Op op, std::uint32_t stream) {
  op.stream_hint = stream;
  return op;
}

Op device_sync(Text id) {
  Op op;
  op.id = op.name = id;
  op.kind = OpKind::device_sync;
  op.type = WorkloadType::coordination;
  return op;
}

/// Orders per-stream op lists as a host program issues them: stream by stream, or step by step.
std::vector<Op> issue(std::vector<std::vector<Op>> per_stream, IssueOrder order) {
  std::vector<Op> out;
  if (order == IssueOrder::depth_first) {
    for (auto& ops : per_stream)
      for (auto& op : ops) out.push_back(std::move(op));
    return out;
  }
  std::size_t longest = 0;
  for (const auto& ops : per_stream) longest = std::max(longest, ops.size());
  for (std::size_t k = 0; k < longest; ++k)
    for (auto& ops : per_stream)
      if (k < ops.size()) out.push_back(std::move(ops[k]));
  return out;
}

}  // namespace

std::string_view to_string(IssueOrder o) noexcept {
  return o == IssueOrder::depth_first ? "depth-first" : "breadth-first";
}
std::optional<IssueOrder> parse_issue_order(std::string_view s) noexcept {
  if (s == "depth-first") return IssueOrder::depth_first;
  if (s == "breadth-first") return IssueOrder::breadth_first;
  return std::nullopt;
}

Workload chunked_program(const ChunkedProgram& p) {
  constexpr std::string_view kGen = "chunked-program";
  require_positive(kGen, "streams", p.streams);
  require_positive(kGen, "chunks", p.chunks);
  if (p.kernel_ns_per_block < 0) bad_param(kGen, "kernel-ns-per-block", "must be >= 0");
  Workload w = new_program(
      "chunked-" + std::string(to_string(p.order)),
      std::to_string(p.chunks) + " chunks of h2d -> kernel -> d2h (" + std::to_string(p.bytes_per_chunk) + " B " +
          std::string(to_string(p.host_memory)) + ", " + std::to_string(p.blocks) + "x" + std::to_string(p.threads) +
          " threads x " + std::to_string(p.kernel_ns_per_block) + " ns per block), chunk i on stream 1 + i % " +
          std::to_string(p.streams) + ", issued " + std::string(to_string(p.order)));
  for (std::uint32_t s = 1; s <= p.streams; ++s) declare(w, s, 0, StreamKind::non_blocking, "chunks " + idx(s));
  // Breadth-first here means phase by phase over all chunks: every upload, every kernel, every download.
  std::vector<std::vector<Op>> phases(3), chunks(p.chunks);
  for (std::uint32_t i = 0; i < p.chunks; ++i) {
    const std::uint32_t stream = 1 + i % p.streams;
    Op up = copy(w, "h2d_" + idx(i), "upload chunk " + idx(i), OpKind::h2d, p.bytes_per_chunk);
    Op k = kernel(w, "kernel_" + idx(i), "compute chunk " + idx(i), p.blocks, p.threads, p.kernel_ns_per_block);
    Op down = copy(w, "d2h_" + idx(i), "download chunk " + idx(i), OpKind::d2h, p.bytes_per_chunk);
    up.host_memory = down.host_memory = p.host_memory;
    for (std::size_t phase = 0; Op * op : {&up, &k, &down}) {
      Op placed = on_stream(std::move(*op), stream);
      (p.order == IssueOrder::depth_first ? chunks[i] : phases[phase++]).push_back(std::move(placed));
    }
  }
  for (auto& op : issue(p.order == IssueOrder::depth_first ? std::move(chunks) : std::move(phases),
                        IssueOrder::depth_first))
    w.ops.push_back(std::move(op));
  w.ops.push_back(device_sync("sync"));
  return finish(std::move(w), kGen);
}

Workload chains_program(const ChainsProgram& p) {
  constexpr std::string_view kGen = "chains-program";
  require_positive(kGen, "streams", p.streams);
  require_positive(kGen, "length", p.length);
  if (p.kernel_ns < 0) bad_param(kGen, "kernel-ns", "must be >= 0");
  Workload w = new_program("chains-" + std::string(to_string(p.order)),
                           std::to_string(p.streams) + " chains of " + std::to_string(p.length) + " kernels (" +
                               std::to_string(p.blocks) + "x" + std::to_string(p.threads) + ", " +
                               std::to_string(p.kernel_ns) + " ns per block), chain c on stream c + 1, issued " +
                               std::string(to_string(p.order)));
  std::vector<std::vector<Op>> chains(p.streams);
  for (std::uint32_t c = 0; c < p.streams; ++c) {
    declare(w, c + 1, 0, StreamKind::non_blocking, "chain " + idx(c));
    for (std::uint32_t k = 0; k < p.length; ++k)
      chains[c].push_back(on_stream(kernel(w, cat("c", idx(c), "_k", idx(k)), cat("chain ", idx(c), " kernel ", idx(k)),
                                           p.blocks, p.threads, p.kernel_ns),
                                    c + 1));
  }
  for (auto& op : issue(std::move(chains), p.order)) w.ops.push_back(std::move(op));
  w.ops.push_back(device_sync("sync"));
  return finish(std::move(w), kGen);
}

Workload priority_program(const PriorityProgram& p) {
  constexpr std::string_view kGen = "priority-program";
  require_positive(kGen, "background-streams", p.background_streams);
  if (p.background_ns < 0) bad_param(kGen, "background-ns", "must be >= 0");
  if (p.foreground_ns < 0) bad_param(kGen, "foreground-ns", "must be >= 0");
  if (p.foreground_gap_ns < 0) bad_param(kGen, "foreground-gap-ns", "must be >= 0");
  Workload w = new_program(
      "priority-fg" + std::to_string(p.foreground_priority),
      std::to_string(p.background_streams) + " background streams (priority " + std::to_string(p.background_priority) +
          ") x " + std::to_string(p.background_kernels) + " kernels of " + std::to_string(p.background_blocks) + "x" +
          std::to_string(p.background_threads) + " x " + std::to_string(p.background_ns) +
          " ns, then a foreground kernel of " + std::to_string(p.foreground_blocks) + "x" +
          std::to_string(p.foreground_threads) + " x " + std::to_string(p.foreground_ns) + " ns at priority " +
          std::to_string(p.foreground_priority));
  const std::uint32_t fg = p.background_streams + 1;
  for (std::uint32_t s = 1; s <= p.background_streams; ++s)
    declare(w, s, p.background_priority, StreamKind::non_blocking, "background " + idx(s));
  declare(w, fg, p.foreground_priority, StreamKind::non_blocking, "foreground");
  for (std::uint32_t s = 1; s <= p.background_streams; ++s)
    for (std::uint32_t k = 0; k < p.background_kernels; ++k)
      w.ops.push_back(on_stream(kernel(w, cat("bg", idx(s), "_k", idx(k)), cat("background ", idx(s), " kernel ", idx(k)),
                                       p.background_blocks, p.background_threads, p.background_ns),
                                s));
  Op front = on_stream(kernel(w, "fg", "foreground", p.foreground_blocks, p.foreground_threads, p.foreground_ns), fg);
  front.priority = Priority::critical;
  front.host_gap_ns = p.foreground_gap_ns;
  w.ops.push_back(std::move(front));
  w.ops.push_back(device_sync("sync"));
  return finish(std::move(w), kGen);
}

Workload legacy_program(const LegacyProgram& p) {
  constexpr std::string_view kGen = "legacy-program";
  require_positive(kGen, "streams", p.streams);
  require_positive(kGen, "rounds", p.rounds);
  if (p.legacy_after > p.rounds) bad_param(kGen, "legacy-after", "must be <= --rounds");
  if (p.kernel_ns < 0 || p.legacy_ns < 0) bad_param(kGen, "kernel-ns", "must be >= 0");
  const StreamKind kind = p.blocking ? StreamKind::blocking : StreamKind::non_blocking;
  Workload w = new_program(std::string("legacy-among-") + (p.blocking ? "blocking" : "non-blocking"),
                           std::to_string(p.streams) + " " + std::string(to_string(kind)) + " streams x " +
                               std::to_string(p.rounds) + " kernels issued breadth-first; after round " +
                               std::to_string(p.legacy_after) + " one kernel on the legacy NULL stream");
  for (std::uint32_t s = 1; s <= p.streams; ++s) declare(w, s, 0, kind, "worker " + idx(s));
  for (std::uint32_t r = 0; r < p.rounds; ++r) {
    if (r == p.legacy_after)
      w.ops.push_back(on_stream(kernel(w, "legacy", "legacy NULL stream kernel", p.blocks, p.threads, p.legacy_ns), 0));
    for (std::uint32_t s = 1; s <= p.streams; ++s)
      w.ops.push_back(on_stream(kernel(w, cat("s", idx(s), "_r", idx(r)), cat("stream ", idx(s), " round ", idx(r)),
                                       p.blocks, p.threads, p.kernel_ns),
                                s));
  }
  if (p.legacy_after == p.rounds)
    w.ops.push_back(on_stream(kernel(w, "legacy", "legacy NULL stream kernel", p.blocks, p.threads, p.legacy_ns), 0));
  w.ops.push_back(device_sync("sync"));
  return finish(std::move(w), kGen);
}

}  // namespace streamlab::model::gen
