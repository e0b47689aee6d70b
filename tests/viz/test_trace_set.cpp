// The trace set and its lanes: op matching across any number of traces (by op id and engine, never by
// stream), lanes by stream and by engine with a host lane, rows for overlapping spans, alignment and search.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "streamlab/model/errors.hpp"
#include "streamlab/viz/alignment.hpp"
#include "streamlab/viz/frame.hpp"
#include "streamlab/viz/lanes.hpp"
#include "streamlab/viz/search.hpp"
#include "streamlab/viz/trace_set.hpp"
#include "viz_test_util.hpp"

namespace streamlab::viz {
namespace {

using model::Engine;
using model::OpKind;
using test::make_span;
using test::make_trace;

TraceSet set_of(std::vector<model::Trace> traces) { return TraceSet(std::move(traces)); }

// Three runs of one workload: a measurement (first op 50 ns after prepare()), and two predictions under
// policies that put the ops on different streams. Spans listed out of order on purpose.
TraceSet three_runs() {
  auto meas = make_trace({make_span("k1", OpKind::kernel, 3, 550, 950), make_span("up", OpKind::h2d, 1, 50, 250),
                          make_span("k0", OpKind::kernel, 1, 260, 500), make_span("down", OpKind::d2h, 1, 500, 560)});
  meas.meta.backend = "cuda";
  meas.meta.device_name = "NVIDIA H100 80GB HBM3";
  meas.meta.policy = "round-robin";
  meas.meta.date = "2026-11-21T21:50:22Z";
  auto rr = make_trace({make_span("up", OpKind::h2d, 1, 0, 200), make_span("k0", OpKind::kernel, 1, 200, 400),
                        make_span("k1", OpKind::kernel, 3, 450, 900), make_span("down", OpKind::d2h, 1, 400, 460)});
  rr.meta.policy = "round-robin";
  auto other = make_trace({make_span("up", OpKind::h2d, 2, 0, 200), make_span("k0", OpKind::kernel, 5, 200, 400),
                           make_span("k1", OpKind::kernel, 2, 200, 650), make_span("down", OpKind::d2h, 5, 400, 460),
                           make_span("only_here", OpKind::memset, 5, 460, 470)});
  other.meta.policy = "priority";
  return set_of({std::move(meas), std::move(rr), std::move(other)});
}

TEST(TraceSet, OpsPairByIdAndEngineWhateverTheStream) {
  const TraceSet s = three_runs();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.op_key_count(), 5u);
  for (const char* id : {"up", "k0", "k1", "down"}) {
    const auto keys = s.keys_of_op_id(id);
    ASSERT_EQ(keys.size(), 1u) << id;
    for (TraceIndex t = 0; t < 3; ++t) {
      const auto span = s.span_of_key(t, keys[0]);
      ASSERT_NE(span, kNone) << id << " in " << t;
      EXPECT_EQ(s.trace(t).spans[span].op_id, id);
      EXPECT_EQ(s.op_key(t, span), keys[0]);
    }
  }
  const auto only = s.keys_of_op_id("only_here");
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(s.span_of_key(0, only[0]), kNone);
  EXPECT_EQ(s.any_span_of_key(only[0]).first, 2u);
  EXPECT_EQ(s.common_op_count(1), 4u);
  EXPECT_EQ(s.common_op_count(2), 4u);
  EXPECT_TRUE(s.keys_of_op_id("nope").empty());
  EXPECT_EQ(s.tag(0), "A");
  EXPECT_EQ(s.tag(2), "C");
}

TEST(TraceSet, LabelsComeFromTheMetadata) {
  const TraceSet s = three_runs();
  EXPECT_EQ(s.label(0), "measured (cuda) \xc2\xb7 NVIDIA H100 80GB HBM3 \xc2\xb7 policy round-robin \xc2\xb7 2026-11-21");
  EXPECT_EQ(s.label(2), "simulated \xc2\xb7 policy priority");
  EXPECT_EQ(describe_trace({}), "trace");
}

TEST(TraceSet, SameIdOnAnotherEngineIsAnotherKey) {
  auto a = make_span("x", OpKind::h2d, 1, 0, 10);
  auto b = make_span("x", OpKind::h2d, 1, 10, 20);
  b.engine = Engine::host;  // e.g. the host side of a pageable copy
  const TraceSet s = set_of({make_trace({a, b})});
  EXPECT_EQ(s.op_key_count(), 2u);
  EXPECT_EQ(s.keys_of_op_id("x").size(), 2u);
}

TEST(TraceSet, ManyIdsCollidingInTheTableStillMatch) {
  // Enough keys to fill many probe chains; every id must find its own key in every trace.
  std::vector<model::Span> a, b;
  for (int i = 0; i < 5000; ++i) {
    a.push_back(make_span("op_" + std::to_string(i), OpKind::kernel, 1, i, i + 1));
    b.push_back(make_span("op_" + std::to_string(4999 - i), OpKind::kernel, 2, i, i + 1));
  }
  const TraceSet s = set_of({make_trace(a), make_trace(b)});
  ASSERT_EQ(s.op_key_count(), 5000u);
  for (std::uint32_t k = 0; k < s.op_key_count(); ++k) {
    const auto& x = s.trace(0).spans[s.span_of_key(0, k)];
    const auto& y = s.trace(1).spans[s.span_of_key(1, k)];
    ASSERT_EQ(x.op_id, y.op_id);
  }
  EXPECT_EQ(s.common_op_count(1), 5000u);
}

TEST(TraceSet, SameOrderFastPathAndTableGrowthKeepEveryKey) {
  // C lists A's ops in A's order (matched without hashing); B brings as many new ids again, which
  // outgrows a table sized for one trace.
  std::vector<model::Span> a, b, c;
  for (int i = 0; i < 300; ++i) {
    a.push_back(make_span("op_" + std::to_string(i), OpKind::kernel, 1, i, i + 1));
    b.push_back(make_span("other_" + std::to_string(i), OpKind::kernel, 1, i, i + 1));
    c.push_back(make_span("op_" + std::to_string(i), OpKind::kernel, 2, 2 * i, 2 * i + 1));
  }
  c[7].engine = Engine::host;  // same id, another engine: another key, even in the same position
  const TraceSet s = set_of({make_trace(a), make_trace(b), make_trace(c)});
  EXPECT_EQ(s.op_key_count(), 601u);
  EXPECT_EQ(s.common_op_count(1), 0u);
  EXPECT_EQ(s.common_op_count(2), 299u);
  for (int i = 0; i < 300; ++i) {
    const auto id = "op_" + std::to_string(i);
    EXPECT_EQ(s.keys_of_op_id(id).size(), i == 7 ? 2u : 1u) << id;
    EXPECT_EQ(s.keys_of_op_id("other_" + std::to_string(i)).size(), 1u);
    EXPECT_EQ(s.op_id_of_key(s.op_key(2, static_cast<std::uint32_t>(i))), id);
  }
  EXPECT_EQ(s.engine_of_key(s.op_key(2, 7)), Engine::host);
}

// Keys against their definition: (op id, engine) pairs numbered in the order they first appear, the
// reference trace's spans first, then each other trace's.
void expect_keys_as_defined(const std::vector<std::vector<model::Span>>& lists, const std::string& what) {
  std::vector<model::Trace> traces;
  for (const auto& l : lists) traces.push_back(make_trace(l));
  const TraceSet s = set_of(std::move(traces));
  std::map<std::pair<std::string, Engine>, std::uint32_t> want;
  for (std::size_t t = 0; t < lists.size(); ++t)
    for (std::size_t i = 0; i < lists[t].size(); ++i) {
      const auto key = std::pair(std::string(lists[t][i].op_id.view()), lists[t][i].engine);
      const auto [it, made] = want.try_emplace(key, static_cast<std::uint32_t>(want.size()));
      ASSERT_EQ(s.op_key(static_cast<TraceIndex>(t), static_cast<std::uint32_t>(i)), it->second)
          << what << " trace " << t << " span " << i;
      if (made) {
        EXPECT_EQ(s.span_of_key(static_cast<TraceIndex>(t), it->second), i) << what;
      }
    }
  ASSERT_EQ(s.op_key_count(), want.size()) << what;
  std::map<std::string, std::vector<std::uint32_t>> by_id;
  for (const auto& [key, k] : want) {
    by_id[key.first].push_back(k);
    EXPECT_EQ(s.engine_of_key(k), key.second) << what;
  }
  for (auto& [id, keys] : by_id) {
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(s.keys_of_op_id(id), keys) << what << " " << id;
    EXPECT_EQ(s.op_id_of_key(keys[0]), id) << what;
  }
  for (const char* absent : {"not_an_op", "op_", "c0_k", "op_999999", "c0_k01", ""})
    if (by_id.count(absent) == 0) {
      EXPECT_TRUE(s.keys_of_op_id(absent).empty()) << what << " " << absent;
    }
}

// Random traces: ids repeat within a trace and across engines, and the other traces list the
// reference's spans in its order, shuffled, or partly so (a prefix in order, then not: the table is
// made part-way through).
TEST(TraceSet, KeysAreTheirPairsInOrderOfFirstAppearance) {
  std::mt19937 rng(15);
  for (int round = 0; round < 12; ++round) {
    const int n = round < 4 ? 40 : 9000;
    const int distinct_ids = round % 3 == 0 ? n : n / 3;  // repeated ids in some rounds
    const auto random_span = [&](int at) {
      auto s = make_span("op_" + std::to_string(rng() % static_cast<unsigned>(distinct_ids)), OpKind::kernel, 1, at, at + 1);
      if (rng() % 8 == 0) s.engine = Engine::host;
      return s;
    };
    std::vector<model::Span> ref;
    for (int i = 0; i < n; ++i) ref.push_back(random_span(i));
    std::vector<model::Span> same = ref, shuffled = ref, partly = ref;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    std::shuffle(partly.begin() + n / 2, partly.end(), rng);
    for (int i = 0; i < n / 10; ++i) partly.push_back(random_span(i));  // some pairs the reference lacks
    expect_keys_as_defined({ref, round % 2 == 0 ? same : shuffled, partly}, "round " + std::to_string(round));
  }
}

// Ids that number the ops, as the generators write them (chains c<j>_k<i>, listed in op order), are
// found by their numbers; one span that breaks the numbering (an id out of order, repeated, on another
// engine, without a number or with a leading zero, a prefix met again) sends every key from there on
// through the table, in the reference or only in a later trace.
TEST(TraceSet, NumberedIdsKeepTheirKeysWhereverTheNumberingBreaks) {
  const auto chains = [](int count, int length, int first_chain = 0) {
    std::vector<model::Span> out;
    for (int c = first_chain; c < first_chain + count; ++c)
      for (int k = 0; k < length; ++k) {
        const int at = static_cast<int>(out.size());
        out.push_back(make_span("c" + std::to_string(c) + "_k" + std::to_string(k), OpKind::kernel, 1, at, at + 1));
      }
    return out;
  };
  const auto ref = chains(30, 40);
  std::vector<model::Span> longer = chains(31, 40);  // one chain more: new keys continuing the runs
  std::vector<model::Span> other = chains(5, 40, 100);  // new prefixes only
  expect_keys_as_defined({ref}, "in order");
  expect_keys_as_defined({ref, ref, longer, other}, "in order, three more traces");
  std::mt19937 rng(15);
  for (int round = 0; round < 24; ++round) {
    auto broken = ref;
    auto& sp = broken[rng() % broken.size()];
    switch (round % 6) {
      case 0: sp.op_id = test::test_text("c3_k" + std::to_string(rng() % 40)); break;  // out of order or repeated
      case 1: sp.engine = Engine::host; break;
      case 2: sp.op_id = test::test_text("memset"); break;
      case 3: sp.op_id = test::test_text("c2_k07"); break;
      case 4: sp.op_id = test::test_text("c" + std::to_string(rng() % 30) + "_k40"); break;  // a chain's next number
      default: std::swap(sp, broken[rng() % broken.size()]); break;
    }
    auto shuffled = ref;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    expect_keys_as_defined({broken, ref, longer}, "broken reference, round " + std::to_string(round));
    expect_keys_as_defined({ref, broken, longer}, "broken second trace, round " + std::to_string(round));
    expect_keys_as_defined({ref, shuffled, other}, "shuffled second trace, round " + std::to_string(round));
  }
}

// Every span is found where it is drawn: in a lane of its trace, at a row position that holds it.
void expect_every_span_located(const TraceSet& s, const LaneSet& lanes) {
  const auto l = lanes.lanes();
  std::size_t drawn = 0;
  for (const Lane& lane : l)
    for (const LaneRow& row : lane.rows) drawn += row.size();
  std::size_t located = 0;
  for (TraceIndex t = 0; t < s.size(); ++t)
    for (std::uint32_t i = 0; i < s.trace(t).spans.size(); ++i) {
      const auto loc = lanes.locate(s, t, i);
      ASSERT_NE(loc.lane, kNone) << "trace " << t << " span " << i;
      EXPECT_EQ(l[loc.lane].trace, t);
      EXPECT_EQ(l[loc.lane].rows[loc.row].span[loc.pos], i);
      ++located;
    }
  EXPECT_EQ(located, drawn);
  EXPECT_EQ(lanes.locate(s, 0, static_cast<std::uint32_t>(s.trace(0).spans.size())).lane, kNone);
}

TEST(Lanes, EngineModeGroupsEachEngineWithOneLanePerTrace) {
  const TraceSet s = three_runs();
  const LaneSet lanes(s, LaneMode::engine);
  const auto l = lanes.lanes();
  // copy H2D, SMs, copy D2H x 3 traces (memset runs on the SMs: it joins the SM group).
  ASSERT_EQ(l.size(), 9u);
  const char* labels[] = {"copy H2D", "SMs", "copy D2H"};
  for (std::size_t i = 0; i < l.size(); ++i) {
    EXPECT_EQ(l[i].label, labels[i / 3]) << i;
    EXPECT_EQ(l[i].trace, i % 3) << i;
    EXPECT_EQ(l[i].group, i / 3) << i;
  }
  // C's SM lane: k0 [200,400) and k1 [200,650) overlap, so two rows; the memset fits after k0.
  ASSERT_EQ(l[5].rows.size(), 2u);
  EXPECT_EQ(l[5].rows[0].start, (std::vector<model::Nanos>{200, 460}));
  EXPECT_EQ(l[5].rows[1].start, (std::vector<model::Nanos>{200}));
  const LaneLayout layout = layout_lanes(lanes);
  const LaneLayoutOptions o;
  EXPECT_FLOAT_EQ(layout.lanes[1].y0 - layout.lanes[0].y1(), o.lane_gap);   // same engine
  EXPECT_FLOAT_EQ(layout.lanes[3].y0 - layout.lanes[2].y1(), o.group_gap);  // next engine
  EXPECT_FLOAT_EQ(layout.lanes[5].height, 2 * o.row_height);
  expect_every_span_located(s, lanes);
}

// make_rows puts each span in the lowest-numbered row whose last span ended by its start, whether the
// lane has a few rows (each row's end looked at) or more than it looks at (heaps): checked against that
// rule directly on random spans of up to 8 and of about 60 at once, and every row is sorted.
TEST(Lanes, RowsAreTheLowestFreeAtEachStart) {
  for (const model::Nanos spread : {8'000, 60'000}) {
    SCOPED_TRACE(spread);
    std::uint64_t state = 99;
    const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
    std::vector<RowSpan> spans;
    for (std::uint32_t i = 0; i < 5000; ++i) {
      const auto start = static_cast<model::Nanos>(next() % 5'000'000);
      spans.push_back(RowSpan{start, start + 1 + static_cast<model::Nanos>(next() % spread), i, OpKind::kernel});
    }
    const std::vector<LaneRow> rows = make_rows(spans);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> where(spans.size(), {kNone, kNone});
    std::size_t placed = 0;
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
      EXPECT_TRUE(std::is_sorted(rows[r].start.begin(), rows[r].start.end()));
      for (std::uint32_t p = 0; p < rows[r].size(); ++p, ++placed) where[rows[r].span[p]] = {r, p};
    }
    ASSERT_EQ(placed, spans.size());
    // The rule, in (start, end, index) order: the lowest row whose last end is at most the start.
    std::vector<RowSpan> order = spans;
    std::sort(order.begin(), order.end(),
              [](const RowSpan& x, const RowSpan& y) { return std::tie(x.start, x.end, x.index) < std::tie(y.start, y.end, y.index); });
    std::vector<model::Nanos> row_end;
    for (const RowSpan& x : order) {
      std::uint32_t row = 0;
      while (row < row_end.size() && row_end[row] > x.start) ++row;
      if (row == row_end.size()) row_end.push_back(0);
      row_end[row] = x.end;
      ASSERT_EQ(where[x.index].first, row) << "span " << x.index;
    }
    EXPECT_EQ(rows.size(), row_end.size());
    if (spread == 60'000) {
      EXPECT_GT(rows.size(), 32u);  // past the rows make_rows looks at one by one
    }
  }
}

