// Waves of blocks (SimOptions::merge_block_waves) change how the simulator schedules its work, never what
// it predicts: over random workloads built to form waves (grids of equal fixed-time blocks, per-block lists
// and static pools with repeated times, dynamic pools, zero-time blocks, grids that fill the device so
// finishing blocks are replaced, priorities, the resident-grid limit, launch-rate and replacement gaps),
// driven by the Dispatcher and by a host loop that blocks mid-run, the trace (spans, every block placement,
// sim_events), every explanation, the counters and a run-budget error are the same with waves merged as
// with one event per block.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../golden/test_profile.hpp"
#include "streamlab/model/input_limits.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/explain.hpp"
#include "streamlab/sim/sim_backend.hpp"

namespace streamlab {
namespace {

using model::Nanos;
using model::OpIndex;
using model::OpKind;

/// Kernels whose blocks end together: a few shapes (so many grids share a block's needs), fixed times from
/// a short list, per-block lists and static pools drawn from two values; plus dynamic pools, copies and
/// host functions in between. Grids reach 40 blocks on a 4-SM device that holds at most 64.
model::Workload wave_workload(std::uint64_t seed, std::uint32_t n, bool pools = true) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const std::uint32_t threads[] = {128, 256, 1024};
  const Nanos times[] = {0, 1000, 2000, 2000, 5000};
  model::Workload w;
  w.name = "waves-" + std::to_string(seed);
  for (std::uint32_t i = 0; i < n; ++i) {
    model::Op op;
    op.id = w.intern("op" + std::to_string(i));
    op.priority = static_cast<model::Priority>(pick(0, 4));
    const auto r = pick(0, 99);
    if (r < 75) {
      op.kind = r < 65 || !pools ? OpKind::kernel : OpKind::task_pool;
      model::KernelShape s;
      s.grid = {static_cast<std::uint32_t>(pick(1, 40)), 1, 1};
      s.block = {threads[pick(0, 2)], 1, 1};
      s.registers_per_thread = pick(0, 3) == 0 ? 64 : 32;
      op.shape = s;
      if (op.kind == OpKind::task_pool) {
        model::TaskList t;
        const Nanos a = times[pick(1, 4)], b = times[pick(1, 4)];
        for (auto k = pick(1, 3 * static_cast<std::int64_t>(s.blocks())); k > 0; --k) t.task_ns.push_back(pick(0, 1) ? a : b);
        t.assignment = pick(0, 2) == 0 ? model::TaskAssignment::dynamic_queue : model::TaskAssignment::static_index;
        op.tasks = t;
      } else if (pick(0, 4) == 0) {
        model::PerBlockList l;
        const Nanos a = times[pick(0, 4)], b = times[pick(0, 4)];
        for (std::uint64_t k = 0; k < s.blocks(); ++k) l.ns.push_back(pick(0, 3) == 0 ? b : a);
        op.duration = l;
      } else {
        op.duration = model::FixedPerBlock{times[pick(0, 4)]};
      }
    } else if (r < 90) {
      op.kind = pick(0, 1) ? OpKind::h2d : OpKind::d2h;
      op.bytes = static_cast<std::uint64_t>(pick(1, 200'000));
      op.type = model::WorkloadType::memory;
    } else {
      op.kind = OpKind::host_func;
      op.host_ns = pick(0, 3000);
      op.type = model::WorkloadType::coordination;
    }
    std::vector<std::string> deps;
    if (i > 0)
      for (auto k = pick(0, 2); k > 0; --k) {
        const std::string dep = "op" + std::to_string(pick(std::max<std::int64_t>(0, std::int64_t{i} - 12), std::int64_t{i} - 1));
        if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(dep);
      }
    w.add(op, deps);
  }
  model::resolve_and_check(w, w.name);
  return w;
}

/// The golden device; with replacement gaps; also with a launch rate (blocks of a grid then start apart
/// and only blocks placed into freed room together form waves); with a resident-grid limit of 2; or with
/// every gap a round 1000 ns like the block times, so that other events often fall due at the very
/// instant a wave ends (where the order of equal times decides what happens).
constexpr int kDevices = 5;
model::DeviceProfile device(int variant) {
  model::DeviceProfile p = golden::test_profile();
  p.block_dispatch_ns = golden::p(variant == 0 ? 0 : 224);
  if (variant == 2) p.warp_launch_ns = golden::p(3);
  if (variant == 3) p.max_resident_grids = golden::p(2);
  if (variant == 4) {
    p.block_dispatch_ns = golden::p(1000);
    p.same_stream_gap_ns = golden::p(1000);
    p.event_wait_latency_ns = golden::p(1000);
    p.kernel_start_latency_ns = golden::p(1000);
  }
  return p;
}

/// Everything a run shows: the trace, each op's explanation, the counters.
struct Outcome {
  model::Trace trace;
  std::vector<std::string> explanations;
  std::uint64_t events = 0, blocks = 0, commands = 0;
  std::string error;  ///< a run-budget error's message
};

/// Explanations are optional: with them on, the simulator takes its general path for every block (it
/// notes what started each kernel), so both settings are compared.
sim::SimOptions options(bool merge, bool traced, std::uint64_t max_events, bool explain) {
  sim::SimOptions so;
  so.record_blocks = true;
  so.explain = explain;
  so.date = "2026-01-01";
  so.traced = traced;
  so.merge_block_waves = merge;
  so.kernel_classes = merge;  // the reference takes no shortcut
  so.budget.max_events = max_events;
  return so;
}

void collect(sim::SimBackend& b, const model::Workload& w, Outcome& out) {
  for (OpIndex i = 0; i < w.ops.size(); ++i)
    if (const sim::OpExplanation* e = b.explain(i)) out.explanations.push_back(sim::format_explanation(w, *e));
  out.events = b.stats().events_processed;
  out.blocks = b.stats().blocks;
  out.commands = b.stats().commands;
}

Outcome via_dispatcher(const model::Workload& w, const model::DeviceProfile& p, const std::string& policy,
                       bool merge, bool traced, bool explain, std::uint64_t max_events = UINT64_MAX >> 1) {
  Outcome out;
  sim::SimBackend b(p, options(merge, traced, max_events, explain));
  policies::PolicyConfig cfg;
  cfg.streams = 3;
  auto pol = policies::make_policy(policy, cfg);
  policies::DispatchOptions d;
  d.profile = &p;
  d.keep_log = false;
  try {
    out.trace = policies::dispatch(b, w, *pol, d).trace;
  } catch (const std::exception& e) {  // a run-budget error (or the size check before it)
    out.error = e.what();
    return out;
  }
  collect(b, w, out);
  return out;
}

/// Ops in order on 3 streams of different priorities, an event per op, waits on other streams' deps, and
/// every 5th op a stream synchronize (the host returns the moment the stream's last block ends, which can
/// be mid-wave) or an event query.
Outcome via_host_loop(const model::Workload& w, const model::DeviceProfile& p, bool merge, bool explain) {
  Outcome out;
  sim::SimBackend b(p, options(merge, false, UINT64_MAX >> 1, explain));
  b.prepare(w);
  std::vector<policies::StreamId> s;
  for (int i = 0; i < 3; ++i) s.push_back(b.create_stream(policies::StreamDesc{-2 * i, policies::StreamKind::non_blocking, ""}));
  std::vector<policies::EventId> ev;
  std::uint64_t done = 0;
  try {
  for (OpIndex i = 0; i < w.ops.size(); ++i) {
    const auto st = s[i % 3];
    for (OpIndex d : w.deps(i))
      if (d % 3 != i % 3) b.stream_wait_event(st, ev[d]);
    b.enqueue(st, i);
    ev.push_back(b.create_event(policies::EventTiming::timed));
    b.record_event(ev.back(), st);
    if (i % 5 == 4) (void)b.synchronize_stream(s[(i / 5) % 3], 1'000'000'000);
    if (i % 5 == 2) done += b.query_event(ev[i / 2]) ? 1 : 0;
  }
  out.trace = b.finish();
  } catch (const std::exception& e) {  // a run-budget or stall error: the same both ways
    out.error = e.what();
    return out;
  }
  out.trace.meta.extra["queries_done"] = std::to_string(done);
  collect(b, w, out);
  return out;
}

/// The first span and block placement that differ, readably (the traces themselves print as bytes).
std::string first_difference(const model::Trace& a, const model::Trace& b) {
  if (a.meta != b.meta) return "meta (sim_events " + a.meta.extra.at("sim_events") + " vs " + b.meta.extra.at("sim_events") + ")";
  auto span = [](const model::Span& s) {
    return s.op_id + " [" + std::to_string(s.start_ns) + ", " + std::to_string(s.end_ns) + ")";
  };
  auto block = [](const model::BlockPlacement& x) {
    return "op " + std::to_string(x.op) + " block " + std::to_string(x.block) + " on SM " + std::to_string(x.sm) +
           " [" + std::to_string(x.start_ns) + ", " + std::to_string(x.end_ns) + ")";
  };
  for (std::size_t i = 0; i < std::min(a.spans.size(), b.spans.size()); ++i)
    if (!(a.spans[i] == b.spans[i])) return "span " + span(a.spans[i]) + " vs " + span(b.spans[i]);
  for (std::size_t i = 0; i < std::min(a.blocks.size(), b.blocks.size()); ++i)
    if (!(a.blocks[i] == b.blocks[i])) return "placement " + std::to_string(i) + ": " + block(a.blocks[i]) + " vs " + block(b.blocks[i]);
  return std::to_string(a.spans.size()) + " vs " + std::to_string(b.spans.size()) + " spans, " +
         std::to_string(a.blocks.size()) + " vs " + std::to_string(b.blocks.size()) + " placements";
}

void expect_same(const Outcome& merged, const Outcome& per_block, const std::string& what) {
  EXPECT_EQ(merged.error, per_block.error) << what;
  EXPECT_TRUE(merged.trace == per_block.trace) << what << ": " << first_difference(merged.trace, per_block.trace);
  EXPECT_EQ(merged.explanations, per_block.explanations) << what;
  EXPECT_EQ(merged.events, per_block.events) << what;
  EXPECT_EQ(merged.blocks, per_block.blocks) << what;
  EXPECT_EQ(merged.commands, per_block.commands) << what;
}

TEST(SimWaves, DispatcherRunsMatchOneEventPerBlock) {
  const std::string pols[] = {"round-robin", "priority", "load-balanced", "work-stealing"};
  int completed = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const model::Workload w = wave_workload(seed, 150);
    for (int variant = 0; variant < kDevices; ++variant) {
      const model::DeviceProfile p = device(variant);
      const std::string& pol = pols[(seed + static_cast<std::uint64_t>(variant)) % 4];
      for (int mode = 0; mode < 3; ++mode) {
        const bool traced = mode == 1, explain = mode == 2;
        const std::string what = "seed " + std::to_string(seed) + ", device " + std::to_string(variant) + ", " +
                                 pol + (traced ? ", traced" : "") + (explain ? ", explained" : "");
        const Outcome per_block = via_dispatcher(w, p, pol, false, traced, explain);
        completed += per_block.error.empty() ? 1 : 0;
        expect_same(via_dispatcher(w, p, pol, true, traced, explain), per_block, what);
      }
    }
  }
  // Every run completes, the resident-grid limit of 2 with priorities included (two partly placed
  // lower-priority grids holding both slots keep placing while a higher-priority head waits for one).
  EXPECT_EQ(completed, 6 * kDevices * 3);
}

TEST(SimWaves, BlockingHostLoopMatchesOneEventPerBlock) {
  for (std::uint64_t seed = 11; seed <= 16; ++seed) {
    const model::Workload w = wave_workload(seed, 120);
    for (int variant = 0; variant < kDevices; ++variant)
      for (bool explain : {false, true})
        expect_same(via_host_loop(w, device(variant), true, explain), via_host_loop(w, device(variant), false, explain),
                    "seed " + std::to_string(seed) + ", device " + std::to_string(variant) +
                        (explain ? ", explained" : ""));
  }
}

// The merged runs do form waves (the comparisons above are not between two identical code paths): the
// future-event list sees far fewer entries while the event count stays the per-block one.
// Kernel classes pack a block time below 2^40 ns beside the class; 2^40 itself (the longest a workload
// may give) is worked out when the kernel leaves its queue. Both sides of that limit, on kernels of one
// shape (one class), give what the reference gives.
TEST(SimWaves, KernelClassesMatchAtTheBlockTimeLimit) {
  constexpr Nanos kLimit = Nanos{1} << 40;
  const Nanos times[] = {1000, kLimit - 1, kLimit, 5, kLimit, 0, 2000, kLimit - 1};
  model::Workload w;
  w.name = "class-times";
  for (std::size_t i = 0; i < std::size(times); ++i) {
    model::Op op;
    op.id = w.intern("k" + std::to_string(i));
    op.kind = OpKind::kernel;
    model::KernelShape s;
    s.grid = {6, 1, 1};
    s.block = {256, 1, 1};
    s.registers_per_thread = 32;
    op.shape = s;
    op.duration = model::FixedPerBlock{times[i]};
    std::vector<std::string> deps;
    if (i >= 3) deps.push_back("k" + std::to_string(i - 3));
    w.add(op, deps);
  }
  model::resolve_and_check(w, w.name);
  for (int variant = 0; variant < kDevices; ++variant) {
    const Outcome classes = via_host_loop(w, device(variant), true, false);
    expect_same(classes, via_host_loop(w, device(variant), false, false), "device variant " + std::to_string(variant));
    ASSERT_TRUE(classes.error.empty()) << classes.error;
    for (const model::Span& sp : classes.trace.spans)
      EXPECT_GE(sp.end_ns - sp.start_ns, times[sp.op]) << sp.op_id << " ran shorter than its block time";
  }
}

TEST(SimWaves, WavesTakeFewerQueueEntriesAndCountEveryBlock) {
  const model::Workload w = wave_workload(3, 150);
  const model::DeviceProfile p = device(1);
  auto run = [&](bool merge) {
    sim::SimBackend b(p, options(merge, false, UINT64_MAX >> 1, false));
    policies::PolicyConfig cfg;
    cfg.streams = 3;
    auto pol = policies::make_policy("round-robin", cfg);
    policies::DispatchOptions d;
    d.profile = &p;
    (void)policies::dispatch(b, w, *pol, d);
    return b.stats();
  };
  const sim::SimStats merged = run(true), per_block = run(false);
  EXPECT_EQ(merged.events_processed, per_block.events_processed);
  EXPECT_GT(per_block.blocks, 1000u);
  EXPECT_EQ(merged.blocks, per_block.blocks);
  EXPECT_EQ(per_block.queue_pops, per_block.events_processed);
  // At least half of the block events were merged away.
  EXPECT_LT(merged.queue_pops + per_block.blocks / 2, per_block.queue_pops)
      << merged.queue_pops << " entries merged, " << per_block.queue_pops << " per block, " << per_block.blocks
      << " blocks";
}

// A budget that runs out inside a wave stops at the same simulated time with the same message.
TEST(SimWaves, BudgetStopsAtTheSameEvent) {
  // Without task pools (a static pool's tasks are work items but not events of their own).
  const model::Workload w = wave_workload(5, 150, false);
  const model::DeviceProfile p = device(1);
  const Outcome full = via_dispatcher(w, p, "round-robin", false, false, false);
  // Below the work items the run is refused before it starts; between them and the events it needs, it
  // stops part way.
  const std::uint64_t items = model::simulation_work_items(w);
  ASSERT_LT(items + 100, full.events);
  for (std::uint64_t k = 0; k < 12; ++k) {
    const std::uint64_t limit = items + (full.events - items) * k / 12;
    const Outcome per_block = via_dispatcher(w, p, "round-robin", false, false, false, limit);
    ASSERT_NE(per_block.error.find("(raise it with --max-events)"), std::string::npos) << limit;
    ASSERT_NE(per_block.error.find("stopped at simulated time"), std::string::npos) << per_block.error;
    EXPECT_EQ(via_dispatcher(w, p, "round-robin", true, false, false, limit).error, per_block.error) << limit;
  }
}

}  // namespace
}  // namespace streamlab
