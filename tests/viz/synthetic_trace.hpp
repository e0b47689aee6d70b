#pragma once
// A large synthetic trace for the viewer's benchmarks (bench_viz, bench_first_frame.sh via
// viz_make_big_pair): 8 streams of copy -> kernel -> copy chains with log-uniform durations (1 us .. 300
// us) and short gaps. At fit-to-trace nearly every span is sub-pixel; zoomed in, most are wide; kernels
// of different streams overlap, so the SM engine lane has several rows. A second trace of the same
// workload is the first stretched by `stretch` with per-span jitter.

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "streamlab/model/trace.hpp"

namespace streamlab::viz::bench {

inline model::Trace synthetic_trace(std::uint64_t seed, double stretch, model::Nanos jitter_ns,
                                    std::size_t spans = 1'000'000, std::uint32_t streams = 8) {
  using model::Nanos;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_dur(std::log(1'000.0), std::log(300'000.0));
  std::uniform_int_distribution<Nanos> gap(0, 5'000), jitter(0, jitter_ns);
  model::Trace t;
  t.meta.backend = "sim";
  t.meta.workload = "synthetic-chains";
  t.meta.workload_hash = "5e5e5e5e5e5e5e5e";
  t.meta.policy = stretch == 1.0 ? "round-robin" : "stretched";
  t.spans.reserve(spans);
  std::vector<Nanos> clock(streams, 0);
  const model::OpKind kinds[3] = {model::OpKind::h2d, model::OpKind::kernel, model::OpKind::d2h};
  for (std::size_t i = 0; i < spans; ++i) {
    const auto s = static_cast<std::uint32_t>(i % streams);
    const auto kind = kinds[(i / streams) % 3];
    const auto d = static_cast<Nanos>(std::exp(log_dur(rng)) * stretch);
    const Nanos start = clock[s] + gap(rng) + jitter(rng);
    model::Span sp;
    sp.op = static_cast<std::uint32_t>(i);
    sp.op_id = t.intern("op_" + std::to_string(i));
    sp.name = t.intern(std::string(model::to_string(kind)) + " " + std::to_string(i));
    sp.kind = kind;
    sp.stream = s + 1;
    sp.engine = model::engine_for(kind);
    sp.start_ns = start;
    sp.end_ns = start + d;
    clock[s] = sp.end_ns;
    t.spans.push_back(std::move(sp));
  }
  return t;
}

}  // namespace streamlab::viz::bench