// A lane of several streams whose spans each come in time order (RowSpan::run) is merged, not sorted:
// the same rows as the sort makes of the same spans given as one run. Starts and whole spans repeat
// across streams (ties go by index); a stream out of order, or more streams than merging looks at,
// take the sort.
TEST(Lanes, MergedStreamsMakeTheRowsTheSortMakes) {
  std::uint64_t state = 5;
  const auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  for (const int streams : {1, 4, 16, 17}) {
    for (const bool one_out_of_order : {false, true}) {
      SCOPED_TRACE(streams);
      SCOPED_TRACE(one_out_of_order);
      std::vector<model::Nanos> clock(static_cast<std::size_t>(streams), 0);
      std::vector<RowSpan> spans;
      for (std::uint32_t i = 0; i < 6000; ++i) {
        const auto s = static_cast<std::uint16_t>(next() % static_cast<std::uint64_t>(streams));
        // A stream's spans one after another, some of no length: starts repeat within and across streams.
        const model::Nanos start = clock[s] + static_cast<model::Nanos>(next() % 3);
        clock[s] = start + static_cast<model::Nanos>(next() % 3);
        spans.push_back(RowSpan{start, clock[s], i, OpKind::kernel, s});
      }
      if (one_out_of_order) std::swap(spans[100].start, spans[5000].start);
      for (auto& x : spans) x.end = std::max(x.end, x.start);
      std::vector<RowSpan> one_run = spans;
      for (auto& x : one_run) x.run = 0;
      const std::vector<LaneRow> merged = make_rows(spans), sorted = make_rows(one_run);
      ASSERT_EQ(merged.size(), sorted.size());
      for (std::size_t r = 0; r < merged.size(); ++r) {
        EXPECT_EQ(merged[r].start, sorted[r].start);
        EXPECT_EQ(merged[r].end, sorted[r].end);
        EXPECT_EQ(merged[r].span, sorted[r].span);
        EXPECT_TRUE(std::is_sorted(merged[r].start.begin(), merged[r].start.end()));
      }
    }
  }
}

