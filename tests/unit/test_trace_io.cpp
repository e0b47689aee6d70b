// Trace Chrome-JSON I/O: lossless round trip (spans, blocks, metadata incl. extra), the shape viewers
// need (X events in microseconds, thread names), and clear errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/trace.hpp"

using namespace streamlab::model;

namespace {

Trace sample_trace() {
  Trace t;
  t.meta.backend = "sim";
  t.meta.device_name = "NVIDIA H100 80GB HBM3";
  t.meta.profile = "h100-sxm.json";
  t.meta.policy = "round-robin";
  t.meta.workload = "chunked";
  t.meta.workload_hash = "0123456789abcdef";
  t.meta.version = "0.1.0";
  t.meta.date = "2026-11-21T10:00:00Z";
  t.meta.extra = {{"driver", "580.1"}, {"clock", "sim \"ns\""}, {"path/with~slash", "x"}};
  t.spans.push_back(Span{0, "h2d_0", "upload chunk 0", OpKind::h2d, 0, 1, Engine::copy_h2d, 1000, 2500});
  t.spans.push_back(Span{1, "kernel_0", "compute \"chunk\" 0", OpKind::kernel, 0, 1, Engine::sm, 2500, 1'000'001});
  t.spans.push_back(Span{2, "cb", "callback", OpKind::host_func, 1, 0, Engine::host, 1'000'001, 1'000'001});
  t.blocks.push_back(BlockPlacement{1, 0, 0, 2600, 500'000});
  t.blocks.push_back(BlockPlacement{1, 1, 131, 2600, 1'000'001});
  return t;
}

void expect_error(const std::string& text, const std::string& place, const std::string& op, const std::string& reason) {
  try {
    (void)parse_chrome_trace(text, "t.json");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), "t.json") << what;
    EXPECT_EQ(e.place(), place) << what;
    EXPECT_EQ(e.op(), op) << what;
    EXPECT_NE(what.find(reason), std::string::npos) << what;
  }
}

}  // namespace

TEST(TraceIo, EnginesAndKinds) {
  for (auto e : {Engine::host, Engine::sm, Engine::copy_h2d, Engine::copy_d2h, Engine::copy_d2d})
    EXPECT_EQ(parse_engine(to_string(e)), e);
  EXPECT_FALSE(parse_engine("gpu").has_value());
  EXPECT_EQ(engine_for(OpKind::kernel), Engine::sm);
  EXPECT_EQ(engine_for(OpKind::task_pool), Engine::sm);
  EXPECT_EQ(engine_for(OpKind::h2d), Engine::copy_h2d);
  EXPECT_EQ(engine_for(OpKind::d2h), Engine::copy_d2h);
  EXPECT_EQ(engine_for(OpKind::d2d), Engine::copy_d2d);
  EXPECT_EQ(engine_for(OpKind::host_func), Engine::host);
}

TEST(TraceIo, RoundTripIsExact) {
  const Trace t = sample_trace();
  const std::string text = trace_to_chrome_json(t);
  const Trace back = parse_chrome_trace(text, "t.json");
  EXPECT_EQ(back.meta, t.meta);
  EXPECT_EQ(back.spans, t.spans);
  EXPECT_EQ(back.blocks, t.blocks);
  EXPECT_EQ(back, t);
  EXPECT_EQ(trace_to_chrome_json(back), text);
}

// A read trace keeps its spans' texts in its own table: they outlive the text it was read from, both for
// lines read directly and for lines parsed as JSON (the escaped name), and a copy shares them.
TEST(TraceIo, ReadSpansKeepTheirTextsInTheTracesTable) {
  const Trace t = sample_trace();
  auto text = std::make_unique<std::string>(trace_to_chrome_json(t));
  std::optional<Trace> back = parse_chrome_trace(*text, "t.json");
  text.reset();
  const Trace copy = *back;
  back.reset();
  EXPECT_EQ(copy.spans, t.spans);
  EXPECT_EQ(copy.spans[1].name, "compute \"chunk\" 0");
  EXPECT_GE(copy.strings->capacity(), std::string_view("h2d_0upload chunk 0kernel_0compute \"chunk\" 0").size());
}

TEST(TraceIo, EmptyTraceRoundTrips) {
  Trace t;
  EXPECT_EQ(parse_chrome_trace(trace_to_chrome_json(t), "e"), t);
}

