#pragma once
// Small builders for the viewer tests: traces whose spans are written out by hand.

#include <string>
#include <string_view>
#include <vector>

#include "streamlab/model/trace.hpp"

namespace streamlab::viz::test {

/// The texts of the hand-made spans, kept for the whole test run.
inline model::Text test_text(std::string_view s) {
  static model::StringTable table;
  return table.intern(s);
}

inline model::Span make_span(std::string_view id, model::OpKind kind, std::uint32_t stream, model::Nanos start,
                             model::Nanos end, std::uint32_t device = 0) {
  model::Span s;
  s.op_id = test_text(id);
  s.name = s.op_id;
  s.kind = kind;
  s.device = device;
  s.stream = stream;
  s.engine = model::engine_for(kind);
  s.start_ns = start;
  s.end_ns = end;
  return s;
}

inline model::Trace make_trace(std::vector<model::Span> spans, std::string hash = "h") {
  model::Trace t;
  t.meta.backend = "sim";
  t.meta.workload = "w";
  t.meta.workload_hash = std::move(hash);
  t.spans = std::move(spans);
  return t;
}

}  // namespace streamlab::viz::test