TEST(Lanes, StreamModeKeepsEachTracesStreamsTogether) {
  const TraceSet s = three_runs();
  const LaneSet lanes(s, LaneMode::stream);
  const auto l = lanes.lanes();
  // A: streams 1, 3; B: 1, 3; C: 2, 5. Stream numbers of different runs are not put side by side.
  ASSERT_EQ(l.size(), 6u);
  const std::uint32_t streams[] = {1, 3, 1, 3, 2, 5};
  for (std::size_t i = 0; i < l.size(); ++i) {
    EXPECT_EQ(l[i].stream, streams[i]) << i;
    EXPECT_EQ(l[i].trace, i / 2) << i;
    EXPECT_EQ(l[i].group, i / 2) << i;
  }
  EXPECT_EQ(l[0].label, "stream 1");
  const auto& row = l[0].rows.at(0);
  EXPECT_EQ(row.start, (std::vector<model::Nanos>{50, 260, 500}));
  EXPECT_EQ(s.trace(0).spans[row.span[0]].op_id, "up");
  expect_every_span_located(s, lanes);
}

TEST(Lanes, HostCallsGetAHostLaneInBothModes) {
  auto call = make_span("k", OpKind::kernel, 1, 0, 5);
  call.engine = Engine::host;  // the launch call on the host
  auto t = make_trace({call, make_span("k", OpKind::kernel, 1, 10, 100), make_span("f", OpKind::host_func, 1, 100, 120)});
  const TraceSet s = set_of({std::move(t)});
  EXPECT_TRUE(s.has_host_calls(0));
  EXPECT_EQ(s.first_device_start(0), 10);  // the call is not a device span
  const LaneSet by_stream(s, LaneMode::stream);
  ASSERT_EQ(by_stream.lanes().size(), 2u);
  EXPECT_TRUE(by_stream.lanes()[0].host_calls);
  EXPECT_EQ(by_stream.lanes()[0].label, "host calls");
  EXPECT_EQ(by_stream.lanes()[0].rows.at(0).size(), 1u);
  // A host function runs in stream order: it stays on its stream.
  EXPECT_EQ(by_stream.lanes()[1].rows.at(0).size(), 2u);
  const LaneSet by_engine(s, LaneMode::engine);
  ASSERT_EQ(by_engine.lanes().size(), 2u);
  EXPECT_EQ(by_engine.lanes()[0].label, "host");  // host first: work flows host -> device
  EXPECT_EQ(by_engine.lanes()[0].rows.at(0).size(), 2u);
  EXPECT_EQ(by_engine.lanes()[1].label, "SMs");
  expect_every_span_located(s, by_stream);
  expect_every_span_located(s, by_engine);
}

