// Writes tests/viz/data/: a small workload and a predicted/measured trace pair whose spans are listed in
// data/README.md, so the screenshot test knows what must be drawn where. Not run by the tests; rerun by
// hand (viz_make_test_pair <dir>) only when the data has to change, and update the README with it.

#include <cstdio>
#include <filesystem>
#include <string>

#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"

namespace m = streamlab::model;

namespace {

void op(m::Workload& w, m::Text id, m::OpKind kind, std::initializer_list<std::string_view> deps) {
  m::Op o;
  o.id = o.name = id;
  o.kind = kind;
  if (m::is_copy(kind) || kind == m::OpKind::memset) {
    o.bytes = 8u << 20;
    o.type = m::WorkloadType::memory;
  } else {
    o.shape = m::KernelShape{{4, 1, 1}, {256, 1, 1}, 32, 0};
    o.duration = m::FixedPerBlock{300'000};
  }
  w.add(o, deps);
}

m::Span span(const m::Workload& w, const std::string& id, std::uint32_t stream, m::Nanos start_us, m::Nanos end_us) {
  const auto i = w.index_of(id);
  const auto& o = w.ops[i];
  return m::Span{i, o.id, o.name, o.kind, 0, stream, m::engine_for(o.kind), start_us * 1000, end_us * 1000};
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? argv[1] : ".";
  m::Workload w;
  w.name = "viz-test-pair";
  w.description = "Two upload -> kernel chains and a memset; the viewer's screenshot test pair.";
  op(w, "up0", m::OpKind::h2d, {});
  op(w, "k0", m::OpKind::kernel, {"up0"});
  op(w, "down0", m::OpKind::d2h, {"k0"});
  op(w, "up1", m::OpKind::h2d, {});
  op(w, "k1", m::OpKind::kernel, {"up1"});
  op(w, "ms0", m::OpKind::memset, {});
  m::resolve_and_check(w, "make_test_pair");
  m::save_workload(w, dir / "workload.json");

  m::Trace pred;
  pred.meta = {"sim", "NVIDIA H100 80GB HBM3 (simulated)", "h100-sxm", "round_robin", w.name, w.hash(),
               "test", "2025-01-01T00:00:00Z", {}};
  pred.spans = {span(w, "up0", 1, 0, 200),   span(w, "k0", 1, 200, 500), span(w, "down0", 1, 500, 600),
                span(w, "up1", 2, 200, 400), span(w, "k1", 2, 400, 800), span(w, "ms0", 3, 0, 100)};
  // k0 on SMs 0-3 for its whole span, k1 on SMs 4-7: 4 busy SMs, then 8 over [400, 500) us, then 4.
  for (std::uint32_t b = 0; b < 4; ++b) {
    pred.blocks.push_back({w.index_of("k0"), b, b, 200'000, 500'000});
    pred.blocks.push_back({w.index_of("k1"), b, 4 + b, 400'000, 800'000});
  }
  m::Trace meas;
  meas.meta = {"cuda", "NVIDIA H100 80GB HBM3", "h100-sxm", "round_robin", w.name, w.hash(),
               "test", "2025-01-01T00:00:00Z", {}};
  meas.spans = {span(w, "up0", 1, 10, 230),  span(w, "k0", 1, 240, 600), span(w, "down0", 1, 600, 720),
                span(w, "up1", 2, 230, 450), span(w, "k1", 2, 460, 900), span(w, "ms0", 3, 5, 125)};
  m::save_trace(pred, dir / "pred.json");
  m::save_trace(meas, dir / "meas.json");

  // A measured trace of another workload (same op ids, different hash): the mismatch case.
  m::Trace other = meas;
  other.meta.workload = "something-else";
  other.meta.workload_hash = "0123456789abcdef";
  m::save_trace(other, dir / "other_workload.json");
  std::printf("wrote %s\n", dir.c_str());
  return 0;
}
