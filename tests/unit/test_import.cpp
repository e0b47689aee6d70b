// streamlab::import: the Kineto and Nsight Systems readers on fixtures (real H100 Kineto traces, SQLite
// files built here from SQL), the program they become, and every bad-input kind with its message.
#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "streamlab/import/import.hpp"
#include "streamlab/import/kineto.hpp"
#include "streamlab/import/nsys.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/estimate.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/policies/dispatcher.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/sim/sim_backend.hpp"
#include "../support/nsys_export_schema.hpp"

namespace streamlab::import {
namespace {

namespace fs = std::filesystem;
using model::OpKind;

const fs::path kFixtures = fs::path(STREAMLAB_SOURCE_DIR) / "import" / "fixtures" / "h100-2026-11-23";

fs::path temp_path(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("streamlab_import_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

/// Expects an InputError whose message names the file and contains every needle.
template <class F>
void expect_input_error(F&& f, const std::string& file, std::initializer_list<std::string> needles) {
  try {
    f();
    FAIL() << "no InputError";
  } catch (const model::InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find(file), std::string::npos) << msg;
    for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "'" << n << "' not in: " << msg;
  }
}

const model::Op& op(const model::Workload& w, const std::string& id) { return w.ops[w.index_of(id)]; }

// ------------------------------------------------------------------------------------------------ names
TEST(ImportCalls, ClassifiesRuntimeAndDriverNames) {
  EXPECT_EQ(classify_call("cudaLaunchKernel"), CallKind::launch);
  EXPECT_EQ(classify_call("cudaLaunchKernel_v7000"), CallKind::launch);
  EXPECT_EQ(classify_call("cuLaunchKernel"), CallKind::launch);
  EXPECT_EQ(classify_call("cudaLaunchKernelExC_v11060"), CallKind::launch);
  EXPECT_EQ(classify_call("cudaGraphLaunch"), CallKind::launch);
  EXPECT_EQ(classify_call("cudaMemcpyAsync"), CallKind::memcpy_async);
  EXPECT_EQ(classify_call("cudaMemcpyAsync_ptsz_v7000"), CallKind::memcpy_async);
  EXPECT_EQ(classify_call("cudaMemcpy"), CallKind::memcpy_sync);
  EXPECT_EQ(classify_call("cudaMemsetAsync"), CallKind::memset_async);
  EXPECT_EQ(classify_call("cudaEventRecordWithFlags"), CallKind::event_record);
  EXPECT_EQ(classify_call("cudaStreamWaitEvent"), CallKind::stream_wait_event);
  EXPECT_EQ(classify_call("cudaStreamSynchronize"), CallKind::stream_sync);
  EXPECT_EQ(classify_call("cudaEventSynchronize"), CallKind::event_sync);
  EXPECT_EQ(classify_call("cudaDeviceSynchronize"), CallKind::device_sync);
  EXPECT_EQ(classify_call("cudaEventQuery"), CallKind::other);
  EXPECT_EQ(classify_call("cudaStreamIsCapturing"), CallKind::other);
}

// ------------------------------------------------------------------------------------- kernel durations
TEST(ImportKernels, PerBlockDurationReproducesTheSpanOverWaves) {
  const auto p = model::bundled_h100_profile();
  const auto pad = static_cast<model::Nanos>(std::llround(model::cupti_kernel_pad_ns(p)));
  for (std::uint32_t blocks : {1u, 132u, 133u, 1000u, 20000u})
    for (std::uint32_t threads : {64u, 256u, 1024u})
      for (model::Nanos span : {5'000, 80'000, 1'000'000}) {
        model::KernelShape s;
        s.grid = {blocks, 1, 1};
        s.block = {threads, 1, 1};
        const std::uint64_t slots = model::blocks_per_sm(s, p) * static_cast<std::uint64_t>(p.sm_count.value);
        const auto waves = static_cast<model::Nanos>((blocks + slots - 1) / slots);
        const model::Nanos per_block = per_block_ns_for_span(s, span, p);
        EXPECT_LE(std::abs(per_block * waves + pad - span), waves) << blocks << "x" << threads << " " << span;
      }
  model::KernelShape tiny;
  EXPECT_EQ(per_block_ns_for_span(tiny, 10, p), 1);  // shorter than CUPTI's pad: 1 ns, never 0 or negative
}

// ----------------------------------------------------------------------------------- Kineto on fixtures
TEST(ImportKineto, MultiStreamFixtureBecomesTheProgramItRan) {
  const Imported imp = import_trace(kFixtures / "multistream.json.gz", {});
  const model::Workload& w = imp.workload;
  EXPECT_TRUE(w.program);
  EXPECT_EQ(imp.stats.kernels, 32u);
  EXPECT_EQ(imp.stats.copies, 8u);
  std::set<std::uint32_t> streams;
  for (const auto& s : w.streams) streams.insert(s.id);
  EXPECT_EQ(streams, (std::set<std::uint32_t>{7, 46, 47, 50}));
  // Input copies: 4 pinned H2D of 16 MiB on the side stream, each followed by its event record.
  std::vector<const model::Op*> h2d, d2h;
  for (const auto& o : w.ops) {
    if (o.kind == OpKind::h2d) h2d.push_back(&o);
    if (o.kind == OpKind::d2h) d2h.push_back(&o);
  }
  ASSERT_EQ(h2d.size(), 4u);
  ASSERT_EQ(d2h.size(), 4u);
  for (const auto* o : h2d) {
    EXPECT_EQ(o->stream_hint, 46u);
    EXPECT_EQ(o->bytes, 16u << 20);
    EXPECT_EQ(o->host_memory, model::HostMemory::pinned);
    EXPECT_FALSE(o->blocking);
  }
  for (const auto* o : d2h) EXPECT_EQ(o->stream_hint, 7u);
  // Each branch waits on the copy event of its chunk; the joins on stream 7 wait on both branches' events,
  // in the order the program recorded them (event ids 95.. in creation order).
  EXPECT_EQ(op(w, "w10452").event, "e10375");  // branch A, chunk 0 <- copy 0
  EXPECT_EQ(op(w, "w10531").event, "e10375");  // branch B, chunk 0 <- copy 0
  EXPECT_EQ(op(w, "w10595").event, "e10397");  // branch A, chunk 1 <- copy 1
  EXPECT_EQ(op(w, "w10996").event, "e10520");  // join 0 <- branch A chunk 0
  EXPECT_EQ(op(w, "w11002").event, "e10584");  // join 0 <- branch B chunk 0
  EXPECT_EQ(op(w, "w11125").event, "e10989");  // join 3 <- branch B chunk 3
  EXPECT_EQ(op(w, "w10452").stream_hint, 50u);
  EXPECT_EQ(op(w, "r10375").stream_hint, 46u);
  EXPECT_EQ(op(w, "r10520").stream_hint, 50u);
  EXPECT_EQ(imp.stats.waits_inferred, 16u);
  EXPECT_EQ(imp.stats.waits_dropped, 0u);
  // Every event a wait names is recorded earlier in the program.
  std::set<std::string> recorded;
  for (const auto& o : w.ops) {
    if (o.kind == OpKind::event_record) recorded.insert(o.event);
    if (o.kind == OpKind::event_wait) {
      EXPECT_TRUE(recorded.contains(o.event)) << o.id;
    }
  }
  // Host order: the copies' calls come before the kernels that consume them.
  EXPECT_LT(w.index_of("c10363"), w.index_of("w10452"));
  EXPECT_EQ(w.ops.back().kind, OpKind::device_sync);
}

TEST(ImportKineto, MeasuredTraceIsTheTracesOwnTimeline) {
  const Imported imp = import_trace(kFixtures / "multistream.json.gz", {});
  const model::Trace& t = imp.measured;
  EXPECT_EQ(t.meta.workload_hash, imp.workload.hash());
  EXPECT_EQ(t.meta.device_name, "NVIDIA H100 80GB HBM3");
  std::size_t device_spans = 0;
  model::Nanos first_host = std::numeric_limits<model::Nanos>::max();
  for (const auto& s : t.spans) {
    EXPECT_EQ(s.op_id, imp.workload.ops[s.op].id);
    EXPECT_LE(s.start_ns, s.end_ns);
    if (s.engine == model::Engine::host) first_host = std::min(first_host, s.start_ns);
    else ++device_spans;
  }
  EXPECT_EQ(first_host, 0);  // the clock starts at the first traced call
  EXPECT_EQ(device_spans, 40u);
  // The first H2D copy: 16 MiB in 318.150 us, issued 5.214 us after the first call (exact ns from the text).
  const auto it = std::find_if(t.spans.begin(), t.spans.end(), [](const model::Span& s) {
    return s.op_id == "c10363" && s.engine == model::Engine::copy_h2d;
  });
  ASSERT_NE(it, t.spans.end());
  EXPECT_EQ(it->duration(), 318'150);
  EXPECT_EQ(it->stream, 46u);
}

TEST(ImportKineto, TrainingStepFixtures) {
  const Imported cnn = import_trace(kFixtures / "cnn.json.gz", {});
  EXPECT_EQ(cnn.stats.kernels, 216u);
  EXPECT_EQ(cnn.stats.memsets, 14u);
  ASSERT_EQ(cnn.workload.streams.size(), 1u);
  EXPECT_EQ(cnn.workload.streams[0].id, 7u);
  const Imported tf = import_trace(kFixtures / "transformer.json.gz", {});
  EXPECT_EQ(tf.stats.kernels, 273u);
  EXPECT_EQ(tf.stats.copies, 12u);  // device-to-device
  for (const auto& o : tf.workload.ops) {
    if (o.kind == OpKind::kernel) {
      ASSERT_TRUE(o.shape.has_value());
      EXPECT_GT(std::get<model::FixedPerBlock>(o.duration).ns, 0);
    }
    EXPECT_GE(o.host_gap_ns, 0);
  }
  // Host order is call order: non-decreasing host span starts.
  model::Nanos last = 0;
  for (const auto& s : tf.measured.spans)
    if (s.engine == model::Engine::host) {
      EXPECT_GE(s.start_ns, last);
      last = s.start_ns;
    }
}

TEST(ImportKineto, ProgramsSurviveTheWorkloadFormat) {
  for (const char* f : {"cnn.json.gz", "transformer.json.gz", "multistream.json.gz"}) {
    const Imported imp = import_trace(kFixtures / f, {});
    const model::Workload back = model::parse_workload(model::workload_to_json(imp.workload), f);
    EXPECT_EQ(back, imp.workload) << f;
    EXPECT_EQ(back.hash(), imp.measured.meta.workload_hash) << f;
  }
}

TEST(ImportKineto, StreamPriorityOverrideAndUnknownStream) {
  BuildOptions o;
  o.stream_priority[47] = -5;
  const Imported imp = import_trace(kFixtures / "multistream.json.gz", o);
  for (const auto& s : imp.workload.streams) EXPECT_EQ(s.priority, s.id == 47 ? -5 : 0);
  o.stream_priority[99] = -1;
  expect_input_error([&] { (void)import_trace(kFixtures / "multistream.json.gz", o); }, "multistream.json.gz",
                     {"stream 99"});
}

// ------------------------------------------------------------------------------------------- round trip
/// Device ops per stream in start order (host API calls left out).
std::map<std::uint32_t, std::vector<std::string>> stream_order(const model::Trace& t) {
  std::map<std::uint32_t, std::vector<std::pair<model::Nanos, std::string>>> by_stream;
  for (const auto& s : t.spans)
    if (!s.host_call && s.engine != model::Engine::host) by_stream[s.stream].emplace_back(s.start_ns, s.op_id);
  std::map<std::uint32_t, std::vector<std::string>> out;
  for (auto& [stream, spans] : by_stream) {
    std::stable_sort(spans.begin(), spans.end());
    for (auto& [start, id] : spans) out[stream].push_back(id);
  }
  return out;
}

TEST(ImportRoundTrip, ReplayOnTheSimulatorKeepsTheSourcesOrderStreamsAndKernelTimes) {
  const auto profile = model::bundled_h100_profile();
  for (const char* f : {"multistream.json.gz", "cnn.json.gz", "transformer.json.gz"}) {
    const Imported imp = import_trace(kFixtures / f, {});
    sim::SimOptions so;
    so.traced = false;  // as imported (BuildOptions::traced off)
    sim::SimBackend backend(profile, so);
    const auto replay = policies::make_policy(policies::kReplayPolicy, {});
    policies::DispatchOptions d;
    d.profile = &profile;
    d.keep_log = false;
    const policies::DispatchResult r = policies::dispatch(backend, imp.workload, *replay, d);
    // Same ops on the same streams in the same order as the source's own timeline.
    EXPECT_EQ(stream_order(r.trace), stream_order(imp.measured)) << f;
    // On one stream (no kernel shares the SMs with another), each kernel replayed with its recorded
    // duration spans what it spanned in the source: within 5% or 3 us (dispatch ramps are the model's).
    // Concurrent kernels (the multi-stream trace) share SMs as the simulator decides: order only.
    if (imp.workload.streams.size() > 1) continue;
    std::map<std::string, model::Nanos> measured;
    for (const auto& s : imp.measured.spans)
      if (s.engine == model::Engine::sm) measured[s.op_id] = s.duration();
    std::size_t checked = 0, off = 0;
    for (const auto& s : r.trace.spans) {
      if (s.engine != model::Engine::sm || s.kind != OpKind::kernel) continue;
      const model::Nanos m = measured.at(s.op_id);
      ++checked;
      if (std::abs(s.duration() - m) > std::max<model::Nanos>(3'000, m / 20)) ++off;
    }
    EXPECT_EQ(checked, imp.stats.kernels) << f;
    // Grids of many short waves gain the model's block-replacement gap per wave (block_dispatch_ns): a
    // 65535-block kernel of 48 us has 63 waves of 0.76 us. At most 2% of the kernels may be off for that.
    EXPECT_LE(off * 50, checked) << f << ": " << off << " of " << checked << " kernels off their recorded span";
  }
}

// ------------------------------------------------------------------------------- Kineto: synthetic text
std::string kernel_event(int corr, int stream, double ts, double dur, int device = 0, const char* extra = "") {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                R"({"ph":"X","cat":"kernel","name":"k%d","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,)"
                R"("args":{"device":%d,"stream":%d,"correlation":%d,"registers per thread":32,)"
                R"("shared memory":0,"grid":[132,1,1],"block":[256,1,1]%s}})",
                corr, device, stream, ts, dur, device, stream, corr, extra);
  return buf;
}
std::string runtime_event(const char* name, int corr, double ts, double dur, int pid = 100) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                R"({"ph":"X","cat":"cuda_runtime","name":"%s","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,)"
                R"("args":{"cbid":1,"correlation":%d}})",
                name, pid, pid, ts, dur, corr);
  return buf;
}
std::string trace_of(const std::vector<std::string>& events) {
  std::string s = R"({"schemaVersion":1,"traceEvents":[)";
  for (std::size_t i = 0; i < events.size(); ++i) s += (i ? "," : "") + events[i];
  return s + "]}";
}

TEST(ImportKineto, LinkedWaitsUseTheTracesOwnLinks) {
  // Stream 1 records after its kernel; stream 2 waits on that record (the sync record names it).
  const std::string text = trace_of({
      runtime_event("cudaLaunchKernel", 1, 10, 5), kernel_event(1, 1, 20, 100),
      runtime_event("cudaEventRecord", 2, 16, 1),
      runtime_event("cudaLaunchKernel", 3, 18, 5), kernel_event(3, 1, 121, 50),  // later work on stream 1
      runtime_event("cudaStreamWaitEvent", 4, 24, 1),
      R"({"ph":"X","cat":"cuda_sync","name":"Stream Wait Event","pid":0,"tid":2,"ts":24.5,"dur":1,"args":{"cuda_sync_kind":"Stream Wait Event","wait_on_stream":1,"wait_on_cuda_event_record_corr_id":2,"wait_on_cuda_event_id":9,"stream":2,"correlation":4,"device":0}})",
      runtime_event("cudaLaunchKernel", 5, 26, 5), kernel_event(5, 2, 121, 30, 0, R"(,"priority":-3)"),
      runtime_event("cudaStreamSynchronize", 6, 32, 150),
      R"({"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":2,"ts":33,"dur":140,"args":{"cuda_sync_kind":"Stream Sync","stream":2,"correlation":6,"device":0}})",
  });
  BuildOptions own;
  own.host_gaps = HostGaps::own;
  const Imported imp = build_program(parse_kineto(text, "t.json"), own);
  const auto& w = imp.workload;
  ASSERT_EQ(w.ops.size(), 6u);
  EXPECT_EQ(w.ops[0].id, "k1");
  EXPECT_EQ(w.ops[1].id, "r2");
  EXPECT_EQ(w.ops[1].stream_hint, 1u);
  EXPECT_EQ(w.ops[3].id, "w4");
  EXPECT_EQ(w.ops[3].event, "e2");
  EXPECT_EQ(w.ops[3].stream_hint, 2u);
  EXPECT_EQ(w.ops[5].kind, OpKind::stream_sync);
  EXPECT_EQ(w.ops[5].stream_hint, 2u);
  EXPECT_EQ(imp.stats.waits_linked, 1u);
  EXPECT_EQ(imp.stats.waits_inferred, 0u);
  // Host gaps: call start minus the previous emitted call's end (ns, exact).
  EXPECT_EQ(w.ops[0].host_gap_ns, 0);
  EXPECT_EQ(w.ops[1].host_gap_ns, 1'000);  // 16 - 15 us
  EXPECT_EQ(w.ops[2].host_gap_ns, 1'000);  // 18 - 17
  EXPECT_EQ(w.ops[3].host_gap_ns, 1'000);  // 24 - 23
  // Replay timing (the default): start-to-start minus the profile's cost of the previous call.
  const auto p = model::bundled_h100_profile();
  const auto launch = static_cast<model::Nanos>(p.kernel_launch_ns.value);  // an untraced replay (the default)
  const Imported timed = build_program(parse_kineto(text, "t.json"), {});
  const auto& tw = timed.workload;
  EXPECT_EQ(tw.ops[1].host_gap_ns, std::max<model::Nanos>(0, 6'000 - launch));
  EXPECT_EQ(tw.ops[2].host_gap_ns, 2'000 - static_cast<model::Nanos>(p.event_record_untimed_ns.value));
  EXPECT_EQ(tw.ops[4].host_gap_ns, 2'000 - static_cast<model::Nanos>(p.stream_wait_event_ns.value));
  // After a blocking call the reference is its return: the first op after the stream sync would start at
  // the sync's end plus its gap (here none follows), so check the sync itself follows a launch.
  EXPECT_EQ(tw.ops[5].host_gap_ns, std::max<model::Nanos>(0, 6'000 - launch));
  for (const auto& s : w.streams) EXPECT_EQ(s.priority, s.id == 2 ? -3 : 0);
}

// Fuzzing finding (fuzz_import_kineto, long run): a wait with no later work on its stream has no deadline
// (the largest time), and adding the tolerance to it overflowed (UBSan), so the wait could not be bound.
TEST(ImportKineto, TrailingWaitWithoutLaterWorkBindsByTheTimeline) {
  const std::string text = trace_of({
      runtime_event("cudaLaunchKernel", 1, 10, 2), kernel_event(1, 1, 13, 5),
      runtime_event("cudaEventRecord", 2, 14, 1),
      runtime_event("cudaStreamWaitEvent", 3, 20, 1),
      R"({"ph":"X","cat":"cuda_sync","name":"Stream Wait Event","pid":0,"tid":2,"ts":20.5,"dur":1,"args":{"cuda_sync_kind":"Stream Wait Event","stream":2,"correlation":3,"device":0}})",
  });
  const Imported imp = build_program(parse_kineto(text, "trailing.json"), {});
  EXPECT_EQ(imp.stats.waits_inferred, 1u);
  const auto& w = imp.workload;
  ASSERT_EQ(w.ops.size(), 3u);
  EXPECT_EQ(w.ops[2].id, "w3");
  EXPECT_EQ(w.ops[2].event, "e2");
  EXPECT_EQ(w.ops[2].stream_hint, 2u);
}

// A Kineto file is mapped and parsed where it lies, its pages given back behind the reader (every 4096
// events) and its names kept once per capture: the import of the file must be the import of its text. One
// file ends inside a page, one exactly at a page's end (the padding is then a page of its own).
TEST(ImportKineto, AFileImportsAsItsText) {
  std::vector<std::string> events;
  for (int i = 0; i < 6000; ++i) {
    events.push_back(runtime_event(i % 3 == 0 ? "cudaLaunchKernel" : "cuLaunchKernel", i + 1, 10.0 * i, 2));
    events.push_back(kernel_event(i + 1, 1 + i % 3, 10.0 * i + 4, 5 + i % 7));
  }
  const std::string body = trace_of(events);
  for (const bool page_end : {false, true}) {
    std::string text = body;
    if (page_end) text.append(4096 - text.size() % 4096, ' ');
    const fs::path file = temp_path(page_end ? "page-end.json" : "big.json");
    std::ofstream(file, std::ios::binary) << text;
    ASSERT_EQ(fs::file_size(file), text.size());
    const Imported from_file = import_trace(file, {});
    const Imported from_text = build_program(parse_kineto(text, file.string()), {});
    EXPECT_EQ(model::workload_to_json(from_file.workload), model::workload_to_json(from_text.workload)) << page_end;
    EXPECT_EQ(model::trace_to_chrome_json(from_file.measured), model::trace_to_chrome_json(from_text.measured))
        << page_end;
    EXPECT_EQ(from_file.workload.ops.size(), 6000u);  // one op per kernel, each at its launch
  }
}

TEST(ImportKineto, FlowEventsLinkRecordsWithoutCorrelationArgs) {
  const std::string text = trace_of({
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":5,"tid":5,"ts":1.000,"dur":2})",
      R"({"ph":"s","id":77,"pid":5,"tid":5,"ts":1.000,"cat":"ac2g","name":"ac2g"})",
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":3,"ts":4.000,"dur":3,"args":{"stream":3,"grid":[1,1,1],"block":[32,1,1]}})",
      R"({"ph":"f","id":77,"pid":0,"tid":3,"ts":4.000,"cat":"ac2g","name":"ac2g","bp":"e"})",
  });
  const Imported imp = build_program(parse_kineto(text, "flows.json"), {});
  ASSERT_EQ(imp.workload.ops.size(), 1u);
  EXPECT_EQ(imp.workload.ops[0].id, "k77");
  EXPECT_EQ(imp.stats.activities_without_call, 0u);
}

// ------------------------------------------------------------------------------------- Kineto bad input
TEST(ImportBadInput, NoGpuActivity) {
  const fs::path f = temp_path("nogpu.json");
  model::write_file_atomically(f, trace_of({runtime_event("cudaGetDevice", 1, 1, 1)}));
  expect_input_error([&] { (void)import_trace(f, {}); }, f.string(), {"no GPU activity"});
}

TEST(ImportBadInput, SeveralDevicesSaysWhichToPick) {
  const std::string text = trace_of({runtime_event("cudaLaunchKernel", 1, 1, 1), kernel_event(1, 7, 3, 1, 0),
                                     runtime_event("cudaLaunchKernel", 2, 2, 1), kernel_event(2, 7, 3, 1, 1)});
  const Capture cap = parse_kineto(text, "two.json");
  expect_input_error([&] { (void)build_program(cap, {}); }, "two.json", {"several devices", "0, 1", "--gpu"});
  BuildOptions o;
  o.device = 1;
  const Imported imp = build_program(cap, o);
  ASSERT_EQ(imp.workload.ops.size(), 1u);
  EXPECT_EQ(imp.workload.ops[0].id, "k2");
  o.device = 4;
  expect_input_error([&] { (void)build_program(cap, o); }, "two.json", {"device 4", "0, 1"});
}

TEST(ImportBadInput, SeveralProcessesSaysWhichToPick) {
  const std::string text = trace_of({runtime_event("cudaLaunchKernel", 1, 1, 1, 100), kernel_event(1, 7, 3, 1),
                                     runtime_event("cudaLaunchKernel", 2, 2, 1, 200), kernel_event(2, 7, 5, 1)});
  const Capture cap = parse_kineto(text, "procs.json");
  expect_input_error([&] { (void)build_program(cap, {}); }, "procs.json", {"several processes", "100, 200", "--process"});
  BuildOptions o;
  o.process = 200;
  const Imported imp = build_program(cap, o);
  ASSERT_EQ(imp.workload.ops.size(), 2u);  // process 100's kernel has no call in process 200: ordered by start
  EXPECT_EQ(imp.stats.activities_without_call, 1u);
}

TEST(ImportBadInput, RuntimeCallWithoutItsGpuWork) {
  const std::string text = trace_of({runtime_event("cudaLaunchKernel", 1, 1, 1), kernel_event(1, 7, 3, 1),
                                     runtime_event("cudaMemcpyAsync", 2, 2, 1)});
  expect_input_error([&] { (void)build_program(parse_kineto(text, "lost.json"), {}); }, "lost.json",
                     {"cudaMemcpyAsync", "correlation 2", "no GPU activity"});
}

TEST(ImportBadInput, KernelRecordMissingItsShape) {
  const std::string text = trace_of({R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"stream":7,"correlation":1}})"});
  expect_input_error([&] { (void)parse_kineto(text, "shape.json"); }, "shape.json", {"/traceEvents/0", "grid"});
}

// Hand-made hostile records (issue 16's adversarial pass): times past 2^63 ns overflowed (UBSan: signed
// overflow in the microsecond conversion) and imported as nonsense; 1e300 as an integer was an undefined
// conversion; a grid, block, register count or stream past 32 bits was truncated (a grid of 2^32 + 1
// blocks became 1); bytes past 2^44 were refused with the place of the *written* program, not the trace.
TEST(ImportBadInput, KinetoValuesOutOfRange) {
  const std::string launch = runtime_event("cudaLaunchKernel", 1, 1, 1);
  const std::string kernel =
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3,"dur":1,"args":{"stream":7,"correlation":1,)"
      R"("grid":[GRID,1,1],"block":[32,1,1],"registers per thread":REGS}})";
  const auto with = [&](std::string text, const std::string& key, const std::string& value) {
    return text.replace(text.find(key), key.size(), value);
  };
  const std::string ok_kernel = with(with(kernel, "GRID", "2"), "REGS", "32");
  ASSERT_NO_THROW((void)parse_kineto(trace_of({launch, ok_kernel}), "ok.json"));
  const std::vector<std::array<std::string, 3>> cases{
      {launch, with(with(kernel, "GRID", "4294967297"), "REGS", "32"), "/traceEvents/1/args/grid"},
      {launch, with(with(kernel, "GRID", "2"), "REGS", "4294967328"), "/traceEvents/1/args/registers per thread"},
      {launch, with(ok_kernel, R"("stream":7)", R"("stream":4294967303)"), "/traceEvents/1/args/stream"},
      {with(launch, R"("ts":1.000)", R"("ts":99999999999999999)"), ok_kernel, "/traceEvents/0/ts"},
      {with(launch, R"("dur":1.000)", R"("dur":1e300)"), ok_kernel, "/traceEvents/0/dur"},
      {launch, with(ok_kernel, R"("ts":3)", R"("ts":-5)"), "/traceEvents/1/ts"},
  };
  for (const auto& c : cases)  // (clang 14 cannot capture structured bindings in a lambda)
    expect_input_error([&] { (void)parse_kineto(trace_of({c[0], c[1]}), "range.json"); }, "range.json",
                       {"range.json: " + c[2] + ": "});
  // 1e300 where an integer goes: read as absent (no undefined conversion), so the record is refused.
  expect_input_error([&] { (void)parse_kineto(trace_of({launch, with(ok_kernel, R"("stream":7)", R"("stream":1e300)")}),
                                              "big.json"); },
                     "big.json", {"/traceEvents/1", "has no stream"});
}

TEST(ImportBadInput, KinetoCopyBytesNamedWhereTheTraceSaysThem) {
  const std::string copy =
      R"j({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":3,"dur":1,)j"
      R"j("args":{"stream":7,"correlation":1,"bytes":4611686018427387904}})j";
  expect_input_error([&] { (void)parse_kineto(trace_of({runtime_event("cudaMemcpyAsync", 1, 1, 1), copy}), "b.json"); },
                     "b.json", {"b.json: /traceEvents/1/args/bytes: ", "over 17592186044416"});
}

TEST(ImportBadInput, TruncatedGzip) {
  const std::string gz = model::read_text_file(kFixtures / "multistream.json.gz");
  const fs::path f = temp_path("cut.json.gz");
  model::write_file_atomically(f, gz.substr(0, gz.size() / 2));
  expect_input_error([&] { (void)import_trace(f, {}); }, f.string(), {"truncated gzip"});
}

TEST(ImportBadInput, MalformedJsonAndNotATrace) {
  const std::string good = trace_of({runtime_event("cudaLaunchKernel", 1, 1, 1), kernel_event(1, 7, 3, 1)});
  expect_input_error([&] { (void)parse_kineto(good.substr(0, good.size() - 30), "cut.json"); }, "cut.json", {"JSON"});
  expect_input_error([&] { (void)parse_kineto(R"({"a":1})", "other.json"); }, "other.json", {"no traceEvents"});
  expect_input_error([&] { (void)import_trace(temp_path("absent.json"), {}); }, "absent.json", {"no such file"});
}

// ------------------------------------------------------------------------------- Nsight Systems (SQLite)
/// A small nsys-shaped export built from SQL: `schema` and `tables` vary per test.
struct NsysDb {
  explicit NsysDb(const std::string& name) : path(temp_path(name)) { fs::remove(path); }
  void exec(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    // No fsync per statement: these files live for one test.
    const int rc = sqlite3_exec(db, ("PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY;" + sql).c_str(),
                                nullptr, nullptr, &err);
    const std::string msg = err != nullptr ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << msg;
  }
  fs::path path;
};

const char* const kNsysSchema = streamlab::testing::kNsysExportSchema;

// Process 4242, thread 4243: globalTid = pid << 24 | tid. The rows are also the Nsight Systems fuzz
// target's first seed (its input is SQL applied to the schema), kept in one place.
const std::string& nsys_rows() {
  static const std::string rows =
      model::read_text_file(fs::path(STREAMLAB_SOURCE_DIR) / "tests/fuzz/corpus/import_nsys/two-streams-wait.sql");
  return rows;
}

/// The test export with one change (SQL) applied to it.
NsysDb nsys_export_with(const std::string& name, const std::string& change) {
  NsysDb db(name);
  db.exec(kNsysSchema);
  db.exec(nsys_rows());
  db.exec(change);
  return db;
}

TEST(ImportNsys, ReadsTheExportIntoAProgram) {
  NsysDb db("nsys_ok.sqlite");
  db.exec(kNsysSchema);
  db.exec(nsys_rows());
  ASSERT_TRUE(is_sqlite_file(db.path));
  BuildOptions own;
  own.host_gaps = HostGaps::own;
  const Imported imp = import_trace(db.path, own);
  const auto& w = imp.workload;
  std::vector<std::string> ids;
  for (const auto& o : w.ops) ids.push_back(o.id);
  // Host order; the event record is kept because stream 15 waits on it (bound by the timeline: the
  // record captured the H2D on stream 13, which ended at 40 us, before stream 15's kernel started at 41 us).
  EXPECT_EQ(ids, (std::vector<std::string>{"c11", "r12", "k13", "w14", "k15", "m16", "c17", "d18"}));
  EXPECT_EQ(op(w, "c11").kind, OpKind::h2d);
  EXPECT_EQ(op(w, "c11").host_memory, model::HostMemory::pageable);
  EXPECT_EQ(op(w, "c11").bytes, 1048576u);
  EXPECT_EQ(op(w, "c17").kind, OpKind::d2h);
  EXPECT_TRUE(op(w, "c17").blocking);  // cudaMemcpy
  EXPECT_EQ(op(w, "c17").host_memory, model::HostMemory::pinned);
  EXPECT_EQ(op(w, "r12").stream_hint, 13u);
  EXPECT_EQ(op(w, "w14").stream_hint, 15u);
  EXPECT_EQ(op(w, "w14").event, "e12");
  const model::KernelShape& s = *op(w, "k13").shape;
  EXPECT_EQ(s.grid, (model::Dim3{264, 1, 1}));
  EXPECT_EQ(s.registers_per_thread, 64u);
  EXPECT_EQ(s.shared_mem_bytes, 3072u);  // static + dynamic
  EXPECT_EQ(op(w, "k15").name, "relu");
  EXPECT_EQ(op(w, "m16").bytes, 65536u);
  EXPECT_EQ(op(w, "d18").kind, OpKind::device_sync);
  EXPECT_EQ(op(w, "r12").host_gap_ns, 1000);  // 4000 - 3000
  // Replay timing: after the blocking cudaMemcpy the device sync's gap counts from the copy's return.
  const Imported timed = import_trace(db.path, {});
  EXPECT_EQ(op(timed.workload, "d18").host_gap_ns, 5000);  // 95000 - 90000
  EXPECT_EQ(op(timed.workload, "r12").host_gap_ns,
            3000 - static_cast<model::Nanos>(model::bundled_h100_profile().memcpy_async_issue_ns.value));
  for (const auto& st : w.streams) EXPECT_EQ(st.priority, st.id == 15 ? -4 : 0);
  EXPECT_EQ(imp.stats.waits_inferred, 1u);
}

TEST(ImportBadInput, NsysUnknownSchemaVersion) {
  NsysDb db("nsys_v9.sqlite");
  db.exec(kNsysSchema);
  db.exec(nsys_rows());
  db.exec("UPDATE META_DATA_EXPORT SET value = '9.0.1' WHERE name = 'EXPORT_SCHEMA_VERSION'");
  expect_input_error([&] { (void)import_trace(db.path, {}); }, db.path.string(),
                     {"META_DATA_EXPORT", "unknown export schema version '9.0.1'"});
}

TEST(ImportBadInput, NsysMissingTableAndColumn) {
  NsysDb no_runtime("nsys_noruntime.sqlite");
  no_runtime.exec(kNsysSchema);
  no_runtime.exec(nsys_rows());
  no_runtime.exec("DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME");
  expect_input_error([&] { (void)import_trace(no_runtime.path, {}); }, no_runtime.path.string(),
                     {"CUPTI_ACTIVITY_KIND_RUNTIME: missing table"});
  NsysDb no_grid("nsys_nogrid.sqlite");
  no_grid.exec(kNsysSchema);
  no_grid.exec(nsys_rows());
  no_grid.exec("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN gridY");
  expect_input_error([&] { (void)import_trace(no_grid.path, {}); }, no_grid.path.string(),
                     {"CUPTI_ACTIVITY_KIND_KERNEL", "missing column(s) gridY"});
  NsysDb no_meta("nsys_nometa.sqlite");
  no_meta.exec(kNsysSchema);
  no_meta.exec("DROP TABLE META_DATA_EXPORT");
  expect_input_error([&] { (void)import_trace(no_meta.path, {}); }, no_meta.path.string(), {"no META_DATA_EXPORT"});
  NsysDb no_gpu("nsys_nogpu.sqlite");
  no_gpu.exec(kNsysSchema);
  no_gpu.exec("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY;"
              "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;"
              "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.3');");
  expect_input_error([&] { (void)import_trace(no_gpu.path, {}); }, no_gpu.path.string(), {"no GPU activity"});
}

TEST(ImportBadInput, NsysEmptyActivityAndOrphanCall) {
  NsysDb empty("nsys_empty.sqlite");
  empty.exec(kNsysSchema);
  empty.exec("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.3')");
  expect_input_error([&] { (void)import_trace(empty.path, {}); }, empty.path.string(), {"no GPU activity"});
  NsysDb orphan("nsys_orphan.sqlite");
  orphan.exec(kNsysSchema);
  orphan.exec(nsys_rows());
  orphan.exec("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 15");
  expect_input_error([&] { (void)import_trace(orphan.path, {}); }, orphan.path.string(),
                     {"cudaLaunchKernel_v7000", "correlation 15", "no GPU activity"});
}

// Fuzzing findings (tests/fuzz/fuzz_import_nsys): each was a crash or a silent wrong answer.
TEST(ImportBadInput, NsysSpanEndingBeforeItStarts) {
  // The measured trace got a host span ending before its start, which the trace reader then refused.
  const NsysDb db =
      nsys_export_with("nsys_backwards.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = 31000 WHERE correlationId = 16");
  expect_input_error([&] { (void)import_trace(db.path, {}); }, db.path.string(),
                     {"CUPTI_ACTIVITY_KIND_RUNTIME", "correlationId 16", "ends (14000 ns) before it starts (31000 ns)"});
}

TEST(ImportBadInput, NsysNameNotUtf8) {
  // A kernel name with a byte that is not UTF-8 made the JSON writer throw (std::terminate in the CLI).
  const NsysDb db =
      nsys_export_with("nsys_utf8.sqlite", "UPDATE StringIds SET value = CAST(X'67658E6D' AS TEXT) WHERE id = 7");
  expect_input_error([&] { (void)import_trace(db.path, {}); }, db.path.string(), {"StringIds id 7", "not valid UTF-8"});
}

// Fuzzing finding (fuzz_import_nsys in CI's 60 s run): a device-to-device copy whose record names
// pageable memory kept it, which the workload format does not write for such a copy, so the imported
// program was not the one its file reads back as.
TEST(ImportNsys, DeviceToDeviceCopyHasNoHostMemory) {
  const NsysDb db = nsys_export_with("nsys_dtod.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = 8 WHERE correlationId = 11");
  const Imported imp = import_trace(db.path, {});
  const model::Op& c = op(imp.workload, "c11");
  EXPECT_EQ(c.kind, OpKind::d2d);
  EXPECT_EQ(c.host_memory, model::HostMemory::pinned);  // the default: not the record's "Pageable"
  EXPECT_EQ(model::parse_workload(model::workload_to_json(imp.workload), "back.json"), imp.workload);
}

TEST(ImportBadInput, NsysValuesOutOfRange) {
  // Values the program would have truncated (a grid of 2^32 + 1 blocks read as 1), negative sizes read
  // as 2^64 - n, text where nsys writes integers.
  // Each case: the change, the table and what the message says.
  const std::vector<std::array<std::string, 3>> cases{
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 4294967297 WHERE correlationId = 13",
       "CUPTI_ACTIVITY_KIND_KERNEL: correlationId 13", "gridX 4294967297 is not an integer in [1, 4294967295]"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET blockY = 0 WHERE correlationId = 15",
       "CUPTI_ACTIVITY_KIND_KERNEL: correlationId 15", "blockY 0 is not"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET registersPerThread = -1 WHERE correlationId = 15",
       "CUPTI_ACTIVITY_KIND_KERNEL: correlationId 15", "registersPerThread -1 is not"},
      {"UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -4096 WHERE correlationId = 17",
       "CUPTI_ACTIVITY_KIND_MEMCPY: correlationId 17", "bytes -4096 is not an integer in [0, 17592186044416]"},
      {"UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET bytes = 'lots' WHERE correlationId = 16",
       "CUPTI_ACTIVITY_KIND_MEMSET: correlationId 16", "bytes lots is not an integer"},
      {"UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET streamId = 4294967311 WHERE correlationId = 16",
       "CUPTI_ACTIVITY_KIND_MEMSET: correlationId 16", "streamId 4294967311 is not"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -5 WHERE correlationId = 13",
       "CUPTI_ACTIVITY_KIND_KERNEL: correlationId 13", "start -5 is not"},
      {"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = NULL WHERE correlationId = 11",
       "CUPTI_ACTIVITY_KIND_RUNTIME: correlationId 11", "end NULL is not"},
  };
  int i = 0;
  for (const auto& [sql, place, why] : cases) {
    const NsysDb db = nsys_export_with("nsys_range" + std::to_string(i++) + ".sqlite", sql);
    expect_input_error([&] { (void)import_trace(db.path, {}); }, db.path.string(), {place, why});
  }
}

}  // namespace
}  // namespace streamlab::import