TEST(TraceIo, IsChromeTraceEventFormat) {
  const auto j = nlohmann::json::parse(trace_to_chrome_json(sample_trace()));
  ASSERT_TRUE(j["traceEvents"].is_array());
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  int complete = 0, thread_names = 0, process_names = 0;
  for (const auto& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph"));
    ASSERT_TRUE(e.contains("pid"));
    ASSERT_TRUE(e.contains("tid"));
    if (e["ph"] == "X") {
      ++complete;
      if (e["args"]["op_id"] == "kernel_0") {
        EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 2.5);  // microseconds
        EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 997.501);
        EXPECT_EQ(e["cat"], "kernel");
        EXPECT_EQ(e["tid"], 1);
        EXPECT_EQ(e["args"]["engine"], "sm");
      }
    } else if (e["ph"] == "M" && e["name"] == "thread_name") {
      ++thread_names;
    } else if (e["ph"] == "M" && e["name"] == "process_name") {
      ++process_names;
    }
  }
  EXPECT_EQ(complete, 3);
  EXPECT_EQ(thread_names, 2);   // (device 0, stream 1) and (device 1, stream 0)
  EXPECT_EQ(process_names, 2);  // devices 0 and 1
  EXPECT_EQ(j["otherData"]["backend"], "sim");
  EXPECT_EQ(j["otherData"]["extra"]["driver"], "580.1");
}

TEST(TraceIo, IgnoresEventsOfOtherTools) {
  auto j = nlohmann::json::parse(trace_to_chrome_json(sample_trace()));
  j["traceEvents"].push_back({{"name", "note"}, {"ph", "i"}, {"ts", 1}, {"pid", 0}, {"tid", 0}});
  EXPECT_EQ(parse_chrome_trace(j.dump(), "t").spans, sample_trace().spans);
}

TEST(TraceIo, SaveAndLoad) {
  const auto file = std::filesystem::temp_directory_path() / ("streamlab_trace_" + std::to_string(::getpid()) + ".json");
  save_trace(sample_trace(), file);
  EXPECT_EQ(load_trace(file), sample_trace());
  std::filesystem::remove(file);
  try {
    (void)load_trace(file);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file.string());
  }
}