TEST(Lanes, DevicesOrderLanesAndAppearInLabels) {
  const TraceSet s = set_of({make_trace({make_span("a", OpKind::kernel, 1, 0, 10, 1), make_span("b", OpKind::kernel, 2, 0, 10, 0)})});
  const LaneSet lanes(s, LaneMode::stream);
  ASSERT_EQ(lanes.lanes().size(), 2u);
  EXPECT_EQ(lanes.lanes()[0].device, 0u);
  EXPECT_EQ(lanes.lanes()[0].stream, 2u);
  EXPECT_EQ(lanes.lanes()[1].label, "dev 1 stream 1");
  EXPECT_EQ(LaneSet(s, LaneMode::engine).lanes()[1].label, "dev 1 SMs");
  expect_every_span_located(s, lanes);
  expect_every_span_located(s, LaneSet(s, LaneMode::engine));
}

TEST(Lanes, BlocksGiveAnSmOccupancyLane) {
  auto t = make_trace({make_span("k", OpKind::kernel, 1, 0, 100)});
  // SM 0 busy [0,60) as two touching blocks, SM 3 busy [20,100): 1, 2, then 1 SM busy.
  t.blocks = {{0, 0, 0, 0, 30}, {0, 1, 0, 30, 60}, {0, 2, 3, 20, 100}};
  const TraceSet s = set_of({std::move(t), make_trace({make_span("k", OpKind::kernel, 1, 0, 100)})});
  const LaneSet lanes(s, LaneMode::engine);
  ASSERT_EQ(lanes.lanes().size(), 3u);
  EXPECT_EQ(lanes.lanes()[2].kind, LaneKind::sm_occupancy);
  EXPECT_EQ(lanes.lanes()[2].trace, 0u);
  const auto& occ = s.occupancy(0);
  ASSERT_TRUE(occ.has_value());
  EXPECT_EQ(occ->sm_count, 4u);
  EXPECT_EQ(occ->busy_sms.value_at(10), 1.0);
  EXPECT_EQ(occ->busy_sms.value_at(30), 2.0);  // touching blocks on SM 0 do not count twice
  EXPECT_EQ(occ->busy_sms.value_at(70), 1.0);
  EXPECT_EQ(occ->busy_sms.value_at(100), 0.0);
  EXPECT_FALSE(s.occupancy(1).has_value());
}

