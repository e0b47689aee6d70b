#pragma once
/// \file stats.hpp
/// Totals of one trace (`streamlab stats`): per op kind, per stream and per engine the number of spans,
/// the sum of their durations and their busy time (the union: overlapping spans count once), and how
/// much the engines overlapped. Definitions in docs/metrics.md ("Trace statistics").

#include <cstdint>
#include <map>

#include "streamlab/model/trace.hpp"

namespace streamlab::model {

/// What a group of spans (one kind, one stream or one engine) adds up to.
struct SpanTotals {
  std::uint64_t spans = 0;
  Nanos sum_ns = 0;          ///< sum of the span durations (can exceed the makespan when they overlap)
  Nanos busy_ns = 0;         ///< length of the union of the spans
  double busy_fraction = 0;  ///< busy_ns / makespan
  friend bool operator==(const SpanTotals&, const SpanTotals&) = default;
};

/// Time two sets of spans ran together.
struct Overlap {
  Nanos ns = 0;          ///< length of the intersection of the two unions
  double fraction = 0;   ///< ns / the shorter of the two busy times (1 = the smaller side fully hidden)
  friend bool operator==(const Overlap&, const Overlap&) = default;
};

struct TraceStats {
  Nanos start_ns = 0;
  Nanos makespan_ns = 0;
  SpanTotals all;  ///< every span
  std::map<OpKind, SpanTotals> by_kind;
  std::map<std::uint32_t, SpanTotals> by_stream;
  std::map<Engine, SpanTotals> by_engine;
  Overlap copy_compute;   ///< any copy engine with the SMs
  Overlap h2d_d2h;        ///< the two directions of the copy link with each other
  Overlap host_device;    ///< host spans (host functions) with any device engine
  double mean_concurrency = 0;  ///< as TraceMetrics
  std::uint32_t max_concurrency = 0;
  friend bool operator==(const TraceStats&, const TraceStats&) = default;
};

[[nodiscard]] TraceStats compute_stats(const Trace& t);

}  // namespace streamlab::model
