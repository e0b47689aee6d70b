// libFuzzer target: the trace reader, then what `compare` and the viewer do with an accepted trace.
// Properties: the writer gives back the same spans and block placements and is canonical; metrics are
// sane; a trace compared with itself matches span for span.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"

using namespace streamlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  model::Trace t;
  try {
    t = model::parse_chrome_trace(text, "fuzz.json");
  } catch (const model::InputError&) {
    return 0;
  }
  fuzz::check_trace(t);
  return 0;
}