TEST(LaneRow, MajorityKindUsesPrefixCountsForAnyKindValue) {
  // A kind beyond the nine the viewer was written with (the model may grow): tables size themselves.
  const auto later = static_cast<OpKind>(12);
  auto e = make_span("e", OpKind::h2d, 1, 4, 5);
  auto f = make_span("f", OpKind::h2d, 1, 5, 6);
  f.kind = later;
  auto g = f;
  g.op_id = "g", g.start_ns = 6, g.end_ns = 7;
  const TraceSet s = set_of({make_trace({make_span("a", OpKind::h2d, 1, 0, 1), make_span("b", OpKind::kernel, 1, 1, 2),
                                         make_span("c", OpKind::kernel, 1, 2, 3), make_span("d", OpKind::h2d, 1, 3, 4), e,
                                         f, g})});
  const LaneSet lanes(s, LaneMode::stream);
  ASSERT_EQ(lanes.lanes().size(), 1u);
  const auto& row = lanes.lanes()[0].rows.at(0);
  EXPECT_EQ(row.majority_kind(0, 3), OpKind::kernel);
  EXPECT_EQ(row.majority_kind(0, 5), OpKind::h2d);
  EXPECT_EQ(row.majority_kind(5, 2), later);
  EXPECT_EQ(row.count_of(OpKind::h2d, 1, 4), 2u);
  EXPECT_EQ(row.count_of(OpKind::d2h, 0, 5), 0u);
  EXPECT_EQ(row.count_of(later, 0, 7), 2u);
  EXPECT_TRUE(s.kinds()[12]);
}

