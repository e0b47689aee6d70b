// Hostile JSON against the public readers (parse_workload, parse_chrome_trace, parse_device_profile):
// deep nesting, huge objects, repeated keys, oversized values in messages. The tests go through the
// public entry points only, so they hold whichever JSON reader sits behind them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"

using namespace streamlab::model;

namespace {

const std::string kFile = "hostile.json";

using Reader = std::function<void(const std::string&)>;

struct NamedReader {
  const char* name;
  Reader read;
};

const NamedReader kReaders[] = {
    {"workload", [](const std::string& t) { (void)parse_workload(t, kFile); }},
    {"trace", [](const std::string& t) { (void)parse_chrome_trace(t, kFile); }},
    {"profile", [](const std::string& t) { (void)parse_device_profile(t, kFile); }},
};

// The error a reader throws on `text`; fails the test when none.
InputError error_of(const Reader& read, const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError";
  return InputError("", "", "", "");
}

// One line, naming the file, short enough to read.
void expect_one_short_line(const InputError& e) {
  const std::string what = e.what();
  EXPECT_EQ(e.file(), kFile) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  EXPECT_LT(what.size(), 400U) << what;
}

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string nested_objects(std::size_t depth) {
  std::string s;
  for (std::size_t i = 0; i < depth; ++i) s += R"({"a":)";
  s += "1";
  s += std::string(depth, '}');
  return s;
}

// An object with `n` distinct keys, optionally repeating the first one at the end.
std::string wide_object(std::size_t n, bool repeat_first) {
  std::string s = "{";
  for (std::size_t i = 0; i < n; ++i) s += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  if (repeat_first) s += ",\"k0\":1";
  return s + "}";
}

// The finding: a 60,000-deep value (a 120 KB file) crashed every command with a stack overflow.
TEST(HostileJson, DeepNestingIsRefusedWithOneLine) {
  const std::string deep_arrays = nested_arrays(60'000);
  const std::string deep_objects = nested_objects(60'000);
  for (const auto& r : kReaders) {
    SCOPED_TRACE(r.name);
    for (const std::string* text : {&deep_arrays, &deep_objects}) {
      const InputError e = error_of(r.read, *text);
      expect_one_short_line(e);
      EXPECT_NE(e.reason().find("nested deeper than"), std::string::npos) << e.what();
      EXPECT_EQ(e.place().rfind('/', 0), 0U) << e.what();  // a JSON pointer
    }
  }
}

// The deep value sits inside an object that gains more keys afterwards (the old reader copied the whole
// subtree recursively each time the object's storage grew), and under keys every reader looks at.
TEST(HostileJson, DeepValueInsideWideObject) {
  const std::string deep = nested_arrays(60'000);
  const std::string workload = R"({"format_version": 1, "name": )" + deep + R"(, "x": 1, "y": 2, "ops": []})";
  const std::string trace = R"({"traceEvents": )" + deep + R"(, "a": 1, "b": 2, "c": 3})";
  const std::string profile = R"({"format_version": 1, "params": )" + deep + R"(, "name": "p", "date": "d"})";
  for (const auto& [reader, text] : {std::pair{&kReaders[0], &workload}, std::pair{&kReaders[1], &trace},
                                     std::pair{&kReaders[2], &profile}}) {
    SCOPED_TRACE(reader->name);
    const InputError e = error_of(reader->read, *text);
    expect_one_short_line(e);
    EXPECT_NE(e.reason().find("nested deeper than"), std::string::npos) << e.what();
  }
}

// Nesting well within the limit but deeper than any real file still reads, and a wrong-typed deep value
// is described by kind and size, never dumped.
TEST(HostileJson, ModerateNestingIsReportedWithoutDumpingTheValue) {
  const std::string text =
      R"({"format_version": 1, "name": )" + nested_objects(200) + R"(, "ops": []})";
  const InputError e = error_of(kReaders[0].read, text);
  expect_one_short_line(e);
  EXPECT_EQ(e.place(), "/name");
  EXPECT_NE(e.reason().find("expected a string, got an object"), std::string::npos) << e.what();
}

// Long user strings (keys, wrong-typed values) are clipped in messages.
TEST(HostileJson, LongKeysAndValuesAreClippedInMessages) {
  const std::string long_key(100'000, 'k');
  const std::string workload = R"({"format_version": 1, "name": "t", ")" + long_key + R"(": 1, "ops": []})";
  expect_one_short_line(error_of(kReaders[0].read, workload));
  const std::string dup = R"({"format_version": 1, ")" + long_key + R"(": 1, ")" + long_key + R"(": 2})";
  for (const auto& r : kReaders) {
    SCOPED_TRACE(r.name);
    const InputError e = error_of(r.read, dup);
    expect_one_short_line(e);
    EXPECT_NE(e.reason().find("appears twice"), std::string::npos) << e.what();
  }
  const std::string long_value = R"({"format_version": 1, "name": 1, "x": ")" + std::string(100'000, 'v') + "\"}";
  expect_one_short_line(error_of(kReaders[0].read, long_value));
}

// A repeated key is found wherever it is, after many distinct keys, and named with its pointer.
TEST(HostileJson, RepeatedKeyAfterManyKeysIsNamed) {
  const std::string text = R"({"format_version": 1, "name": "t", "ops": [], "extra": )" +
                           wide_object(100'000, /*repeat_first=*/true) + "}";
  for (const auto& r : kReaders) {
    SCOPED_TRACE(r.name);
    const InputError e = error_of(r.read, text);
    expect_one_short_line(e);
    EXPECT_EQ(e.place(), "/extra/k0") << e.what();
    EXPECT_NE(e.reason().find("key 'k0' appears twice"), std::string::npos) << e.what();
  }
}

// Best of three timings of `f`, in seconds.
double best_seconds(const std::function<void()>& f) {
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// The finding: 100k distinct keys took 32 s (each key was checked against every earlier one, 160x the
// time of a plain parse). The baseline, measured in this run on the same text, is nlohmann's own DOM
// parser (a std::map per object, no duplicate check): the strict readers must stay within a small factor.
TEST(HostileJson, ManyKeysCostAboutAPlainParse) {
  const std::string text = R"({"format_version": 1, "wide": )" + wide_object(200'000, false) + "}";
  const double baseline = best_seconds([&] { const auto plain = nlohmann::json::parse(text); });
  for (const auto& r : kReaders) {
    SCOPED_TRACE(r.name);
    const double strict = best_seconds([&] {
      try {
        r.read(text);
      } catch (const InputError&) {
      }
    });
    EXPECT_LT(strict, 6.0 * baseline) << "strict reader " << strict << " s, plain parse " << baseline << " s";
  }
}

}  // namespace