// Read without names (compare's text report): every span as written but its name, by the line reader
// (a line-laid-out file) and by the whole-file reader (the same trace on one line); a name that is not a
// string is still refused.
TEST(TraceIo, LoadWithoutNamesKeepsEverythingElse) {
  Trace t = sample_trace();
  t.spans.push_back(Span{4, "k\u00e9", "na\u00efve \\ kernel", OpKind::kernel, 0, 3, Engine::sm, 10, 20});
  for (std::uint32_t i = 0; i < 5'000; ++i)
    t.spans.push_back(Span{5 + i, t.intern("op_" + std::to_string(i)), t.intern("kernel " + std::to_string(i)),
                           OpKind::kernel, 0, 1, Engine::sm, std::int64_t{i} * 10, std::int64_t{i} * 10 + 9});
  Trace unnamed = t;
  for (Span& s : unnamed.spans) s.name = Text();
  const auto file = std::filesystem::temp_directory_path() / ("streamlab_unnamed_" + std::to_string(::getpid()) + ".json");
  save_trace(t, file);
  EXPECT_EQ(load_trace(file, nullptr, {.names = false}), unnamed);
  EXPECT_EQ(load_trace(file, nullptr, {.names = true}), t);
  std::string one_line = trace_to_chrome_json(t);
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  write_file_atomically(file, one_line);
  EXPECT_EQ(load_trace(file, nullptr, {.names = false}), unnamed);

  auto j = nlohmann::json::parse(one_line);
  for (auto& e : j["traceEvents"])
    if (e["ph"] == "X") {
      e["name"] = 7;
      break;
    }
  write_file_atomically(file, j.dump());
  try {
    (void)load_trace(file, nullptr, {.names = false});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/name"), std::string::npos) << e.what();
  }
  std::filesystem::remove(file);
}

TEST(TraceIoErrors, NotAStreamlabTrace) {
  expect_error(R"({"traceEvents": []})", "top level", "", "missing required key 'otherData'");
  expect_error(R"({"traceEvents": [], "otherData": {}})", "/otherData", "", "missing required key 'streamlab_trace_format'");
}

TEST(TraceIoErrors, BadSpanFieldsNameTheEventAndOp) {
  auto j = nlohmann::ordered_json::parse(trace_to_chrome_json(sample_trace()));
  auto& events = j["traceEvents"];
  std::size_t first_x = 0;
  while (events[first_x]["ph"] != "X") ++first_x;
  const std::string p = "/traceEvents/" + std::to_string(first_x);

  auto bad = j;
  bad["traceEvents"][first_x]["args"]["engine"] = "dma";
  expect_error(bad.dump(), p + "/args/engine", "h2d_0", "unknown engine 'dma'");

  bad = j;
  bad["traceEvents"][first_x]["args"]["end_ns"] = 10;
  expect_error(bad.dump(), p + "/args/end_ns", "h2d_0", "ends (10 ns) before it starts (1000 ns)");

  bad = j;
  bad["traceEvents"][first_x]["cat"] = "copy";
  expect_error(bad.dump(), p + "/cat", "h2d_0", "unknown op kind 'copy'");

  bad = j;
  bad["traceEvents"][first_x]["args"].erase("start_ns");
  expect_error(bad.dump(), p + "/args", "h2d_0", "missing required key 'start_ns'");

  bad = j;
  bad["traceEvents"][first_x]["args"]["stream"] = "1";
  expect_error(bad.dump(), p + "/args/stream", "h2d_0", "expected an integer");

  bad = j;
  bad["streamlabBlocks"][1] = {1, 2, 3};
  expect_error(bad.dump(), "/streamlabBlocks/1", "", "expected [op, block, sm, start_ns, end_ns]");
}

// A trace laid out as streamlab writes it (one event per line) has its span lines read directly; every
// other line (metadata, escapes, non-ASCII names) is parsed as JSON. Both give what the whole-text parse
// of the same trace on one line gives, and a bad span line is refused with the same place, op and reason.
TEST(TraceIoErrors, LineLaidOutTracesReadAsTheWholeTextDoes) {
  Trace t = sample_trace();
  t.spans.push_back(Span{3, "call", "cudaLaunchKernel", OpKind::kernel, 0, 2, Engine::host, -5, 7, true});
  t.spans.push_back(Span{4, "k\u00e9", "na\u00efve \\ kernel", OpKind::kernel, 0, 3, Engine::sm, 10, 20});
  for (std::uint32_t i = 0; i < 70'000; ++i)  // past the readers' reservation and give-back points
    t.spans.push_back(Span{5 + i, t.intern("op_" + std::to_string(i)), "k", OpKind::kernel, 0, 1 + i % 7, Engine::sm,
                           std::int64_t{i} * 10, std::int64_t{i} * 10 + 9});
  const std::string text = trace_to_chrome_json(t);
  std::string one_line = text;
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  EXPECT_EQ(parse_chrome_trace(text, "t.json"), t);
  EXPECT_EQ(parse_chrome_trace(one_line, "t.json"), t);
  const auto file = std::filesystem::temp_directory_path() / ("streamlab_lines_" + std::to_string(::getpid()) + ".json");
  save_trace(t, file);
  EXPECT_EQ(load_trace(file), t);
  std::filesystem::remove(file);

  const std::size_t first_x = text.find("\"ph\":\"X\"");
  ASSERT_NE(first_x, std::string::npos);
  // The event's index: the lines before it.
  const auto index = static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(first_x), '\n')) - 1;
  const std::string p = "/traceEvents/" + std::to_string(index);
  const auto edited = [&](std::string_view from, std::string_view to) {
    std::string bad = text;
    const auto at = bad.find(from, text.rfind('\n', first_x));  // in the event's line
    EXPECT_NE(at, std::string::npos) << from;
    return bad.replace(at, from.size(), to);
  };
  expect_error(edited("\"engine\":\"copy_h2d\"", "\"engine\":\"dma\""), p + "/args/engine", "h2d_0", "unknown engine 'dma'");
  expect_error(edited("\"end_ns\":2500", "\"end_ns\":10"), p + "/args/end_ns", "h2d_0",
               "ends (10 ns) before it starts (1000 ns)");
  expect_error(edited("\"cat\":\"h2d\"", "\"cat\":\"copy\""), p + "/cat", "h2d_0", "unknown op kind 'copy'");
  expect_error(edited(",\"start_ns\":1000", ""), p + "/args", "h2d_0", "missing required key 'start_ns'");
  expect_error(edited("\"stream\":1", "\"stream\":\"1\""), p + "/args/stream", "h2d_0", "expected an integer");
  expect_error(edited("\"stream\":1", "\"stream\":4294967296"), p + "/args/stream", "h2d_0", "");
  try {  // not JSON (a leading zero): the syntax error's line is the event's
    (void)parse_chrome_trace(edited("\"op\":0", "\"op\":00"), "t.json");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.place().rfind("line " + std::to_string(index + 2) + ", column ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos) << e.what();
  }
}

TEST(TraceIoErrors, MalformedJson) {
  expect_error("{\"traceEvents\": [", "line 1, column 18", "", "malformed JSON");
}