TEST(Alignment, FirstDeviceSpanNoneOrANamedOp) {
  const TraceSet s = three_runs();
  EXPECT_EQ(alignment_offsets(s, {}).offsets, (std::vector<model::Nanos>{50, 0, 0}));
  EXPECT_EQ(alignment_offsets(s, {Alignment::Mode::none, {}}).offsets, (std::vector<model::Nanos>{0, 0, 0}));
  const auto on_k0 = alignment_offsets(s, {Alignment::Mode::op, "k0"});
  EXPECT_EQ(on_k0.offsets, (std::vector<model::Nanos>{260, 200, 200}));
  EXPECT_TRUE(on_k0.problem.empty());
  // An op missing from a trace: that trace falls back to its first device span, and it is said.
  const auto on_only = alignment_offsets(s, {Alignment::Mode::op, "only_here"});
  EXPECT_EQ(on_only.offsets, (std::vector<model::Nanos>{50, 0, 460}));
  EXPECT_NE(on_only.problem.find("not in traces A, B"), std::string::npos) << on_only.problem;
  const auto on_nothing = alignment_offsets(s, {Alignment::Mode::op, "nope"});
  EXPECT_NE(on_nothing.problem.find("nor in any other trace"), std::string::npos) << on_nothing.problem;
}

TEST(Alignment, ParsesTheFlag) {
  EXPECT_EQ(parse_alignment("first"), Alignment{});
  EXPECT_EQ(parse_alignment("none").mode, Alignment::Mode::none);
  const auto op = parse_alignment("op:compute_3");
  EXPECT_EQ(op.mode, Alignment::Mode::op);
  EXPECT_EQ(op.op_id, "compute_3");
  EXPECT_EQ(to_string(op), "op:compute_3");
  for (const char* bad : {"", "op:", "start", "First"}) EXPECT_THROW((void)parse_alignment(bad), model::InputError) << bad;
}

