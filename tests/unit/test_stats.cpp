// compute_stats (streamlab stats): totals per kind, stream and engine, and engine overlap, on traces whose
// answers are worked out by hand.
#include <gtest/gtest.h>

#include "streamlab/model/stats.hpp"

namespace m = streamlab::model;

namespace {
// The texts of the hand-made spans, kept for the whole test run.
m::Text text(std::string_view s) {
  static m::StringTable table;
  return table.intern(s);
}

m::Span span(std::string_view id, m::OpKind kind, std::uint32_t stream, m::Nanos start, m::Nanos end) {
  m::Span s;
  s.op_id = text(id);
  s.kind = kind;
  s.engine = m::engine_for(kind);
  s.stream = stream;
  s.start_ns = start;
  s.end_ns = end;
  return s;
}
}  // namespace

TEST(TraceStats, BusyIsTheUnionSumIsTheTotalAndOverlapsAreIntersections) {
  m::Trace t;
  // Makespan 100..300 = 200 ns.
  t.spans = {span("up", m::OpKind::h2d, 1, 100, 150),      // H2D 100-150
             span("k1", m::OpKind::kernel, 1, 150, 250),   // SM 150-250
             span("k2", m::OpKind::kernel, 2, 200, 260),   // SM 200-260 (overlaps k1 by 50)
             span("down", m::OpKind::d2h, 2, 240, 300),    // D2H 240-300 (overlaps SM 240-260)
             span("up2", m::OpKind::h2d, 3, 140, 160),     // H2D 140-160 (overlaps up, SM 150-160)
             span("cb", m::OpKind::host_func, 3, 280, 290)};  // host 280-290 (overlaps D2H)
  const m::TraceStats st = m::compute_stats(t);
  EXPECT_EQ(st.start_ns, 100);
  EXPECT_EQ(st.makespan_ns, 200);
  EXPECT_EQ(st.all.spans, 6u);
  EXPECT_EQ(st.all.sum_ns, 50 + 100 + 60 + 60 + 20 + 10);
  EXPECT_EQ(st.all.busy_ns, 200);

  const m::SpanTotals& kernels = st.by_kind.at(m::OpKind::kernel);
  EXPECT_EQ(kernels.spans, 2u);
  EXPECT_EQ(kernels.sum_ns, 160);
  EXPECT_EQ(kernels.busy_ns, 110);  // 150-260
  EXPECT_DOUBLE_EQ(kernels.busy_fraction, 110.0 / 200.0);
  EXPECT_EQ(st.by_engine.at(m::Engine::copy_h2d).busy_ns, 60);  // 100-160
  EXPECT_EQ(st.by_engine.at(m::Engine::copy_h2d).sum_ns, 70);
  EXPECT_EQ(st.by_stream.at(3).busy_ns, 30);
  EXPECT_EQ(st.by_stream.at(1).busy_ns, 150);
  EXPECT_EQ(st.by_kind.count(m::OpKind::memset), 0u);

  // Copies (100-160, 240-300: 120 ns) with SMs (150-260: 110 ns): 150-160 and 240-260 = 30 ns, of the
  // shorter side (the SMs).
  EXPECT_EQ(st.copy_compute.ns, 30);
  EXPECT_DOUBLE_EQ(st.copy_compute.fraction, 30.0 / 110.0);
  EXPECT_EQ(st.h2d_d2h.ns, 0);
  EXPECT_DOUBLE_EQ(st.h2d_d2h.fraction, 0.0);
  // Host 280-290 lies entirely under the D2H copy.
  EXPECT_EQ(st.host_device.ns, 10);
  EXPECT_DOUBLE_EQ(st.host_device.fraction, 1.0);
  EXPECT_EQ(st.max_concurrency, 3u);  // 240-250: k1, k2 and the D2H copy
}

TEST(TraceStats, EmptyTraceAndZeroLengthSpansGiveZerosNotNaN) {
  EXPECT_EQ(m::compute_stats(m::Trace{}), m::TraceStats{});
  m::Trace t;
  t.spans = {span("b", m::OpKind::barrier, 1, 50, 50)};
  const m::TraceStats st = m::compute_stats(t);
  EXPECT_EQ(st.makespan_ns, 0);
  EXPECT_EQ(st.all.spans, 1u);
  EXPECT_EQ(st.all.busy_ns, 0);
  EXPECT_DOUBLE_EQ(st.all.busy_fraction, 0.0);
}