TEST(Frame, OffsetsShiftEachTracesLanes) {
  const TraceSet s = three_runs();
  const LaneSet lanes(s, LaneMode::engine);
  const LaneLayout layout = layout_lanes(lanes);
  const auto offsets = alignment_offsets(s, {}).offsets;
  FrameDraw draw;
  build_frame(s, lanes, layout, TimelineView(0, 1000, 1000), offsets, draw);  // 1 px = 1 ns
  // "up" starts at 50 in A and at 0 in B: aligned, both at x = 0.
  ASSERT_EQ(draw.lanes[0].rows.at(0).size(), 1u);
  EXPECT_FLOAT_EQ(draw.lanes[0].rows[0][0].x0, 0.0f);
  EXPECT_FLOAT_EQ(draw.lanes[1].rows[0][0].x0, 0.0f);
  build_frame(s, lanes, layout, TimelineView(0, 1000, 1000), {}, draw);
  EXPECT_FLOAT_EQ(draw.lanes[0].rows[0][0].x0, 50.0f);
}

TEST(Search, ByIdOrNameIgnoringCase) {
  auto a = make_span("compute_3", OpKind::kernel, 1, 0, 10);
  a.name = "GEMM tile 3";
  auto b = make_span("upload_3", OpKind::h2d, 1, 10, 20);
  const TraceSet s = set_of({make_trace({a, b})});
  auto ids = [&](std::string_view q) {
    std::vector<std::string> out;
    for (const auto k : search_ops(s, q)) out.emplace_back(s.op_id_of_key(k));
    return out;
  };
  EXPECT_EQ(ids("_3"), (std::vector<std::string>{"compute_3", "upload_3"}));
  EXPECT_EQ(ids("gemm"), (std::vector<std::string>{"compute_3"}));
  EXPECT_EQ(ids("UPLOAD"), (std::vector<std::string>{"upload_3"}));
  EXPECT_TRUE(ids("").empty());
  EXPECT_TRUE(ids("nothing").empty());
  EXPECT_EQ(op_name_of_key(s, s.keys_of_op_id("compute_3")[0]), "GEMM tile 3");
}

}  // namespace
}  // namespace streamlab::viz
